/* The benchmark suite's results (tdx_bench_*): per-task rows, the summary the
 * paper reports (geomean and median speedup, counts above 2x and 5x) plus
 * what it lacks (median fraction of the roofline, share of tasks faster than
 * torch eager and torch.compile), and the Markdown table.
 *
 * Rows are read from / written as JSON (one object per task, schema
 * "tritondx/bench-row" v1: see docs/bench.md). Missing numbers are < 0.
 *
 * Ownership: a results set owns its rows and their strings (tdx_bench_free). */
#ifndef TDX_BENCH_BENCH_H
#define TDX_BENCH_BENCH_H

#include <jansson.h>
#include <stddef.h>

#include "base/buf.h"
#include "base/status.h"

typedef struct tdx_bench_row {
    char *task;          /* file name */
    char *status;        /* "ok", or why the task did not run to the end */
    double initial_s, final_s;
    double fraction_before, fraction_after; /* of the roofline, < 0 unknown */
    double eager_s, compile_s;              /* torch eager / torch.compile of reference */
    int rounds, kept;
    char *levels;        /* the levels that decided each kept rewrite, e.g. "0,3" */
    char *families;      /* the kept families, e.g. "retune,tensor-cores" */
    double seconds;      /* wall time of the task's optimize run */
    long gpu_runs, compiles, tokens;
} tdx_bench_row;

typedef struct tdx_bench_results {
    tdx_bench_row *rows;
    size_t len, cap;
} tdx_bench_results;

typedef struct tdx_bench_summary {
    size_t tasks, ok;
    double geomean, median;      /* speedup over the task's initial kernel */
    size_t above2, above5;
    double median_fraction;      /* final fraction of the roofline, over tasks that know it */
    size_t faster_eager, with_eager;
    size_t faster_compile, with_compile;
    double seconds;              /* all tasks' wall time */
} tdx_bench_summary;

void tdx_bench_free(tdx_bench_results *r);
/* Parse one row object and append it. */
tdx_status tdx_bench_add_json(tdx_bench_results *r, json_t *o);
/* Read rows from a JSON file: an array of rows, or an object with "rows". */
tdx_status tdx_bench_load(tdx_bench_results *r, const char *path);
/* A row as JSON (caller json_decref()s). */
json_t *tdx_bench_row_json(const tdx_bench_row *row);

/* Fill a row's fraction before, deciding levels and kept families, and add
 * its compiles, from the optimize journal in run_dir (left as is when there
 * is none). */
void tdx_bench_row_from_journal(tdx_bench_row *w, const char *run_dir);
/* The same from the journal's entries already read (borrowed). */
void tdx_bench_row_from_entries(tdx_bench_row *w, json_t *entries);

void tdx_bench_summarize(const tdx_bench_results *r, tdx_bench_summary *s);
/* The per-task table and the summary as Markdown. */
tdx_status tdx_bench_markdown(const tdx_bench_results *r, const tdx_bench_summary *s, tdx_buf *out);

#endif
