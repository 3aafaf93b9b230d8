/* The optimize loop with a scripted proposer and a test executor: keep only
 * what is correct and faster, reject the rest with a reason, stop by the
 * rules, and resume after the process is killed mid-round. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <limits.h>
#include <signal.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/file.h"
#include "journal/journal.h"
#include "loop/loop.h"
#include "loop_fixture.h"

static void keeps_faster_rejects_the_rest(void **state)
{
    (void)state;
    char *orig;
    size_t olen;
    assert_int_equal(tdx_file_read(task, 1 << 20, &orig, &olen), TDX_OK);
    tdx_loop_opts o = opts_for();
    tdx_loop_result res;
    tdx_diags d;
    tdx_diags_init(&d);
    assert_int_equal(tdx_loop_run(&o, &res, &d), TDX_OK);
    /* round 1 keeps BLOCK=1024 (2 ms), round 2 adds num_warps=8 (1 ms), round 3 finds nothing */
    assert_true(res.kept == 2);
    assert_true(res.final_s < 1.01e-3 && res.final_s > 0.99e-3);
    assert_true(res.initial_s > 9.9e-3);
    assert_string_equal(res.stop_reason, "near the roofline");
    char *best;
    size_t blen;
    assert_int_equal(tdx_file_read(out, 1 << 20, &best, &blen), TDX_OK);
    assert_non_null(strstr(best, "BLOCK=1024, num_warps=8"));
    free(best);
    /* the task file is untouched */
    char *again;
    size_t alen;
    assert_int_equal(tdx_file_read(task, 1 << 20, &again, &alen), TDX_OK);
    assert_int_equal(alen, olen);
    assert_memory_equal(again, orig, olen);
    free(again);
    free(orig);
    int n;
    count_verdicts("check failed", &n);
    assert_true(n >= 1);
    count_verdicts("changes launch's parameters", &n);
    assert_true(n >= 1);
    count_verdicts("not faster", &n);
    assert_true(n >= 1);
    count_verdicts("does not parse", &n);
    assert_true(n >= 1);
    /* every timed candidate's journal entry has its rep-by-rep ratio and interval */
    json_t *all = entries_of("candidate");
    int timed = 0;
    for (size_t i = 0; i < json_array_size(all); i++) {
        json_t *tm = json_object_get(json_array_get(all, i), "timing");
        if (!tm)
            continue;
        timed++;
        double m = json_number_value(json_object_get(tm, "ratio_median"));
        double c = json_number_value(json_object_get(tm, "cand_median_s"));
        double b = json_number_value(json_object_get(tm, "base_median_s"));
        assert_true(fabs(m - c / b) < 1e-9);
        assert_true(json_number_value(json_object_get(tm, "ratio_lo")) < m);
        assert_true(json_number_value(json_object_get(tm, "ratio_hi")) > m);
    }
    assert_true(timed >= 3);
    json_decref(all);
    /* a second run without --resume refuses to overwrite the record */
    assert_int_equal(tdx_loop_run(&o, &res, &d), TDX_ERR_ARG);
    tdx_diags_free(&d);
}

/* The roofline target stops the loop unless a faster time was measured for
 * the task (--reach): at target 0.5 round 1's 2 ms (fraction 0.5) ends the
 * run; with 1 ms reached elsewhere it goes on to round 2's 1 ms, then stops.
 * 1.99 ms reached is within the 2 % margin of round 1's 2 ms: that stops
 * too, unless the margin is none (--reach-margin 0). */
static void a_reached_time_outranks_the_roofline_target(void **state)
{
    static const double reach[] = {0, 1.0e-3, 1.99e-3, 1.99e-3};
    static const double margin[] = {0, 0, 0, 1.0};
    static const int kept[] = {1, 2, 1, 2};
    static const double final_s[] = {2e-3, 1e-3, 2e-3, 1e-3};
    for (int i = 0; i < 4; i++) {
        if (i) { /* a fresh run directory */
            assert_int_equal(teardown(state), 0);
            assert_int_equal(setup(state), 0);
        }
        tdx_loop_opts o = opts_for();
        o.target_fraction = 0.5;
        o.reach_s = reach[i];
        o.reach_margin = margin[i];
        tdx_loop_result res;
        tdx_diags d;
        tdx_diags_init(&d);
        assert_int_equal(tdx_loop_run(&o, &res, &d), TDX_OK);
        assert_int_equal(res.kept, kept[i]);
        assert_true(fabs(res.final_s - final_s[i]) < 0.01e-3);
        assert_string_equal(res.stop_reason, "near the roofline");
        tdx_diags_free(&d);
    }
}

/* Killed mid-run and resumed, the run ends as an uninterrupted one would,
 * and nothing measured before the kill is measured again: killed during
 * round 1's third timing, during its follow-up (the fifth: every candidate
 * the round proposed is in the journal, so the resumed round takes their
 * outcomes from it), and in round 2 (the sixth). */
static void resumes_after_a_kill(void **state)
{
    static const int kill_at[] = {3, 5, 6};
    for (size_t k = 0; k < sizeof kill_at / sizeof kill_at[0]; k++) {
        if (k) { /* a fresh run directory */
            assert_int_equal(teardown(state), 0);
            assert_int_equal(setup(state), 0);
        }
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
            crash_on_time = kill_at[k];
            tdx_loop_opts o = opts_for();
            tdx_loop_result res;
            tdx_diags d;
            tdx_diags_init(&d);
            tdx_loop_run(&o, &res, &d);
            _exit(0);
        }
        int status;
        waitpid(pid, &status, 0);
        assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 9);
        tdx_loop_opts o = opts_for();
        o.resume = 1;
        tdx_loop_result res;
        tdx_diags d;
        tdx_diags_init(&d);
        assert_int_equal(tdx_loop_run(&o, &res, &d), TDX_OK);
        assert_int_equal(res.kept, 2);
        assert_true(res.final_s < 1.01e-3);
        char *best;
        size_t blen;
        assert_int_equal(tdx_file_read(out, 1 << 20, &best, &blen), TDX_OK);
        assert_non_null(strstr(best, "BLOCK=1024, num_warps=8"));
        free(best);
        /* every candidate of the journal has its own source: none measured twice */
        char jpath[400];
        snprintf(jpath, sizeof jpath, "%s/journal.jsonl", rundir);
        json_t *all;
        assert_int_equal(tdx_jnl_read(jpath, &all, &d), TDX_OK);
        json_t *seen = json_object();
        for (size_t i = 0; i < json_array_size(all); i++) {
            json_t *e = json_array_get(all, i);
            const char *h = json_string_value(json_object_get(e, "hash"));
            const char *v = json_string_value(json_object_get(e, "verdict"));
            if (!h || !v || strcmp(v, "duplicate") == 0)
                continue;
            char key[64];
            snprintf(key, sizeof key, "%lld:%s", json_integer_value(json_object_get(e, "round")), h);
            assert_null(json_object_get(seen, key));
            json_object_set_new(seen, key, json_true());
        }
        json_decref(seen);
        json_decref(all);
        /* resuming a finished run changes nothing */
        assert_int_equal(tdx_loop_run(&o, &res, &d), TDX_OK);
        assert_string_equal(res.stop_reason, "near the roofline");
        tdx_diags_free(&d);
    }
}

/* A damaged journal (a huge round number, a stop without a reason) is
 * resumed without undefined behaviour: the run stands as recorded. (Its
 * baseline is there: a journal without one starts afresh.) */
static void resumes_a_damaged_journal(void **state)
{
    (void)state;
    char cmd[900];
    snprintf(cmd, sizeof cmd,
             "mkdir -p %s && printf '%%s\\n' '{\"type\":\"start\",\"seq\":1}' "
             "'{\"type\":\"baseline\",\"median_s\":0.001,\"fraction\":0.5,\"seq\":2}' "
             "'{\"type\":\"round_end\",\"round\":9223372036854775807,\"seq\":3}' "
             "'{\"type\":\"stop\",\"reason\":null,\"seq\":4}' > %s/journal.jsonl",
             rundir, rundir);
    assert_int_equal(system(cmd), 0);
    tdx_loop_opts o = opts_for();
    o.resume = 1;
    tdx_loop_result res;
    tdx_diags d;
    tdx_diags_init(&d);
    assert_int_equal(tdx_loop_run(&o, &res, &d), TDX_OK);
    assert_string_equal(res.stop_reason, "");
    assert_true(res.rounds == INT_MAX - 1);
    tdx_diags_free(&d);
}

/* Killed between a round's keep and its round_end: the keep ends the
 * round, so the resumed run starts the next one from the kept source
 * (best.py) and does not measure or keep the round again. The journal is
 * cut after round 1's keep of a finished run; best.py is that keep's file. */
static void resumes_after_a_keep_without_its_round_end(void **state)
{
    (void)state;
    tdx_loop_opts o = opts_for();
    tdx_loop_result res;
    tdx_diags d;
    tdx_diags_init(&d);
    assert_int_equal(tdx_loop_run(&o, &res, &d), TDX_OK);
    assert_int_equal(res.kept, 2);
    char jpath[400], cmd[2400];
    snprintf(jpath, sizeof jpath, "%s/journal.jsonl", rundir);
    json_t *all;
    assert_int_equal(tdx_jnl_read(jpath, &all, &d), TDX_OK);
    size_t cut = 0;
    json_int_t kept_index = 0;
    for (size_t i = 0; i < json_array_size(all) && !cut; i++) {
        json_t *e = json_array_get(all, i);
        if (strcmp(json_string_value(json_object_get(e, "type")), "keep") == 0) {
            cut = i + 1;
            kept_index = json_integer_value(json_object_get(e, "index"));
        }
    }
    json_decref(all);
    assert_true(cut > 0 && kept_index > 0);
    snprintf(cmd, sizeof cmd, "head -n %zu %s > %s.cut && mv %s.cut %s && cp %s/r1_c%lld.py %s/best.py", cut,
             jpath, jpath, jpath, jpath, rundir, (long long)kept_index, rundir);
    assert_int_equal(system(cmd), 0);
    o.resume = 1;
    assert_int_equal(tdx_loop_run(&o, &res, &d), TDX_OK);
    assert_int_equal(res.kept, 2);
    assert_true(res.final_s < 1.01e-3 && res.final_s > 0.99e-3);
    assert_int_equal(tdx_jnl_read(jpath, &all, &d), TDX_OK);
    int round1 = 0, resumed_at = 0;
    for (size_t i = 0; i < json_array_size(all); i++) {
        json_t *e = json_array_get(all, i);
        const char *type = json_string_value(json_object_get(e, "type"));
        json_int_t round = json_integer_value(json_object_get(e, "round"));
        if (strcmp(type, "resume") == 0)
            resumed_at = (int)round;
        else if (resumed_at && round == 1)
            round1++;
    }
    json_decref(all);
    assert_int_equal(resumed_at, 2);
    assert_int_equal(round1, 0);
    tdx_diags_free(&d);
}

static void a_failing_task_stops_with_its_reason(void **state)
{
    (void)state;
    FILE *f = fopen(task, "a");
    fputs("# WRONG\n", f);
    fclose(f);
    tdx_loop_opts o = opts_for();
    tdx_loop_result res;
    tdx_diags d;
    tdx_diags_init(&d);
    assert_int_equal(tdx_loop_run(&o, &res, &d), TDX_ERR_CHILD);
    assert_true(d.nerrors >= 1);
    assert_non_null(strstr(d.items[0].msg, "fails its check"));
    tdx_diags_free(&d);
}

/* A task the harness finds unfit (no reference) is no kernel's verdict: an
 * input error that says so. Its run stopped before a baseline, so once the
 * task is fixed a new run starts afresh, --resume or not. */
static void an_unfit_task_is_an_input_error_and_its_fix_starts_afresh(void **state)
{
    (void)state;
    char *orig;
    size_t olen;
    assert_int_equal(tdx_file_read(task, 1 << 20, &orig, &olen), TDX_OK);
    FILE *f = fopen(task, "a");
    fputs("# NOREF\n", f);
    fclose(f);
    tdx_loop_opts o = opts_for();
    tdx_loop_result res;
    tdx_diags d;
    tdx_diags_init(&d);
    assert_int_equal(tdx_loop_run(&o, &res, &d), TDX_ERR_INPUT);
    assert_true(d.nerrors == 1);
    assert_string_equal(d.items[0].msg, "the task cannot be used: no `reference(*inputs)` function");
    tdx_diags_free(&d);
    assert_int_equal(tdx_file_write(task, orig, olen), TDX_OK);
    for (int resume = 0; resume < 2; resume++) {
        if (resume) { /* again unfit, then fixed and resumed */
            f = fopen(task, "a");
            fputs("# NOREF\n", f);
            fclose(f);
            tdx_diags_init(&d);
            assert_int_equal(tdx_loop_run(&o, &res, &d), TDX_ERR_INPUT);
            tdx_diags_free(&d);
            assert_int_equal(tdx_file_write(task, orig, olen), TDX_OK);
        }
        o.resume = resume;
        tdx_diags_init(&d);
        assert_int_equal(tdx_loop_run(&o, &res, &d), TDX_OK);
        assert_int_equal(d.nerrors, 0);
        assert_true(res.initial_s > 0 && res.final_s > 0);
        tdx_diags_free(&d);
        if (!resume) { /* a finished run is there now: a fresh start again needs its directory gone */
            tdx_diags_init(&d);
            o.resume = 0;
            assert_int_equal(tdx_loop_run(&o, &res, &d), TDX_ERR_ARG);
            tdx_diags_free(&d);
            char cmd[sizeof res.run_dir + 16];
            snprintf(cmd, sizeof cmd, "rm -rf '%s'", res.run_dir);
            assert_int_equal(system(cmd), 0);
        }
    }
    free(orig);
}

/* One run at a time in a run directory: while another holds it, a second
 * run says so and touches nothing; once it is let go, the run goes on. */
static void a_second_run_in_the_same_directory_is_refused(void **state)
{
    (void)state;
    char cmd[400];
    snprintf(cmd, sizeof cmd, "mkdir -p '%s'", rundir);
    assert_int_equal(system(cmd), 0);
    int fd = open(rundir, O_RDONLY | O_DIRECTORY);
    assert_true(fd >= 0);
    assert_int_equal(flock(fd, LOCK_EX | LOCK_NB), 0); /* as a run working there holds it */
    tdx_loop_opts o = opts_for();
    tdx_loop_result res;
    tdx_diags d;
    tdx_diags_init(&d);
    assert_int_equal(tdx_loop_run(&o, &res, &d), TDX_ERR_ARG);
    assert_int_equal(d.nerrors, 1);
    assert_string_equal(d.items[0].msg, "another run of this task is working in this directory now");
    char jpath[400];
    snprintf(jpath, sizeof jpath, "%s/journal.jsonl", rundir);
    assert_int_not_equal(access(jpath, F_OK), 0); /* nothing written */
    tdx_diags_free(&d);
    close(fd);
    tdx_diags_init(&d);
    assert_int_equal(tdx_loop_run(&o, &res, &d), TDX_OK);
    assert_int_equal(d.nerrors, 0);
    tdx_diags_free(&d);
}


/* ---- the one-child trial (check, then time) ---------------------------- */

static int trials, trial_fail_timing;

static tdx_status never_check(void *ud, const char *task_path, const char *cand, tdx_loop_check *res)
{
    (void)ud, (void)task_path, (void)cand, (void)res;
    fail_msg("check called although the executor has a trial");
    return TDX_ERR_ARG;
}

static tdx_status never_time(void *ud, const char *task_path, const char *base, const char *cand,
                             tdx_loop_timing *t)
{
    if (cand && strcmp(base, task) == 0) /* the end's side-by-side timing: no check */
        return fx_time(ud, task_path, base, cand, t);
    fail_msg("time called although the executor has a trial");
    return TDX_ERR_ARG;
}

static tdx_status fx_trial(void *ud, const char *task_path, const char *base, const char *cand,
                           tdx_loop_trial *res)
{
    memset(res, 0, sizeof *res);
    trials++;
    res->check_s = 0.25;
    res->time_s = -1;
    res->check_wait_s = 0.125;
    res->time_wait_s = -1;
    res->start_s = 0.0625; /* of check_s: the rest unknown */
    res->precompile_s = -1;
    res->child_s = 0.125;
    res->judge_s = 0.0625;
    res->alone_s = -1; /* the check ran once */
    res->check_st = fx_check(ud, task_path, cand, &res->check);
    if (res->check_st || !res->check.ok)
        return TDX_OK;
    res->timed = 1;
    res->time_s = 0.5;
    res->time_wait_s = 0.375;
    if (trial_fail_timing && base && --trial_fail_timing == 0) {
        snprintf(res->timing.reason, sizeof res->timing.reason, "harness reported error: timing timed out");
        res->time_st = TDX_ERR_CHILD;
        return TDX_OK;
    }
    /* base NULL: the candidate timed alone, as the baseline */
    res->time_st = base ? fx_time(ud, task_path, base, cand, &res->timing)
                        : fx_time(ud, task_path, cand, NULL, &res->timing);
    return TDX_OK;
}

static void a_trial_executor_does_both_steps_in_one_call(void **state)
{
    (void)state;
    tdx_loop_opts o = opts_for();
    o.exec.check = never_check;
    o.exec.time = never_time;
    o.exec.trial = fx_trial;
    trials = 0;
    trial_fail_timing = 1; /* the first candidate's timing fails */
    tdx_loop_result res;
    tdx_diags d;
    tdx_diags_init(&d);
    assert_int_equal(tdx_loop_run(&o, &res, &d), TDX_OK);
    tdx_diags_free(&d);
    /* the same result as check-then-time, minus the candidate whose timing failed */
    assert_true(res.initial_s > 9.9e-3);
    assert_true(res.kept >= 1);
    assert_true(res.final_s < 2.01e-3);
    int n = 0;
    count_verdicts("timing failed: harness reported error: timing timed out", &n);
    assert_int_equal(n, 1);
    count_verdicts("check failed: shape (1000,) seed 0", &n);
    assert_true(n >= 1);
    /* the seconds of each step come from the trial */
    char jpath[400];
    snprintf(jpath, sizeof jpath, "%s/journal.jsonl", rundir);
    json_t *all;
    tdx_diags_init(&d);
    assert_int_equal(tdx_jnl_read(jpath, &all, &d), TDX_OK);
    int baseline = 0, timed = 0, checked = 0;
    for (size_t i = 0; i < json_array_size(all); i++) {
        json_t *e = json_array_get(all, i);
        const char *type = json_string_value(json_object_get(e, "type"));
        if (type && strcmp(type, "baseline") == 0) {
            baseline++;
            assert_true(json_real_value(json_object_get(e, "check_s")) == 0.25);
            assert_true(json_real_value(json_object_get(e, "time_s")) == 0.5);
        }
        if (type && json_object_get(e, "check_s")) {
            /* the check's parts the trial knew, and none it did not */
            json_t *p = json_object_get(e, "check_parts_s");
            assert_true(json_real_value(json_object_get(p, "start")) == 0.0625);
            assert_true(json_real_value(json_object_get(p, "child")) == 0.125);
            assert_true(json_real_value(json_object_get(p, "judge")) == 0.0625);
            assert_null(json_object_get(p, "precompile"));
            assert_null(json_object_get(p, "alone"));
        }
        if (type && strcmp(type, "candidate") == 0 && json_object_get(e, "check_s"))
            checked++;
        if (type && strcmp(type, "candidate") == 0 && json_object_get(e, "time_s")) {
            timed++;
            assert_true(json_real_value(json_object_get(e, "time_s")) == 0.5);
            /* and how much of each step was a wait for the GPU lock */
            json_t *w = json_object_get(e, "lock_wait_s");
            assert_true(json_real_value(json_object_get(w, "check")) == 0.125);
            assert_true(json_real_value(json_object_get(w, "time")) == 0.375);
        }
        if (type && strcmp(type, "candidate") == 0 && json_object_get(e, "check_s") && !json_object_get(e, "time_s"))
            assert_null(json_object_get(json_object_get(e, "lock_wait_s"), "time"));
    }
    assert_int_equal(baseline, 1);
    assert_true(timed >= 2);
    assert_int_equal(trials, 1 + checked); /* the task once, then each candidate that was run */
    json_decref(all);
    tdx_diags_free(&d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(keeps_faster_rejects_the_rest, setup, teardown),
        cmocka_unit_test_setup_teardown(a_trial_executor_does_both_steps_in_one_call, setup, teardown),
        cmocka_unit_test_setup_teardown(a_reached_time_outranks_the_roofline_target, setup, teardown),
        cmocka_unit_test_setup_teardown(resumes_after_a_kill, setup, teardown),
        cmocka_unit_test_setup_teardown(resumes_a_damaged_journal, setup, teardown),
        cmocka_unit_test_setup_teardown(resumes_after_a_keep_without_its_round_end, setup, teardown),
        cmocka_unit_test_setup_teardown(a_failing_task_stops_with_its_reason, setup, teardown),
        cmocka_unit_test_setup_teardown(an_unfit_task_is_an_input_error_and_its_fix_starts_afresh, setup, teardown),
        cmocka_unit_test_setup_teardown(a_second_run_in_the_same_directory_is_refused, setup, teardown),
    };
    if (getenv("TDX_TEST_FILTER"))
        cmocka_set_test_filter(getenv("TDX_TEST_FILTER"));
    return cmocka_run_group_tests(tests, NULL, NULL);
}
