/* Level 2 rules over the committed IR fixtures (tests/data/ir/<case>/),
 * with the findings expected per case in tests/data/analyze/l2/<case>.txt:
 * one line per finding, "RULE severity line what"; a missing or an extra
 * finding fails. Set TDX_AN_PRINT=1 to print what was found. No Python. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <dirent.h>
#include <sys/wait.h>
#include <unistd.h>

#include "analyze/analyze.h"
#include "base/file.h"
#include "diagnose/levels.h"

// Every fixture folder (one with a meta.json), in name order, so that a new
// fixture without an expected file fails.
static size_t list_cases(char names[][128], size_t max)
{
    size_t n = 0;
    DIR *d = opendir(TDX_TEST_DATA "/ir");
    assert_non_null(d);
    struct dirent *e;
    while ((e = readdir(d)) && n < max) {
        char meta[4096];
        snprintf(meta, sizeof meta, "%s/ir/%s/meta.json", TDX_TEST_DATA, e->d_name);
        if (e->d_name[0] != '.' && access(meta, R_OK) == 0 && strlen(e->d_name) < 128)
            snprintf(names[n++], 128, "%s", e->d_name);
    }
    closedir(d);
    qsort(names, n, sizeof names[0], (int (*)(const void *, const void *))strcmp);
    return n;
}

// Load one fixture as a capture of one kernel.
static void load_case(const char *name, tdx_an_capture *c)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/ir/%s", TDX_TEST_DATA, name);
    tdx_diags d;
    tdx_diags_init(&d);
    tdx_an_capture_init(c);
    tdx_status st = tdx_an_capture_add_dir(c, dir, &d);
    if (st)
        fprintf(stderr, "%s: %s (%s)\n", name, tdx_status_str(st), d.len ? d.items[0].msg : "");
    assert_int_equal(st, TDX_OK);
    assert_int_equal(c->nkernels, 1);
    tdx_diags_free(&d);
}

// "RULE sev line what" per finding, in ledger order.
static void render(const tdx_ledger *l, int level, tdx_buf *out)
{
    for (size_t i = 0; i < tdx_ledger_count(l); i++) {
        const tdx_finding *f = tdx_ledger_at(l, i);
        if (f->level != level)
            continue;
        const char *what = tdx_finding_get_fact(f, "what");
        tdx_buf_printf(out, "%s %s %d %s\n", f->rule->id, tdx_severity_str(f->sev), f->line,
                       what ? what : "-");
    }
}

// The expected file without comment lines and blank lines.
static char *expected(const char *path)
{
    char *text = NULL;
    size_t len = 0;
    if (tdx_file_read(path, 1 << 20, &text, &len) != TDX_OK)
        return NULL;
    tdx_buf b;
    tdx_buf_init(&b, 0);
    for (char *ln = text; ln && *ln;) {
        char *nl = strchr(ln, '\n');
        size_t n = nl ? (size_t)(nl - ln) : strlen(ln);
        if (n && ln[0] != '#') {
            tdx_buf_add(&b, ln, n);
            tdx_buf_addc(&b, '\n');
        }
        ln = nl ? nl + 1 : NULL;
    }
    free(text);
    size_t blen;
    char *s = tdx_buf_detach(&b, &blen);
    return s ? s : strdup("");
}

static void test_l2_fixtures(void **state)
{
    (void)state;
    int failed = 0;
    static char cases[64][128];
    size_t ncases = list_cases(cases, 64);
    assert_true(ncases >= 18);
    for (size_t i = 0; i < ncases; i++) {
        tdx_an_capture c;
        load_case(cases[i], &c);
        tdx_ledger l;
        tdx_ledger_init(&l);
        assert_int_equal(tdx_an_attribute(&c.kernels[0], NULL, &l), TDX_OK);
        tdx_buf got;
        tdx_buf_init(&got, 0);
        render(&l, 2, &got);
        char path[4096];
        snprintf(path, sizeof path, "%s/analyze/l2/%s.txt", TDX_TEST_DATA, cases[i]);
        char *want = expected(path);
        if (getenv("TDX_AN_PRINT")) {
            printf("== %s\n%s", cases[i], tdx_buf_str(&got));
            for (size_t j = 0; j < tdx_ledger_count(&l); j++) {
                const tdx_finding *f = tdx_ledger_at(&l, j);
                printf("   %s:%d:%d %s\n%s", f->file, f->line, f->col, f->message,
                       f->evidence ? f->evidence : "");
            }
        }
        if (!want || strcmp(want, tdx_buf_str(&got)) != 0) {
            fprintf(stderr, "%s: findings differ\n--- expected (%s)\n%s--- got\n%s", cases[i], path,
                    want ? want : "(missing file)\n", tdx_buf_str(&got));
            failed++;
        }
        free(want);
        tdx_buf_free(&got);
        tdx_ledger_free(&l);
        tdx_an_capture_free(&c);
    }
    assert_int_equal(failed, 0);
}

// Locations come from the IR's loc() chains and every finding names its
// kernel; the summary cites every other finding of the kernel.
static void test_l2_locations_and_cites(void **state)
{
    (void)state;
    tdx_an_capture c;
    load_case("scale_rows_lostdiv", &c);
    tdx_ledger l;
    tdx_ledger_init(&l);
    int l1 = 0;
    tdx_finding *sym = tdx_ledger_add(&l, "TDX100", "k.py", 1, 1, "memory-bound at 31%% of copy bandwidth");
    assert_non_null(sym);
    l1 = sym->id;
    tdx_an_l2opts o = {0};
    o.cites = &l1;
    o.ncites = 1;
    o.symptom = "memory-bound at 31% of copy bandwidth";
    assert_int_equal(tdx_an_attribute(&c.kernels[0], &o, &l), TDX_OK);
    assert_int_equal(tdx_ledger_count(&l), 4);
    const tdx_finding *ld = tdx_ledger_at(&l, 1);
    assert_string_equal(ld->rule->id, "TDX200");
    assert_string_equal(ld->file, "kernels/elementwise.py");
    assert_int_equal(ld->line, 40);
    assert_true(ld->col > 0);
    assert_string_equal(ld->kernel, "scale_rows_kernel");
    assert_int_equal(ld->ncites, 1);
    assert_int_equal(ld->cites[0], l1);
    assert_non_null(strstr(ld->evidence, "ld.global.b16"));
    assert_non_null(strstr(ld->evidence, "tt.load"));
    const tdx_finding *sum = tdx_ledger_at(&l, 3);
    assert_string_equal(sum->rule->id, "TDX206");
    assert_non_null(strstr(sum->message, "memory-bound at 31% of copy bandwidth: scalar loads at "
                                         "elementwise.py:40 (x)"));
    assert_int_equal(sum->ncites, 3); /* the symptom, the load, the store */
    tdx_ledger_free(&l);
    tdx_an_capture_free(&c);
}

// What TDX200 says of a scalar access: a gather through // or % points at
// row-grid (no hint makes its neighbours contiguous); a lost alignment
// (scale_rows_lostdiv: stride under do_not_specialize) at alignment-hints.
// And TDX209 where the tile, not the address, caps the width; TDX202 at
// tensor-cores on FMA, at retune on mma.sync.
static const tdx_finding *first_of(const tdx_ledger *l, const char *rule)
{
    for (size_t i = 0; i < tdx_ledger_count(l); i++)
        if (strcmp(tdx_ledger_at(l, i)->rule->id, rule) == 0)
            return tdx_ledger_at(l, i);
    return NULL;
}

static void test_l2_scalar_causes(void **state)
{
    (void)state;
    static const struct {
        const char *fixture, *rule, *family, *gather, *hypothesis;
    } cases[] = {
        {"channel_gather", "TDX200", "row-grid", "1", "a division or a remainder"},
        {"scale_rows_lostdiv", "TDX200", "alignment-hints", "0", "AxisInfo could not prove"},
        {"gelu_fp16_b256", "TDX209", "retune", NULL, "the tile is too small for the threads: 2 global accesses "
                                                      "move 4 of 16 bytes"},
        /* a dot on FMA needs another precision; one on mma.sync another tile or warps */
        {"dot_fp32_ieee", "TDX202", "tensor-cores", NULL, "a small fraction of the rate wgmma"},
        {"dot_fp16_mma2", "TDX202", "retune", NULL, "about half the rate wgmma"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tdx_an_capture c;
        load_case(cases[i].fixture, &c);
        tdx_ledger l;
        tdx_ledger_init(&l);
        assert_int_equal(tdx_an_attribute(&c.kernels[0], NULL, &l), TDX_OK);
        const tdx_finding *f = first_of(&l, cases[i].rule);
        assert_non_null(f);
        assert_string_equal(f->family, cases[i].family);
        if (cases[i].gather)
            assert_string_equal(tdx_finding_get_fact(f, "gather"), cases[i].gather);
        assert_non_null(f->hypothesis);
        if (!strstr(f->hypothesis, cases[i].hypothesis))
            fail_msg("%s: hypothesis \"%s\" lacks \"%s\"", cases[i].fixture, f->hypothesis, cases[i].hypothesis);
        tdx_ledger_free(&l);
        tdx_an_capture_free(&c);
    }
}

// A two-pass kernel (tests/data/analyze/ir/twopass, captured from the
// twopass.py next to it): the static estimate counts x read twice.
static void test_l2_reread(void **state)
{
    (void)state;
    tdx_an_capture c;
    tdx_an_capture_init(&c);
    assert_int_equal(tdx_an_capture_add_dir(&c, TDX_TEST_DATA "/analyze/ir/twopass", NULL), TDX_OK);
    tdx_ledger l;
    tdx_ledger_init(&l);
    assert_int_equal(tdx_an_attribute(&c.kernels[0], NULL, &l), TDX_OK);
    const tdx_finding *sum = NULL;
    for (size_t i = 0; i < tdx_ledger_count(&l); i++)
        if (strcmp(tdx_ledger_at(&l, i)->rule->id, "TDX206") == 0)
            sum = tdx_ledger_at(&l, i);
    assert_non_null(sum);
    if (getenv("TDX_AN_PRINT"))
        printf("%s\n", sum->message);
    assert_non_null(strstr(sum->message, "static estimate: 12 B moved per element where 8 B is ideal"));
    assert_non_null(strstr(sum->message, "x_ptr read at lines 13, 14 (1.5x the ideal bytes per element)"));
    assert_string_equal(tdx_finding_get_fact(sum, "bytes_per_elem"), "12");
    assert_string_equal(tdx_finding_get_fact(sum, "ideal_bytes_per_elem"), "8");
    tdx_ledger_free(&l);
    tdx_an_capture_free(&c);
}

// Diagnose runs levels 2 and 3 from this module, sharing one session.
static void test_levels_wired(void **state)
{
    (void)state;
    tdx_dx_opts o;
    memset(&o, 0, sizeof o);
    tdx_dx_levels_default(&o);
    assert_true(o.levels[2].run == tdx_an_level2);
    assert_true(o.levels[3].run == tdx_an_level3);
    assert_non_null(o.levels[2].ud);
    assert_ptr_equal(o.levels[2].ud, o.levels[3].ud);
}

// Exit status of `tritondx ARGS` with output discarded.
static int cli(const char *args)
{
    char cmd[8192];
    snprintf(cmd, sizeof cmd, "'%s' %s >/dev/null 2>&1", TDX_CLI, args);
    int rc = system(cmd);
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

// The commands' option handling (no compile is started on a usage error).
static void test_cli_usage(void **state)
{
    (void)state;
    assert_int_equal(cli("attribute --help"), 0);
    assert_int_equal(cli("analyze -h"), 0);
    assert_int_equal(cli("attribute"), 2);
    assert_int_equal(cli("analyze a.py b.py"), 2);
    assert_int_equal(cli("analyze --format yaml a.py"), 2);
    assert_int_equal(cli("analyze --max-compiles 0 a.py"), 2);
    assert_int_equal(cli("attribute --max-compiles 2 a.py"), 2); /* level 3 only */
    assert_int_equal(cli("attribute --mode gpu a.py"), 2);
    assert_int_equal(cli("analyze /nonexistent/task.py"), 3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_l2_fixtures),
        cmocka_unit_test(test_l2_locations_and_cites),
        cmocka_unit_test(test_l2_scalar_causes),
        cmocka_unit_test(test_l2_reread),
        cmocka_unit_test(test_levels_wired),
        cmocka_unit_test(test_cli_usage),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
