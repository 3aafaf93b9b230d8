/* What the loop and bench ask the harness's time verb, seen through a stand-in
 * python (TDX_PYTHON) that records its arguments and prints a canned reply:
 * each candidate's timing skips the torch baseline (--no-reference), and the
 * bench step times it once, on the task, with --torch-only --torch-compile. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/file.h"
#include "bench/bench.h"
#include "loop/exec.h"

static char dir[256], args_file[300], reply_file[300], fake[300];

/* A stand-in python: its arguments to args_file, reply_file to stdout. */
static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/tdx-bench-exec-XXXXXX");
    if (!mkdtemp(dir))
        return -1;
    snprintf(args_file, sizeof args_file, "%s/args", dir);
    snprintf(reply_file, sizeof reply_file, "%s/reply.json", dir);
    snprintf(fake, sizeof fake, "%s/python", dir);
    char script[1200];
    snprintf(script, sizeof script, "#!/bin/sh\nprintf '%%s\\n' \"$@\" > '%s'\ncat '%s'\n", args_file,
             reply_file);
    if (tdx_file_write(fake, script, strlen(script)) != TDX_OK || chmod(fake, 0755) != 0)
        return -1;
    setenv("TDX_PYTHON", fake, 1);
    unsetenv("TDX_TEST_TIMER");
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    unsetenv("TDX_PYTHON");
    remove(args_file);
    remove(reply_file);
    remove(fake);
    rmdir(dir);
    return 0;
}

static void reply(const char *json)
{
    assert_int_equal(tdx_file_write(reply_file, json, strlen(json)), TDX_OK);
}

/* The recorded arguments, one per line, as one string. */
static char *recorded(void)
{
    char *data;
    size_t len;
    assert_int_equal(tdx_file_read(args_file, 1 << 16, &data, &len), TDX_OK);
    return data;
}

static void candidate_timing_skips_the_torch_baseline(void **state)
{
    (void)state;
    reply("{\"ok\": true, \"verb\": \"time\", \"protocol\": 1, \"variants\": {"
          "\"baseline\": {\"median_ms\": 2.0, \"iqr_ms\": 0.01},"
          "\"candidate\": {\"median_ms\": 1.0, \"iqr_ms\": 0.02}}}");
    tdx_loop_hx hx = {0};
    hx.device = "cuda";
    tdx_loop_timing t;
    assert_int_equal(tdx_loop_hx_time(&hx, "task.py", "best.py", "cand.py", &t), TDX_OK);
    assert_true(fabs(t.base_median_s - 0.002) < 1e-12 && fabs(t.cand_median_s - 0.001) < 1e-12);
    char *a = recorded();
    assert_non_null(strstr(a, "time\n--task\nbest.py\n"));
    assert_non_null(strstr(a, "\n--no-reference\n"));
    assert_non_null(strstr(a, "\n--candidate\ncand.py\n"));
    assert_null(strstr(a, "--torch-compile"));
    free(a);
    /* the baseline alone: no candidate, still no torch baseline */
    assert_int_equal(tdx_loop_hx_time(&hx, "task.py", "best.py", NULL, &t), TDX_OK);
    a = recorded();
    assert_non_null(strstr(a, "\n--no-reference\n"));
    assert_null(strstr(a, "--candidate"));
    free(a);
}

static void bench_times_the_torch_baseline_once_on_the_task(void **state)
{
    (void)state;
    reply("{\"ok\": true, \"verb\": \"time\", \"protocol\": 1, \"variants\": {},"
          "\"torch_baseline\": \"torch_impl\", \"torch_eager\": {\"median_ms\": 0.4},"
          "\"torch_compile\": {\"median_ms\": 0.3, \"compile_s\": 7, \"backend\": \"inductor\"}}");
    tdx_bench_row w;
    memset(&w, 0, sizeof w);
    assert_int_equal(tdx_bench_torch(&w, "bench/tasks/relu.py", "cuda", 30), TDX_OK);
    char *a = recorded();
    assert_non_null(strstr(a, "time\n--task\nbench/tasks/relu.py\n"));
    assert_non_null(strstr(a, "\n--torch-only\n--torch-compile\n--device\ncuda\n"));
    assert_null(strstr(a, "--no-reference"));
    free(a);
    assert_true(fabs(w.eager_s - 0.0004) < 1e-12 && fabs(w.compile_s - 0.0003) < 1e-12);
    assert_true(fabs(w.compile_build_s - 7) < 1e-12);
    assert_string_equal(w.torch_baseline, "torch_impl");
    /* a harness error: both columns n/a with its message */
    reply("{\"ok\": false, \"verb\": \"time\", \"protocol\": 1, \"error_kind\": \"no_gpu\","
          " \"error\": \"this verb needs a CUDA device and none is visible\"}");
    assert_int_not_equal(tdx_bench_torch(&w, "bench/tasks/relu.py", "cuda", 30), TDX_OK);
    assert_true(w.eager_s < 0 && w.compile_s < 0);
    assert_non_null(strstr(w.torch_note, "needs a CUDA device"));
    free(w.torch_baseline);
    free(w.torch_note);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(candidate_timing_skips_the_torch_baseline),
        cmocka_unit_test(bench_times_the_torch_baseline_once_on_the_task),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
