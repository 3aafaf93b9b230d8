/* Code extraction and the guard, driven by tests/data/llm/extract: each
 * NAME.txt is a model's reply, NAME.expect the expected outcome (one
 * "key value" per line: result, pick, blocks, chosen, unterminated, launch,
 * reference, make_inputs, shapes, tolerance, flops, bytes, guard), NAME.code
 * the exact code expected.
 * The guard compares against tests/data/llm/task.py. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/file.h"
#include "llm/extract.h"

#define CASES TDX_TEST_DATA "/llm/extract"

static char *slurp(const char *path, size_t *len)
{
    char *s = NULL;
    if (tdx_file_read(path, 16 << 20, &s, len) != TDX_OK)
        return NULL;
    return s;
}

static const char *pick_str(tdx_llm_pick p)
{
    switch (p) {
    case TDX_LLM_PICK_NONE: return "none";
    case TDX_LLM_PICK_TASK: return "task";
    case TDX_LLM_PICK_LARGEST: return "largest";
    case TDX_LLM_PICK_BARE: return "bare";
    }
    return "?";
}

/* Check one case; returns the number of expectations checked. */
static int run_case(const char *name, const char *orig, size_t olen)
{
    char path[1024];
    size_t tlen, elen, clen;
    snprintf(path, sizeof path, "%s/%s.txt", CASES, name);
    char *text = slurp(path, &tlen);
    assert_non_null(text);
    snprintf(path, sizeof path, "%s/%s.expect", CASES, name);
    char *expect = slurp(path, &elen);
    assert_non_null(expect);
    snprintf(path, sizeof path, "%s/%s.code", CASES, name);
    char *want_code = slurp(path, &clen);

    tdx_llm_code code;
    tdx_status st = tdx_llm_extract(text, tlen, &code);
    tdx_llm_guard g;
    tdx_llm_guard_check(orig, olen, code.code, code.len, &g);
    int checked = 0;
    char *save = NULL;
    for (char *line = strtok_r(expect, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        if (line[0] == '#' || line[0] == '\0')
            continue;
        char *val = strchr(line, ' ');
        if (!val)
            fail_msg("%s: bad line '%s'", name, line);
        *val++ = '\0';
        char got[256];
        if (strcmp(line, "result") == 0) {
            if (st == TDX_OK)
                snprintf(got, sizeof got, "ok");
            else
                snprintf(got, sizeof got, "error %s", code.error);
        } else if (strcmp(line, "pick") == 0)
            snprintf(got, sizeof got, "%s", pick_str(code.pick));
        else if (strcmp(line, "blocks") == 0)
            snprintf(got, sizeof got, "%d", code.nblocks);
        else if (strcmp(line, "chosen") == 0)
            snprintf(got, sizeof got, "%d", code.chosen);
        else if (strcmp(line, "unterminated") == 0)
            snprintf(got, sizeof got, "%d", code.unterminated);
        else if (strcmp(line, "launch") == 0)
            snprintf(got, sizeof got, "%s", tdx_llm_keep_str(g.launch));
        else if (strcmp(line, "reference") == 0)
            snprintf(got, sizeof got, "%s", tdx_llm_keep_str(g.reference));
        else if (strcmp(line, "make_inputs") == 0)
            snprintf(got, sizeof got, "%s", tdx_llm_keep_str(g.make_inputs));
        else if (strcmp(line, "shapes") == 0)
            snprintf(got, sizeof got, "%s", tdx_llm_keep_str(g.shapes));
        else if (strcmp(line, "tolerance") == 0)
            snprintf(got, sizeof got, "%s", tdx_llm_keep_str(g.tolerance));
        else if (strcmp(line, "flops") == 0)
            snprintf(got, sizeof got, "%s", tdx_llm_keep_str(g.flops));
        else if (strcmp(line, "bytes") == 0)
            snprintf(got, sizeof got, "%s", tdx_llm_keep_str(g.bytes));
        else if (strcmp(line, "guard") == 0)
            snprintf(got, sizeof got, "%s", tdx_llm_guard_ok(&g) ? "ok" : g.reason);
        else
            fail_msg("%s: unknown key '%s'", name, line);
        if (strcmp(got, val) != 0)
            fail_msg("%s: %s: expected '%s', got '%s'", name, line, val, got);
        checked++;
    }
    if (want_code) {
        assert_non_null(code.code);
        if (code.len != clen || memcmp(code.code, want_code, clen) != 0)
            fail_msg("%s: extracted code differs from %s.code (%zu vs %zu bytes)", name, name,
                     code.len, clen);
        checked++;
    } else if (st == TDX_OK) {
        fail_msg("%s: extraction succeeded but there is no %s.code", name, name);
    }
    tdx_llm_code_free(&code);
    free(want_code);
    free(expect);
    free(text);
    return checked;
}

static void test_extract_cases(void **state)
{
    (void)state;
    size_t olen;
    char *orig = slurp(TDX_TEST_DATA "/llm/task.py", &olen);
    assert_non_null(orig);
    DIR *dir = opendir(CASES);
    assert_non_null(dir);
    struct dirent *e;
    int cases = 0, checks = 0;
    while ((e = readdir(dir)) != NULL) {
        size_t n = strlen(e->d_name);
        if (n < 5 || strcmp(e->d_name + n - 4, ".txt") != 0)
            continue;
        char name[256];
        snprintf(name, sizeof name, "%.*s", (int)(n - 4), e->d_name);
        checks += run_case(name, orig, olen);
        cases++;
    }
    closedir(dir);
    free(orig);
    /* The fixtures are the test: a lost folder must not pass quietly. */
    assert_true(cases >= 20);
    assert_true(checks >= 5 * cases);
}

/* The guard alone, on small texts where the edge is the point. */
static void check_launch(const char *a, const char *b, tdx_llm_keep want)
{
    tdx_llm_guard g;
    tdx_llm_guard_check(a, strlen(a), b, strlen(b), &g);
    if (g.launch != want)
        fail_msg("launch: expected %s, got %s for\n%s\nvs\n%s", tdx_llm_keep_str(want),
                 tdx_llm_keep_str(g.launch), a, b);
}

static void test_guard_signatures(void **state)
{
    (void)state;
    const char *orig = "def launch(x, y, BLOCK=128):\n    return x\n";
    check_launch(orig, "def launch(x, y, BLOCK=128):\n    pass\n", TDX_LLM_KEEP_SAME);
    check_launch(orig, "def launch(x,y,BLOCK = 128,):\n    pass\n", TDX_LLM_KEEP_SAME);
    check_launch(orig, "def launch(\n    x,  # input\n    y,\n    BLOCK=128,\n):\n    pass\n",
                 TDX_LLM_KEEP_SAME);
    check_launch(orig, "def launch(x: torch.Tensor, y: 'T', BLOCK: int = 128) -> None:\n    pass\n",
                 TDX_LLM_KEEP_SAME);
    check_launch(orig, "def launch(x, y, BLOCK=256):\n    pass\n", TDX_LLM_KEEP_CHANGED);
    check_launch(orig, "def launch(y, x, BLOCK=128):\n    pass\n", TDX_LLM_KEEP_CHANGED);
    check_launch(orig, "def launch(x, y):\n    pass\n", TDX_LLM_KEEP_CHANGED);
    check_launch(orig, "def launch(*args):\n    pass\n", TDX_LLM_KEEP_CHANGED);
    /* Nested or indented definitions do not count; a string mentioning it neither. */
    check_launch(orig, "class A:\n    def launch(x, y, BLOCK=128):\n        pass\n",
                 TDX_LLM_KEEP_MISSING);
    check_launch(orig, "s = '''\ndef launch(x, y, BLOCK=128):\n'''\n", TDX_LLM_KEEP_MISSING);
    check_launch(orig, "def launcher(x, y, BLOCK=128):\n    pass\n", TDX_LLM_KEEP_MISSING);
    check_launch("x = 1\n", "def launch(x):\n    pass\n", TDX_LLM_KEEP_ABSENT);
    /* Defaults holding brackets, strings and colons stay whole. */
    check_launch("def launch(x, cfg={'a': (1, 2)}, f=lambda v: v):\n    pass\n",
                 "def launch(x, cfg={'a': (1, 2)}, f=lambda v: v):\n    return 1\n",
                 TDX_LLM_KEEP_SAME);
    check_launch("def launch(x, cfg={'a': (1, 2)}):\n    pass\n",
                 "def launch(x, cfg={'a': (1, 3)}):\n    pass\n", TDX_LLM_KEEP_CHANGED);
}

static void test_guard_blocks(void **state)
{
    (void)state;
    const char *orig = "def reference(x):\n    \"\"\"doc\nat column 0\n\"\"\"\n    return x\n"
                       "# a comment after it\n\nSHAPES = {\n\"bench\": 1,\n}\n";
    tdx_llm_guard g;
    /* Trailing whitespace, CRLF and the comment after the block do not matter. */
    const char *same = "import torch\r\n\r\ndef reference(x):  \r\n    \"\"\"doc\r\nat column 0\r\n"
                       "\"\"\"\r\n    return x\r\n\r\nSHAPES = {\r\n\"bench\": 1,\r\n}\r\n";
    tdx_llm_guard_check(orig, strlen(orig), same, strlen(same), &g);
    assert_int_equal(g.reference, TDX_LLM_KEEP_SAME);
    assert_int_equal(g.shapes, TDX_LLM_KEEP_SAME);
    assert_int_equal(g.make_inputs, TDX_LLM_KEEP_ABSENT);
    const char *changed = "def reference(x):\n    \"\"\"doc\nat column 1\n\"\"\"\n    return x\n"
                          "SHAPES = {\n\"bench\": 2,\n}\n";
    tdx_llm_guard_check(orig, strlen(orig), changed, strlen(changed), &g);
    assert_int_equal(g.reference, TDX_LLM_KEEP_CHANGED);
    assert_int_equal(g.shapes, TDX_LLM_KEEP_CHANGED);
    /* What the original lacks must stay absent: an added TOLERANCE or flops
     * would change how the candidate is judged. */
    const char *added = "def reference(x):\n    \"\"\"doc\nat column 0\n\"\"\"\n    return x\n"
                        "SHAPES = {\n\"bench\": 1,\n}\nTOLERANCE: float = 1.0\n"
                        "def flops(inputs):\n    return 1e30\n";
    tdx_llm_guard_check(orig, strlen(orig), added, strlen(added), &g);
    assert_int_equal(g.reference, TDX_LLM_KEEP_SAME);
    assert_int_equal(g.tolerance, TDX_LLM_KEEP_CHANGED);
    assert_int_equal(g.flops, TDX_LLM_KEEP_CHANGED);
    assert_int_equal(g.bytes, TDX_LLM_KEEP_ABSENT);
    assert_string_equal(g.reason, "the candidate changed or added TOLERANCE");
    /* A rebinding after the untouched def is caught. */
    const char *rebound = "def reference(x):\n    \"\"\"doc\nat column 0\n\"\"\"\n    return x\n"
                          "SHAPES = {\n\"bench\": 1,\n}\nreference = launch\n";
    tdx_llm_guard_check(orig, strlen(orig), rebound, strlen(rebound), &g);
    assert_int_equal(g.reference, TDX_LLM_KEEP_CHANGED);
    assert_int_equal(g.shapes, TDX_LLM_KEEP_SAME);
    /* SHAPES compared with == is not an assignment. */
    const char *cmp = "if SHAPES == 1:\n    pass\n";
    tdx_llm_guard_check(orig, strlen(orig), cmp, strlen(cmp), &g);
    assert_int_equal(g.shapes, TDX_LLM_KEEP_MISSING);
    assert_false(tdx_llm_guard_ok(&g));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_extract_cases),
        cmocka_unit_test(test_guard_signatures),
        cmocka_unit_test(test_guard_blocks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
