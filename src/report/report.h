/* Output renderers (tdx_rep_*): a ledger of findings as compiler-style text,
 * as versioned JSON ("tritondx/findings" v1, docs/json-schema.md) or as
 * SARIF 2.1.0 for code-scanning services; and the rule table as a list, as
 * one rule explained, or as the Markdown reference (docs/rules.md).
 *
 * Renderers append to a caller's tdx_buf and never print: the CLI decides
 * where bytes go. Output is deterministic for a given input (no times, no
 * absolute paths that were not given), so it can be compared to golden files.
 *
 * Locations follow the ledger: 1-based lines, 1-based byte columns, end
 * columns one past the last byte. SARIF wants columns in Unicode code
 * points; they are converted when the file's text is in the run.
 *
 * Ownership: renderers only read the run; everything they produce is in
 * the output buffer, owned by the caller. */
#ifndef TDX_REPORT_REPORT_H
#define TDX_REPORT_REPORT_H

#include <stddef.h>

#include "base/buf.h"
#include "base/diag.h"
#include "base/status.h"
#include "finding/finding.h"

/* Where the SARIF driver points people for more about the tool. */
#ifndef TDX_REP_INFO_URI
#define TDX_REP_INFO_URI "https://github.com/tritondx/tritondx"
#endif

/* One input of a run: its path as reported, its text when still at hand
 * (for carets and column conversion; NULL otherwise), and its outcome. */
typedef struct tdx_rep_file {
    const char *path;
    const char *text;
    size_t len;
    tdx_status status;
} tdx_rep_file;

/* Everything a renderer reads: the findings, the files looked at, and the
 * messages about inputs (NULL when none). */
typedef struct tdx_rep_run {
    const tdx_ledger *ledger;
    const tdx_rep_file *files;
    size_t nfiles;
    const tdx_diags *diags;
} tdx_rep_run;

typedef struct tdx_rep_opts {
    int color;            /* ANSI colour in text output */
    int caret;            /* text: the source line and a caret under the column */
    const char *version;  /* tool version to report; NULL means TDX_VERSION */
    const char *root;     /* SARIF: absolute paths under this directory (the
                             checkout, usually the working directory) become
                             relative URIs; NULL leaves them absolute */
} tdx_rep_opts;

/* Counts of a run, for the exit code and the closing text line. */
typedef struct tdx_rep_totals {
    size_t files, kernels, errors, warnings, notes;
} tdx_rep_totals;

void tdx_rep_count(const tdx_rep_run *run, tdx_rep_totals *t);

/* Compiler-style text: per file, the kernel summary notes and the findings
 * in line order, each `file:line:col: warning: message [TDX012]` followed by
 * the caret (when asked) and `note:` lines for the hypothesis ("why:"), the
 * rewrite family, the facts, the findings it builds on and the evidence.
 * Diags are not included (they go to stderr). */
tdx_status tdx_rep_text(const tdx_rep_run *run, const tdx_rep_opts *o, tdx_buf *out);
/* The closing line: "N warnings, M errors in K kernels of F files". */
tdx_status tdx_rep_text_totals(const tdx_rep_totals *t, const tdx_rep_opts *o, tdx_buf *out);
/* Diags as `file:line:col: error: message` lines (colour when asked). */
tdx_status tdx_rep_diags_text(const tdx_diags *d, const tdx_rep_opts *o, tdx_buf *out);
/* The same; with o->caret, the source line and a caret under the diags
 * located in src (the file just read; may be NULL). */
tdx_status tdx_rep_diags_text_src(const tdx_diags *d, const tdx_rep_file *src,
                                  const tdx_rep_opts *o, tdx_buf *out);

/* The JSON document "tritondx/findings", version 1 (docs/json-schema.md). */
#define TDX_REP_JSON_SCHEMA "tritondx/findings"
#define TDX_REP_JSON_VERSION 1
tdx_status tdx_rep_json(const tdx_rep_run *run, const tdx_rep_opts *o, tdx_buf *out);

/* SARIF 2.1.0 with one run; its rule list holds every rule a result uses.
 * Paths become URIs relative to %SRCROOT% (o->root for absolute ones). */
tdx_status tdx_rep_sarif(const tdx_rep_run *run, const tdx_rep_opts *o, tdx_buf *out);

/* The rule table: one line per rule (id, level, severity, name, summary). */
tdx_status tdx_rep_rules_list(const tdx_rule *rules, size_t n, tdx_buf *out);
/* One rule explained: description, the fact behind it, the fix. */
tdx_status tdx_rep_rule_explain(const tdx_rule *r, tdx_buf *out);
/* The reference documentation of every rule, as Markdown (docs/rules.md). */
tdx_status tdx_rep_rules_markdown(const tdx_rule *rules, size_t n, tdx_buf *out);

#endif
