/* Reports of runs (tdx_rep_run_*): what `tritondx optimize` recorded in a
 * run directory (journal.jsonl) or what `tritondx bench` wrote (results.json,
 * and one results.json per sub-folder for an ablation over --max-level),
 * read into one model and rendered as Markdown, as one self-contained HTML
 * page (inline CSS and SVG charts, no scripts, no external fetches), or as
 * JSON ("tritondx/report" v1).
 *
 * Every string that comes from the run (kernel source, diffs, LLM text,
 * reasons) is escaped by the renderers: HTML character references, Markdown
 * backslash escapes or code fences.
 *
 * Ownership: tdx_rep_run_load returns a model the caller releases with
 * tdx_rep_run_free; its strings point into the parsed journal/results that
 * the model owns. Renderers only read it and append to the caller's buffer;
 * output is deterministic for a given run directory. */
#ifndef TDX_REPORT_RUN_H
#define TDX_REPORT_RUN_H

#include <stddef.h>

#include "base/arena.h"
#include "base/buf.h"
#include "base/diag.h"
#include "base/status.h"
#include "bench/bench.h"

typedef enum tdx_rep_kind { TDX_REP_OPTIMIZE, TDX_REP_BENCH } tdx_rep_kind;

typedef struct tdx_rep_fact {
    const char *key, *value;
} tdx_rep_fact;

/* A finding as the journal recorded it (optional strings are NULL). */
typedef struct tdx_rep_finding {
    int id, level, line;
    const char *rule, *file, *message, *family, *hypothesis, *kernel, *evidence;
    double confidence;
    tdx_rep_fact *facts;
    size_t nfacts;
} tdx_rep_finding;

/* What one diagnosis level did in a round. */
typedef struct tdx_rep_cost {
    const char *state; /* "ran", "skipped", "failed", "not run" */
    const char *why;   /* NULL when none */
    double seconds;
    long compiles, gpu_runs, tokens;
} tdx_rep_cost;

typedef struct tdx_rep_cand {
    int index;
    const char *family, *origin, *summary, *verdict, *reason, *diff;
    int cites[8];
    int ncites;
    long tokens;
    int have_timing;
    double base_median_s, base_iqr_s, cand_median_s, cand_iqr_s;
    int against; /* timed against this candidate of the round; 0: the best kept so far */
    int kept; /* the round kept this one */
} tdx_rep_cand;

typedef struct tdx_rep_round {
    int round;
    tdx_rep_finding *findings;
    size_t nfindings;
    int have_diagnosis;
    tdx_rep_cost levels[4];
    int decided_level;    /* -1: no finding decided */
    int deciding_finding; /* 0: none */
    tdx_rep_cand *cands;
    size_t ncands;
    int kept_index;       /* 0: nothing kept this round */
    double keep_median_s, keep_speedup, keep_fraction; /* fraction < 0: unknown */
    int ended;            /* a round_end entry was written */
    double elapsed_s;     /* since the start of the run, at round_end */
} tdx_rep_round;

/* Where the kernel sits against the device's ceilings. */
typedef struct tdx_rep_roof {
    int have_ceilings;
    const char *device;
    double copy_bw;                  /* bytes/s */
    double mm[4];                    /* FLOP/s: fp16, bf16, tf32, fp32 (0 unknown) */
    const char *dtype;               /* the kernel's compute dtype, NULL unknown */
    int have_work;
    double bytes, flops;             /* per call of launch() */
    const char *why;                 /* why no chart can be drawn, NULL when it can */
} tdx_rep_roof;

extern const char *const tdx_rep_mm_names[4]; /* "fp16", "bf16", "tf32", "fp32" */

/* What checking and timing cost over a run (the task's own and every
 * candidate's, the end's side-by-side timing): seconds from the journal. */
typedef struct tdx_rep_verify {
    int checks, timings;
    double check_s, time_s;
    double wait_s;       /* of those, waiting for the GPU lock */
    /* of check_s, where the journal has them: the interpreter's start,
     * compiles ahead of the check, the candidate's child, the judging */
    double start_s, precompile_s, child_s, judge_s;
    int have_parts;
} tdx_rep_verify;

typedef struct tdx_rep_opt {
    const char *task, *task_hash;
    int max_rounds, max_level;
    double target_fraction;
    int have_baseline;
    double base_median_s, base_iqr_s, base_fraction;
    tdx_rep_round *rounds;
    size_t nrounds;
    int stopped;
    const char *stop_reason;
    int kept, tried;
    double initial_s, final_s, final_fraction, elapsed_s;
    int resumes;
    /* the end's timing of the result side by side with the task: its
     * outcome ("faster", "slower", "inconclusive"; NULL when the run had
     * none, "" when its timing failed) and the time the rounds' ratios
     * chained gave before it */
    const char *confirm_outcome;
    double chained_s;
    /* the task's torch baseline timed beside the result at the end (the
     * confirm, or torch_beside when nothing was kept), at the run's time
     * basis: comparable with final_s; 0 not timed */
    double torch_eager_s, torch_compile_s;
    double torch_compile_build_s; /* of that timing, torch.compile's compile (s); 0 unknown */
    tdx_rep_verify verify;
    tdx_rep_roof roof;
} tdx_rep_opt;

/* One results file of a bench run. */
typedef struct tdx_rep_results {
    const char *name;   /* folder relative to the run directory, "." for the top */
    const char *device;
    int max_level;      /* -1 unknown */
    tdx_bench_results rows;
    tdx_bench_summary sum;
    long gpu_runs, compiles, tokens;
    const char **run_dirs; /* per row: its optimize run, relative to the bench
                              directory ("L3/scale"), or NULL when not there */
} tdx_rep_results;

typedef struct tdx_rep_bench {
    tdx_rep_results *sets; /* by max level, then name */
    size_t nsets;
    size_t main;           /* the set the table and chart show */
} tdx_rep_bench;

typedef struct tdx_rep_model {
    tdx_rep_kind kind;
    const char *dir;       /* as given */
    tdx_rep_opt opt;
    tdx_rep_bench bench;
    const char **notes;    /* what is missing or partial, one line each */
    size_t nnotes;
    int chart_file;        /* set by the caller: the Markdown shows the chart as an
                              image, tdx_rep_run_chart's file next to it */
    int task_links;        /* set by the caller: a bench report links each task to
                              RUN_DIR/report.{md,html} of its run, written too */
    tdx_arena arena;
    void *json;            /* the parsed journal (json_t *), owner of the strings */
} tdx_rep_model;

typedef struct tdx_rep_load_opts {
    const char *ceilings_path; /* NULL: DIR/ceilings.json when present */
} tdx_rep_load_opts;

/* Read the run in dir. Errors (with one message in diags): TDX_ERR_INPUT
 * when dir is not a directory, TDX_ERR_NOTFOUND when it holds neither
 * journal.jsonl nor results.json, TDX_ERR_PARSE when they cannot be read.
 * A journal cut short (a partial last line, no stop entry) loads, with a
 * note saying so. */
tdx_status tdx_rep_run_load(const char *dir, const tdx_rep_load_opts *o, tdx_rep_model **out,
                            tdx_diags *diags);
void tdx_rep_run_free(tdx_rep_model *m);

/* The report as Markdown. */
tdx_status tdx_rep_run_md(const tdx_rep_model *m, tdx_buf *out);
/* The report as one HTML page. */
tdx_status tdx_rep_run_html(const tdx_rep_model *m, tdx_buf *out);
/* The run's chart as a standalone SVG — the roofline of an optimize run,
 * the speedups of a bench run — and the file name the Markdown gives it
 * ("report-roofline.svg", "report-speedups.svg"). TDX_ERR_NOTFOUND when the
 * run has none to draw. */
tdx_status tdx_rep_run_chart(const tdx_rep_model *m, tdx_buf *out, const char **name);
/* The model as JSON, schema "tritondx/report" version 1. */
#define TDX_REP_RUN_SCHEMA "tritondx/report"
tdx_status tdx_rep_run_json(const tdx_rep_model *m, tdx_buf *out);

/* The SVG charts (also used by the HTML page): the roofline of an
 * optimize run (log-log; the roof from copy bandwidth and the matmul rate;
 * the initial, kept and final points with data-point attributes), and the
 * speedup per task of a bench run (log scale, a line at 1x). */
tdx_status tdx_rep_svg_roofline(const tdx_rep_opt *o, tdx_buf *b);
tdx_status tdx_rep_svg_speedups(const tdx_rep_results *s, tdx_buf *b);
/* The best kernel's fraction of the roofline after each round, against the
 * run's target (drawn whenever the journal recorded fractions, with or
 * without the ceilings the roofline needs). TDX_ERR_ARG when it has none. */
tdx_status tdx_rep_svg_progress(const tdx_rep_opt *o, tdx_buf *b);

#endif
