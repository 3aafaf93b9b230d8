/* tritondx triage: level 0 over files and directories, rendered as text,
 * JSON or SARIF. The work is in the library (input/, triage/, report/);
 * this file parses options, prints and picks the exit code. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "input/input.h"
#include "report/report.h"
#include "triage/triage.h"

/* Texts kept for carets and SARIF columns, all files together; past this
 * the rest are dropped after triage and their findings get no caret. */
#define KEEP_TEXT_MAX ((size_t)256 << 20)

enum { FMT_TEXT, FMT_JSON, FMT_SARIF };

// The help text.
static void usage(FILE *f)
{
    fputs("usage: tritondx triage [options] FILE|DIR|-...\n\n"
          "Level 0: the pattern class of every @triton.jit kernel and the source-level\n"
          "anti-patterns, from the source alone (no GPU, no Python). Directories are\n"
          "searched for *.py files (hidden directories and __pycache__ skipped);\n"
          "'-' reads the standard input, reported as <stdin>.\n\n"
          "options:\n"
          "  --format text|json|sarif   output format (default text); JSON is the\n"
          "                             tritondx/findings v1 schema, SARIF is 2.1.0\n"
          "  --color auto|always|never  colour text output (default auto: on a terminal\n"
          "                             and when NO_COLOR is unset)\n"
          "  --caret auto|always|never  show the source line and a caret under each\n"
          "                             finding (default auto: when stdout is a terminal)\n"
          "  -h, --help                 show this help\n\n"
          "exit status: 0 nothing at warning level or above, 1 findings at warning level\n"
          "or above, 2 bad command line, 3 an input could not be read or parsed (the\n"
          "others were still processed), 4 internal failure.\n",
          f);
}

// Print the diags added since *done to stderr (with carets under those in
// src, the file just read, when o asks for them).
static void flush_diags(const tdx_diags *d, size_t *done, const tdx_in_file *src,
                        const tdx_rep_opts *o)
{
    if (*done >= d->len)
        return;
    tdx_diags part = *d;
    part.items = d->items + *done;
    part.len = d->len - *done;
    tdx_buf b;
    tdx_buf_init(&b, 0);
    tdx_rep_file rf = {0};
    if (src)
        rf = (tdx_rep_file){src->path, src->text, src->len, src->status};
    if (tdx_rep_diags_text_src(&part, src && src->text ? &rf : NULL, o, &b) == TDX_OK) {
        fflush(stdout);
        fputs(tdx_buf_str(&b), stderr);
    }
    tdx_buf_free(&b);
    *done = d->len;
}

// Parse an auto|always|never value, with a message when invalid.
static int parse_mode(const char *opt, const char *v, tdx_color_mode *m)
{
    if (tdx_cli_parse_color(v, m) == 0)
        return 0;
    tdx_cli_error("invalid value '%s' for %s (expected auto, always or never)", v, opt);
    return -1;
}

// Triage every loaded file into the ledger; TDX_ERR_NOMEM stops the run.
static tdx_status triage_all(tdx_in_list *in, tdx_ledger *led, tdx_diags *d, int keep,
                             size_t *shown, const tdx_rep_opts *eo)
{
    size_t kept = 0;
    for (size_t i = 0; i < in->len; i++) {
        tdx_in_file *f = &in->files[i];
        if (tdx_in_load(in, i, 0, d) == TDX_ERR_NOMEM)
            return TDX_ERR_NOMEM;
        if (f->text) {
            size_t k0 = led->kernels.len, e0 = d->nerrors;
            tdx_status st = tdx_tri_source(f->path, f->text, f->len, led, d);
            if (st == TDX_ERR_NOMEM)
                return st;
            if (st != TDX_OK) {
                if (d->nerrors == e0)
                    tdx_diags_add(d, TDX_SEV_ERROR, f->path, 0, 0, "%s", tdx_status_str(st));
                tdx_in_mark_bad(in, i, st);
            } else if (f->explicit_ && f->len == 0) {
                tdx_diags_add(d, TDX_SEV_NOTE, f->path, 0, 0, "empty file, nothing to triage");
            } else if (f->explicit_ && led->kernels.len == k0) {
                tdx_diags_add(d, TDX_SEV_NOTE, f->path, 0, 0, "no @triton.jit kernel found");
            }
        }
        flush_diags(d, shown, f, eo);
        if (f->text) {
            if (keep && kept + f->len <= KEEP_TEXT_MAX)
                kept += f->len;
            else
                tdx_in_unload(in, i);
        }
    }
    return TDX_OK;
}

// Parse options, expand inputs, triage, render, and pick the exit code.
int tdx_cmd_triage(int argc, char **argv)
{
    int fmt = FMT_TEXT;
    tdx_color_mode color = TDX_COLOR_AUTO, caret = TDX_COLOR_AUTO;
    int npaths = 0, opts_done = 0;
    char **paths = calloc((size_t)argc + 1, sizeof *paths);
    if (!paths) {
        tdx_cli_error("out of memory");
        return TDX_EXIT_FAILED;
    }
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v;
        int r;
        if (opts_done || a[0] != '-' || strcmp(a, "-") == 0) {
            paths[npaths++] = argv[i];
        } else if (strcmp(a, "--") == 0) {
            opts_done = 1;
        } else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            usage(stdout);
            free(paths);
            return TDX_EXIT_OK;
        } else if ((r = tdx_cli_opt_value(argc, argv, &i, "--format", &v)) != 0) {
            if (r > 0 && strcmp(v, "text") == 0)
                fmt = FMT_TEXT;
            else if (r > 0 && strcmp(v, "json") == 0)
                fmt = FMT_JSON;
            else if (r > 0 && strcmp(v, "sarif") == 0)
                fmt = FMT_SARIF;
            else {
                if (r > 0)
                    tdx_cli_error("invalid format '%s' (expected text, json or sarif)", v);
                free(paths);
                return TDX_EXIT_USAGE;
            }
        } else if ((r = tdx_cli_opt_value(argc, argv, &i, "--color", &v)) != 0 ||
                   (r = tdx_cli_opt_value(argc, argv, &i, "--colour", &v)) != 0) {
            if (r < 0 || parse_mode("--color", v, &color) != 0) {
                free(paths);
                return TDX_EXIT_USAGE;
            }
        } else if ((r = tdx_cli_opt_value(argc, argv, &i, "--caret", &v)) != 0) {
            if (r < 0 || parse_mode("--caret", v, &caret) != 0) {
                free(paths);
                return TDX_EXIT_USAGE;
            }
        } else {
            tdx_cli_error("unknown option '%s' (see 'tritondx triage --help')", a);
            free(paths);
            return TDX_EXIT_USAGE;
        }
    }
    if (npaths == 0) {
        tdx_cli_error("no input files or directories (see 'tritondx triage --help')");
        free(paths);
        return TDX_EXIT_USAGE;
    }

    tdx_rep_opts out_o = {0}, err_o = {0};
    out_o.color = fmt == FMT_TEXT && tdx_cli_use_color(color, stdout);
    out_o.caret = fmt == FMT_TEXT && (caret == TDX_COLOR_ALWAYS ||
                                      (caret == TDX_COLOR_AUTO && isatty(fileno(stdout))));
    err_o.color = tdx_cli_use_color(color, stderr);
    err_o.caret = caret == TDX_COLOR_ALWAYS || (caret == TDX_COLOR_AUTO && isatty(fileno(stderr)));
    /* SARIF URIs are relative to the checkout; absolute paths under the
     * working directory are made relative to it. */
    char cwd[4096];
    out_o.root = getcwd(cwd, sizeof cwd);

    tdx_diags d;
    tdx_in_list in;
    tdx_ledger led;
    tdx_diags_init(&d);
    tdx_in_list_init(&in);
    tdx_ledger_init(&led);
    size_t shown = 0;
    int failed = 0;
    for (int i = 0; i < npaths && !failed; i++) {
        if (tdx_in_add(&in, paths[i], &d) == TDX_ERR_NOMEM)
            failed = 1;
        flush_diags(&d, &shown, NULL, &err_o);
    }
    if (!failed &&
        triage_all(&in, &led, &d, out_o.caret || fmt == FMT_SARIF, &shown, &err_o) != TDX_OK)
        failed = 1;

    tdx_rep_file *files = calloc(in.len ? in.len : 1, sizeof *files);
    tdx_buf out;
    tdx_buf_init(&out, 0);
    tdx_rep_totals t = {0};
    if (!failed && files) {
        for (size_t i = 0; i < in.len; i++) {
            files[i].path = in.files[i].path;
            files[i].text = in.files[i].text;
            files[i].len = in.files[i].len;
            files[i].status = in.files[i].status;
        }
        tdx_rep_run run = {&led, files, in.len, &d};
        tdx_rep_count(&run, &t);
        tdx_status st = fmt == FMT_JSON    ? tdx_rep_json(&run, &out_o, &out)
                        : fmt == FMT_SARIF ? tdx_rep_sarif(&run, &out_o, &out)
                                           : tdx_rep_text(&run, &out_o, &out);
        if (!st && fmt == FMT_TEXT)
            st = tdx_rep_text_totals(&t, &out_o, &out);
        if (st)
            failed = 1;
        else
            fwrite(out.data ? out.data : "", 1, out.len, stdout);
    } else {
        failed = 1;
    }
    if (failed)
        tdx_cli_error("out of memory");
    /* A full disk or a closed stdout must not pass for a clean run. */
    if (fflush(stdout) != 0 || ferror(stdout)) {
        if (!failed)
            tdx_cli_error("cannot write the output");
        failed = 1;
    }

    int code = failed        ? TDX_EXIT_FAILED
               : in.nbad     ? TDX_EXIT_INPUT
               : t.errors + t.warnings ? TDX_EXIT_FINDINGS
                                       : TDX_EXIT_OK;
    tdx_buf_free(&out);
    free(files);
    tdx_ledger_free(&led);
    tdx_in_list_free(&in);
    tdx_diags_free(&d);
    free(paths);
    return code;
}
