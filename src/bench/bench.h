/* The benchmark suite's results (tdx_bench_*): per-task rows, the summary the
 * paper reports (geomean and median speedup, counts above 2x and 5x) plus
 * what it lacks (median fraction of the roofline, share of tasks faster than
 * torch eager and torch.compile), and the Markdown table.
 *
 * Rows are read from / written as JSON, one object per task: task, status,
 * initial_s, final_s, fraction_before, fraction_after, eager_ms, compile_ms,
 * compile_build_s, torch_baseline, torch_note, rounds, kept, levels,
 * families, seconds, gpu_runs, compiles, tokens, and eager_beside_ms,
 * compile_beside_ms when the run timed torch beside its result; a results file is
 * {"schema": "tritondx/bench", "version": 1, "rows": [...]} (or a bare
 * array), with "device" and "max_level" (--max-level) when known; a merge
 * keeps those two where every merged file agrees. Missing numbers are < 0. Older rows' "eager_s" / "compile_s"
 * (seconds) are read too.
 *
 * The torch columns time the task's torch_impl (else its reference, marked
 * "(ref)") once per task, not the candidates; a column that could not be
 * timed is n/a with its reason in torch_note and counts neither way.
 * The beside columns are torch's baseline timed again at the end of the
 * task's run, run by run among the task and its result (the journal's
 * confirm, or torch_beside when nothing was kept), at the row's time
 * basis: final_s against them is the comparison made in one minute on one
 * card, not against a cache of another process.
 *
 * Ownership: a results set owns its rows and their strings (tdx_bench_free). */
#ifndef TDX_BENCH_BENCH_H
#define TDX_BENCH_BENCH_H

#include <jansson.h>
#include <stddef.h>

#include "base/buf.h"
#include "hx/hx.h"
#include "base/status.h"

typedef struct tdx_bench_row {
    char *task;          /* file name */
    char *status;        /* "ok", or why the task did not run to the end */
    double initial_s, final_s;
    double fraction_before, fraction_after; /* of the roofline, < 0 unknown */
    /* the torch baseline of the original task (timed once per task): eager
     * and torch.compile, and what compiling took (excluded from compile_s) */
    double eager_s, compile_s, compile_build_s;
    char *torch_baseline; /* "torch_impl", "reference" (float64, unfair), "" unknown */
    char *torch_note;     /* why a torch column is n/a, "" when none */
    int torch_cached;     /* the torch columns came from the cache (--torch-cache) */
    double eager_beside_s, compile_beside_s; /* timed beside the result at the end; < 0 not timed */
    double compile_beside_build_s;           /* of that timing, torch.compile's compile; < 0 unknown */
    int rounds, kept;
    char *levels;        /* the levels that decided each kept rewrite, e.g. "0,3" */
    char *families;      /* the kept families, e.g. "retune,tensor-cores" */
    double seconds;      /* wall time of the task's optimize run */
    long gpu_runs, compiles, tokens;
    /* the relative-error tolerance the task's own check and the kept file's
     * check judged by (the journal's baseline and last keep; a tf32 dot
     * loosens fp32's 1e-5 to 1e-3); 0 unknown */
    double tolerance_before, tolerance_after;
} tdx_bench_row;

typedef struct tdx_bench_results {
    tdx_bench_row *rows;
    size_t len, cap;
} tdx_bench_results;

/* The band around a torch time inside which "faster" is a tie: a task's
 * final time moves by 2-5 % between two full runs on the H200
 * (bench/RESULTS.md), and the torch columns may come from another day's
 * cache. */
#define TDX_BENCH_TIE 0.02

typedef struct tdx_bench_summary {
    size_t tasks, ok;
    double geomean, median;      /* speedup over the task's initial kernel */
    size_t above2, above5;
    double median_fraction;      /* final fraction of the roofline, over tasks that know it */
    /* the speedups the roofline allows: per task 1 / fraction_before (its
     * floor is a lower bound on its time), or the speedup reached when that
     * is more (a measured ceiling can be beaten by a little) or the fraction
     * is unknown; over the tasks run. -1 when no task knows its fraction. */
    double bound_geomean, bound_median;
    size_t faster_eager, with_eager;     /* over tasks run with an eager time */
    size_t faster_compile, with_compile; /* over tasks run with a torch.compile time */
    size_t tie_eager, tie_compile;       /* of those, final within TDX_BENCH_TIE of torch's, either way */
    size_t ref_baseline;                 /* of those, timed on reference (no torch_impl) */
    size_t na_eager, na_compile;         /* tasks run whose column was tried and is n/a */
    size_t torch_cached;                 /* tasks run whose torch columns came from the cache */
    size_t looser;                       /* tasks run whose result was judged looser (tdx_bench_looser) */
    size_t looser_faster_compile;        /* of those, faster than torch.compile */
    /* over tasks run whose run timed torch beside its result at the end */
    size_t faster_eager_beside, with_eager_beside;
    size_t faster_compile_beside, with_compile_beside;
    size_t tie_eager_beside, tie_compile_beside; /* of those, within TDX_BENCH_TIE of torch's, either way */
    /* torch.compile's compile in those timings (what it adds to a run's end): median and most, s; < 0 none */
    double beside_build_median_s, beside_build_max_s;
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
 * is none); a confirm that undid the kept source leaves no families and
 * kept = 0. */
void tdx_bench_row_from_journal(tdx_bench_row *w, const char *run_dir);
/* The same from the journal's entries already read (borrowed). */
void tdx_bench_row_from_entries(tdx_bench_row *w, json_t *entries);

/* Fill a row's torch columns from a `time --torch-only` reply (eager,
 * torch.compile, compile time, which baseline); a column the reply lacks or
 * reports as an error stays < 0 and its reason goes to torch_note. */
void tdx_bench_torch_from_json(tdx_bench_row *w, json_t *reply);

/* Time the torch baseline of one task with the harness (`time --torch-only
 * --torch-compile --device DEVICE`, timeout_s) and fill the row's torch
 * columns; on failure the columns stay < 0 and torch_note says why. */
tdx_status tdx_bench_torch(tdx_bench_row *w, const char *task_path, const char *device, double timeout_s);

/* tdx_bench_torch through a cache file (a JSON object; created when
 * missing): the torch columns of a task are measured once per content of
 * its file and device ("SHA:DEVICE" keys) and read back afterwards, since
 * neither torch_impl nor torch changes with a run. A measurement with no
 * usable column is not cached. Sets w->torch_cached when read from it. An
 * unreadable cache file is an error (TDX_ERR_PARSE), nothing is measured. */
tdx_status tdx_bench_torch_cached(tdx_bench_row *w, const char *task_path, const char *device, double timeout_s,
                                  const char *cache_path);

/* Whether cache_path is missing (a new cache) or a JSON object. */
int tdx_bench_torch_cache_usable(const char *cache_path);

/* Measure the torch columns of every task the cache lacks in one harness
 * call (the `baselines` verb: one interpreter for all, timeout_s each) and
 * add them; *measured gets how many were added (a task whose timing failed
 * is left out: the per-task path measures it again and says why), and
 * fresh[i] (when not NULL, n of them) whether task i was one of them. */
tdx_status tdx_bench_torch_fill(const char *const *task_paths, size_t n, const char *device, double timeout_s,
                                const char *cache_path, size_t *measured, int *fresh);

/* Non-zero when the row's result was judged at a looser tolerance than the
 * task as given (both known): the table marks its final time with a dagger. */
int tdx_bench_looser(const tdx_bench_row *w);

void tdx_bench_summarize(const tdx_bench_results *r, tdx_bench_summary *s);
/* The per-task table and the summary as Markdown. */
tdx_status tdx_bench_markdown(const tdx_bench_results *r, const tdx_bench_summary *s, tdx_buf *out);

#endif
