/* tritondx report: a run directory (optimize or bench) as Markdown and/or
 * one self-contained HTML page, written next to the run or into --out. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "base/file.h"
#include "cli.h"
#include "report/run.h"

// The help text.
static void usage(FILE *f)
{
    fputs("usage: tritondx report RUN_DIR [--out DIR] [--format md|html|both|json]\n\n"
          "Writes the report of a run: for `tritondx optimize` (a run directory with\n"
          "journal.jsonl) the kernel's journey round by round — findings and their\n"
          "evidence, candidates kept and rejected, the kept diffs, timings, the\n"
          "roofline; for `tritondx bench` (a folder with results.json, and one per\n"
          "sub-folder for an ablation) the results table, speedups and summary.\n\n"
          "options:\n"
          "  --out DIR          where to write report.md / report.html (default RUN_DIR)\n"
          "  --format F         md, html, both (default) or json (the report model)\n"
          "  --ceilings FILE    the device's ceilings (`tritondx ceilings --json`);\n"
          "                     default RUN_DIR/ceilings.json when present\n"
          "  --stdout           print the one format asked for instead of writing a file\n"
          "  -h, --help         show this help\n",
          f);
}

// Write one rendering to DIR/NAME, or to stdout.
static int emit(const char *dir, const char *name, const tdx_buf *b, int to_stdout)
{
    if (to_stdout) {
        fwrite(b->data ? b->data : "", 1, b->len, stdout);
        return TDX_EXIT_OK;
    }
    char path[4200];
    snprintf(path, sizeof path, "%.4000s/%s", dir, name);
    if (tdx_file_write(path, b->data ? b->data : "", b->len) != TDX_OK) {
        tdx_cli_error("cannot write %s: %s", path, strerror(errno));
        return TDX_EXIT_FAILED;
    }
    printf("%s\n", path);
    return TDX_EXIT_OK;
}

// Render the formats asked for (and the Markdown's chart file) into dir.
static int write_all(tdx_rep_model *m, const char *dir, int md, int html, int json, int to_stdout)
{
    int rc = TDX_EXIT_OK;
    tdx_buf b;
    tdx_buf_init(&b, 0);
    /* Markdown shows the chart as an image file written next to it */
    if (md && !to_stdout) {
        const char *name;
        if (tdx_rep_run_chart(m, &b, &name) == TDX_OK) {
            m->chart_file = 1;
            rc = emit(dir, name, &b, 0);
        }
    }
    struct {
        int on;
        const char *name;
        tdx_status (*render)(const tdx_rep_model *, tdx_buf *);
    } fmts[] = {{md, "report.md", tdx_rep_run_md},
                {html, "report.html", tdx_rep_run_html},
                {json, "report.json", tdx_rep_run_json}};
    for (size_t k = 0; k < 3 && rc == TDX_EXIT_OK; k++) {
        if (!fmts[k].on)
            continue;
        tdx_buf_reset(&b);
        tdx_status st = fmts[k].render(m, &b);
        if (st) {
            tdx_cli_error("cannot render %s: %s", fmts[k].name, tdx_status_str(st));
            rc = TDX_EXIT_FAILED;
        } else {
            rc = emit(dir, fmts[k].name, &b, to_stdout);
        }
    }
    tdx_buf_free(&b);
    return rc;
}

// A bench run: each task's optimize run gets its own report, which the
// bench report links to; a task run that cannot be read is not linked.
static int task_reports(tdx_rep_model *m, const char *dir, const char *out, int md, int html, int json,
                        const char *ceilings)
{
    /* the tasks ran on one device: the bench folder's ceilings hold for each */
    char top[4200];
    struct stat sb;
    snprintf(top, sizeof top, "%.4000s/ceilings.json", dir);
    tdx_rep_load_opts lo = {ceilings ? ceilings : stat(top, &sb) == 0 ? top : NULL};
    for (size_t k = 0; k < m->bench.nsets; k++) {
        tdx_rep_results *s = &m->bench.sets[k];
        for (size_t i = 0; s->run_dirs && i < s->rows.len; i++) {
            if (!s->run_dirs[i])
                continue;
            char src[4400], dst[4400];
            snprintf(src, sizeof src, "%.2000s/%.2000s", dir, s->run_dirs[i]);
            snprintf(dst, sizeof dst, "%.2000s/%.2000s", out, s->run_dirs[i]);
            tdx_diags d;
            tdx_diags_init(&d);
            tdx_rep_model *t = NULL;
            if (tdx_rep_run_load(src, &lo, &t, &d) != TDX_OK || tdx_file_mkdirs(dst) != TDX_OK) {
                fprintf(stderr, "tritondx: warning: %s: no report for this task's run\n", src);
                s->run_dirs[i] = NULL;
            } else {
                int rc = write_all(t, dst, md, html, json, 0);
                if (rc != TDX_EXIT_OK) {
                    tdx_rep_run_free(t);
                    tdx_diags_free(&d);
                    return rc;
                }
            }
            tdx_rep_run_free(t);
            tdx_diags_free(&d);
        }
    }
    m->task_links = 1;
    return TDX_EXIT_OK;
}

// Load the run, render the formats asked for, write them.
int tdx_cmd_report(int argc, char **argv)
{
    const char *dir = NULL, *out = NULL, *format = "both";
    tdx_rep_load_opts lo = {0};
    int to_stdout = 0;
    for (int i = 1; i < argc; i++) {
        const char *v;
        int r = 0;
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            usage(stdout);
            return TDX_EXIT_OK;
        } else if (strcmp(argv[i], "--stdout") == 0) {
            to_stdout = 1;
        } else if ((r = tdx_cli_opt_value(argc, argv, &i, "--out", &v)) > 0) {
            out = v;
        } else if ((r = tdx_cli_opt_value(argc, argv, &i, "--format", &v)) > 0) {
            format = v;
        } else if ((r = tdx_cli_opt_value(argc, argv, &i, "--ceilings", &v)) > 0) {
            lo.ceilings_path = v;
        } else if (r == 0 && argv[i][0] != '-' && !dir) {
            dir = argv[i];
        } else if (r == 0) {
            tdx_cli_error("bad argument '%s' (see 'tritondx report --help')", argv[i]);
            return TDX_EXIT_USAGE;
        }
        if (r < 0)
            return TDX_EXIT_USAGE;
    }
    int md = strcmp(format, "md") == 0 || strcmp(format, "both") == 0;
    int html = strcmp(format, "html") == 0 || strcmp(format, "both") == 0;
    int json = strcmp(format, "json") == 0;
    if (!md && !html && !json) {
        tdx_cli_error("--format takes md, html, both or json (got '%s')", format);
        return TDX_EXIT_USAGE;
    }
    if (!dir) {
        tdx_cli_error("which run? (usage: tritondx report RUN_DIR)");
        return TDX_EXIT_USAGE;
    }
    if (to_stdout && md && html) {
        tdx_cli_error("--stdout prints one format: add --format md, html or json");
        return TDX_EXIT_USAGE;
    }
    tdx_diags d;
    tdx_diags_init(&d);
    tdx_rep_model *m = NULL;
    tdx_status st = tdx_rep_run_load(dir, &lo, &m, &d);
    if (st) {
        for (size_t i = 0; i < d.len; i++)
            tdx_cli_error("%s%s%s", d.items[i].file ? d.items[i].file : "", d.items[i].file ? ": " : "",
                          d.items[i].msg);
        if (!d.len)
            tdx_cli_error("%s: %s", dir, tdx_status_str(st));
        tdx_diags_free(&d);
        return st == TDX_ERR_NOMEM ? TDX_EXIT_FAILED : TDX_EXIT_INPUT;
    }
    tdx_diags_free(&d);
    /* a partial run is still reported; say so once on stderr too */
    for (size_t i = 0; i < m->nnotes; i++)
        fprintf(stderr, "tritondx: note: %s\n", m->notes[i]);
    if (!out)
        out = dir;
    else if (!to_stdout && tdx_file_mkdirs(out) != TDX_OK) {
        tdx_cli_error("cannot create %s: %s", out, strerror(errno));
        tdx_rep_run_free(m);
        return TDX_EXIT_FAILED;
    }
    int rc = TDX_EXIT_OK;
    if (m->kind == TDX_REP_BENCH && !to_stdout)
        rc = task_reports(m, dir, out, md, html, json, lo.ceilings_path);
    if (rc == TDX_EXIT_OK)
        rc = write_all(m, out, md, html, json, to_stdout);
    tdx_rep_run_free(m);
    return rc;
}
