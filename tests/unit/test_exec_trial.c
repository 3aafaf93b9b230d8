/* The executor's `trial` (check, then time, in one harness call on a GPU)
 * against a stand-in harness: a shell script as TDX_PYTHON whose reply is
 * picked by the candidate's file name. What the C side makes of each reply:
 * a verdict, a timing, or a timing failure with its reason. */
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

#include "base/file.h"
#include "loop/exec.h"

static char dir[128], script[200], task[200], logpath[200];

/* `-m tritondx_harness trial --task T --candidate C ...`: the reply by C's name. */
static const char *fake =
    "#!/bin/sh\n"
    "echo \"$*\" >> \"$TDX_TRIAL_LOG\"\n"
    "cand=''\n"
    "while [ $# -gt 0 ]; do [ \"$1\" = --candidate ] && cand=$2; shift; done\n"
    "H='\"verb\": \"trial\", \"protocol\": 1'\n"
    "T='\"verb\": \"time\", \"protocol\": 1'\n"
    "case \"$cand\" in\n"
    "*wrong.py) echo \"{\\\"ok\\\": false, $H, \\\"error\\\": \\\"shape [8] seed 0: relative error 1.0 > 1e-05\\\", "
    "\\\"time\\\": null}\" ;;\n"
    "*fast.py) echo \"{\\\"ok\\\": true, $H, \\\"check_s\\\": 2.5, \\\"time_s\\\": 1.25, "
    "\\\"phases_s\\\": {\\\"precompile\\\": 0.25, \\\"child\\\": 1.5, \\\"judge\\\": 0.5, \\\"alone\\\": 0.75}, "
    "\\\"check_lock_wait_s\\\": 0.5, \\\"time_lock_wait_s\\\": 0.75, \\\"time\\\": {\\\"ok\\\": true, $T, "
    "\\\"bytes\\\": 1e6, \\\"flops\\\": 0, \\\"dtype\\\": \\\"float32\\\", \\\"timed_s\\\": 0.5, \\\"lock_wait_s\\\": 0.75, \\\"variants\\\": {\\\"baseline\\\": "
    "{\\\"median_ms\\\": 2.0, \\\"iqr_ms\\\": 0.01}, \\\"candidate\\\": {\\\"median_ms\\\": 1.0, \\\"iqr_ms\\\": 0.01}}}}\" ;;\n"
    "*alone.py) echo \"{\\\"ok\\\": true, $H, \\\"check_s\\\": 2.5, \\\"time_s\\\": 1.0, \\\"time\\\": {\\\"ok\\\": true, $T, "
    "\\\"variants\\\": {\\\"baseline\\\": {\\\"median_ms\\\": 3.0, \\\"iqr_ms\\\": 0.02}}}}\" ;;\n"
    "*tamper.py) echo \"{\\\"ok\\\": true, $H, \\\"check_s\\\": 2.5, \\\"time_s\\\": 1.0, \\\"time\\\": {\\\"ok\\\": false, $T, "
    "\\\"error\\\": \\\"the candidate replaced torch.cuda.Event.elapsed_time while it was timed\\\"}}\" ;;\n"
    "*notime.py) echo \"{\\\"ok\\\": true, $H, \\\"check_s\\\": 2.5, \\\"time_s\\\": null, \\\"time\\\": null}\" ;;\n"
    "*) exit 3 ;;\n"
    "esac\n";

static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/tdx_trial_%ld", (long)getpid());
    mkdir(dir, 0700);
    snprintf(script, sizeof script, "%s/python", dir);
    snprintf(task, sizeof task, "%s/task.py", dir);
    snprintf(logpath, sizeof logpath, "%s/calls.log", dir);
    assert_int_equal(tdx_file_write(script, fake, strlen(fake)), TDX_OK);
    chmod(script, 0700);
    assert_int_equal(tdx_file_write(task, "x = 1\n", 6), TDX_OK);
    setenv("TDX_PYTHON", script, 1);
    setenv("TDX_TRIAL_LOG", logpath, 1);
    unsetenv("TDX_TEST_TIMER");
    unsetenv("TRITONDX_TRIAL");
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[200];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    return system(cmd) == 0 ? 0 : -1;
}

static tdx_loop_trial run_trial(tdx_loop_hx *hx, const char *cand_name, const char *baseline)
{
    char cand[300];
    snprintf(cand, sizeof cand, "%s/%s", dir, cand_name);
    tdx_loop_trial tr;
    assert_int_equal(tdx_loop_hx_trial(hx, task, baseline, cand, &tr), TDX_OK);
    return tr;
}

static void a_gpu_executor_has_a_trial_and_a_cpu_one_does_not(void **state)
{
    (void)state;
    tdx_loop_hx gpu = {0}, cpu = {0};
    gpu.device = "cuda";
    cpu.device = "cpu";
    assert_non_null(tdx_loop_hx_exec(&gpu).trial);
    assert_null(tdx_loop_hx_exec(&cpu).trial);
    setenv("TRITONDX_TRIAL", "0", 1);
    assert_null(tdx_loop_hx_exec(&gpu).trial);
    unsetenv("TRITONDX_TRIAL");
    setenv("TDX_TEST_TIMER", "/bin/true", 1);
    assert_null(tdx_loop_hx_exec(&gpu).trial);
    unsetenv("TDX_TEST_TIMER");
}

static void a_wrong_candidate_is_a_verdict_and_never_timed(void **state)
{
    (void)state;
    tdx_loop_hx hx = {0};
    hx.device = "cuda";
    tdx_loop_trial tr = run_trial(&hx, "wrong.py", task);
    assert_int_equal(tr.check_st, TDX_OK);
    assert_false(tr.check.ok);
    assert_string_equal(tr.check.reason, "shape [8] seed 0: relative error 1.0 > 1e-05");
    assert_false(tr.timed);
    assert_true(tr.time_s < 0 && tr.check_s > 0);
    assert_true(tr.check.sandbox_known);
    assert_true(tr.start_s < 0 && tr.child_s < 0 && tr.judge_s < 0 && tr.alone_s < 0); /* the reply says none */
}

static void a_passing_candidate_is_timed_against_the_baseline(void **state)
{
    (void)state;
    tdx_loop_hx hx = {0};
    hx.device = "cuda";
    hx.check_timeout_s = 40;
    hx.time_timeout_s = 20;
    tdx_loop_trial tr = run_trial(&hx, "fast.py", task);
    assert_true(tr.check.ok);
    assert_true(tr.timed);
    assert_int_equal(tr.time_st, TDX_OK);
    assert_true(tr.timing.base_median_s > 1.99e-3 && tr.timing.base_median_s < 2.01e-3);
    assert_true(tr.timing.cand_median_s > 0.99e-3 && tr.timing.cand_median_s < 1.01e-3);
    assert_true(tr.timing.bytes == 1e6);
    assert_string_equal(tr.timing.dtype, "float32");
    assert_true(tr.timing.timed_s == 0.5 && tr.timing.wait_s == 0.75); /* the timing's exclusive hold, its wait */
    assert_true(tr.time_s == 1.25); /* the harness's own measure of the timing */
    assert_true(tr.check_wait_s == 0.5 && tr.time_wait_s == 0.75); /* of which lock waits */
    /* the check's parts the harness measured; its start is the rest of the call's wall
     * time, and the stand-in's 2.5 s of check are more than the whole call took */
    assert_true(tr.precompile_s == 0.25 && tr.child_s == 1.5 && tr.judge_s == 0.5);
    assert_true(tr.alone_s == 0.75); /* it ran out of GPU memory once and again alone */
    assert_true(tr.start_s < 0);
    assert_true(hx.gpu_runs == 2);
    /* the call: the candidate, the baseline, the bench shape and both limits */
    char *log;
    size_t n;
    assert_int_equal(tdx_file_read(logpath, 1 << 16, &log, &n), TDX_OK);
    assert_non_null(strstr(log, "-m tritondx_harness trial --task"));
    assert_non_null(strstr(log, "--bench-shape"));
    assert_non_null(strstr(log, "--check-timeout 40 --time-timeout 20"));
    assert_non_null(strstr(log, "--baseline"));
    free(log);
}

static void alone_it_is_the_baseline(void **state)
{
    (void)state;
    tdx_loop_hx hx = {0};
    hx.device = "cuda";
    tdx_loop_trial tr = run_trial(&hx, "alone.py", NULL);
    assert_true(tr.check.ok && tr.timed);
    assert_int_equal(tr.time_st, TDX_OK);
    assert_true(tr.timing.base_median_s > 2.99e-3 && tr.timing.base_median_s < 3.01e-3);
    assert_true(tr.timing.cand_median_s == 0);
    assert_true(tr.check_wait_s < 0 && tr.time_wait_s < 0); /* an older reply without the waits */
}

static void a_timing_failure_keeps_the_verdict_and_says_why(void **state)
{
    (void)state;
    tdx_loop_hx hx = {0};
    hx.device = "cuda";
    tdx_loop_trial tr = run_trial(&hx, "tamper.py", task);
    assert_true(tr.check.ok && tr.timed);
    assert_int_equal(tr.time_st, TDX_ERR_CHILD);
    assert_non_null(strstr(tr.timing.reason, "replaced torch.cuda.Event.elapsed_time"));
    tr = run_trial(&hx, "notime.py", task);
    assert_true(tr.check.ok && tr.timed);
    assert_int_equal(tr.time_st, TDX_ERR_CHILD);
    assert_string_equal(tr.timing.reason, "the trial reply has no timing");
}

static void a_harness_that_dies_is_a_failed_check(void **state)
{
    (void)state;
    tdx_loop_hx hx = {0};
    hx.device = "cuda";
    tdx_loop_trial tr = run_trial(&hx, "other.py", task);
    assert_false(tr.check.ok);
    assert_false(tr.timed);
    assert_non_null(strstr(tr.check.reason, "exited with status 3"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(a_gpu_executor_has_a_trial_and_a_cpu_one_does_not, setup, teardown),
        cmocka_unit_test_setup_teardown(a_wrong_candidate_is_a_verdict_and_never_timed, setup, teardown),
        cmocka_unit_test_setup_teardown(a_passing_candidate_is_timed_against_the_baseline, setup, teardown),
        cmocka_unit_test_setup_teardown(alone_it_is_the_baseline, setup, teardown),
        cmocka_unit_test_setup_teardown(a_timing_failure_keeps_the_verdict_and_says_why, setup, teardown),
        cmocka_unit_test_setup_teardown(a_harness_that_dies_is_a_failed_check, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
