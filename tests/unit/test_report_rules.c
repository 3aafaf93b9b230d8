/* Unit tests for the rule renderers: the list, one rule explained, and the
 * Markdown reference, which must equal the committed docs/rules.md so that
 * the documentation cannot drift from the table. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/file.h"
#include "finding/finding.h"
#include "report/report.h"

static void docs_rules_md_is_current(void **state)
{
    (void)state;
    size_t n;
    const tdx_rule *rules = tdx_rules(&n);
    tdx_buf b;
    tdx_buf_init(&b, 0);
    assert_int_equal(tdx_rep_rules_markdown(rules, n, &b), TDX_OK);
    char *doc;
    size_t len;
    assert_int_equal(tdx_file_read(TDX_SOURCE_DIR "/docs/rules.md", 1 << 22, &doc, &len), TDX_OK);
    if (len != b.len || memcmp(doc, tdx_buf_str(&b), len) != 0) {
        print_error("docs/rules.md differs from the rule table (src/finding/rules_l*.def).\n"
                    "Regenerate it from the repository root with\n"
                    "    build/tritondx rules --markdown > docs/rules.md\n"
                    "and commit the result.\n");
        free(doc);
        tdx_buf_free(&b);
        fail();
    }
    free(doc);
    tdx_buf_free(&b);
}

// Ids and names are unique (SARIF rule lists need it), in order, with the
// level their id range says, and every text a user reads is filled in.
static void table_is_well_formed(void **state)
{
    (void)state;
    size_t n;
    const tdx_rule *r = tdx_rules(&n);
    assert_true(n >= 1);
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(strlen(r[i].id), 6);
        assert_memory_equal(r[i].id, "TDX", 3);
        int num = atoi(r[i].id + 3);
        assert_int_equal(num / 100, r[i].level);
        if (i)
            assert_true(strcmp(r[i - 1].id, r[i].id) < 0);
        for (size_t j = 0; j < i; j++)
            assert_string_not_equal(r[i].name, r[j].name);
        for (const char *p = r[i].name; *p; p++)
            assert_true(islower((unsigned char)*p) || isdigit((unsigned char)*p) || *p == '-');
        assert_true(r[i].short_desc[0] && r[i].full_desc[0] && r[i].help[0] && r[i].basis[0]);
        assert_non_null(r[i].family);
        assert_ptr_equal(tdx_rule_find(r[i].id), &r[i]);
        assert_ptr_equal(tdx_rule_find(r[i].name), &r[i]);
    }
}

static const tdx_rule fake[] = {
    {"TDX001", "tiny-block", 0, TDX_SEV_WARNING, "retune", "the block | is tiny",
     "tritondx counts elements per program.", "raise BLOCK", "notes/h200.md"},
    {"TDX301", "no-pipelining", 3, TDX_SEV_NOTE, "", "no pipelining", "The pipeliner skipped it.",
     "set num_stages", "num_stages defaults to 3 (lib/Dialect/TritonGPU/Transforms/Pipeliner/)"},
};

static void list_and_explain(void **state)
{
    (void)state;
    tdx_buf b;
    tdx_buf_init(&b, 0);
    assert_int_equal(tdx_rep_rules_list(fake, 2, &b), TDX_OK);
    assert_string_equal(tdx_buf_str(&b),
                        "ID      LEVEL SEVERITY NAME          SUMMARY\n"
                        "TDX001  L0    warning  tiny-block    the block | is tiny\n"
                        "TDX301  L3    note     no-pipelining no pipelining\n");
    tdx_buf_reset(&b);
    assert_int_equal(tdx_rep_rule_explain(&fake[1], &b), TDX_OK);
    assert_string_equal(tdx_buf_str(&b), "TDX301 no-pipelining: no pipelining\n\n"
                                         "  level:    3 (compiler-grounded analysis)\n"
                                         "  severity: note\n"
                                         "  rewrite:  (none)\n\n"
                                         "  The pipeliner skipped it.\n\n"
                                         "what to change:\n  set num_stages\n\n"
                                         "the fact behind it:\n"
                                         "  num_stages defaults to 3 "
                                         "(lib/Dialect/TritonGPU/Transforms/Pipeliner/)\n");
    tdx_buf_free(&b);
}

// Long descriptions wrap under 80 columns without splitting words.
static void explain_wraps_long_text(void **state)
{
    (void)state;
    tdx_rule r = fake[0];
    r.full_desc = "one two three four five six seven eight nine ten eleven twelve thirteen "
                  "fourteen fifteen sixteen seventeen eighteen nineteen twenty twenty-one";
    tdx_buf b;
    tdx_buf_init(&b, 0);
    assert_int_equal(tdx_rep_rule_explain(&r, &b), TDX_OK);
    const char *p = tdx_buf_str(&b);
    while (*p) {
        size_t n = strcspn(p, "\n");
        assert_true(n <= 78);
        p += n + (p[n] ? 1 : 0);
    }
    assert_non_null(strstr(tdx_buf_str(&b), "  one two three"));
    assert_non_null(strstr(tdx_buf_str(&b), "twenty-one\n"));
    tdx_buf_free(&b);
}

static void markdown_shape(void **state)
{
    (void)state;
    tdx_buf b;
    tdx_buf_init(&b, 0);
    assert_int_equal(tdx_rep_rules_markdown(fake, 2, &b), TDX_OK);
    const char *s = tdx_buf_str(&b);
    assert_non_null(strstr(s, "| [TDX001](#tdx001-tiny-block) | `tiny-block` | 0 | warning | "
                              "`retune` | the block \\| is tiny |\n"));
    assert_non_null(
        strstr(s, "| [TDX301](#tdx301-no-pipelining) | `no-pipelining` | 3 | note | - |"));
    assert_non_null(strstr(s, "\n## Level 0: source triage\n\n### TDX001 tiny-block\n\n"
                              "The block | is tiny.\n"));
    assert_non_null(strstr(s, "\n## Level 3: compiler-grounded analysis\n"));
    /* The tool's name stays lower case at the start of a sentence. */
    assert_non_null(strstr(s, "\ntritondx counts elements per program.\n"));
    assert_non_null(strstr(s, "**What to change.** Raise BLOCK.\n"));
    /* An identifier at the start keeps its spelling. */
    assert_non_null(strstr(s, "**The fact behind it.** num_stages defaults to 3"));
    tdx_buf_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(docs_rules_md_is_current),
        cmocka_unit_test(table_is_well_formed),
        cmocka_unit_test(list_and_explain),
        cmocka_unit_test(explain_wraps_long_text),
        cmocka_unit_test(markdown_shape),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
