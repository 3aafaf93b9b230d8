/* The optimize loop's end: the kept source timed once more side by side
 * with the task (confirmed, undone when slower, kept when inconclusive; its
 * ratio the run's speedup), a noisy timing taken again, there
 * and for a candidate that read faster within its spread (loop_fixture.h's
 * fake device). */
#include <math.h>

#include "loop_fixture.h"

/* Each round's timing reads the best so far 25 % slow, so the rounds'
 * ratios chained make the result 1.25 times faster than it is at least; the timing side
 * by side with the task at the end gives its true time, and a resumed
 * (finished) run reports that one too. --no-confirm keeps the chain. */
static void the_result_is_timed_side_by_side_with_the_task(void **state)
{
    for (int no_confirm = 0; no_confirm < 2; no_confirm++) {
        if (no_confirm) {
            assert_int_equal(teardown(state), 0);
            assert_int_equal(setup(state), 0);
        }
        base_bias = 1.25;
        tdx_loop_opts o = opts_for();
        o.no_confirm = no_confirm;
        tdx_loop_result res;
        run_to_end(&o, &res);
        assert_true(res.kept >= 1);
        assert_int_equal(res.reverted, 0);
        assert_int_equal(confirms, no_confirm ? 0 : 1);
        /* the chain: the last keep's time, at least one 25 % too fast */
        json_t *keeps = entries_of("keep");
        double chained = json_number_value(json_object_get(json_array_get(keeps, json_array_size(keeps) - 1), "median_s"));
        json_decref(keeps);
        double truth = fake_time(out); /* the result's time on the fake device */
        assert_true(chained < truth / 1.2);
        assert_true(fabs(res.final_s - (no_confirm ? chained : truth)) < 1e-9);
        json_t *c = entries_of("confirm");
        assert_int_equal(json_array_size(c), no_confirm ? 0 : 1);
        if (!no_confirm) {
            json_t *e = json_array_get(c, 0);
            assert_true(fabs(json_number_value(json_object_get(e, "chained_final_s")) - chained) < 1e-6);
            assert_true(fabs(json_number_value(json_object_get(e, "final_s")) - truth) < 1e-9);
            assert_false(json_is_true(json_object_get(e, "reverted")));
            json_t *tm = json_object_get(e, "timing");
            assert_true(fabs(json_number_value(json_object_get(tm, "base_median_s")) - 10e-3) < 1e-9);
            /* the stop entry reports the confirmed time */
            json_t *s = entries_of("stop");
            assert_true(fabs(json_number_value(json_object_get(json_array_get(s, 0), "final_median_s")) - truth) < 1e-9);
            json_decref(s);
            /* resumed after it finished: the same result, nothing timed again */
            o.resume = 1;
            run_to_end(&o, &res);
            assert_int_equal(confirms, 1);
            assert_true(fabs(res.final_s - truth) < 1e-9);
        }
        json_decref(c);
    }
}

/* The rounds kept a source that, side by side with the task at the end,
 * is slower beyond the spread: the result is the task as given, said in a
 * warning and the journal, and its time is the task's. */
static void a_result_slower_than_the_task_is_undone(void **state)
{
    (void)state;
    char *orig;
    size_t olen;
    assert_int_equal(tdx_file_read(task, 1 << 20, &orig, &olen), TDX_OK);
    confirm_scale = 20.0; /* 1 ms kept, read as 20 ms beside the task's 10 */
    tdx_loop_opts o = opts_for();
    tdx_loop_result res;
    tdx_diags d;
    tdx_diags_init(&d);
    assert_int_equal(tdx_loop_run(&o, &res, &d), TDX_OK);
    assert_int_equal(res.reverted, 1);
    assert_true(fabs(res.final_s - res.initial_s) < 1e-12);
    assert_true(fabs(res.final_fraction - 0.1) < 1e-9); /* the task's own */
    int warned = 0;
    for (size_t i = 0; i < d.len; i++)
        warned += strstr(d.items[i].msg, "the result is the task as given") != NULL;
    assert_int_equal(warned, 1);
    tdx_diags_free(&d);
    char *got;
    size_t glen;
    assert_int_equal(tdx_file_read(out, 1 << 20, &got, &glen), TDX_OK);
    assert_int_equal(glen, olen);
    assert_memory_equal(got, orig, olen);
    free(got);
    json_t *c = entries_of("confirm");
    assert_int_equal(json_array_size(c), 1);
    assert_true(json_is_true(json_object_get(json_array_get(c, 0), "reverted")));
    json_decref(c);
    /* resumed after it finished: still undone */
    o.resume = 1;
    run_to_end(&o, &res);
    assert_int_equal(res.reverted, 1);
    assert_true(fabs(res.final_s - res.initial_s) < 1e-12);
    /* died after the confirm, before its stop: the resumed run stops undone,
     * without timing anything again */
    char jpath[400], *text;
    size_t tlen;
    snprintf(jpath, sizeof jpath, "%s/journal.jsonl", rundir);
    assert_int_equal(tdx_file_read(jpath, 1 << 22, &text, &tlen), TDX_OK);
    assert_true(tlen > 1 && text[tlen - 1] == '\n');
    text[tlen - 1] = '\0';
    char *last = strrchr(text, '\n');
    assert_non_null(strstr(last, "\"stop\""));
    assert_int_equal(tdx_file_write(jpath, text, (size_t)(last - text) + 1), TDX_OK);
    free(text);
    int before = confirms;
    run_to_end(&o, &res);
    assert_int_equal(confirms, before);
    assert_int_equal(res.reverted, 1);
    assert_true(fabs(res.final_s - res.initial_s) < 1e-12);
    assert_int_equal(tdx_file_read(out, 1 << 20, &got, &glen), TDX_OK);
    assert_int_equal(glen, olen);
    assert_memory_equal(got, orig, olen);
    free(got);
    free(orig);
}

/* Side by side with the task, the result reads even (within the spread):
 * neither faster nor slower, so the result is kept at the ratio it read
 * there; the journal says "inconclusive". */
static void an_inconclusive_confirm_reports_the_times_side_by_side(void **state)
{
    (void)state;
    confirm_scale = 10.0; /* the kept 1 ms reads 10 ms beside the task's 10 ms */
    tdx_loop_opts o = opts_for();
    tdx_loop_result res;
    run_to_end(&o, &res);
    assert_int_equal(res.reverted, 0);
    assert_int_equal(confirms, 1);
    assert_true(fabs(res.final_s - 10e-3) < 1e-9);
    assert_true(fabs(res.initial_s - 10e-3) < 1e-9);
    char *best;
    size_t blen;
    assert_int_equal(tdx_file_read(out, 1 << 20, &best, &blen), TDX_OK);
    assert_non_null(strstr(best, "BLOCK=1024, num_warps=8"));
    free(best);
    json_t *c = entries_of("confirm");
    assert_string_equal(json_string_value(json_object_get(json_array_get(c, 0), "outcome")), "inconclusive");
    json_decref(c);
}

/* The task's own first timing read 10 % slow (11 ms for 10): the task's
 * time is the geometric mean of its timings at the start and beside the
 * result at the end, the result's that times the ratio read there, the
 * roofline fractions at those times; the first reading stays in the
 * journal. A resumed (finished) run reports the same. */
static void the_task_is_timed_again_beside_the_result(void **state)
{
    (void)state;
    start_scale = 1.1;
    tdx_loop_opts o = opts_for();
    tdx_loop_result res;
    run_to_end(&o, &res);
    assert_int_equal(confirms, 1);
    double task_s = sqrt(11e-3 * 10e-3), final_s = task_s * fake_time(out) / 10e-3;
    json_t *c = entries_of("confirm");
    json_t *e = json_array_get(c, 0);
    assert_string_equal(json_string_value(json_object_get(e, "outcome")), "faster");
    assert_true(fabs(json_number_value(json_object_get(e, "start_initial_s")) - 11e-3) < 1e-9);
    assert_true(fabs(json_number_value(json_object_get(e, "initial_s")) - task_s) < 1e-9);
    assert_true(fabs(json_number_value(json_object_get(e, "initial_fraction")) - 1e-3 / task_s) < 1e-9);
    json_decref(c);
    for (int resumed = 0; resumed < 2; resumed++) {
        assert_true(fabs(res.initial_s - task_s) < 1e-9);
        assert_true(fabs(res.final_s - final_s) < 1e-9);
        assert_true(fabs(res.final_fraction - 1e-3 / final_s) < 1e-9);
        json_t *s = entries_of("stop");
        assert_true(fabs(json_number_value(json_object_get(json_array_get(s, 0), "initial_median_s")) - task_s) < 1e-9);
        json_decref(s);
        o.resume = 1;
        run_to_end(&o, &res);
        assert_int_equal(confirms, 1);
    }
}

/* A confirm timing spread over more than 3 % is taken again; the narrower
 * of the two decides. */
static void a_noisy_confirm_is_taken_again(void **state)
{
    (void)state;
    noisy_confirms = 1;
    tdx_loop_opts o = opts_for();
    tdx_loop_result res;
    run_to_end(&o, &res);
    assert_int_equal(confirms, 2);
    assert_true(fabs(res.final_s - 1e-3) < 1e-9);
    json_t *c = entries_of("confirm");
    json_t *e = json_array_get(c, 0);
    assert_int_equal(json_integer_value(json_object_get(e, "timings")), 2);
    /* of its time_s, both timings' waits for the GPU lock and exclusive holds */
    assert_true(json_number_value(json_object_get(e, "lock_wait_s")) == 0.5);
    assert_true(json_number_value(json_object_get(e, "timed_runs_s")) == 1.0);
    assert_string_equal(json_string_value(json_object_get(e, "outcome")), "faster");
    assert_true(json_number_value(json_object_get(json_object_get(e, "timing"), "base_iqr_s")) < 0.03 * 10e-3);
    json_decref(c);
}

/* A candidate timing that reads faster within a spread over 3 % is taken
 * again and the narrower one decides: round 1's BLOCK=256 (5 ms against
 * 10) first reads 0.95 of the base with a 10 % IQR, then as it is; one that
 * reads slower in such a spread is not taken again. */
static void a_noisy_faster_candidate_is_timed_again(void **state)
{
    static const double ratio[] = {0.95, 1.05};
    for (int i = 0; i < 2; i++) {
        if (i) { /* a fresh run directory */
            assert_int_equal(teardown(state), 0);
            assert_int_equal(setup(state), 0);
        }
        noisy_cands = 1;
        noisy_ratio = ratio[i];
        tdx_loop_opts o = opts_for();
        tdx_loop_result res;
        run_to_end(&o, &res);
        json_t *c = entries_of("candidate");
        json_t *e = json_array_get(c, 0);
        assert_int_equal(json_integer_value(json_object_get(e, "index")), 1);
        assert_string_equal(json_string_value(json_object_get(e, "verdict")), i ? "slower" : "faster");
        assert_int_equal(json_integer_value(json_object_get(e, "timings")), i ? 0 : 2);
        double med = json_number_value(json_object_get(json_object_get(e, "timing"), "cand_median_s"));
        assert_true(fabs(med - (i ? 10.5e-3 : 5e-3)) < 1e-9);
        json_decref(c);
    }
}

static size_t count_of(const char *type)
{
    json_t *a = entries_of(type);
    size_t n = json_array_size(a);
    json_decref(a);
    return n;
}

/* With beside_torch the confirm times torch's baseline among its runs
 * (the candidates' timings never do): the journal's confirm gives torch
 * eager and torch.compile at the task's time there, so that they compare
 * with the final time as they read side by side; a resumed (finished) run
 * times nothing again. */
static void torch_is_timed_beside_the_result_at_the_end(void **state)
{
    (void)state;
    start_scale = 1.1;
    tdx_loop_opts o = opts_for();
    o.beside_torch = 1;
    o.exec.time_torch = fx_time_torch;
    tdx_loop_result res;
    run_to_end(&o, &res);
    assert_int_equal(confirms, 1);
    assert_int_equal(torch_timings, 1);
    double task_s = sqrt(11e-3 * 10e-3);
    json_t *c = entries_of("confirm");
    json_t *e = json_array_get(c, 0);
    assert_true(fabs(json_number_value(json_object_get(e, "torch_compile_s")) - 0.5 * task_s) < 1e-12);
    assert_true(fabs(json_number_value(json_object_get(e, "torch_eager_s")) - 0.8 * task_s) < 1e-12);
    /* what torch.compile's compile took of the confirm's time_s, as the timing said */
    assert_true(json_number_value(json_object_get(e, "torch_compile_build_s")) == 4.5);
    assert_true(json_number_value(json_object_get(e, "lock_wait_s")) == 0.25);
    assert_true(json_number_value(json_object_get(e, "timed_runs_s")) == 0.5);
    /* the same comparison as side by side: the result (1 ms beside 10) against torch.compile (5 ms) */
    assert_true(fabs(res.final_s / json_number_value(json_object_get(e, "torch_compile_s")) - 1e-3 / 5e-3) < 1e-9);
    json_decref(c);
    assert_int_equal(count_of("torch_beside"), 0);
    o.resume = 1;
    run_to_end(&o, &res);
    assert_int_equal(torch_timings, 1);
    assert_int_equal(confirms, 1);
}

/* A torch timing that fails is taken again without torch: the confirm
 * stands as it would have, with no torch columns; without beside_torch no
 * torch timing runs at all. */
static void a_failing_torch_timing_leaves_the_confirm_as_it_was(void **state)
{
    for (int beside = 1; beside >= 0; beside--) {
        if (!beside) {
            assert_int_equal(teardown(state), 0);
            assert_int_equal(setup(state), 0);
        }
        torch_fails = 1;
        tdx_loop_opts o = opts_for();
        o.beside_torch = beside;
        o.exec.time_torch = fx_time_torch;
        tdx_loop_result res;
        run_to_end(&o, &res);
        assert_int_equal(torch_timings, beside);
        assert_int_equal(confirms, 1);
        assert_true(fabs(res.final_s - 1e-3) < 1e-9);
        json_t *c = entries_of("confirm");
        json_t *e = json_array_get(c, 0);
        assert_string_equal(json_string_value(json_object_get(e, "outcome")), "faster");
        assert_null(json_object_get(e, "torch_compile_s"));
        assert_null(json_object_get(e, "torch_eager_s"));
        assert_null(json_object_get(e, "torch_compile_build_s"));
        json_decref(c);
    }
}

/* Nothing kept (the task starts above the target): with beside_torch the
 * task is timed once with torch among its runs, journal `torch_beside`,
 * torch's columns at the task's final time; once, also when resumed. A
 * failed one says why and the run ends as it would have. */
static void nothing_kept_times_torch_beside_the_task(void **state)
{
    for (int fail = 0; fail < 2; fail++) {
        if (fail) {
            assert_int_equal(teardown(state), 0);
            assert_int_equal(setup(state), 0);
        }
        torch_fails = fail;
        tdx_loop_opts o = opts_for();
        o.target_fraction = 0.05; /* the task reads 0.1 of its floor */
        o.beside_torch = 1;
        o.exec.time_torch = fx_time_torch;
        tdx_loop_result res;
        run_to_end(&o, &res);
        assert_int_equal(res.kept, 0);
        assert_int_equal(torch_timings, 1); /* a failed one is taken again without torch */
        json_t *b = entries_of("torch_beside");
        assert_int_equal(json_array_size(b), 1);
        json_t *e = json_array_get(b, 0);
        if (fail) {
            assert_null(json_object_get(e, "torch_compile_s"));
            assert_non_null(json_string_value(json_object_get(e, "reason")));
        } else {
            assert_true(fabs(json_number_value(json_object_get(e, "final_s")) - res.final_s) < 1e-12);
            assert_true(fabs(json_number_value(json_object_get(e, "torch_compile_s")) - 0.5 * res.final_s) < 1e-12);
            assert_true(fabs(json_number_value(json_object_get(e, "torch_eager_s")) - 0.8 * res.final_s) < 1e-12);
        }
        json_decref(b);
        assert_int_equal(count_of("confirm"), 0);
        o.resume = 1;
        run_to_end(&o, &res);
        assert_int_equal(torch_timings, 1);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(the_result_is_timed_side_by_side_with_the_task, setup, teardown),
        cmocka_unit_test_setup_teardown(a_result_slower_than_the_task_is_undone, setup, teardown),
        cmocka_unit_test_setup_teardown(an_inconclusive_confirm_reports_the_times_side_by_side, setup, teardown),
        cmocka_unit_test_setup_teardown(the_task_is_timed_again_beside_the_result, setup, teardown),
        cmocka_unit_test_setup_teardown(a_noisy_confirm_is_taken_again, setup, teardown),
        cmocka_unit_test_setup_teardown(a_noisy_faster_candidate_is_timed_again, setup, teardown),
        cmocka_unit_test_setup_teardown(torch_is_timed_beside_the_result_at_the_end, setup, teardown),
        cmocka_unit_test_setup_teardown(a_failing_torch_timing_leaves_the_confirm_as_it_was, setup, teardown),
        cmocka_unit_test_setup_teardown(nothing_kept_times_torch_beside_the_task, setup, teardown),
    };
    if (getenv("TDX_TEST_FILTER"))
        cmocka_set_test_filter(getenv("TDX_TEST_FILTER"));
    return cmocka_run_group_tests(tests, NULL, NULL);
}
