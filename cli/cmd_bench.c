/* tritondx bench: optimize every task of a suite and write the results table
 * (rows as JSON, the table as Markdown); or merge earlier results. */
#include <dirent.h>
#include <fnmatch.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "bench/bench.h"
#include "cli.h"
#include "diagnose/levels.h"
#include "loop/exec.h"
#include "loop/loop.h"
#include "loop/propose.h"

static void usage(FILE *f)
{
    fputs("usage: tritondx bench [options]\n"
          "       tritondx bench --merge RESULTS.json... [--markdown FILE]\n\n"
          "Runs optimize over every task of a suite (default bench/tasks/*.py) and writes\n"
          "OUT/results.json (one row per task) and OUT/RESULTS.md (the table and the summary:\n"
          "geomean and median speedup, > 2x, > 5x, roofline, against torch).\n\n"
          "options:\n"
          "  --suite DIR          folder of task files (default bench/tasks)\n"
          "  --tasks PATTERN      only tasks whose file name matches (shell pattern)\n"
          "  --out DIR            results folder (default runs/bench-YYYYMMDD-HHMMSS)\n"
          "  --max-level N        deepest diagnosis level 0..3 (the ablation)\n"
          "  --rounds N, --candidates N, --budget SECONDS (per task), --device cuda|cpu\n"
          "  --merge FILE...      merge results files into one table instead of running\n"
          "  --markdown FILE      where to write the merged table (default: stdout)\n",
          f);
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

static int merge(int n, char **files, const char *md)
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
    tdx_bench_free(&r);
    return rc;
}

int tdx_cmd_bench(int argc, char **argv)
{
    const char *suite = "bench/tasks", *pattern = "*.py", *out = NULL, *md = NULL;
    const char *device = tdx_dx_have_gpu() ? "cuda" : "cpu";
    int max_level = 3, rounds = 15, cands = 8, merging = 0;
    double budget = 0;
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
        } else if ((r = tdx_cli_opt_value(argc, argv, &i, "--suite", &v)) > 0) {
            suite = v;
        } else if ((r = tdx_cli_opt_value(argc, argv, &i, "--tasks", &v)) > 0) {
            pattern = v;
        } else if ((r = tdx_cli_opt_value(argc, argv, &i, "--out", &v)) > 0) {
            out = v;
        } else if ((r = tdx_cli_opt_value(argc, argv, &i, "--markdown", &v)) > 0) {
            md = v;
        } else if ((r = tdx_cli_opt_value(argc, argv, &i, "--device", &v)) > 0) {
            device = v;
        } else if ((r = tdx_cli_opt_value(argc, argv, &i, "--max-level", &v)) > 0) {
            if (tdx_cli_parse_int("--max-level", v, 0, 3, &max_level))
                r = -1;
        } else if ((r = tdx_cli_opt_value(argc, argv, &i, "--rounds", &v)) > 0) {
            if (tdx_cli_parse_int("--rounds", v, 0, 1000000, &rounds))
                r = -1;
        } else if ((r = tdx_cli_opt_value(argc, argv, &i, "--candidates", &v)) > 0) {
            if (tdx_cli_parse_int("--candidates", v, 0, 1000000, &cands))
                r = -1;
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
        int rc = nfiles ? merge(nfiles, files, md) : TDX_EXIT_USAGE;
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
    if (strcmp(device, "cpu") == 0 && !getenv("TDX_TEST_TIMER")) {
        tdx_cli_error("no GPU here: bench times candidates on a GPU (or set TDX_TEST_TIMER)");
        return TDX_EXIT_FAILED;
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
        if (l > 3 && strcmp(e->d_name + l - 3, ".py") == 0 && fnmatch(pattern, e->d_name, 0) == 0 &&
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
    char defout[256];
    if (!out) {
        time_t now = time(NULL);
        strftime(defout, sizeof defout, "runs/bench-%Y%m%d-%H%M%S", gmtime(&now));
        mkdir("runs", 0755);
        out = defout;
    }
    mkdir(out, 0755);
    tdx_bench_results res = {0};
    for (size_t i = 0; i < nn; i++) {
        char task[4096], run_dir[3800], opt[4096];
        snprintf(task, sizeof task, "%s/%s", suite, names[i]);
        snprintf(run_dir, sizeof run_dir, "%.1800s/%.*s", out, (int)(strlen(names[i]) - 3), names[i]);
        snprintf(opt, sizeof opt, "%s.opt.py", run_dir);
        fprintf(stderr, "bench: [%zu/%zu] %s\n", i + 1, nn, names[i]);
        tdx_loop_opts o = {0};
        o.task_path = task;
        o.run_dir = run_dir;
        o.out_path = opt;
        o.max_rounds = rounds;
        o.max_cands = cands;
        o.time_budget_s = budget;
        o.dx.max_level = max_level;
        tdx_dx_levels_default(&o.dx);
        tdx_loop_hx hx = {0};
        hx.device = device;
        o.exec = tdx_loop_hx_exec(&hx);
        tdx_loop_proposer prop = {"builtin", tdx_loop_builtin_propose, NULL};
        o.proposers = &prop;
        o.nproposers = 1;
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
        }
        json_decref(row);
        tdx_diags_free(&d);
        /* write as we go: a run that dies keeps the rows so far */
        json_t *rows = json_array();
        for (size_t k = 0; k < res.len; k++)
            json_array_append_new(rows, tdx_bench_row_json(&res.rows[k]));
        json_t *doc = json_pack("{s:s, s:i, s:s, s:i, s:o}", "schema", "tritondx/bench", "version", 1,
                                "device", device, "max_level", max_level, "rows", rows);
        char path[4096];
        snprintf(path, sizeof path, "%s/results.json", out);
        json_dump_file(doc, path, JSON_INDENT(1));
        json_decref(doc);
    }
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
    for (size_t i = 0; i < nn; i++)
        free(names[i]);
    free(names);
    return TDX_EXIT_OK;
}
