/* Helpers shared by the run report renderers (not public). */
#ifndef TDX_REPORT_RUN_INT_H
#define TDX_REPORT_RUN_INT_H

#include <stddef.h>

#include "report/run.h"

/* Return the status of x from the calling function when it is not TDX_OK. */
#define TRY(x)                  \
    do {                        \
        tdx_status st_ = (x);   \
        if (st_)                \
            return st_;         \
    } while (0)

/* The last path component of p. */
const char *tdx_rep__base(const char *p);

/* A round's diagnosis cost summed over its levels, plus its candidates'
 * LLM tokens (state is NULL). */
void tdx_rep__round_cost(const tdx_rep_round *r, tdx_rep_cost *sum);
/* The same over every round of the run. */
void tdx_rep__run_cost(const tdx_rep_opt *o, tdx_rep_cost *sum);

/* "62.5 µs ± 0.625 µs" (median ± inter-quartile range). */
void tdx_rep__fmt_mi(char *out, size_t n, double median, double iqr);
/* "32%", or "–" when f < 0. */
void tdx_rep__fmt_pct(char *out, size_t n, double f);

/* The finding with this id in the round, or NULL. */
const tdx_rep_finding *tdx_rep__finding(const tdx_rep_round *r, int id);

/* The compute roof: the matmul rate of the kernel's dtype when known, else
 * the highest one known; *name gets its dtype. 0 when none is known. */
double tdx_rep__peak(const tdx_rep_roof *roof, const char **name);
/* The attainable FLOP/s at an arithmetic intensity (FLOP per byte). */
double tdx_rep__roof_at(const tdx_rep_roof *roof, double intensity);

/* A kernel state on the roofline. */
typedef struct tdx_rep_point {
    const char *id;    /* "initial", "round-N", "final" */
    char label[32];
    double seconds;    /* median time */
    double fraction;   /* as the journal recorded it, < 0 unknown */
} tdx_rep_point;

/* The initial kernel, each kept rewrite, and the final kernel (at most
 * max); the count. */
size_t tdx_rep__points(const tdx_rep_opt *o, tdx_rep_point *pts, size_t max);

/* One sentence on the kernel's work and the roof at its intensity (plain
 * text: numbers and dtype names only, safe in Markdown and HTML). */
tdx_status tdx_rep__roof_sentence(const tdx_rep_roof *roof, tdx_buf *b);

/* What checking and timing cost, one line of plain text (safe in Markdown
 * and HTML): "6 checks, 180 s (start 30 s, child 100 s, judge 20 s); 6
 * timings, 40 s; 28 s of it waiting for the GPU". */
tdx_status tdx_rep__verify_text(const tdx_rep_verify *v, tdx_buf *b);

/* The markup the Markdown and HTML reports share their key-value rows in. */
typedef enum tdx_rep_mark { TDX_REP_MD, TDX_REP_HTML } tdx_rep_mark;

/* Text from the run, escaped for the markup. */
tdx_status tdx_rep__text(tdx_buf *b, tdx_rep_mark m, const char *s);
/* A key-value row: "| key | " / "<tr><th>key</th><td>", then the value,
 * then tdx_rep__kv_end: " |\n" / "</td></tr>\n". */
tdx_status tdx_rep__kv(tdx_buf *b, tdx_rep_mark m, const char *key);
tdx_status tdx_rep__kv_end(tdx_buf *b, tdx_rep_mark m);
/* What diagnosis cost: "40.1 s, 10 compiles, 4 GPU runs, 0 LLM tokens". */
tdx_status tdx_rep__cost_text(tdx_buf *b, const tdx_rep_cost *c);
/* The optimize summary's rows from "deepest level" on: the stop, the
 * diagnosis cost, checks and timings, wall time, resumes, the end's timing. */
tdx_status tdx_rep__summary_tail(tdx_buf *b, tdx_rep_mark m, const tdx_rep_opt *o);
/* The bench summary's rows: tasks run, speedups, roofline, against torch. */
tdx_status tdx_rep__bench_rows(tdx_buf *b, tdx_rep_mark m, const tdx_bench_summary *s);

/* The bench report's table of one results file, a row per task (the task
 * linked to its run's report when link and the run is there), and the
 * ablation's table, a row per results file (run_table.c). */
tdx_status tdx_rep__results_table(tdx_buf *b, tdx_rep_mark m, const tdx_rep_results *s, int link);
tdx_status tdx_rep__ablation_table(tdx_buf *b, tdx_rep_mark m, const tdx_rep_bench *bn);
/* The optimize report's roofline points (initial, each kept rewrite, final)
 * as a table, and the device's ceilings as one sentence without its full
 * stop ("Ceilings of DEVICE: copy bandwidth 4.25 TB/s, fp16 matmul ..."). */
tdx_status tdx_rep__points_table(tdx_buf *b, tdx_rep_mark m, const tdx_rep_opt *o);
tdx_status tdx_rep__ceilings_text(tdx_buf *b, tdx_rep_mark m, const tdx_rep_roof *r);

/* The run's speedup (initial / final), 0 when unknown. */
double tdx_rep__speedup(const tdx_rep_opt *o);

/* One line per verdict: "faster", "slower", "rejected", "duplicate". */
const char *tdx_rep__verdict_word(const tdx_rep_cand *c);

#endif
