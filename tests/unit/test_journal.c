/* The journal survives a writer killed at any moment and resumes its sequence. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/file.h"
#include "journal/journal.h"

static char dir[64], path[256];

/* A journal path in a fresh directory of its own, so that no other run on
 * the machine can write the same file. */
static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/tdx_journal_XXXXXX");
    if (!mkdtemp(dir))
        return -1;
    snprintf(path, sizeof path, "%s/journal.jsonl", dir);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    remove(path);
    rmdir(dir);
    return 0;
}

static void append(tdx_jnl *j, const char *type, int round)
{
    json_t *e = json_pack("{s:s, s:i}", "type", type, "round", round);
    assert_int_equal(tdx_jnl_append(j, e), TDX_OK);
    json_decref(e);
}

static void append_reopen_and_resume(void **state)
{
    (void)state;
    tdx_diags d;
    tdx_diags_init(&d);
    tdx_jnl j;
    assert_int_equal(tdx_jnl_open(&j, path, &d), TDX_OK);
    append(&j, "start", 0);
    append(&j, "round", 1);
    tdx_jnl_close(&j);
    /* a crash mid-write leaves a partial line */
    FILE *f = fopen(path, "a");
    fputs("{\"type\":\"rou", f);
    fclose(f);
    assert_int_equal(tdx_jnl_open(&j, path, &d), TDX_OK);
    assert_int_equal(d.len, 1); /* the partial line was reported */
    append(&j, "round", 2);
    tdx_jnl_close(&j);
    json_t *all;
    assert_int_equal(tdx_jnl_read(path, &all, &d), TDX_OK);
    assert_int_equal(json_array_size(all), 3);
    json_t *last = tdx_jnl_last(all, "round");
    assert_non_null(last);
    assert_int_equal(json_integer_value(json_object_get(last, "round")), 2);
    assert_int_equal(json_integer_value(json_object_get(last, "seq")), 3);
    assert_null(tdx_jnl_last(all, "stop"));
    json_decref(all);
    tdx_diags_free(&d);
}

static void corrupt_middle_line_is_an_error(void **state)
{
    (void)state;
    assert_int_equal(tdx_file_write(path, "{\"type\":\"start\"}\nnot json\n{\"type\":\"stop\"}\n", 44),
                     TDX_OK);
    tdx_diags d;
    tdx_diags_init(&d);
    json_t *all;
    assert_int_equal(tdx_jnl_read(path, &all, &d), TDX_ERR_PARSE);
    assert_null(all);
    assert_int_equal(d.nerrors, 1);
    assert_int_equal(d.items[0].line, 2);
    tdx_diags_free(&d);
}

static void writer_killed_at_random_moments(void **state)
{
    (void)state;
    for (int trial = 0; trial < 5; trial++) {
        remove(path);
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
            tdx_diags d;
            tdx_diags_init(&d);
            tdx_jnl j;
            if (tdx_jnl_open(&j, path, &d))
                _exit(2);
            for (int i = 0;; i++) {
                json_t *e = json_pack("{s:s, s:i, s:s}", "type", "candidate", "round", i, "diff",
                                      "--- a\n+++ b\n@@ -1 +1 @@\n-x\n+y\n");
                tdx_jnl_append(&j, e);
                json_decref(e);
            }
        }
        /* on a loaded machine the child may not have run yet: let it write
         * its first entry (within 10 s) before the random moment starts */
        struct stat sb;
        for (int w = 0; w < 10000 && (stat(path, &sb) != 0 || sb.st_size == 0); w++)
            usleep(1000);
        usleep(20000 + 7000 * trial);
        kill(pid, SIGKILL);
        int status;
        waitpid(pid, &status, 0);
        tdx_diags d;
        tdx_diags_init(&d);
        json_t *all;
        assert_int_equal(tdx_jnl_read(path, &all, &d), TDX_OK);
        size_t n = json_array_size(all);
        assert_true(n > 0);
        for (size_t i = 0; i < n; i++)
            assert_int_equal(json_integer_value(json_object_get(json_array_get(all, i), "seq")),
                             (json_int_t)i + 1);
        json_decref(all);
        /* and it can be resumed */
        tdx_jnl j;
        assert_int_equal(tdx_jnl_open(&j, path, &d), TDX_OK);
        assert_int_equal(j.next_seq, (long)n + 1);
        tdx_jnl_close(&j);
        tdx_diags_free(&d);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(append_reopen_and_resume, setup, teardown),
        cmocka_unit_test_setup_teardown(corrupt_middle_line_is_an_error, setup, teardown),
        cmocka_unit_test_setup_teardown(writer_killed_at_random_moments, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
