/* Unit tests for tdx_hx: the harness call builds the right command line and
 * environment, reads one JSON reply, and turns every way the harness can
 * fail into its one-line reason. The harness is played by
 * tests/helpers/fake_python.c (TDX_FAKE_PYTHON), one verb per behaviour,
 * and once by the real python3 with a tiny stand-in package. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hx/hx.h"
#include "proc/proc.h"

// Call verb through the fake python; the reply's reason is checked by the
// caller. Returns the status.
static tdx_status call(const char *verb, tdx_hx_opts *o, tdx_hx_reply *r, tdx_diags *d)
{
    if (!o->python)
        o->python = TDX_FAKE_PYTHON;
    return tdx_hx_call(o, verb, "task.py", NULL, r, d);
}

// Expect verb to fail with exactly this reason.
static void expect_reason(const char *verb, double timeout_s, const char *want)
{
    tdx_hx_opts o = {.timeout_s = timeout_s};
    tdx_hx_reply r;
    assert_int_equal(call(verb, &o, &r, NULL), TDX_ERR_CHILD);
    assert_string_equal(r.reason, want);
    tdx_hx_reply_free(&r);
}

// A folder holding a stand-in tritondx_harness package; *root is malloc'd.
static char *make_harness(const char *main_py)
{
    char tmpl[] = "/tmp/tdx-hx-XXXXXX";
    assert_non_null(mkdtemp(tmpl));
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/tritondx_harness", tmpl);
    assert_int_equal(mkdir(path, 0700), 0);
    snprintf(path, sizeof path, "%s/tritondx_harness/__init__.py", tmpl);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("PROTOCOL_VERSION = 1\n", f);
    fclose(f);
    if (main_py) {
        snprintf(path, sizeof path, "%s/tritondx_harness/__main__.py", tmpl);
        f = fopen(path, "w");
        assert_non_null(f);
        fputs(main_py, f);
        fclose(f);
    }
    return strdup(tmpl);
}

static void builds_argv_and_pythonpath(void **state)
{
    (void)state;
    setenv("PYTHONPATH", "/old/path", 1);
    const char *env[] = {"TDX_FAKE_EXTRA=seen", NULL};
    const char *args[] = {"--shape", "4096,4096", NULL};
    tdx_hx_opts o = {.python = TDX_FAKE_PYTHON, .env_set = env};
    tdx_hx_reply r;
    assert_int_equal(tdx_hx_call(&o, "echo", "task.py", args, &r, NULL), TDX_OK);
    assert_string_equal(r.reason, "");
    assert_true(json_is_object(r.json));
    assert_true(json_is_true(json_object_get(r.json, "ok")));
    json_t *argv = json_object_get(r.json, "argv");
    const char *want[] = {"-m", "tritondx_harness", "echo", "--task", "task.py", "--shape",
                          "4096,4096"};
    assert_int_equal(json_array_size(argv), 7);
    for (size_t i = 0; i < 7; i++)
        assert_string_equal(json_string_value(json_array_get(argv, i)), want[i]);
    char *dir = NULL;
    assert_int_equal(tdx_hx_harness_dir(NULL, &dir), TDX_OK);
    char pp[PATH_MAX + 32];
    snprintf(pp, sizeof pp, "%s:/old/path", dir);
    assert_string_equal(json_string_value(json_object_get(r.json, "pythonpath")), pp);
    assert_string_equal(json_string_value(json_object_get(r.json, "extra")), "seen");
    assert_true(r.proc.exited);
    json_t *j = tdx_hx_reply_take(&r);
    assert_null(r.json);
    tdx_hx_reply_free(&r);
    json_decref(j);
    free(dir);
    unsetenv("PYTHONPATH");

    /* no task: no --task */
    assert_int_equal(tdx_hx_call(&o, "echo", NULL, NULL, &r, NULL), TDX_OK);
    assert_int_equal(json_array_size(json_object_get(r.json, "argv")), 3);
    tdx_hx_reply_free(&r);
}

static void python_comes_from_the_environment(void **state)
{
    (void)state;
    setenv("TDX_PYTHON", TDX_FAKE_PYTHON, 1);
    tdx_hx_reply r;
    assert_int_equal(tdx_hx_call(NULL, "pretty", "t.py", NULL, &r, NULL), TDX_OK);
    assert_int_equal(json_array_size(json_object_get(r.json, "numbers")), 3);
    tdx_hx_reply_free(&r);
    unsetenv("TDX_PYTHON");
}

static void reports_a_missing_python(void **state)
{
    (void)state;
    tdx_hx_opts o = {.python = "/nonexistent/python3"};
    tdx_hx_reply r;
    tdx_diags d;
    tdx_diags_init(&d);
    assert_int_equal(tdx_hx_call(&o, "echo", "task.py", NULL, &r, &d), TDX_ERR_NOTFOUND);
    assert_string_equal(r.reason, "could not run /nonexistent/python3: No such file or directory");
    assert_int_equal(d.nerrors, 1);
    assert_string_equal(d.items[0].file, "task.py");
    assert_string_equal(d.items[0].msg,
                        "harness echo: could not run /nonexistent/python3: "
                        "No such file or directory");
    tdx_hx_reply_free(&r);
    tdx_diags_free(&d);
}

static void classifies_a_harness_error(void **state)
{
    (void)state;
    tdx_hx_opts o = {0};
    tdx_hx_reply r;
    tdx_diags d;
    tdx_diags_init(&d);
    assert_int_equal(call("error", &o, &r, &d), TDX_ERR_CHILD);
    assert_string_equal(r.reason, "harness reported error: kernel failed to compile");
    /* the reply is kept for its details */
    assert_true(json_is_false(json_object_get(r.json, "ok")));
    assert_int_equal(d.nerrors, 1);
    assert_string_equal(d.items[0].msg,
                        "harness error: harness reported error: kernel failed to compile");
    tdx_hx_reply_free(&r);
    tdx_diags_free(&d);
}

static void classifies_a_crash(void **state)
{
    (void)state;
    expect_reason("segv", 0, "killed by signal 11 (SIGSEGV)");
}

static void classifies_a_hang(void **state)
{
    (void)state;
    expect_reason("hang", 0.3, "timed out after 0.3 s");
}

static void classifies_a_non_zero_exit(void **state)
{
    (void)state;
    expect_reason("exit3", 0, "exited with status 3: ValueError: bad task file");
    /* a good-looking reply does not hide a failed exit */
    expect_reason("okbutexit", 0,
                  "exited with status 5: fatal: CUDA error: an illegal memory access");
}

static void classifies_output_over_cap(void **state)
{
    (void)state;
    tdx_hx_opts o = {.stdout_cap = (size_t)1 << 20};
    tdx_hx_reply r;
    assert_int_equal(call("flood", &o, &r, NULL), TDX_ERR_CHILD);
    /* stopped at the cap, or done writing just before: the count varies */
    assert_memory_equal(r.reason, "output over cap (", 17);
    assert_non_null(strstr(r.reason, " bytes written, cap 1048576)"));
    assert_null(r.json);
    tdx_hx_reply_free(&r);
}

static void stops_an_endless_flood_at_the_cap(void **state)
{
    (void)state;
    tdx_hx_opts o = {.stdout_cap = (size_t)1 << 20, .timeout_s = 120};
    tdx_hx_reply r;
    assert_int_equal(call("flood-forever", &o, &r, NULL), TDX_ERR_CHILD);
    assert_non_null(strstr(r.reason, "output over cap (at least "));
    assert_non_null(strstr(r.reason, " bytes written, cap 1048576)"));
    assert_true(r.proc.wall_s < 10.0);
    tdx_hx_reply_free(&r);
}

static void reports_a_child_that_could_not_start(void **state)
{
    (void)state;
    tdx_hx_opts o = {.cwd = "/nonexistent/dir"};
    tdx_hx_reply r;
    assert_int_equal(call("echo", &o, &r, NULL), TDX_ERR_NOTFOUND);
    assert_string_equal(r.reason, "could not start " TDX_FAKE_PYTHON
                                  " (chdir): No such file or directory");
    tdx_hx_reply_free(&r);
}

static void classifies_output_that_is_not_json(void **state)
{
    (void)state;
    expect_reason("garbage", 0,
                  "output is not JSON: Segmentation fault? no: this line is plain text and "
                  "certainly not a JSON object");
    expect_reason("array", 0, "output is not a JSON object");
}

static void classifies_protocol_violations(void **state)
{
    (void)state;
    expect_reason("protocol2", 0, "protocol mismatch: expected 1, got another version");
    expect_reason("noverb", 0, "reply is for verb (none), not noverb");
    expect_reason("nook", 0, "reply has no boolean \"ok\"");
    expect_reason("unknown-verb", 0, "exited with status 2: unknown verb unknown-verb");
}

static void parses_whole_output_or_last_line(void **state)
{
    (void)state;
    json_t *j = tdx_hx_parse_stdout("{\"a\":\n 1}\n", 10);
    assert_int_equal(json_integer_value(json_object_get(j, "a")), 1);
    json_decref(j);
    const char *chatty = "warming up\n{\"b\": 2}\n\n";
    j = tdx_hx_parse_stdout(chatty, strlen(chatty));
    assert_int_equal(json_integer_value(json_object_get(j, "b")), 2);
    json_decref(j);
    assert_null(tdx_hx_parse_stdout("", 0));
    assert_null(tdx_hx_parse_stdout("{\"c\": 3}\nnot json\n", 18));
    assert_null(tdx_hx_parse_stdout("nope", 4));
}

static void survives_random_output(void **state)
{
    (void)state;
    /* JSON-ish noise: whatever stdout holds, parsing returns or says no */
    static const char alphabet[] = "{}[]\":,\\\n 0123456789eE+-.truefalsnl\x01\xff";
    unsigned seed = 12345;
    char buf[256];
    for (int i = 0; i < 5000; i++) {
        size_t n = (size_t)(i % (int)sizeof buf);
        for (size_t k = 0; k < n; k++) {
            seed = seed * 1103515245u + 12345u;
            buf[k] = alphabet[(seed >> 16) % (sizeof alphabet - 1)];
        }
        json_decref(tdx_hx_parse_stdout(buf, n));
    }
}

/* The problems of a validate reply as one-line messages; entries that are
 * not objects are skipped and a missing message does not print "(null)". */
static void validate_problems_as_lines(void **state)
{
    (void)state;
    json_t *j = json_loads("{\"problems\": [{\"message\": \"no `reference`\"}, 7, "
                           "{\"line\": 4, \"message\": \"syntax error\"}, {\"line\": 9}]}",
                           0, NULL);
    assert_non_null(j);
    tdx_buf b;
    tdx_buf_init(&b, 0);
    assert_int_equal(tdx_hx_validate_problems(j, "t.py", &b), 3);
    assert_string_equal(tdx_buf_str(&b), "t.py: error: no `reference`\n"
                                         "t.py:4: error: syntax error\n"
                                         "t.py:9: error: (no message)\n");
    tdx_buf_reset(&b);
    assert_int_equal(tdx_hx_validate_problems(NULL, "t.py", &b), 0);
    assert_int_equal(b.len, 0);
    tdx_buf_free(&b);
    json_decref(j);
}

static void finds_the_harness(void **state)
{
    (void)state;
    char *dir = NULL;
    assert_int_equal(tdx_hx_harness_dir("/nonexistent", &dir), TDX_ERR_NOTFOUND);
    assert_null(dir);

    char *root = make_harness(NULL);
    /* the folder itself, or the package folder in it */
    assert_int_equal(tdx_hx_harness_dir(root, &dir), TDX_OK);
    assert_string_equal(dir, root);
    free(dir);
    char pkg[PATH_MAX];
    snprintf(pkg, sizeof pkg, "%s/tritondx_harness", root);
    assert_int_equal(tdx_hx_harness_dir(pkg, &dir), TDX_OK);
    assert_string_equal(dir, root);
    free(dir);
    setenv("TDX_HARNESS_PATH", root, 1);
    assert_int_equal(tdx_hx_harness_dir(NULL, &dir), TDX_OK);
    assert_string_equal(dir, root);
    free(dir);
    unsetenv("TDX_HARNESS_PATH");

    /* without hints: python/ of this tree (next to the build, or the
     * source dir compiled in) */
    char want[PATH_MAX];
    assert_non_null(realpath(TDX_SOURCE_DIR "/python", want));
    assert_int_equal(tdx_hx_harness_dir(NULL, &dir), TDX_OK);
    assert_string_equal(dir, want);
    free(dir);

    /* a hint that does not hold the harness is a failed call */
    tdx_hx_opts o = {.python = TDX_FAKE_PYTHON, .harness_dir = "/tmp"};
    tdx_hx_reply r;
    assert_int_equal(tdx_hx_call(&o, "echo", "t.py", NULL, &r, NULL), TDX_ERR_NOTFOUND);
    assert_string_equal(r.reason, "harness not found (set TDX_HARNESS_PATH to the folder "
                                  "holding tritondx_harness)");
    tdx_hx_reply_free(&r);
    tdx_proc_tmpdir_remove(root);
    free(root);
}

static void runs_a_real_python_module(void **state)
{
    (void)state;
    /* python3 -m with the PYTHONPATH we build, and a reply after chatter */
    char *root = make_harness("import json, sys\n"
                              "print('loading', flush=True)\n"
                              "print(json.dumps({'ok': True, 'verb': sys.argv[1], 'protocol': 1,\n"
                              "                  'rest': sys.argv[2:]}))\n");
    tdx_hx_opts o = {.python = "python3", .harness_dir = root, .timeout_s = 60};
    const char *args[] = {"--n", "3", NULL};
    tdx_hx_reply r;
    assert_int_equal(tdx_hx_call(&o, "time", "k.py", args, &r, NULL), TDX_OK);
    json_t *rest = json_object_get(r.json, "rest");
    assert_int_equal(json_array_size(rest), 4);
    assert_string_equal(json_string_value(json_array_get(rest, 1)), "k.py");
    assert_string_equal(json_string_value(json_array_get(rest, 3)), "3");
    tdx_hx_reply_free(&r);
    tdx_proc_tmpdir_remove(root);
    free(root);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(builds_argv_and_pythonpath),
        cmocka_unit_test(python_comes_from_the_environment),
        cmocka_unit_test(reports_a_missing_python),
        cmocka_unit_test(classifies_a_harness_error),
        cmocka_unit_test(classifies_a_crash),
        cmocka_unit_test(classifies_a_hang),
        cmocka_unit_test(classifies_a_non_zero_exit),
        cmocka_unit_test(classifies_output_over_cap),
        cmocka_unit_test(stops_an_endless_flood_at_the_cap),
        cmocka_unit_test(reports_a_child_that_could_not_start),
        cmocka_unit_test(classifies_output_that_is_not_json),
        cmocka_unit_test(classifies_protocol_violations),
        cmocka_unit_test(parses_whole_output_or_last_line),
        cmocka_unit_test(survives_random_output),
        cmocka_unit_test(validate_problems_as_lines),
        cmocka_unit_test(finds_the_harness),
        cmocka_unit_test(runs_a_real_python_module),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
