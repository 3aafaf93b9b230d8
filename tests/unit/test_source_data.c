/* Data-driven tests of the Python parser.
 *
 * - tests/data/source/NAME.py + NAME.expected: the tree dump (tdx_src_dump)
 *   of the file must equal the expected text.
 * - tests/data/source/bad/NAME.py + NAME.expected: the file must fail to
 *   parse with exactly the expected diagnostics (`NAME.py:line:col: error: msg`).
 * - Round trip: every .py file under tests/data/ and examples/ (found at test
 *   time, so files added later are covered) must parse, print back byte for
 *   byte from its spans, and pass tdx_src_verify. A file meant to be
 *   malformed has bad, error, invalid, malformed or broken in its path below
 *   tests/data/ (bad/x.py, tasks/syntax_error.py); it may instead fail,
 *   cleanly, with an error diagnostic.
 *
 * Run with TDX_UPDATE_EXPECTED=1 to (re)write the .expected files. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/buf.h"
#include "base/file.h"
#include "source/ast.h"

#define SRC_DIR TDX_TEST_DATA "/source"

static int updating(void) { return getenv("TDX_UPDATE_EXPECTED") != NULL; }

// Read a whole file or fail the test.
static char *slurp(const char *path, size_t *len)
{
    char *data = NULL;
    tdx_status st = tdx_file_read(path, 64u << 20, &data, len);
    if (st != TDX_OK)
        fail_msg("cannot read %s: %s", path, tdx_status_str(st));
    return data;
}

// Compare got with the expected file (or write it when updating).
static void compare_expected(const char *expected_path, const char *got)
{
    if (updating()) {
        assert_int_equal(tdx_file_write(expected_path, got, strlen(got)), TDX_OK);
        return;
    }
    size_t len;
    char *want = slurp(expected_path, &len);
    if (strcmp(want, got) != 0) {
        fprintf(stderr, "--- %s (expected)\n%s--- got\n%s", expected_path, want, got);
        free(want);
        fail_msg("%s differs", expected_path);
    }
    free(want);
}

// Names of the .py files directly in dir, sorted; caller frees.
static size_t list_py(const char *dir, char ***out)
{
    DIR *d = opendir(dir);
    size_t n = 0, cap = 16;
    char **names = malloc(cap * sizeof *names);
    assert_non_null(d);
    assert_non_null(names);
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t l = strlen(e->d_name);
        if (l < 4 || strcmp(e->d_name + l - 3, ".py") != 0)
            continue;
        if (n == cap) {
            cap *= 2;
            names = realloc(names, cap * sizeof *names);
            assert_non_null(names);
        }
        names[n++] = strdup(e->d_name);
    }
    closedir(d);
    for (size_t i = 1; i < n; i++)
        for (size_t j = i; j > 0 && strcmp(names[j - 1], names[j]) > 0; j--) {
            char *t = names[j];
            names[j] = names[j - 1];
            names[j - 1] = t;
        }
    *out = names;
    return n;
}

static void free_list(char **names, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
}

// The .expected path of dir/name.py.
static void expected_path(char *buf, size_t cap, const char *dir, const char *name)
{
    snprintf(buf, cap, "%s/%.*s.expected", dir, (int)(strlen(name) - 3), name);
}

static void dumps_match_expected(void **state)
{
    (void)state;
    char **names;
    size_t n = list_py(SRC_DIR, &names);
    assert_true(n >= 5);
    for (size_t i = 0; i < n; i++) {
        char path[1024], exp[1024];
        snprintf(path, sizeof path, "%s/%s", SRC_DIR, names[i]);
        expected_path(exp, sizeof exp, SRC_DIR, names[i]);
        size_t len;
        char *src = slurp(path, &len);
        tdx_arena a;
        tdx_arena_init(&a, 0);
        tdx_diags d;
        tdx_diags_init(&d);
        tdx_src_module *m = NULL;
        tdx_status st = tdx_src_parse(names[i], src, len, &a, &d, &m);
        if (st != TDX_OK)
            fail_msg("%s: %s (%s)", names[i], tdx_status_str(st), d.len ? d.items[0].msg : "");
        tdx_buf b;
        tdx_buf_init(&b, 0);
        assert_int_equal(tdx_src_dump(m, m->root, &b), TDX_OK);
        compare_expected(exp, tdx_buf_str(&b));
        tdx_buf_free(&b);
        tdx_diags_free(&d);
        tdx_arena_free(&a);
        free(src);
    }
    free_list(names, n);
}

static void bad_files_give_expected_errors(void **state)
{
    (void)state;
    const char *dir = SRC_DIR "/bad";
    char **names;
    size_t n = list_py(dir, &names);
    assert_true(n >= 5);
    for (size_t i = 0; i < n; i++) {
        char path[1024], exp[1024];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        expected_path(exp, sizeof exp, dir, names[i]);
        size_t len;
        char *src = slurp(path, &len);
        tdx_arena a;
        tdx_arena_init(&a, 0);
        tdx_diags d;
        tdx_diags_init(&d);
        tdx_src_module *m = NULL;
        tdx_status st = tdx_src_parse(names[i], src, len, &a, &d, &m);
        if (st != TDX_ERR_PARSE)
            fail_msg("%s: expected a parse error, got %s", names[i], tdx_status_str(st));
        assert_null(m);
        tdx_buf b;
        tdx_buf_init(&b, 0);
        for (size_t k = 0; k < d.len; k++)
            tdx_buf_printf(&b, "%s:%d:%d: %s: %s\n", d.items[k].file, d.items[k].line,
                           d.items[k].col, tdx_severity_str(d.items[k].sev), d.items[k].msg);
        compare_expected(exp, tdx_buf_str(&b));
        tdx_buf_free(&b);
        tdx_diags_free(&d);
        tdx_arena_free(&a);
        free(src);
    }
    free_list(names, n);
}

typedef struct rt_stats {
    int good, bad;
} rt_stats;

// Non-zero when path names a file meant to be malformed: its path below
// the data folder has a part containing bad, error, invalid, malformed or
// broken (bad/x.py, bad_x.py, tasks/syntax_error.py).
static int meant_bad(const char *path)
{
    static const char *const marks[] = {"bad", "error", "invalid", "malformed", "broken"};
    const char *rel = strstr(path, "/tests/data/");
    if (rel)
        rel += strlen("/tests/data/");
    else if ((rel = strstr(path, "/examples/")))
        rel += strlen("/examples/");
    else
        rel = path;
    for (size_t i = 0; i < sizeof marks / sizeof marks[0]; i++)
        if (strstr(rel, marks[i]))
            return 1;
    return 0;
}

// Round-trip one file: parse, unparse, compare, verify.
static void round_trip_file(const char *path, rt_stats *stats)
{
    size_t len;
    char *src = slurp(path, &len);
    tdx_arena a;
    tdx_arena_init(&a, 0);
    tdx_diags d;
    tdx_diags_init(&d);
    tdx_src_module *m = NULL;
    tdx_status st = tdx_src_parse(path, src, len, &a, &d, &m);
    if (st != TDX_OK) {
        if (!meant_bad(path))
            fail_msg("%s: %s: %d:%d: %s", path, tdx_status_str(st), d.len ? d.items[0].line : 0,
                     d.len ? d.items[0].col : 0, d.len ? d.items[0].msg : "");
        assert_int_equal(st, TDX_ERR_PARSE);
        assert_true(d.nerrors > 0);
        stats->bad++;
    } else {
        /* whatever parses, malformed-looking or not, must print back */
        tdx_buf b;
        tdx_buf_init(&b, 0);
        assert_int_equal(tdx_src_unparse(m, &b), TDX_OK);
        if (b.len != len || memcmp(b.data, src, len) != 0)
            fail_msg("%s: unparse is not byte-identical", path);
        tdx_buf_free(&b);
        if (tdx_src_verify(m, &d) != TDX_OK)
            fail_msg("%s: %d:%d: %s", path, d.items[0].line, d.items[0].col, d.items[0].msg);
        stats->good++;
    }
    tdx_diags_free(&d);
    tdx_arena_free(&a);
    free(src);
}

// Walk dir recursively, round-tripping every .py file.
static void round_trip_dir(const char *dir, rt_stats *stats, int depth)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char path[2048];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        struct stat sb;
        if (stat(path, &sb) != 0)
            continue;
        size_t l = strlen(e->d_name);
        if (S_ISDIR(sb.st_mode) && depth < 16)
            round_trip_dir(path, stats, depth + 1);
        else if (S_ISREG(sb.st_mode) && l > 3 && strcmp(e->d_name + l - 3, ".py") == 0)
            round_trip_file(path, stats);
    }
    closedir(d);
}

static void every_python_file_round_trips(void **state)
{
    (void)state;
    rt_stats stats = {0, 0};
    round_trip_dir(TDX_TEST_DATA, &stats, 0);
    round_trip_dir(TDX_SOURCE_DIR "/examples", &stats, 0);
    /* at least the files of this test and the bundled example */
    assert_true(stats.good >= 6);
    assert_true(stats.bad >= 5);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(dumps_match_expected),
        cmocka_unit_test(bad_files_give_expected_errors),
        cmocka_unit_test(every_python_file_round_trips),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
