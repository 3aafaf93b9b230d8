/* Internals shared by the loop's files (not public): loop.c runs the
 * rounds, the journal and resume; loop_steps.c holds the steps a round
 * takes after its candidates (a stack of two winners, a follow-up or
 * search on the best) and the end's side-by-side confirm.
 *
 * Ownership: a tdx_loop__run lives on tdx_loop_run's stack; it owns orig,
 * best, tried, replay and the journal; the functions here borrow it. */
#ifndef TDX_LOOP_LOOP_INT_H
#define TDX_LOOP_LOOP_INT_H

#include <jansson.h>
#include <stddef.h>

#include "journal/journal.h"
#include "loop/loop.h"

/* The fraction of the roofline floor that stops the loop (opts.target_fraction). */
#define TARGET_FRACTION 0.85
/* The reach rule's margin: a best within 2 % of opts.reach_s counts as
 * reaching it (opts.reach_margin; tdx_loop__reach_margin). */
#define REACH_MARGIN 1.02
/* Follow-ups a round at most: one, and a second while the best is still
 * short -- the search after a finding's that lost, none after a search
 * that lost (tdx_loop__follow_up). */
#define FOLLOW_UPS 2

/* opts' reach margin as a factor: REACH_MARGIN unless set. */
static inline double tdx_loop__reach_margin(const tdx_loop_opts *o)
{
    return o->reach_margin > 0 ? o->reach_margin : REACH_MARGIN;
}

typedef struct tdx_loop__run {
    const tdx_loop_opts *o;
    tdx_loop_result *res;
    tdx_diags *diags;
    tdx_jnl jnl;
    char *orig;          /* the task's source */
    size_t olen;
    char *best;          /* the best source so far */
    size_t blen;
    char best_path[1100];
    json_t *tried;       /* object: hash -> true */
    json_t *replay;      /* object: hash -> candidate entry, of the round a
                          * resumed run died in: its outcome is taken from
                          * the journal, not measured again */
    double t0;
    double elapsed_before; /* from earlier sessions of a resumed run */
    double last_fraction;
    double initial_fraction; /* the task's own, from its baseline; < 0 unknown */
    int confirmed;           /* the journal holds the end's timing (confirm or torch_beside) */
    /* the diagnosis as run: level 1 told the ceilings and the timing the
     * loop made of its best so far, so it need not measure them again */
    tdx_dx_opts dx;
    tdx_dx_l1_opts l1;
} tdx_loop__run;

/* Monotonic seconds. */
double tdx_loop__now_s(void);
/* Append e to the journal (stamped with at_s); takes e's reference. */
tdx_status tdx_loop__jlog(tdx_loop__run *r, json_t *e);
/* Tell opts.progress what the run is doing. */
void tdx_loop__progress(tdx_loop__run *r, int round, size_t ci, size_t nc, const char *what);
/* Write src as best.py and as the result file. */
tdx_status tdx_loop__write_best(tdx_loop__run *r, const char *src, size_t len);
/* Faster beyond the spread (the larger IQR) of the two. */
int tdx_loop__faster(const tdx_loop_timing *t);
/* The larger of a timing's two IQRs, each relative to its median. */
double tdx_loop__rel_spread(const tdx_loop_timing *t);
/* A timing as the journal records it (medians, spreads, fraction, and the
 * rep-by-rep ratios when known); a new reference, NULL when out of memory. */
json_t *tdx_loop__timing_json(const tdx_loop_timing *t);
/* A timing spread wider than this is taken again, once, where it decides
 * something: the confirm, and a candidate that read faster within it. */
#define TIMING_NOISY 0.03
/* {"net": bool, "fs": bool}: whether a check ran isolated (docs/faults.md). */
json_t *tdx_loop__sandbox_json(const tdx_loop_check *c);
/* The parts of a trial's check (start, precompile, child, judge; < 0 unknown). */
void tdx_loop__trial_parts(const tdx_loop_trial *tr, double parts[TDX_LOOP_CHECK_PARTS]);
/* A journal entry's "check_parts_s": the parts of its check_s that are known. */
void tdx_loop__set_check_parts(json_t *e, const double parts[TDX_LOOP_CHECK_PARTS]);
/* Try one candidate of a round: vet, check, time against the best kept so
 * far or (against > 0) the round's candidate of that index; journals it.
 * Returns 1 faster, 2 even, else 0; *fatal set when the journal failed. */
int tdx_loop__try_candidate(tdx_loop__run *r, int round, size_t ci, size_t against, const tdx_loop_cand *c,
                            const char *path, tdx_loop_timing *t, tdx_status *fatal);

/* loop_steps.c */
tdx_status tdx_loop__stack_winners(tdx_loop__run *r, int round, tdx_loop_cands *cands, size_t n,
                                   const double *ratio_of, const int *verdict_of, int *best_i,
                                   tdx_loop_timing *best_t, size_t *last_ci);
tdx_status tdx_loop__follow_up(tdx_loop__run *r, int round, tdx_loop_cands *cands, const tdx_ledger *seen,
                               int *best_i, tdx_loop_timing *best_t, size_t *last_ci, size_t *keep_ci);
tdx_status tdx_loop__confirm(tdx_loop__run *r);

#endif
