/* Executing candidates for the loop through the Python harness (tdx_loop_hx_*),
 * each check and each timing in a fresh child process.
 *
 * Test seam: when TDX_TEST_TIMER names a program, timing runs
 * `PROGRAM BASELINE_FILE CANDIDATE_FILE` (candidate "-" for none) instead of
 * the harness, and reads one JSON object from its stdout:
 * {"base_median_s":..., "base_iqr_s":..., "cand_median_s":..., "cand_iqr_s":...,
 *  "fraction":...}. Checks still run through the harness (on the CPU with
 * --device cpu), so the loop can be tested end to end without a GPU.
 *
 * Every child runs sandboxed (docs/faults.md): a private directory that is
 * its working directory and only writable place (Landlock, where the kernel
 * has it), no network, rlimits, TRITONDX_LLM_KEY/OPENAI_API_KEY removed,
 * TDX_SANDBOX=1 for the harness. Its time limit is check_timeout_s /
 * time_timeout_s, else $TRITONDX_CANDIDATE_TIMEOUT (seconds), else 600;
 * its CPU time limit $TRITONDX_CANDIDATE_CPU (seconds), else the same.
 *
 * Ownership: the executor borrows its strings. */
#ifndef TDX_LOOP_EXEC_H
#define TDX_LOOP_EXEC_H

#include "hx/hx.h"
#include "loop/loop.h"
#include "profile/profile.h"

typedef struct tdx_loop_hx {
    tdx_hx_opts hx;           /* python, timeouts, rlimits for every child */
    const char *device;       /* "cuda" or "cpu" (interpreter) */
    const char *test_timer;   /* NULL: $TDX_TEST_TIMER */
    const tdx_prof_ceilings *ceilings; /* for the roofline fraction; NULL: unknown */
    double check_timeout_s;   /* 0: $TRITONDX_CANDIDATE_TIMEOUT or 600 */
    double time_timeout_s;    /* 0: $TRITONDX_CANDIDATE_TIMEOUT or 600 */
    int gpu_runs;             /* counters for the cost record */
} tdx_loop_hx;

/* An executor whose ud is hx. */
tdx_loop_exec tdx_loop_hx_exec(tdx_loop_hx *hx);

tdx_status tdx_loop_hx_check(void *ud, const char *task_path, const char *candidate_path,
                             tdx_loop_check *res);
tdx_status tdx_loop_hx_time(void *ud, const char *task_path, const char *baseline_path,
                            const char *candidate_path, tdx_loop_timing *res);
/* tdx_loop_exec.time_torch: the same timing, `time --beside-torch`; the test
 * timer is run with a fourth argument, --torch, and may print
 * torch_eager_median_s and torch_compile_median_s. */
tdx_status tdx_loop_hx_time_torch(void *ud, const char *task_path, const char *baseline_path,
                                  const char *candidate_path, tdx_loop_timing *res);
/* On a GPU (and unless TRITONDX_TRIAL=0), the harness's `trial` verb: the
 * check and the timing in one sandboxed child; elsewhere check, then time. */
tdx_status tdx_loop_hx_trial(void *ud, const char *task_path, const char *baseline_path,
                             const char *candidate_path, tdx_loop_trial *res);

#endif
