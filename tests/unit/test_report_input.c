/* Unit tests for the input module: directory walks in a fixed order that
 * skip hidden directories and __pycache__, and loading with a size cap and
 * a binary check, each failure with its one-line message. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "input/input.h"

static char root[256];

static void put(const char *rel, const char *data, size_t n)
{
    char p[512];
    snprintf(p, sizeof p, "%s/%s", root, rel);
    FILE *f = fopen(p, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, n, f), n);
    fclose(f);
}

static void dir(const char *rel)
{
    char p[512];
    snprintf(p, sizeof p, "%s/%s", root, rel);
    assert_int_equal(mkdir(p, 0755), 0);
}

static int setup(void **state)
{
    (void)state;
    const char *tmp = getenv("TMPDIR");
    snprintf(root, sizeof root, "%s/tdx_input_XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(root))
        return -1;
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    return system(cmd) == 0 ? 0 : -1;
}

// The relative path of file i below root.
static const char *rel(const tdx_in_list *l, size_t i)
{
    return l->files[i].path + strlen(root) + 1;
}

static void walk_is_sorted_and_skips_hidden(void **state)
{
    (void)state;
    dir("tree");
    dir("tree/b");
    dir("tree/B");
    dir("tree/.git");
    dir("tree/b/.venv");
    dir("tree/__pycache__");
    put("tree/z.py", "x = 1\n", 6);
    put("tree/a.py", "x = 1\n", 6);
    put("tree/a.txt", "not python\n", 11);
    put("tree/.hidden.py", "x = 1\n", 6);
    put("tree/b/c.py", "x = 1\n", 6);
    put("tree/B/upper.py", "x = 1\n", 6);
    put("tree/.git/f.py", "x = 1\n", 6);
    put("tree/b/.venv/g.py", "x = 1\n", 6);
    put("tree/__pycache__/e.py", "x = 1\n", 6);
    put("tree/.py", "x = 1\n", 6);
    char p[512], q[512];
    /* A link loop and a link to a file: the loop is not followed, the file
     * link is taken. */
    snprintf(p, sizeof p, "%s/tree", root);
    snprintf(q, sizeof q, "%s/tree/b/loop", root);
    assert_int_equal(symlink(p, q), 0);
    snprintf(p, sizeof p, "%s/tree/a.py", root);
    snprintf(q, sizeof q, "%s/tree/b/link.py", root);
    assert_int_equal(symlink(p, q), 0);

    tdx_in_list l;
    tdx_diags d;
    tdx_in_list_init(&l);
    tdx_diags_init(&d);
    snprintf(p, sizeof p, "%s/tree/", root); /* a trailing slash is not doubled */
    assert_int_equal(tdx_in_add(&l, p, &d), TDX_OK);
    assert_int_equal(l.len, 5);
    assert_string_equal(rel(&l, 0), "tree/B/upper.py");
    assert_string_equal(rel(&l, 1), "tree/a.py");
    assert_string_equal(rel(&l, 2), "tree/b/c.py");
    assert_string_equal(rel(&l, 3), "tree/b/link.py");
    assert_string_equal(rel(&l, 4), "tree/z.py");
    for (size_t i = 0; i < l.len; i++)
        assert_false(l.files[i].explicit_);
    assert_int_equal(l.nbad, 0);
    assert_int_equal(d.len, 0);

    /* A file named explicitly is taken whatever its name. */
    snprintf(p, sizeof p, "%s/tree/a.txt", root);
    assert_int_equal(tdx_in_add(&l, p, &d), TDX_OK);
    assert_int_equal(l.len, 6);
    assert_true(l.files[5].explicit_);
    /* The same paths again add nothing. */
    assert_int_equal(tdx_in_add(&l, p, &d), TDX_OK);
    snprintf(p, sizeof p, "%s/tree/", root);
    assert_int_equal(tdx_in_add(&l, p, &d), TDX_OK);
    assert_int_equal(l.len, 6);
    tdx_in_list_free(&l);
    tdx_diags_free(&d);
}

// Many files: the seen-set grows and still finds every path.
static void many_files_no_duplicates(void **state)
{
    (void)state;
    dir("many");
    char p[512];
    for (int i = 0; i < 300; i++) {
        snprintf(p, sizeof p, "many/f%03d.py", i);
        put(p, "x = 1\n", 6);
    }
    tdx_in_list l;
    tdx_diags d;
    tdx_in_list_init(&l);
    tdx_diags_init(&d);
    snprintf(p, sizeof p, "%s/many", root);
    assert_int_equal(tdx_in_add(&l, p, &d), TDX_OK);
    assert_int_equal(tdx_in_add(&l, p, &d), TDX_OK);
    snprintf(p, sizeof p, "%s/many/f123.py", root);
    assert_int_equal(tdx_in_add(&l, p, &d), TDX_OK);
    assert_int_equal(l.len, 300);
    assert_string_equal(rel(&l, 299), "many/f299.py");
    tdx_in_list_free(&l);
    tdx_diags_free(&d);
}

static void missing_and_empty_directories(void **state)
{
    (void)state;
    tdx_in_list l;
    tdx_diags d;
    tdx_in_list_init(&l);
    tdx_diags_init(&d);
    char p[512];
    snprintf(p, sizeof p, "%s/nope.py", root);
    assert_int_equal(tdx_in_add(&l, p, &d), TDX_ERR_IO);
    assert_int_equal(l.nbad, 1);
    assert_int_equal(d.len, 1);
    assert_int_equal(d.items[0].sev, TDX_SEV_ERROR);
    assert_string_equal(d.items[0].file, p);
    assert_string_equal(d.items[0].msg, "no such file or directory");

    dir("empty");
    put("empty/readme.md", "# hi\n", 5);
    snprintf(p, sizeof p, "%s/empty", root);
    assert_int_equal(tdx_in_add(&l, p, &d), TDX_OK);
    assert_int_equal(l.len, 0);
    assert_int_equal(l.nbad, 1);
    assert_int_equal(d.len, 2);
    assert_int_equal(d.items[1].sev, TDX_SEV_NOTE);
    assert_string_equal(d.items[1].msg, "no Python files (*.py) in this directory");

    assert_int_equal(tdx_in_add(&l, "/dev/null", &d), TDX_ERR_IO);
    assert_string_equal(d.items[2].msg, "not a regular file or directory");
    tdx_in_list_free(&l);
    tdx_diags_free(&d);
}

static void load_checks_size_and_content(void **state)
{
    (void)state;
    put("ok.py", "import triton\n", 14);
    put("empty.py", "", 0);
    put("bin.py", "\x7f" "ELF\x02\x01\x00\x00", 8);
    put("latin1.py", "s = '\xe9t\xe9'\n", 11);
    char big[4096];
    memset(big, '#', sizeof big);
    put("big.py", big, sizeof big);
    tdx_in_list l;
    tdx_diags d;
    tdx_in_list_init(&l);
    tdx_diags_init(&d);
    const char *names[] = {"ok.py", "empty.py", "bin.py", "latin1.py", "big.py"};
    for (size_t i = 0; i < 5; i++) {
        char p[512];
        snprintf(p, sizeof p, "%s/%s", root, names[i]);
        assert_int_equal(tdx_in_add(&l, p, &d), TDX_OK);
    }
    assert_int_equal(tdx_in_load(&l, 0, 1024, &d), TDX_OK);
    assert_string_equal(l.files[0].text, "import triton\n");
    assert_int_equal(tdx_in_load(&l, 1, 1024, &d), TDX_OK);
    assert_int_equal(l.files[1].len, 0);
    assert_non_null(l.files[1].text);
    assert_int_equal(tdx_in_load(&l, 2, 1024, &d), TDX_ERR_INPUT);
    assert_null(l.files[2].text);
    assert_int_equal(l.files[2].status, TDX_ERR_INPUT);
    assert_int_equal(tdx_in_load(&l, 3, 1024, &d), TDX_ERR_INPUT);
    assert_int_equal(tdx_in_load(&l, 4, 1024, &d), TDX_ERR_TOOBIG);
    assert_int_equal(l.nbad, 3);
    assert_int_equal(d.len, 3);
    assert_string_equal(d.items[0].msg,
                        "binary file (a NUL byte or invalid UTF-8), not Python source");
    assert_string_equal(d.items[2].msg, "file larger than 1024 bytes, not read");
    /* A second failure of the same file is not counted twice. */
    tdx_in_mark_bad(&l, 2, TDX_ERR_PARSE);
    assert_int_equal(l.nbad, 3);
    tdx_in_unload(&l, 0);
    assert_null(l.files[0].text);
    tdx_in_list_free(&l);
    tdx_diags_free(&d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(walk_is_sorted_and_skips_hidden),
        cmocka_unit_test(many_files_no_duplicates),
        cmocka_unit_test(missing_and_empty_directories),
        cmocka_unit_test(load_checks_size_and_content),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
