/* tritondx bench: optimize every task of a suite and write the results table
 * (rows as JSON, the table as Markdown); or merge earlier results. */
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <time.h>

#include "base/file.h"
#include "bench/bench.h"
#include "cli.h"
#include "diagnose/levels.h"
#include "loop/exec.h"
#include "loop/loop.h"
#include "loop/propose.h"
#include "progress.h"

static void usage(FILE *f)
{
    fputs("usage: tritondx bench [options]\n"
          "       tritondx bench --merge RESULTS.json... [--markdown FILE] [--json FILE]\n\n"
          "Runs optimize over every task of a suite (default bench/tasks/*.py) and writes\n"
          "OUT/results.json (one row per task) and OUT/RESULTS.md (the table and the summary:\n"
          "geomean and median speedup, > 2x, > 5x, roofline, against torch).\n\n"
          "options:\n"
          "  --suite DIR          folder of task files (default bench/tasks)\n"
          "  --tasks PATTERN      only tasks whose file name matches (shell pattern; repeatable)\n"
          "  --out DIR            results folder (default runs/bench-YYYYMMDD-HHMMSS)\n"
          "  --max-level N        deepest diagnosis level 0..3 (the ablation)\n"
          "  --rounds N, --candidates N, --budget SECONDS (per task), --device cuda|cpu\n"
          "  --no-stack           no stacked or follow-up candidates (optimize --no-stack)\n"
          "  --no-confirm         final times from the rounds' ratios (optimize --no-confirm)\n"
          "  --no-torch           do not time the torch baselines (eager, torch.compile); with\n"
          "                       them, the faster is passed to each task's loop as --reach,\n"
          "                       and each run times them again beside its result at the end\n"
          "                       (optimize --beside-torch; the summary counts both ways)\n"
          "  --reach-margin PCT   optimize --reach-margin (default 0: a task stops at the\n"
          "                       roofline target only once it is as fast as torch)\n"
          "  --torch-timeout S    limit of the torch baselines' timing per task (default 300)\n"
          "  --torch-cache FILE   read a task's torch columns from FILE when its file and the\n"
          "                       device are unchanged; measure the others (in one interpreter)\n"
          "                       and add them\n"
          "  --torch-only         with --torch-cache: only fill the cache, optimize nothing\n"
          "  --ceilings FILE      the device's ceilings (a `ceilings` reply) instead of asking\n"
          "  --step-timeout S     limit of one check or timing of a candidate (default 300)\n"
          "  --merge FILE...      merge results files into one table instead of running\n"
          "  --markdown FILE      where to write the merged table (default: stdout)\n"
          "  --json FILE          also write the merged rows as one results file\n"
          "  --no-progress        no progress line on stderr (it shows only on a terminal)\n"
          "  --quiet              no progress line and no per-task lines on stderr\n",
          f);
}

/* The progress line of a bench run: the task, its round, the best so far. */
typedef struct bench_prog {
    tdx_progress line;
    size_t index, ntasks;
    const char *task;
} bench_prog;

static void on_progress(const tdx_loop_progress *p, void *ud)
{
    bench_prog *b = ud;
    if (p->best_s > 0)
        tdx_progress_update(&b->line, "[%zu/%zu] %s  round %d/%d  %s  best %.4g ms (%.2fx)  %.0f s",
                            b->index, b->ntasks, b->task, p->round, p->max_rounds, p->what,
                            p->best_s * 1e3, p->initial_s > 0 ? p->initial_s / p->best_s : 1.0,
                            p->elapsed_s);
    else
        tdx_progress_update(&b->line, "[%zu/%zu] %s  round %d/%d  %s  %.0f s", b->index, b->ntasks,
                            b->task, p->round, p->max_rounds, p->what, p->elapsed_s);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static double mono(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static json_t *results_doc(const tdx_bench_results *r, const char *device, int max_level)
{
    json_t *rows = json_array();
    for (size_t k = 0; k < r->len; k++)
        json_array_append_new(rows, tdx_bench_row_json(&r->rows[k]));
    json_t *doc = json_pack("{s:s, s:i, s:o}", "schema", "tritondx/bench", "version", 1, "rows", rows);
    if (doc && device)
        json_object_set_new(doc, "device", json_string(device));
    if (doc && max_level >= 0)
        json_object_set_new(doc, "max_level", json_integer(max_level));
    return doc;
}

/* What every results file says alike at its top level: the device (NULL
 * when they differ or none says) and the deepest level (-1 likewise), so a
 * merged slice of an ablation keeps its level. */
static void common_settings(int n, char **files, char *device, size_t device_len, int *max_level)
{
    device[0] = '\0';
    *max_level = -1;
    int dev_ok = 1, lvl_ok = 1;
    for (int i = 0; i < n; i++) {
        json_t *doc = json_load_file(files[i], 0, NULL);
        const char *d = json_string_value(json_object_get(doc, "device"));
        json_t *l = json_object_get(doc, "max_level");
        if (!d || (i > 0 && strcmp(device, d) != 0))
            dev_ok = 0;
        else if (i == 0)
            snprintf(device, device_len, "%s", d);
        if (!json_is_integer(l) || (i > 0 && *max_level != (int)json_integer_value(l)))
            lvl_ok = 0;
        else if (i == 0)
            *max_level = (int)json_integer_value(l);
        json_decref(doc);
    }
    if (!dev_ok)
        device[0] = '\0';
    if (!lvl_ok)
        *max_level = -1;
}

/* Join results files into one table (and one results file when json is set). */
static int merge(int n, char **files, const char *md, const char *json)
{
    tdx_bench_results r = {0};
    for (int i = 0; i < n; i++)
        if (tdx_bench_load(&r, files[i]) != TDX_OK) {
            tdx_cli_error("%s: not a results file", files[i]);
            tdx_bench_free(&r);
            return TDX_EXIT_INPUT;
        }
    tdx_bench_summary s;
    tdx_bench_summarize(&r, &s);
    tdx_buf b;
    tdx_buf_init(&b, 0);
    tdx_bench_markdown(&r, &s, &b);
    int rc = TDX_EXIT_OK;
    if (md) {
        FILE *f = fopen(md, "w");
        if (!f || fputs(tdx_buf_str(&b), f) < 0)
            rc = TDX_EXIT_FAILED;
        if (f)
            fclose(f);
    } else {
        fputs(tdx_buf_str(&b), stdout);
    }
    tdx_buf_free(&b);
    if (json) {
        char device[256];
        int level;
        common_settings(n, files, device, sizeof device, &level);
        json_t *doc = results_doc(&r, device[0] ? device : NULL, level);
        if (!doc || json_dump_file(doc, json, JSON_INDENT(1)) != 0)
            rc = TDX_EXIT_FAILED;
        json_decref(doc);
    }
    tdx_bench_free(&r);
    return rc;
}

int tdx_cmd_bench(int argc, char **argv)
{
    const char *suite = "bench/tasks", *out = NULL, *md = NULL, *mjson = NULL;
    const char *patterns[64];
    int npat = 0, torch_only = 0;
    const char *device = tdx_dx_have_gpu() ? "cuda" : "cpu";
    int max_level = 3, rounds = 15, cands = 8, merging = 0, torch = 1, noprog = 0, quiet = 0, no_stack = 0, no_confirm = 0;
    /* a round while torch is any faster: on the H100 a 2 % margin left relu, swiglu and
     * maxpool2d behind torch.compile, each turned by its round (bench/RESULTS.md,
     * twenty-fourth session) */
    double budget = 0, torch_timeout = 300, step_timeout = 300, reach_margin = 1.0;
    const char *ceil_file = NULL, *torch_cache = NULL;
    char **files = calloc((size_t)argc + 1, sizeof *files);
    int nfiles = 0;
    for (int i = 1; i < argc; i++) {
        const char *v;
        int r = 0;
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            usage(stdout);
            free(files);
            return TDX_EXIT_OK;
        } else if (strcmp(argv[i], "--merge") == 0) {
            merging = 1;
        } else if (strcmp(argv[i], "--no-progress") == 0) {
            noprog = 1;
        } else if (strcmp(argv[i], "--quiet") == 0) {
            quiet = noprog = 1;
        } else if (strcmp(argv[i], "--torch-only") == 0) {
            torch_only = 1;
        } else if (strcmp(argv[i], "--no-torch") == 0) {
            torch = 0;
        } else if ((r = tdx_cli_opt_value(argc, argv, &i, "--torch-timeout", &v)) > 0) {
            if (tdx_cli_parse_double("--torch-timeout", v, 1, 1e6, &torch_timeout))
                r = -1;
        } else if ((r = tdx_cli_opt_value(argc, argv, &i, "--step-timeout", &v)) > 0) {
            if (tdx_cli_parse_double("--step-timeout", v, 1, 1e6, &step_timeout))
                r = -1;
        } else if ((r = tdx_cli_opt_value(argc, argv, &i, "--torch-cache", &v)) > 0) {
            torch_cache = v;
        } else if ((r = tdx_cli_opt_value(argc, argv, &i, "--ceilings", &v)) > 0) {
            ceil_file = v;
        } else if ((r = tdx_cli_opt_value(argc, argv, &i, "--suite", &v)) > 0) {
            suite = v;
        } else if ((r = tdx_cli_opt_value(argc, argv, &i, "--tasks", &v)) > 0) {
            if (npat == (int)(sizeof patterns / sizeof *patterns)) {
                tdx_cli_error("--tasks: at most %zu patterns", sizeof patterns / sizeof *patterns);
                r = -1;
            } else
                patterns[npat++] = v;
        } else if ((r = tdx_cli_opt_value(argc, argv, &i, "--out", &v)) > 0) {
            out = v;
        } else if ((r = tdx_cli_opt_value(argc, argv, &i, "--markdown", &v)) > 0) {
            md = v;
        } else if ((r = tdx_cli_opt_value(argc, argv, &i, "--json", &v)) > 0) {
            mjson = v;
        } else if ((r = tdx_cli_opt_value(argc, argv, &i, "--device", &v)) > 0) {
            device = v;
        } else if ((r = tdx_cli_opt_value(argc, argv, &i, "--max-level", &v)) > 0) {
            if (tdx_cli_parse_int("--max-level", v, 0, 3, &max_level))
                r = -1;
        } else if ((r = tdx_cli_opt_value(argc, argv, &i, "--rounds", &v)) > 0) {
            if (tdx_cli_parse_int("--rounds", v, 0, 1000000, &rounds))
                r = -1;
        } else if (strcmp(argv[i], "--no-stack") == 0) {
            no_stack = 1;
        } else if (strcmp(argv[i], "--no-confirm") == 0) {
            no_confirm = 1;
        } else if ((r = tdx_cli_opt_value(argc, argv, &i, "--candidates", &v)) > 0) {
            if (tdx_cli_parse_int("--candidates", v, 0, 1000000, &cands))
                r = -1;
        } else if ((r = tdx_cli_opt_value(argc, argv, &i, "--reach-margin", &v)) > 0) {
            double pct = 0;
            if (tdx_cli_parse_double("--reach-margin", v, 0, 100, &pct))
                r = -1;
            reach_margin = 1 + pct / 100;
        } else if ((r = tdx_cli_opt_value(argc, argv, &i, "--budget", &v)) > 0) {
            if (tdx_cli_parse_double("--budget", v, 0, 1e9, &budget))
                r = -1;
        } else if (r == 0 && merging && argv[i][0] != '-') {
            files[nfiles++] = argv[i];
        } else {
            tdx_cli_error("bad argument '%s' (see 'tritondx bench --help')", argv[i]);
            free(files);
            return TDX_EXIT_USAGE;
        }
        if (r < 0) {
            free(files);
            return TDX_EXIT_USAGE;
        }
    }
    if (merging) {
        int rc = nfiles ? merge(nfiles, files, md, mjson) : TDX_EXIT_USAGE;
        if (!nfiles)
            tdx_cli_error("--merge needs results files");
        free(files);
        return rc;
    }
    free(files);
    if (max_level < 0 || max_level > 3) {
        tdx_cli_error("--max-level takes 0..3");
        return TDX_EXIT_USAGE;
    }
    if (torch_only && (!torch || !torch_cache)) {
        tdx_cli_error("--torch-only fills the torch cache: it needs --torch-cache and not --no-torch");
        return TDX_EXIT_USAGE;
    }
    if (strcmp(device, "cpu") == 0 && !getenv("TDX_TEST_TIMER") && !torch_only) {
        tdx_cli_error("no GPU here: bench times candidates on a GPU (or set TDX_TEST_TIMER)");
        return TDX_EXIT_FAILED;
    }
    if (torch && torch_cache) {
        if (!tdx_bench_torch_cache_usable(torch_cache)) {
            tdx_cli_error("%s: not a torch cache (a JSON object of measured torch columns)", torch_cache);
            return TDX_EXIT_INPUT;
        }
    }
    /* the tasks, sorted */
    DIR *dir = opendir(suite);
    if (!dir) {
        tdx_cli_error("cannot open the suite %s", suite);
        return TDX_EXIT_INPUT;
    }
    char **names = NULL;
    size_t nn = 0;
    struct dirent *e;
    while ((e = readdir(dir))) {
        size_t l = strlen(e->d_name);
        int match = npat == 0;
        for (int k = 0; k < npat && !match; k++)
            match = fnmatch(patterns[k], e->d_name, 0) == 0;
        if (l > 3 && strcmp(e->d_name + l - 3, ".py") == 0 && match &&
            strstr(e->d_name, ".opt.py") == NULL) {
            char **p = realloc(names, (nn + 1) * sizeof *names);
            if (!p)
                break;
            names = p;
            names[nn++] = strdup(e->d_name);
        }
    }
    closedir(dir);
    if (nn)
        qsort(names, nn, sizeof *names, cmp_str);
    /* the torch columns the cache lacks, all in one interpreter */
    tdx_status fill_st = TDX_OK;
    int *fresh = calloc(nn ? nn : 1, sizeof *fresh); /* measured by this run's fill */
    if (torch && torch_cache && nn) {
        char **paths = calloc(nn, sizeof *paths);
        size_t measured = 0;
        tdx_status fst = TDX_ERR_NOMEM;
        if (paths) {
            size_t k = 0;
            for (; k < nn; k++) {
                size_t len = strlen(suite) + strlen(names[k]) + 2;
                if (!(paths[k] = malloc(len)))
                    break;
                snprintf(paths[k], len, "%s/%s", suite, names[k]);
            }
            if (k == nn) {
                if (!quiet)
                    fprintf(stderr, "bench: torch baselines of the tasks the cache lacks\n");
                fst = tdx_bench_torch_fill((const char *const *)paths, nn, device, torch_timeout, torch_cache,
                                           &measured, fresh);
            }
            for (size_t j = 0; j < k; j++)
                free(paths[j]);
            free(paths);
        }
        if (!quiet)
            fprintf(stderr, "bench: torch baselines: %zu measured now%s\n", measured,
                    fst ? " (the call failed; each task is measured on its own)" : "");
        fill_st = fst;
    }
    if (torch_only) {
        for (size_t i = 0; i < nn; i++)
            free(names[i]);
        free(names);
        free(fresh);
        return fill_st ? TDX_EXIT_FAILED : TDX_EXIT_OK;
    }
    char defout[256];
    if (!out) {
        time_t now = time(NULL);
        strftime(defout, sizeof defout, "runs/bench-%Y%m%d-%H%M%S", gmtime(&now));
        out = defout;
    }
    if (tdx_file_mkdirs(out) != TDX_OK) {
        tdx_cli_error("cannot create %s: %s", out, strerror(errno));
        for (size_t i = 0; i < nn; i++)
            free(names[i]);
        free(names);
        free(fresh);
        return TDX_EXIT_FAILED;
    }
    /* the device's measured ceilings (cached by the harness) give each
     * timing its roofline fraction, as in optimize */
    tdx_prof_ceilings ceil;
    tdx_hx_reply cr;
    memset(&cr, 0, sizeof cr);
    int have_ceil = 0;
    json_t *ceil_json = NULL;
    if (ceil_file && strcmp(device, "cuda") == 0 && !getenv("TDX_TEST_TIMER")) {
        json_error_t jerr;
        ceil_json = json_load_file(ceil_file, 0, &jerr);
        memset(&ceil, 0, sizeof ceil);
        if (json_is_object(ceil_json))
            tdx_prof_ceilings_from_json(ceil_json, &ceil); /* borrows the device name */
        if (ceil.copy_bw > 0)
            have_ceil = 1;
        else
            fprintf(stderr, "bench: note: %s: no ceilings in it, asking the harness\n", ceil_file);
    }
    if (!have_ceil && strcmp(device, "cuda") == 0 && !getenv("TDX_TEST_TIMER")) {
        tdx_hx_opts ho = {0};
        ho.timeout_s = 300;
        if (tdx_hx_call(&ho, "ceilings", NULL, NULL, &cr, NULL) == TDX_OK) {
            tdx_prof_ceilings_from_json(cr.json, &ceil);
            have_ceil = 1;
        } else {
            fprintf(stderr, "bench: note: no ceilings (%s): the roofline target is not used\n", cr.reason);
        }
    }
    tdx_bench_results res = {0};
    bench_prog prog = {.ntasks = nn};
    tdx_progress_init(&prog.line, stderr, noprog);
    for (size_t i = 0; i < nn; i++) {
        char task[4096], run_dir[3800], opt[4096];
        snprintf(task, sizeof task, "%s/%s", suite, names[i]);
        snprintf(run_dir, sizeof run_dir, "%.1800s/%.*s", out, (int)(strlen(names[i]) - 3), names[i]);
        snprintf(opt, sizeof opt, "%s.opt.py", run_dir);
        prog.index = i + 1;
        prog.task = names[i];
        tdx_progress_done(&prog.line);
        if (!quiet)
            fprintf(stderr, "bench: [%zu/%zu] %s\n", i + 1, nn, names[i]);
        /* the torch baselines of the original task, once per task (the
         * loop's own timings compare baseline and candidate only) */
        tdx_bench_row tr = {0};
        if (torch) {
            /* a cache that cannot be written is only a note: the columns are measured */
            if (tdx_bench_torch_cached(&tr, task, device, torch_timeout, torch_cache) == TDX_ERR_IO && !quiet)
                fprintf(stderr, "bench: note: cannot write the torch cache %s\n", torch_cache);
            if (fresh && fresh[i])
                tr.torch_cached = 0; /* measured by this run, a moment ago */
            if (!quiet)
                fprintf(stderr, "bench: torch baselines of %s%s\n", names[i], tr.torch_cached ? " (from the cache)" : "");
        }
        tdx_loop_opts o = {0};
        o.task_path = task;
        o.run_dir = run_dir;
        o.out_path = opt;
        o.max_rounds = rounds;
        o.max_cands = cands;
        o.no_stack = no_stack;
        o.no_confirm = no_confirm;
        o.beside_torch = torch;
        o.time_budget_s = budget;
        /* what torch reached on this task: the roofline target alone does not stop the loop above it */
        double reach = tr.compile_s > 0 && (!(tr.eager_s > 0) || tr.compile_s < tr.eager_s) ? tr.compile_s : tr.eager_s;
        o.reach_s = torch && reach > 0 ? reach : 0;
        o.reach_margin = reach_margin;
        o.dx.max_level = max_level;
        tdx_dx_levels_default(&o.dx);
        tdx_loop_hx hx = {0};
        hx.device = device;
        hx.ceilings = have_ceil ? &ceil : NULL;
        /* one hung candidate must not take the whole task's time */
        hx.check_timeout_s = hx.time_timeout_s = step_timeout;
        o.exec = tdx_loop_hx_exec(&hx);
        o.ceilings = hx.ceilings;
        tdx_loop_proposer prop = {"builtin", tdx_loop_builtin_propose, NULL};
        o.proposers = &prop;
        o.nproposers = 1;
        o.progress = on_progress;
        o.progress_ud = &prog;
        tdx_diags d;
        tdx_diags_init(&d);
        tdx_loop_result lr;
        double t0 = mono();
        tdx_status st = tdx_loop_run(&o, &lr, &d);
        json_t *row = json_pack("{s:s, s:s, s:f, s:f, s:f, s:i, s:i, s:f, s:I}", "task", names[i],
                                "status", st ? (d.len ? d.items[d.len - 1].msg : tdx_status_str(st)) : "ok",
                                "initial_s", st ? -1.0 : lr.initial_s, "final_s", st ? -1.0 : lr.final_s,
                                "fraction_after", lr.final_fraction, "rounds", lr.rounds, "kept", lr.kept,
                                "seconds", mono() - t0, "gpu_runs", (json_int_t)hx.gpu_runs);
        if (row && tdx_bench_add_json(&res, row) == TDX_OK) {
            tdx_bench_row *w = &res.rows[res.len - 1];
            w->fraction_before = -1;
            w->compiles = 0;
            tdx_bench_row_from_journal(w, run_dir);
            if (torch) {
                w->eager_s = tr.eager_s;
                w->compile_s = tr.compile_s;
                w->compile_build_s = tr.compile_build_s;
                free(w->torch_baseline);
                free(w->torch_note);
                w->torch_baseline = tr.torch_baseline ? tr.torch_baseline : strdup("");
                w->torch_note = tr.torch_note ? tr.torch_note : strdup("");
                w->torch_cached = tr.torch_cached;
                tr.torch_baseline = tr.torch_note = NULL;
                if (strcmp(device, "cuda") == 0 && !tr.torch_cached)
                    w->gpu_runs++;
            }
        }
        free(tr.torch_baseline);
        free(tr.torch_note);
        json_decref(row);
        tdx_diags_free(&d);
        /* write as we go: a run that dies keeps the rows so far */
        json_t *doc = results_doc(&res, device, max_level);
        char path[4096];
        snprintf(path, sizeof path, "%s/results.json", out);
        json_dump_file(doc, path, JSON_INDENT(1));
        json_decref(doc);
    }
    tdx_progress_done(&prog.line);
    tdx_bench_summary s;
    tdx_bench_summarize(&res, &s);
    tdx_buf b;
    tdx_buf_init(&b, 0);
    tdx_bench_markdown(&res, &s, &b);
    char path[4096];
    snprintf(path, sizeof path, "%s/RESULTS.md", out);
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(tdx_buf_str(&b), f);
        fclose(f);
    }
    fputs(tdx_buf_str(&b), stdout);
    tdx_buf_free(&b);
    tdx_bench_free(&res);
    tdx_hx_reply_free(&cr);
    json_decref(ceil_json);
    for (size_t i = 0; i < nn; i++)
        free(names[i]);
    free(names);
    free(fresh);
    return TDX_EXIT_OK;
}
