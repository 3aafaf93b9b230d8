/* Data-driven tests of level 0 triage: every tests/data/triage/NAME.py is
 * triaged and compared with NAME.expect, whose lines are
 *   kernel <name> <pattern>     a kernel and its pattern class
 *   finding <RULE> <line>       a finding of that rule on that line
 *   error                       the file does not parse
 * (# starts a comment). A missing or an extra kernel or finding fails. The
 * corpus as a whole must exercise every level-0 rule. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/file.h"
#include "finding/finding.h"
#include "model/model.h"
#include "source/ast.h"
#include "triage/triage.h"

#define DATA TDX_TEST_DATA "/triage"

enum { MAX_LINES = 256 };

typedef struct expect {
    char lines[MAX_LINES][200]; /* normalised: "kernel NAME PATTERN" / "finding RULE LINE" */
    int used[MAX_LINES];
    int n;
    int error;
} expect;

static int read_expect(const char *path, expect *e)
{
    FILE *fp = fopen(path, "r");
    if (!fp)
        return -1;
    char buf[256];
    memset(e, 0, sizeof *e);
    while (fgets(buf, sizeof buf, fp)) {
        char a[64], b[64], c[64];
        char *hash = strchr(buf, '#');
        if (hash)
            *hash = 0;
        int k = sscanf(buf, "%63s %63s %63s", a, b, c);
        if (k <= 0)
            continue;
        if (k == 1 && strcmp(a, "error") == 0) {
            e->error = 1;
            continue;
        }
        if (k != 3 || e->n == MAX_LINES) {
            fclose(fp);
            return -1;
        }
        snprintf(e->lines[e->n++], sizeof e->lines[0], "%s %s %s", a, b, c);
    }
    fclose(fp);
    return 0;
}

// Consume one expected line equal to got; returns 0 when found.
static int take(expect *e, const char *got)
{
    for (int i = 0; i < e->n; i++)
        if (!e->used[i] && strcmp(e->lines[i], got) == 0) {
            e->used[i] = 1;
            return 0;
        }
    return -1;
}

// Triage one file against its sidecar; returns the number of mismatches
// and records which rules fired in seen[].
static int check_file(const char *name, int *seen, size_t nrules, const tdx_rule *rules)
{
    char py[512], ex[512];
    snprintf(py, sizeof py, "%s/%s.py", DATA, name);
    snprintf(ex, sizeof ex, "%s/%s.expect", DATA, name);
    expect e;
    if (read_expect(ex, &e) != 0) {
        print_error("%s: missing or malformed .expect\n", name);
        return 1;
    }
    char *src;
    size_t len;
    if (tdx_file_read(py, 1 << 22, &src, &len) != TDX_OK) {
        print_error("%s: cannot read\n", py);
        return 1;
    }
    tdx_ledger l;
    tdx_diags d;
    tdx_ledger_init(&l);
    tdx_diags_init(&d);
    tdx_status st = tdx_tri_source(py, src, len, &l, &d);
    int bad = 0;
    if (e.error != (st == TDX_ERR_PARSE)) {
        print_error("%s: status %s, expected %s\n", name, tdx_status_str(st),
                    e.error ? "a parse error" : "ok");
        bad++;
    }
    if (e.error && d.nerrors == 0) {
        print_error("%s: parse error without a diagnostic\n", name);
        bad++;
    }
    if (!e.error && st != TDX_OK)
        bad++;
    char got[200];
    for (size_t i = 0; i < l.kernels.len; i++) {
        const tdx_kernel_info *k = l.kernels.items[i];
        snprintf(got, sizeof got, "kernel %s %s", k->name, k->pattern);
        if (take(&e, got) != 0) {
            print_error("%s: unexpected %s\n", name, got);
            bad++;
        }
        if (k->confidence <= 0 || k->confidence > 1) {
            print_error("%s: kernel %s confidence %g\n", name, k->name, k->confidence);
            bad++;
        }
    }
    for (size_t i = 0; i < tdx_ledger_count(&l); i++) {
        const tdx_finding *f = tdx_ledger_at(&l, i);
        snprintf(got, sizeof got, "finding %s %d", f->rule->id, f->line);
        if (take(&e, got) != 0) {
            print_error("%s: unexpected %s (%s)\n", name, got, f->message);
            bad++;
        }
        if (!f->message || !f->message[0] || f->col <= 0 || f->confidence <= 0 ||
            f->confidence > 1 || !f->hypothesis || !f->family) {
            print_error("%s: incomplete finding %s at line %d\n", name, f->rule->id, f->line);
            bad++;
        }
        for (size_t r = 0; r < nrules; r++)
            if (&rules[r] == f->rule)
                seen[r]++;
    }
    for (int i = 0; i < e.n; i++)
        if (!e.used[i]) {
            print_error("%s: missing %s\n", name, e.lines[i]);
            bad++;
        }
    tdx_ledger_free(&l);
    tdx_diags_free(&d);
    free(src);
    return bad;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void corpus_matches_expectations(void **state)
{
    (void)state;
    DIR *dir = opendir(DATA);
    assert_non_null(dir);
    char *names[512];
    size_t n = 0;
    struct dirent *de;
    while ((de = readdir(dir)) && n < 512) {
        size_t len = strlen(de->d_name);
        if (len > 3 && strcmp(de->d_name + len - 3, ".py") == 0)
            names[n++] = strndup(de->d_name, len - 3);
    }
    closedir(dir);
    qsort(names, n, sizeof names[0], cmp_str);
    assert_true(n >= 30);
    size_t nrules;
    const tdx_rule *rules = tdx_rules(&nrules);
    int *seen = calloc(nrules, sizeof *seen);
    int bad = 0;
    for (size_t i = 0; i < n; i++) {
        bad += check_file(names[i], seen, nrules, rules);
        free(names[i]);
    }
    /* every level-0 rule except the parse error must fire somewhere */
    for (size_t r = 0; r < nrules; r++)
        if (rules[r].level == 0 && strcmp(rules[r].id, "TDX000") != 0 && !seen[r]) {
            print_error("no corpus file exercises %s (%s)\n", rules[r].id, rules[r].name);
            bad++;
        }
    free(seen);
    assert_int_equal(bad, 0);
}

// The bundled example reads its rows three times: the multi-pass rule.
static void example_softmax_is_multi_pass(void **state)
{
    (void)state;
    char *src;
    size_t len;
    const char *path = TDX_SOURCE_DIR "/examples/softmax.py";
    assert_int_equal(tdx_file_read(path, 1 << 22, &src, &len), TDX_OK);
    tdx_ledger l;
    tdx_diags d;
    tdx_ledger_init(&l);
    tdx_diags_init(&d);
    assert_int_equal(tdx_tri_source(path, src, len, &l, &d), TDX_OK);
    assert_int_equal(l.kernels.len, 1);
    assert_string_equal(((tdx_kernel_info *)l.kernels.items[0])->pattern, "softmax-norm");
    int multi = 0;
    for (size_t i = 0; i < tdx_ledger_count(&l); i++) {
        const tdx_finding *f = tdx_ledger_at(&l, i);
        if (strcmp(f->rule->id, "TDX005") == 0) {
            multi++;
            assert_string_equal(f->family, "single-pass-reduction");
            assert_string_equal(tdx_finding_get_fact(f, "passes"), "3");
            assert_string_equal(f->kernel, "softmax_kernel");
        }
    }
    assert_int_equal(multi, 1);
    tdx_ledger_free(&l);
    tdx_diags_free(&d);
    free(src);
}

// Every level-0 rule carries the fields the renderers and the optimizer use.
static void rule_table_is_complete(void **state)
{
    (void)state;
    size_t n;
    const tdx_rule *rules = tdx_rules(&n);
    static const char *const families[] = {
        "", "retune", "alignment-hints", "tensor-cores", "pipelining", "grouped-order",
        "split-k", "split-reduction", "fold-programs", "single-pass-reduction", "vectorize-loop", "coalesce", "exp2",
        "persistent-grid", "remove-launch-passes", "fuse-launches", "operand-layout", "block-outputs",
        "defer-reduction", "peel-masks", "relax-atomics", "dot-accumulate", "tensor-descriptors", "hoist-scale",
        "row-grid", "reverse-pass", "erf-polynomial", "heavy-first", NULL};
    int l0 = 0;
    for (size_t i = 0; i < n; i++) {
        if (rules[i].level != 0)
            continue;
        l0++;
        assert_true(strncmp(rules[i].id, "TDX0", 4) == 0);
        assert_true(rules[i].name[0] && rules[i].short_desc[0] && rules[i].full_desc[0] &&
                    rules[i].help[0] && rules[i].basis[0]);
        int known = 0;
        for (const char *const *f = families; *f; f++)
            known |= strcmp(*f, rules[i].family) == 0;
        assert_true(known);
    }
    assert_true(l0 >= 13);
}

// Helpers are folded into the kernels that call them (a load in a helper
// is a load of the kernel), and a file is triaged the same way every time.
static void repeated_runs_are_identical(void **state)
{
    (void)state;
    static const char src[] =
        "import triton\nimport triton.language as tl\n\n"
        "@triton.jit\ndef _load_row(p, cols, n):\n"
        "    return tl.load(p + cols, mask=cols < n, other=0.0)\n\n"
        "@triton.jit\ndef k(x_ptr, y_ptr, n, BLOCK: tl.constexpr):\n"
        "    row = tl.program_id(0)\n"
        "    cols = tl.arange(0, BLOCK)\n"
        "    for _ in range(0, n, BLOCK):\n"
        "        a = _load_row(x_ptr + row * n, cols, n)\n"
        "    for _ in range(0, n, BLOCK):\n"
        "        b = _load_row(x_ptr + row * n, cols, n)\n"
        "        tl.store(y_ptr + row * n + cols, b - tl.max(a, axis=0), mask=cols < n)\n";
    for (int round = 0; round < 3; round++) {
        tdx_ledger l;
        tdx_diags d;
        tdx_ledger_init(&l);
        tdx_diags_init(&d);
        assert_int_equal(tdx_tri_source("h.py", src, sizeof src - 1, &l, &d), TDX_OK);
        assert_int_equal(l.kernels.len, 1); /* _load_row is a helper */
        assert_string_equal(((tdx_kernel_info *)l.kernels.items[0])->name, "k");
        /* the helper's load runs in two passes: one multi-pass finding, at the
         * helper's line */
        assert_int_equal(tdx_ledger_count(&l), 1);
        const tdx_finding *f = tdx_ledger_at(&l, 0);
        assert_string_equal(f->rule->id, "TDX005");
        assert_int_equal(f->line, 6);
        assert_string_equal(f->kernel, "k");
        tdx_ledger_free(&l);
        tdx_diags_free(&d);
    }
}

// Helpers that call helpers ten times each, eight levels deep: folding is
// bounded (depth and statement budget) and the kernel's own code is still
// seen.
static void helper_fan_out_is_bounded(void **state)
{
    (void)state;
    tdx_buf b;
    tdx_buf_init(&b, 0);
    tdx_buf_adds(&b, "import triton\nimport triton.language as tl\n\n"
                     "@triton.jit\ndef h0(p, o):\n    return tl.load(p + o)\n\n");
    for (int i = 1; i < 8; i++) {
        tdx_buf_printf(&b, "@triton.jit\ndef h%d(p, o):\n", i);
        for (int j = 0; j < 10; j++)
            tdx_buf_printf(&b, "    a%d = h%d(p, o + %d)\n", j, i - 1, j);
        tdx_buf_adds(&b, "    return a0\n\n");
    }
    tdx_buf_adds(&b, "@triton.jit\ndef k(x_ptr):\n");
    for (int j = 0; j < 10; j++)
        tdx_buf_printf(&b, "    b%d = h7(x_ptr, tl.arange(0, 128))\n", j);
    tdx_buf_adds(&b, "    tl.store(x_ptr + tl.arange(0, 128), b0)\n");
    tdx_ledger l;
    tdx_diags d;
    tdx_ledger_init(&l);
    tdx_diags_init(&d);
    assert_int_equal(tdx_tri_source("fan.py", tdx_buf_str(&b), b.len, &l, &d), TDX_OK);
    assert_int_equal(l.kernels.len, 1);
    assert_string_equal(((tdx_kernel_info *)l.kernels.items[0])->pattern, "elementwise");
    tdx_ledger_free(&l);
    tdx_diags_free(&d);
    tdx_buf_free(&b);
}

// Triage of a kept tree and model gives what triage of the source gives.
static void model_entry_matches_source_entry(void **state)
{
    (void)state;
    char *src;
    size_t len;
    const char *path = TDX_SOURCE_DIR "/examples/softmax.py";
    assert_int_equal(tdx_file_read(path, 1 << 22, &src, &len), TDX_OK);
    tdx_ledger a, b;
    tdx_diags d;
    tdx_ledger_init(&a);
    tdx_ledger_init(&b);
    tdx_diags_init(&d);
    assert_int_equal(tdx_tri_source(path, src, len, &a, &d), TDX_OK);
    tdx_arena arena;
    tdx_arena_init(&arena, 0);
    tdx_src_module *mod;
    tdx_km_file *km;
    assert_int_equal(tdx_src_parse(path, src, len, &arena, &d, &mod), TDX_OK);
    assert_int_equal(tdx_km_build(mod, &arena, &km), TDX_OK);
    assert_int_equal(tdx_tri_model(path, km, &b), TDX_OK);
    assert_int_equal(a.kernels.len, b.kernels.len);
    assert_int_equal(tdx_ledger_count(&a), tdx_ledger_count(&b));
    for (size_t i = 0; i < tdx_ledger_count(&a); i++) {
        assert_string_equal(tdx_ledger_at(&a, i)->rule->id, tdx_ledger_at(&b, i)->rule->id);
        assert_int_equal(tdx_ledger_at(&a, i)->line, tdx_ledger_at(&b, i)->line);
        assert_string_equal(tdx_ledger_at(&a, i)->message, tdx_ledger_at(&b, i)->message);
    }
    tdx_arena_free(&arena);
    tdx_ledger_free(&a);
    tdx_ledger_free(&b);
    tdx_diags_free(&d);
    free(src);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(corpus_matches_expectations),
        cmocka_unit_test(example_softmax_is_multi_pass),
        cmocka_unit_test(rule_table_is_complete),
        cmocka_unit_test(repeated_runs_are_identical),
        cmocka_unit_test(helper_fan_out_is_bounded),
        cmocka_unit_test(model_entry_matches_source_entry),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
