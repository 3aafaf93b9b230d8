/* The JSON document "tritondx/findings" v1 (docs/json-schema.md), with
 * Jansson. Keys are written in a fixed order; unknown values are null. */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/report_int.h"

#ifndef TDX_VERSION
#define TDX_VERSION "0.0.0"
#endif

/* Construction stops at the first failed allocation; `ok` remembers it so
 * that the code reads top to bottom without a check after every key. */
typedef struct jb {
    int ok;
} jb;

// Set obj[key] = v, remembering a failed allocation.
static void put(jb *b, json_t *obj, const char *key, json_t *v)
{
    if (!v || json_object_set_new(obj, key, v) != 0)
        b->ok = 0;
}

// Append v to arr, remembering a failed allocation.
static void push(jb *b, json_t *arr, json_t *v)
{
    if (!v || json_array_append_new(arr, v) != 0)
        b->ok = 0;
}

// A JSON string, or null for NULL; invalid UTF-8 bytes become '?'.
static json_t *jstr(const char *s)
{
    if (!s)
        return json_null();
    json_t *v = json_string(s);
    if (v)
        return v;
    char *c = tdx_rep__utf8_clean(s);
    if (!c)
        return NULL;
    v = json_string(c);
    free(c);
    return v;
}

// A 1-based position, or null when unknown (0).
static json_t *jint_or_null(int v) { return v > 0 ? json_integer(v) : json_null(); }

// Ratios to three decimals: 0.85 stays 0.85 in the output, not 0.84999...
static json_t *jratio(double v) { return json_real(round(v * 1000.0) / 1000.0); }

// A location object: file, line, col, end_line, end_col (null when unknown).
static json_t *jloc(jb *b, const char *file, int line, int col, int end_line, int end_col)
{
    json_t *o = json_object();
    if (!o) {
        b->ok = 0;
        return NULL;
    }
    put(b, o, "file", jstr(file));
    put(b, o, "line", jint_or_null(line));
    put(b, o, "col", jint_or_null(col));
    put(b, o, "end_line", jint_or_null(end_line));
    put(b, o, "end_col", jint_or_null(end_col));
    return o;
}

// One finding with every key of the schema, in the documented order.
static json_t *jfinding(jb *b, const tdx_finding *f)
{
    json_t *o = json_object();
    if (!o)
        return NULL;
    char id[32];
    snprintf(id, sizeof id, "F%d", f->id);
    put(b, o, "id", json_string(id));
    put(b, o, "rule", jstr(f->rule->id));
    put(b, o, "name", jstr(f->rule->name));
    put(b, o, "level", json_integer(f->level));
    put(b, o, "severity", json_string(tdx_severity_str(f->sev)));
    put(b, o, "location", jloc(b, f->file, f->line, f->col, f->end_line, f->end_col));
    put(b, o, "kernel", jstr(f->kernel));
    put(b, o, "message", jstr(f->message));
    put(b, o, "hypothesis", jstr(f->hypothesis));
    put(b, o, "family", jstr(f->family && *f->family ? f->family : NULL));
    put(b, o, "confidence", jratio(f->confidence));
    put(b, o, "expected_gain", f->expected_gain > 0 ? jratio(f->expected_gain) : json_null());
    json_t *facts = json_object();
    for (size_t i = 0; facts && i < f->nfacts; i++) {
        char *key = tdx_rep__utf8_clean(f->facts[i].key);
        if (key)
            put(b, facts, key, jstr(f->facts[i].value));
        else
            b->ok = 0;
        free(key);
    }
    put(b, o, "facts", facts);
    put(b, o, "evidence", jstr(f->evidence));
    json_t *cites = json_array();
    for (size_t i = 0; cites && i < f->ncites; i++) {
        snprintf(id, sizeof id, "F%d", f->cites[i]);
        push(b, cites, json_string(id));
    }
    put(b, o, "cites", cites);
    return o;
}

// One kernel: its name, def line, pattern class and why.
static json_t *jkernel(jb *b, const tdx_kernel_info *k)
{
    json_t *o = json_object();
    if (!o)
        return NULL;
    put(b, o, "name", jstr(k->name));
    put(b, o, "location", jloc(b, k->file, k->line, k->col, 0, 0));
    put(b, o, "pattern", jstr(k->pattern));
    put(b, o, "confidence", jratio(k->confidence));
    put(b, o, "why", jstr(k->why));
    return o;
}

// The whole document: tool, files, kernels, findings, diagnostics, summary.
tdx_status tdx_rep_json(const tdx_rep_run *run, const tdx_rep_opts *o, tdx_buf *out)
{
    jb b = {1};
    json_t *root = json_object();
    if (!root)
        return TDX_ERR_NOMEM;
    put(&b, root, "schema", json_string(TDX_REP_JSON_SCHEMA));
    put(&b, root, "version", json_integer(TDX_REP_JSON_VERSION));
    json_t *tool = json_object();
    if (tool) {
        put(&b, tool, "name", json_string("tritondx"));
        put(&b, tool, "version", jstr(o && o->version ? o->version : TDX_VERSION));
    }
    put(&b, root, "tool", tool);

    json_t *files = json_array();
    for (size_t i = 0; files && i < run->nfiles; i++) {
        json_t *f = json_object();
        if (f) {
            put(&b, f, "path", jstr(run->files[i].path));
            put(&b, f, "status", json_string(tdx_status_str(run->files[i].status)));
        }
        push(&b, files, f);
    }
    put(&b, root, "files", files);

    json_t *kernels = json_array();
    size_t nk = run->ledger ? run->ledger->kernels.len : 0;
    for (size_t i = 0; kernels && i < nk; i++)
        push(&b, kernels, jkernel(&b, run->ledger->kernels.items[i]));
    put(&b, root, "kernels", kernels);

    json_t *findings = json_array();
    size_t nf = run->ledger ? tdx_ledger_count(run->ledger) : 0;
    for (size_t i = 0; findings && i < nf; i++)
        push(&b, findings, jfinding(&b, tdx_ledger_at(run->ledger, i)));
    put(&b, root, "findings", findings);

    json_t *diags = json_array();
    for (size_t i = 0; diags && run->diags && i < run->diags->len; i++) {
        const tdx_diag *g = &run->diags->items[i];
        json_t *d = json_object();
        if (d) {
            put(&b, d, "severity", json_string(tdx_severity_str(g->sev)));
            put(&b, d, "location", jloc(&b, g->file, g->line, g->col, 0, 0));
            put(&b, d, "message", jstr(g->msg));
        }
        push(&b, diags, d);
    }
    put(&b, root, "diagnostics", diags);

    tdx_rep_totals t;
    tdx_rep_count(run, &t);
    json_t *sum = json_object();
    if (sum) {
        put(&b, sum, "files", json_integer((json_int_t)t.files));
        put(&b, sum, "kernels", json_integer((json_int_t)t.kernels));
        put(&b, sum, "errors", json_integer((json_int_t)t.errors));
        put(&b, sum, "warnings", json_integer((json_int_t)t.warnings));
        put(&b, sum, "notes", json_integer((json_int_t)t.notes));
    }
    put(&b, root, "summary", sum);

    tdx_status st = TDX_ERR_NOMEM;
    if (b.ok) {
        char *s = json_dumps(root, JSON_INDENT(2) | JSON_REAL_PRECISION(6));
        if (s) {
            st = tdx_buf_adds(out, s);
            if (!st)
                st = tdx_buf_addc(out, '\n');
            free(s);
        }
    }
    json_decref(root);
    return st;
}
