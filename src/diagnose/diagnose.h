/* Escalating diagnosis (tdx_dx_*): run the cheapest level that can still
 * yield a new finding, and descend only while no finding decides.
 *
 * A finding decides when it names the dominant cause, narrows the fix to one
 * rewrite family, and explains why that should help: it has a family, a
 * hypothesis, and a confidence of at least opts->decide_confidence. Each level
 * is a function behind tdx_dx_level, so that levels the machine cannot run
 * (no GPU: level 1) or that are not available are skipped and said so.
 *
 * Ownership: the caller owns the ledger and the report; levels append to the
 * ledger. */
#ifndef TDX_DIAGNOSE_DIAGNOSE_H
#define TDX_DIAGNOSE_DIAGNOSE_H

#include <stddef.h>

#include "base/buf.h"
#include "base/diag.h"
#include "base/status.h"
#include "finding/finding.h"

/* What one level cost. */
typedef struct tdx_dx_cost {
    double seconds;
    int compiles;
    int gpu_runs;
    long tokens;
} tdx_dx_cost;

/* One level's entry point: append findings for the task to the ledger and
 * add what it spent to cost. Returns TDX_ERR_UNSUPPORTED when the level
 * cannot run here (e.g. no GPU), with a one-line reason in `why`. */
typedef tdx_status (*tdx_dx_level_fn)(void *ud, const char *task_path, const char *src, size_t len,
                                      tdx_ledger *ledger, tdx_dx_cost *cost, char *why,
                                      size_t why_len, tdx_diags *diags);

typedef struct tdx_dx_level {
    tdx_dx_level_fn run; /* NULL: not available in this build */
    void *ud;
} tdx_dx_level;

typedef struct tdx_dx_opts {
    int max_level;             /* 0..3 */
    int all_levels;            /* run every allowed level, even after one decided */
    double decide_confidence;  /* 0: 0.7 */
    tdx_dx_level levels[4];
} tdx_dx_opts;

typedef enum tdx_dx_state { TDX_DX_NOT_RUN = 0, TDX_DX_RAN, TDX_DX_SKIPPED, TDX_DX_FAILED } tdx_dx_state;

typedef struct tdx_dx_report {
    tdx_dx_state state[4];
    char why[4][256];     /* for skipped or failed levels */
    tdx_dx_cost cost[4];
    int decided_level;    /* -1 when no finding decided */
    int deciding_finding; /* finding id, 0 when none */
} tdx_dx_report;

/* Non-zero when finding f decides (see above). */
int tdx_dx_decides(const tdx_finding *f, double min_confidence);

/* Non-zero when a file can be run as a task (levels 1-3, check, optimize):
 * it binds launch, reference or make_inputs (the task format), or Model or
 * get_inputs (a KernelBench problem), at its top level. A file that does
 * not parse counts as one: level 0 says what is wrong with it. A kernel
 * file alone is no task: only level 0 reads it. */
int tdx_dx_task_like(const char *path, const char *src, size_t len);

/* What is said of a file that is no task. */
#define TDX_DX_NOT_A_TASK \
    "not a task: the file defines no launch, reference or make_inputs"

/* Run the levels 0..opts->max_level in order with escalation. Returns TDX_OK
 * when level 0 ran (later levels may have been skipped or failed: see the
 * report), or the level 0 error (e.g. TDX_ERR_PARSE). */
tdx_status tdx_dx_run(const tdx_dx_opts *opts, const char *task_path, const char *src, size_t len,
                      tdx_ledger *ledger, tdx_dx_report *rep, tdx_diags *diags);

/* "level 0: ran, 0.001 s; level 1: skipped (no GPU); ... decided at level 0 by F2"
 * lines, appended to out. */
tdx_status tdx_dx_summary_text(const tdx_dx_report *rep, const tdx_ledger *ledger, tdx_buf *out);
/* The report as a JSON object (caller json_decref()s). */
struct json_t;
struct json_t *tdx_dx_report_json(const tdx_dx_report *rep);

/* Level 1 as a tdx_dx_level_fn: the harness measures (ceilings, time, the
 * launches as compiled, and Nsight Compute metrics when ud is a
 * tdx_dx_l1_opts with ncu set), the profile module judges
 * (src/diagnose/level1.c). ud may be NULL. */
struct tdx_prof_ceilings;
typedef struct tdx_dx_l1_opts {
    int ncu; /* also run the harness's ncu verb (slower: ncu replays kernels) */
    /* The device's ceilings, when the caller has them: no `ceilings` call.
     * Borrowed. */
    const struct tdx_prof_ceilings *ceilings;
    /* A timing the caller already made of the source being diagnosed (the
     * optimize loop's of its best so far): used, instead of a `time` call,
     * when the level runs on this very buffer (src == known_src, len ==
     * known_len). median_s 0: none. Borrowed. */
    const char *known_src;
    size_t known_len;
    double known_median_s, known_iqr_s, known_bytes, known_flops, known_out_bytes;
    char known_dtype[16];
} tdx_dx_l1_opts;
tdx_status tdx_dx_level1(void *ud, const char *task_path, const char *src, size_t len,
                         tdx_ledger *ledger, tdx_dx_cost *cost, char *why, size_t why_len,
                         tdx_diags *diags);

/* Level 0 as a tdx_dx_level_fn (tdx_tri_source). */
tdx_status tdx_dx_level0(void *ud, const char *task_path, const char *src, size_t len,
                         tdx_ledger *ledger, tdx_dx_cost *cost, char *why, size_t why_len,
                         tdx_diags *diags);

#endif
