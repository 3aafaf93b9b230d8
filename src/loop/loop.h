/* The optimize loop (tdx_loop_*): rounds of diagnose -> propose -> verify ->
 * time -> keep if faster -> re-diagnose, recorded in a journal from which an
 * interrupted run resumes.
 *
 * The loop decides; executing candidates (checking them against the reference,
 * timing them) is behind tdx_loop_exec, so that the real harness on a GPU, the
 * interpreter on a CPU, and a test timer can stand in for one another.
 * Proposers (built-in families, an LLM) are behind tdx_loop_proposer.
 *
 * Files: the task file is only read. The run directory holds the journal
 * (journal.jsonl), every candidate (rN_cK.py) and the best so far (best.py);
 * the final result is written to opts->out_path (default TASK.opt.py).
 *
 * Ownership: opts and everything it points to are the caller's; candidate
 * lists own their sources (tdx_loop_cands_free). */
#ifndef TDX_LOOP_LOOP_H
#define TDX_LOOP_LOOP_H

#include <stddef.h>

#include "base/diag.h"
#include "base/status.h"
#include "diagnose/diagnose.h"
#include "finding/finding.h"

/* ---- candidates and proposers ----------------------------------------- */

typedef struct tdx_loop_cand {
    char *source;        /* the whole rewritten task file (malloc'd) */
    size_t len;
    char family[128];    /* rewrite family applied: a stack "A+B+C+..." */
    char origin[16];     /* "builtin" or "llm" */
    char summary[256];   /* one line: what changed */
    int cites[8];        /* finding ids it rests on */
    int ncites;
    long tokens;         /* LLM tokens spent on it */
} tdx_loop_cand;

typedef struct tdx_loop_cands {
    tdx_loop_cand *items;
    size_t len, cap;
} tdx_loop_cands;

/* Append a candidate taking ownership of source (malloc'd). */
tdx_status tdx_loop_cands_push(tdx_loop_cands *c, char *source, size_t len, const char *family,
                               const char *origin, const char *summary);
/* Move candidate c to the end of out: out owns its source from then on
 * (c->source becomes NULL, also on failure), with its cites and tokens. */
tdx_status tdx_loop_cands_take(tdx_loop_cands *out, tdx_loop_cand *c);
void tdx_loop_cands_free(tdx_loop_cands *c);

/* What a proposer sees. */
typedef struct tdx_loop_ctx {
    const char *task_path;   /* the original task (for reference/make_inputs) */
    const char *src;         /* the current best source */
    size_t len;
    const tdx_ledger *ledger;/* this round's findings */
    const tdx_dx_report *dx; /* this round's diagnosis */
    int round;
} tdx_loop_ctx;

typedef struct tdx_loop_proposer {
    const char *name;
    tdx_status (*propose)(void *ud, const tdx_loop_ctx *ctx, tdx_loop_cands *out, tdx_diags *diags);
    void *ud;
} tdx_loop_proposer;

/* ---- executing candidates ---------------------------------------------- */

typedef struct tdx_loop_check {
    int ok;
    char reason[512];     /* why it failed, one line */
    /* How the code ran: sandbox_known set by executors that sandbox, with
     * whether the network and the file system were isolated (docs/faults.md). */
    int sandbox_known, net_isolated, fs_isolated;
    /* The loosest relative-error tolerance an output was judged by (a tf32
     * dot loosens an fp32 output's); 0 when not known or exact. */
    double tolerance;
    /* The task file itself is unfit (it lacks what the task format asks:
     * no reference, no make_inputs ...): no verdict on a kernel. */
    int task_unfit;
} tdx_loop_check;

typedef struct tdx_loop_timing {
    double base_median_s, base_iqr_s;
    double cand_median_s, cand_iqr_s;
    /* the candidate's time over the baseline's rep by rep (timed interleaved):
     * median and its 95 % sign-test interval; 0 unknown. Recorded, not yet
     * used to judge. */
    double ratio_median, ratio_lo, ratio_hi;
    double fraction;      /* candidate's fraction of the roofline; < 0 unknown */
    double bytes, flops;  /* the task's ideal bytes and FLOPs per call; 0 unknown */
    double out_bytes;     /* of the bytes, the outputs'; 0 unknown */
    char dtype[16];       /* the dtype its FLOPs run in ("fp16", ...); "" unknown */
    char reason[512];     /* why timing failed, one line */
    double tolerance;     /* set by the loop: its check's tdx_loop_check.tolerance */
    /* time_torch only: the task's torch baseline, eager and under
     * torch.compile, timed interleaved with the two (medians); 0 not timed */
    double torch_eager_s, torch_compile_s;
    double torch_compile_build_s; /* torch.compile's first call (its compile), kept out of the timed runs; 0 unknown */
    /* of the harness call: seconds spent waiting for the GPU lock (other tasks' steps), and
     * in its exclusive hold (the estimate and the timed runs); 0 unknown */
    double wait_s, timed_s;
} tdx_loop_timing;

/* What a trial (check, then time when the check passed) came to. */
typedef struct tdx_loop_trial {
    tdx_loop_check check;
    tdx_loop_timing timing;
    tdx_status check_st, time_st; /* what check and time would have returned */
    int timed;                    /* the timing ran (the check passed) */
    double check_s, time_s;       /* seconds of each step; time_s < 0 when it did not run */
    double check_wait_s, time_wait_s; /* of those, seconds spent waiting for the GPU lock
                                       * (shared by parallel tasks); < 0 unknown */
    /* parts of check_s, < 0 unknown: the interpreter's start and imports, the candidate's
     * compiles ahead of the check, its child (inputs, launches, transfers), the judging
     * (references, comparisons); alone_s: the whole check run a second time with the GPU
     * to itself after the first ran out of GPU memory beside other processes (< 0: it
     * did not) */
    double start_s, precompile_s, child_s, judge_s, alone_s;
} tdx_loop_trial;

#define TDX_LOOP_CHECK_PARTS 5 /* start, precompile, child, judge, alone */

typedef struct tdx_loop_exec {
    /* Check candidate_path (a rewritten copy of task_path) against the original's reference. */
    tdx_status (*check)(void *ud, const char *task_path, const char *candidate_path,
                        tdx_loop_check *res);
    /* Time baseline_path and candidate_path back to back (candidate_path NULL: baseline only). */
    tdx_status (*time)(void *ud, const char *task_path, const char *baseline_path,
                       const char *candidate_path, tdx_loop_timing *res);
    /* Optional (NULL: check, then time): both steps for one candidate,
     * where an executor can do them in one child -- timed against
     * baseline_path, or alone (as the baseline) when that is NULL. Returns
     * an error only when the trial could not be run at all. */
    tdx_status (*trial)(void *ud, const char *task_path, const char *baseline_path,
                        const char *candidate_path, tdx_loop_trial *res);
    void *ud;
    /* Optional (NULL: not offered): as time, with the task's torch baseline,
     * eager and under torch.compile (compiled before), timed run by run
     * among the two -- the confirm's comparison with torch, made in the same
     * minute on the same inputs. A torch column that fails is left 0. */
    tdx_status (*time_torch)(void *ud, const char *task_path, const char *baseline_path,
                             const char *candidate_path, tdx_loop_timing *res);
} tdx_loop_exec;

/* ---- the loop ------------------------------------------------------------ */

typedef struct tdx_loop_progress {
    int round, max_rounds;
    size_t cand_index, ncands;
    double best_s, initial_s;
    double elapsed_s;
    const char *what; /* "diagnose", "check", "time", ... */
} tdx_loop_progress;

typedef struct tdx_loop_opts {
    const char *task_path;
    const char *run_dir;      /* NULL: TASK.tdx/ next to the task */
    const char *out_path;     /* NULL: TASK.opt.py next to the task */
    int max_rounds;           /* 0: 15 */
    int no_stack;             /* 1: never stack the round's two winners into one more candidate */
    int no_confirm;           /* 1: the final time is the rounds' ratios chained, not one side-by-side
                               * timing of the result against the task at the end */
    int beside_torch;         /* 1: torch eager and torch.compile timed in the confirm too (exec.time_torch),
                               * and beside the task when nothing was kept (journal `torch_beside`) */
    int max_cands;            /* per round, 0: 8 */
    double time_budget_s;     /* 0: none */
    double target_fraction;   /* stop at this fraction of the roofline; 0: 0.85 */
    /* A time another implementation of the task reached on this device (the
     * bench gives the faster of torch eager and torch.compile): while the
     * best is more than 2 % slower than it, the roofline target does not stop
     * the loop (the floor is a model; this was measured). 0: none. */
    double reach_s;
    /* How much slower than reach_s still counts as reaching it, as a
     * factor: 1.0 chases every lead, 0: 1.02 (REACH_MARGIN). */
    double reach_margin;
    int resume;
    tdx_dx_opts dx;           /* diagnosis levels and escalation */
    /* The device's ceilings for level 1 (no `ceilings` call each round);
     * NULL: it asks. Borrowed. */
    const struct tdx_prof_ceilings *ceilings;
    const tdx_loop_proposer *proposers;
    size_t nproposers;
    tdx_loop_exec exec;
    void (*progress)(const tdx_loop_progress *p, void *ud);
    void *progress_ud;
} tdx_loop_opts;

typedef struct tdx_loop_result {
    int rounds;
    int kept;
    int tried;
    double initial_s, final_s;
    double final_fraction;    /* < 0 unknown */
    int reverted;             /* 1: what the rounds kept was not faster than the task side by side
                               * at the end: the result is the task as given */
    char stop_reason[256];
    char out_path[1024];
    char run_dir[1024];
} tdx_loop_result;

/* Run (or resume) the loop. Returns TDX_OK when it ran to a stop, whatever it
 * kept; an error when the task cannot be read/parsed or the baseline fails
 * (a message in diags). Never modifies opts->task_path. */
tdx_status tdx_loop_run(const tdx_loop_opts *opts, tdx_loop_result *res, tdx_diags *diags);

/* Why a candidate is not acceptable before running it (empty when fine):
 * it does not parse, changes launch's parameters, changes reference,
 * make_inputs or SHAPES, or defines no kernel. */
void tdx_loop_vet(const char *orig, size_t olen, const char *cand, size_t clen, char *why,
                  size_t why_len);

/* 64-bit FNV-1a of a text, as 16 hex digits in out[17]. */
void tdx_loop_hash(const char *s, size_t n, char out[17]);

#endif
