/* Levels 2 and 3 (tdx_an_*): IR attribution and compiler-grounded analysis.
 *
 * Level 2 reads the artifacts of each kernel as the task's launch compiles
 * it (the harness's `capture` verb; ahead of time for sm_90 when there is no
 * GPU), and attaches the level 1 symptom -- or, with no profile, a static
 * estimate -- to the ops and source lines responsible: scalar accesses,
 * layout conversions through shared memory, dots off wgmma, loops left
 * unpipelined, spills, 64-bit index math (rules TDX200..TDX206).
 *
 * Level 3 takes each level 2 finding that blocks a profitable optimization,
 * names the compiler condition behind it (AxisInfo divisibility and mask
 * constancy, MMAv3 eligibility, pipeliner skip conditions, register pressure)
 * and proves it with a counterfactual compile that changes exactly one thing;
 * the new IR must change as the cause predicts, or the finding says the
 * hypothesis was refuted (rules TDX300..TDX309).
 *
 * Ownership: a tdx_an_capture owns its arena, every kernel's tdx_ir_kernel
 * and every string in it; tdx_an_capture_free() releases all. Findings are
 * copied into the caller's ledger. Nothing here prints. */
#ifndef TDX_ANALYZE_ANALYZE_H
#define TDX_ANALYZE_ANALYZE_H

#include <stddef.h>

#include "base/arena.h"
#include "base/buf.h"
#include "base/diag.h"
#include "base/status.h"
#include "diagnose/diagnose.h"
#include "finding/finding.h"
#include "hx/hx.h"
#include "ir/ir.h"

/* One kernel argument as the launch specialized it. */
typedef struct tdx_an_arg {
    const char *name;
    const char *type;   /* "*fp16", "i32", "fp32", "constexpr"; NULL unknown */
    int div16;          /* got tt.divisibility = 16 */
    int dns;            /* in do_not_specialize */
    int has_value;      /* value below is known (ints, constexprs) */
    long long value;
    const char *str;    /* a string constexpr's value ("ieee"), else NULL */
} tdx_an_arg;

/* One MLIR diagnostic the compile printed (MLIR_ENABLE_DIAGNOSTICS=remarks):
 * e.g. "MMA version 3 acceleration not applied ..." at the dot's line. */
typedef struct tdx_an_remark {
    int line, col;
    const char *kind;    /* "remark", "note", "warning" */
    const char *message;
} tdx_an_remark;

/* One captured kernel: its launch facts and its parsed, joined IR. */
typedef struct tdx_an_kernel {
    const char *name;
    const char *file;   /* the kernel's source file as compiled, may be NULL */
    int line;           /* line of its def, 0 unknown */
    int num_warps, num_stages;
    int shared;         /* bytes of shared memory the compiled kernel asks for, -1 unknown */
    tdx_an_arg *args;
    size_t nargs;
    tdx_ir_kernel *ir;  /* owned by the capture */
    tdx_an_remark *remarks; /* in the kernel's own file, in order */
    size_t nremarks;
} tdx_an_kernel;

/* The kernels of one capture (as launched, or one counterfactual). */
typedef struct tdx_an_capture {
    tdx_arena arena;
    tdx_an_kernel *kernels;
    size_t nkernels, cap;
    double seconds;     /* wall time of the harness call */
} tdx_an_capture;

void tdx_an_capture_init(tdx_an_capture *c);
void tdx_an_capture_free(tdx_an_capture *c);
const tdx_an_kernel *tdx_an_capture_find(const tdx_an_capture *c, const char *name);
const tdx_an_arg *tdx_an_kernel_arg(const tdx_an_kernel *k, const char *name);

/* Shared memory a CTA may use on sm_90 (227 KiB, opt-in maximum). */
#define TDX_AN_SM90_SMEM_PER_CTA 232448

/* How to reach the harness. */
typedef struct tdx_an_env {
    tdx_hx_opts hx;     /* python, harness dir, timeout (0: 300 s per compile) */
    const char *mode;   /* "aot" (NULL) or "jit" */
    const char *keep_dir; /* keep the artifacts under this folder; NULL: a temporary one, removed */
    int max_compiles;   /* counterfactual compiles per analysis, 0: 8 */
} tdx_an_env;

/* Run `capture --task TASK --mode MODE --out DIR [args...]` and load every
 * kernel it compiled. args is NULL-ended or NULL. On failure `why` holds one
 * line (the harness's reason). */
tdx_status tdx_an_capture_run(const tdx_an_env *env, const char *task, const char *const *args,
                              tdx_an_capture *c, char *why, size_t why_len, tdx_diags *diags);
/* Load a capture reply already at hand (the JSON of the capture verb). */
tdx_status tdx_an_capture_from_json(tdx_an_capture *c, json_t *reply, tdx_diags *diags);
/* Load one fixture folder of tests/data/ir/: meta.json and k.* stages. */
tdx_status tdx_an_capture_add_dir(tdx_an_capture *c, const char *dir, tdx_diags *diags);

/* ---- level 2 ------------------------------------------------------------ */

typedef struct tdx_an_l2opts {
    /* Report locations in the kernel's file under this path (the task path
     * as the user gave it) when it names the same file; NULL: as compiled. */
    const char *file;
    /* Level 1 symptom findings to cite, and the symptom line to attach. */
    const int *cites;
    size_t ncites;
    const char *symptom; /* NULL: give a static estimate instead */
} tdx_an_l2opts;

/* Append the level 2 findings of one kernel. */
tdx_status tdx_an_attribute(const tdx_an_kernel *k, const tdx_an_l2opts *o, tdx_ledger *l);

/* ---- level 3 ------------------------------------------------------------ */

typedef enum tdx_an_predict {
    TDX_AN_PRED_NONE = 0,  /* no counterfactual: the cause rests on IR facts only */
    TDX_AN_PRED_VEC_UP,    /* the accesses at the line get a wider PTX vector */
    TDX_AN_PRED_DOT_TC,    /* the dot leaves FMA for tensor cores (mma or wgmma) */
    TDX_AN_PRED_DOT_WGMMA, /* the dot becomes wgmma */
    TDX_AN_PRED_PIPELINED, /* the loop is pipelined */
    TDX_AN_PRED_NO_SPILLS, /* spills drop to zero */
    TDX_AN_PRED_COPY_WIDE, /* the async copies at the line get 16 bytes wide */
    TDX_AN_PRED_ATOM_RELAXED, /* the atomics at the line are no longer acq_rel */
} tdx_an_predict;

/* One hypothesis about a level 2 finding, with the single change that
 * tests it. */
typedef struct tdx_an_plan {
    int findings[8];        /* the level 2 findings it explains */
    int nfindings;
    const char *rule;       /* level 3 rule id */
    const char *kernel;
    const char *file;       /* location of the finding */
    int line, col;
    int store;              /* for VEC_UP: the access is a store */
    char title[160];        /* the cause in a few words: "stride lacks tt.divisibility" */
    char cause[400];        /* the condition and the compiler fact, one line */
    char change[160];       /* the change, as shown: "num_warps 2 -> 4" */
    char args[4][160];      /* harness arguments, args[0][0] == 0: none */
    int nargs;
    int edit_line;          /* 1-based: a source edit of this line (input precision), 0 none */
    char edit_from[160], edit_to[192];
    tdx_an_predict predict;
    double gain;            /* expected speedup when the cause is removed */
} tdx_an_plan;

/* Hypotheses for the level 2 findings in l about the kernels of c, at most
 * max; returns how many were written. */
size_t tdx_an_plan_all(const tdx_ledger *l, const tdx_an_capture *c, const char *src, size_t len,
                       tdx_an_plan *out, size_t max);

/* Compare the kernel before and after the change: 1 when the IR changed as
 * the plan predicts. The before/after IR lines go to evidence. */
int tdx_an_check(const tdx_an_plan *p, const tdx_an_kernel *before, const tdx_an_kernel *after,
                 tdx_buf *evidence, char *result, size_t result_len);

/* Record the outcome of one plan as a level 3 finding: proven (1), refuted
 * (0), or not tested (-1). `result` is the check's one-line result (or, not
 * tested, why not); evidence may be NULL. */
tdx_finding *tdx_an_record(tdx_ledger *l, const tdx_an_plan *p, int outcome, const char *result,
                           const char *evidence);

/* Level 3 on a task: plan, run each counterfactual compile (at most
 * env->max_compiles), check, record. `base` is the capture as launched. */
tdx_status tdx_an_explain(const tdx_an_env *env, const char *task, const char *src, size_t len,
                          const tdx_an_capture *base, tdx_ledger *l, tdx_dx_cost *cost,
                          tdx_diags *diags);

/* ---- levels for the escalation ----------------------------------------- */

/* State shared by levels 2 and 3 of one diagnosis: the capture as launched
 * is made once. Zero-initialise; tdx_an_session_free() releases it. */
typedef struct tdx_an_session {
    tdx_an_env env;
    char *task;          /* the task the capture is of */
    unsigned long long src_hash; /* of its text: a rewritten task is captured again */
    tdx_an_capture base;
    int have_base;
    /* the capture of this task and text failed: its status and reason, given
     * again to the next level without a second try (and without a second
     * error in diags) */
    tdx_status failed;
    char failed_why[512];
} tdx_an_session;

void tdx_an_session_free(tdx_an_session *s);

/* Capture the task as launched (once per session, task path and text;
 * src may be NULL when the text is not at hand). */
tdx_status tdx_an_session_capture(tdx_an_session *s, const char *task, const char *src, size_t len,
                                  tdx_dx_cost *cost, char *why, size_t why_len, tdx_diags *diags);

/* Level 2 and level 3 as tdx_dx_level_fns; ud is a tdx_an_session*. */
tdx_status tdx_an_level2(void *ud, const char *task_path, const char *src, size_t len,
                         tdx_ledger *ledger, tdx_dx_cost *cost, char *why, size_t why_len,
                         tdx_diags *diags);
tdx_status tdx_an_level3(void *ud, const char *task_path, const char *src, size_t len,
                         tdx_ledger *ledger, tdx_dx_cost *cost, char *why, size_t why_len,
                         tdx_diags *diags);

#endif
