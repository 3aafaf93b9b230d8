/* SARIF 2.1.0 output, shaped for GitHub code scanning: one run, a driver
 * whose rule list holds every rule a result refers to (by id and index),
 * results with relative artifact URIs and 1-based regions, and the input
 * errors as tool execution notifications. */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "report/report_int.h"

#ifndef TDX_VERSION
#define TDX_VERSION "0.0.0"
#endif

#define SARIF_SCHEMA "https://json.schemastore.org/sarif-2.1.0.json"

typedef struct sb {
    int ok;
    const char *root;   /* tdx_rep_opts.root */
    tdx_rep__index ix;  /* the run's files by path */
} sb;

// Set obj[key] = v, remembering a failed allocation.
static void put(sb *b, json_t *obj, const char *key, json_t *v)
{
    if (!v || json_object_set_new(obj, key, v) != 0)
        b->ok = 0;
}

// Append v to arr, remembering a failed allocation.
static void push(sb *b, json_t *arr, json_t *v)
{
    if (!v || json_array_append_new(arr, v) != 0)
        b->ok = 0;
}

// A JSON string ("" for NULL); invalid UTF-8 bytes become '?'.
static json_t *jstr(const char *s)
{
    json_t *v = json_string(s ? s : "");
    if (v || !s)
        return v;
    char *c = tdx_rep__utf8_clean(s);
    if (!c)
        return NULL;
    v = json_string(c);
    free(c);
    return v;
}

// {"text": s}: SARIF's message and description objects.
static json_t *jtext(const char *s)
{
    json_t *o = json_object();
    if (o && json_object_set_new(o, "text", jstr(s)) != 0) {
        json_decref(o);
        return NULL;
    }
    return o;
}

// SARIF's result level for a severity.
static const char *sarif_level(tdx_severity s)
{
    switch (s) {
    case TDX_SEV_ERROR: return "error";
    case TDX_SEV_WARNING: return "warning";
    case TDX_SEV_NOTE: return "note";
    }
    return "none";
}

// A path as a SARIF URI string.
static json_t *juri(const char *path, const char *root)
{
    tdx_buf u;
    tdx_buf_init(&u, 1 << 16);
    json_t *v = tdx_rep__uri(path, root, &u) == TDX_OK ? jstr(tdx_buf_str(&u)) : NULL;
    tdx_buf_free(&u);
    return v;
}

// An artifactLocation; relative paths are anchored at %SRCROOT%, the
// checkout root, which is how code-scanning services resolve them.
static json_t *jartifact(sb *b, const char *path)
{
    json_t *a = json_object();
    if (!a)
        return NULL;
    put(b, a, "uri", juri(path, b->root));
    if (path[0] != '/' || tdx_rep__under(path, b->root))
        put(b, a, "uriBaseId", json_string("%SRCROOT%"));
    return a;
}

// A physical location with a region (when the line is known). Columns are
// counted in code points, as the run's columnKind says.
static json_t *jlocation(sb *b, const tdx_rep_run *run, const char *file, int line, int col,
                         int end_line, int end_col)
{
    json_t *loc = json_object(), *phys = json_object();
    if (!loc || !phys) {
        json_decref(loc);
        json_decref(phys);
        return NULL;
    }
    put(b, phys, "artifactLocation", jartifact(b, file));
    if (line > 0) {
        const tdx_rep_file *rf = tdx_rep__file(&b->ix, file);
        json_t *r = json_object();
        put(b, r, "startLine", json_integer(line));
        if (col > 0)
            put(b, r, "startColumn", json_integer(tdx_rep__cp_col(rf, line, col)));
        if (end_line >= line) {
            put(b, r, "endLine", json_integer(end_line));
            int ec = end_col > 0 ? tdx_rep__cp_col(rf, end_line, end_col) : 0;
            int sc = col > 0 ? tdx_rep__cp_col(rf, line, col) : 0;
            /* SARIF's endColumn is one past the region; an empty or inverted
             * range is left out rather than emitted invalid. */
            if (ec > 0 && (end_line > line || ec > sc))
                put(b, r, "endColumn", json_integer(ec));
        }
        put(b, phys, "region", r);
    }
    put(b, loc, "physicalLocation", phys);
    return loc;
}

// A reportingDescriptor: what GitHub shows as the rule's page.
static json_t *jrule(sb *b, const tdx_rule *r)
{
    json_t *o = json_object();
    if (!o)
        return NULL;
    put(b, o, "id", jstr(r->id));
    put(b, o, "name", jstr(r->name));
    put(b, o, "shortDescription", jtext(r->short_desc));
    put(b, o, "fullDescription", jtext(r->full_desc));
    tdx_buf t, m;
    tdx_buf_init(&t, 1 << 20);
    tdx_buf_init(&m, 1 << 20);
    tdx_status st = tdx_buf_printf(&t, "%s\n\nWhy: %s\n", r->help, r->basis);
    if (!st && r->family && *r->family)
        st = tdx_buf_printf(&t, "Rewrite family: %s\n", r->family);
    if (!st)
        st = tdx_buf_printf(&m, "%s\n\n**Why.** %s\n", r->help, r->basis);
    if (!st && r->family && *r->family)
        st = tdx_buf_printf(&m, "\n**Rewrite family:** `%s`\n", r->family);
    json_t *help = json_object();
    if (!st && help) {
        put(b, help, "text", jstr(tdx_buf_str(&t)));
        put(b, help, "markdown", jstr(tdx_buf_str(&m)));
    } else {
        b->ok = 0;
    }
    tdx_buf_free(&t);
    tdx_buf_free(&m);
    put(b, o, "help", help);
    json_t *cfg = json_object();
    put(b, cfg, "level", json_string(sarif_level(r->sev)));
    put(b, o, "defaultConfiguration", cfg);
    json_t *props = json_object(), *tags = json_array();
    char lv[16];
    snprintf(lv, sizeof lv, "level-%d", r->level);
    push(b, tags, json_string("performance"));
    push(b, tags, json_string("triton"));
    push(b, tags, json_string(lv));
    put(b, props, "tags", tags);
    put(b, props, "precision", json_string("medium"));
    put(b, props, "problem.severity",
        json_string(r->sev == TDX_SEV_NOTE ? "recommendation" : sarif_level(r->sev)));
    put(b, o, "properties", props);
    return o;
}

// FNV-1a over s, then a separator, so that ("ab","c") != ("a","bc").
static uint64_t fnv1a(uint64_t h, const char *s)
{
    for (; s && *s; s++) {
        h ^= (unsigned char)*s;
        h *= 1099511628211ull;
    }
    h ^= 0xff; /* field separator */
    h *= 1099511628211ull;
    return h;
}

// A fingerprint that survives edits elsewhere in the file: the rule, the
// file, the kernel, the message and the trimmed text of the line (its
// number only when the text is not at hand).
static json_t *jfingerprint(const sb *b, const tdx_finding *f)
{
    uint64_t h = 1469598103934665603ull;
    h = fnv1a(h, f->rule->id);
    h = fnv1a(h, f->file);
    h = fnv1a(h, f->kernel);
    h = fnv1a(h, f->message);
    const tdx_rep_file *rf = tdx_rep__file(&b->ix, f->file);
    size_t n;
    const char *s = rf ? tdx_rep__line(rf->text, rf->len, f->line, &n) : NULL;
    if (s) {
        while (n && (*s == ' ' || *s == '\t')) {
            s++;
            n--;
        }
        while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
            n--;
        for (size_t i = 0; i < n; i++) {
            h ^= (unsigned char)s[i];
            h *= 1099511628211ull;
        }
    } else {
        char num[16];
        snprintf(num, sizeof num, "%d", f->line);
        h = fnv1a(h, num);
    }
    char hex[24];
    snprintf(hex, sizeof hex, "%016llx", (unsigned long long)h);
    json_t *o = json_object();
    if (o && json_object_set_new(o, "tritondx/v1", json_string(hex)) != 0) {
        json_decref(o);
        return NULL;
    }
    return o;
}

// The kernel (with a file) that a finding without a location is about.
static const tdx_kernel_info *kernel_of(const tdx_rep_run *run, const tdx_finding *f)
{
    for (size_t i = 0; f->kernel && run->ledger && i < run->ledger->kernels.len; i++) {
        const tdx_kernel_info *k = run->ledger->kernels.items[i];
        if (k->file && k->name && strcmp(k->name, f->kernel) == 0)
            return k;
    }
    return NULL;
}

// One result, pointing at its rule by id and by index.
static json_t *jresult(sb *b, const tdx_rep_run *run, const tdx_finding *f, size_t rule_index)
{
    json_t *o = json_object();
    if (!o)
        return NULL;
    put(b, o, "ruleId", jstr(f->rule->id));
    put(b, o, "ruleIndex", json_integer((json_int_t)rule_index));
    put(b, o, "level", json_string(sarif_level(f->sev)));
    tdx_buf t;
    tdx_buf_init(&t, 1 << 20);
    tdx_status st = tdx_buf_adds(&t, f->message ? f->message : "");
    if (!st && f->hypothesis && *f->hypothesis)
        st = tdx_buf_printf(&t, "\n\nWhy: %s", f->hypothesis);
    if (!st && f->family && *f->family)
        st = tdx_buf_printf(&t, "\nRewrite family: %s", f->family);
    put(b, o, "message", st ? NULL : jtext(tdx_buf_str(&t)));
    tdx_buf_free(&t);
    /* Code scanning shows only results with a location: a finding about a
     * kernel as a whole (a GPU measurement) is anchored at its def line. */
    const tdx_kernel_info *k = f->file ? NULL : kernel_of(run, f);
    if (f->file) {
        json_t *locs = json_array();
        push(b, locs, jlocation(b, run, f->file, f->line, f->col, f->end_line, f->end_col));
        put(b, o, "locations", locs);
        put(b, o, "partialFingerprints", jfingerprint(b, f));
    } else if (k) {
        json_t *locs = json_array();
        push(b, locs, jlocation(b, run, k->file, k->line, k->col, 0, 0));
        put(b, o, "locations", locs);
    }
    json_t *p = json_object();
    char id[32];
    snprintf(id, sizeof id, "F%d", f->id);
    put(b, p, "findingId", json_string(id));
    put(b, p, "diagnosisLevel", json_integer(f->level));
    if (f->kernel)
        put(b, p, "kernel", jstr(f->kernel));
    put(b, p, "confidence", json_real(round(f->confidence * 1000.0) / 1000.0));
    if (f->expected_gain > 0)
        put(b, p, "expectedGain", json_real(round(f->expected_gain * 1000.0) / 1000.0));
    if (f->family && *f->family)
        put(b, p, "family", jstr(f->family));
    if (f->nfacts) {
        json_t *facts = json_object();
        for (size_t i = 0; facts && i < f->nfacts; i++) {
            char *key = tdx_rep__utf8_clean(f->facts[i].key);
            if (key)
                put(b, facts, key, jstr(f->facts[i].value));
            else
                b->ok = 0;
            free(key);
        }
        put(b, p, "facts", facts);
    }
    if (f->evidence && *f->evidence)
        put(b, p, "evidence", jstr(f->evidence));
    if (f->ncites) {
        json_t *cites = json_array();
        for (size_t i = 0; cites && i < f->ncites; i++) {
            snprintf(id, sizeof id, "F%d", f->cites[i]);
            push(b, cites, json_string(id));
        }
        put(b, p, "cites", cites);
    }
    put(b, o, "properties", p);
    return o;
}

// Rules by id (then by address, for a stable order of look-alikes).
static int cmp_rule_ptrs(const void *a, const void *b)
{
    const tdx_rule *x = *(const tdx_rule *const *)a, *y = *(const tdx_rule *const *)b;
    int c = strcmp(x->id, y->id);
    return c ? c : (x > y) - (x < y);
}

// The log: one run with the used rules, notifications, artifacts, results.
tdx_status tdx_rep_sarif(const tdx_rep_run *run, const tdx_rep_opts *o, tdx_buf *out)
{
    sb b = {1, o ? o->root : NULL, {0}};
    if (tdx_rep__index_init(&b.ix, run) != TDX_OK)
        return TDX_ERR_NOMEM;
    size_t nf = run->ledger ? tdx_ledger_count(run->ledger) : 0;
    /* The rules used, each once, in id order. */
    const tdx_rule **rules = calloc(nf ? nf : 1, sizeof *rules);
    if (!rules) {
        tdx_rep__index_free(&b.ix);
        return TDX_ERR_NOMEM;
    }
    size_t nr = 0;
    for (size_t i = 0; i < nf; i++) {
        const tdx_rule *r = tdx_ledger_at(run->ledger, i)->rule;
        size_t k = 0;
        while (k < nr && rules[k] != r)
            k++;
        if (k == nr)
            rules[nr++] = r;
    }
    qsort(rules, nr, sizeof *rules, cmp_rule_ptrs);

    const char *version = o && o->version ? o->version : TDX_VERSION;
    json_t *root = json_object();
    if (!root) {
        free(rules);
        tdx_rep__index_free(&b.ix);
        return TDX_ERR_NOMEM;
    }
    put(&b, root, "$schema", json_string(SARIF_SCHEMA));
    put(&b, root, "version", json_string("2.1.0"));
    json_t *runs = json_array(), *r0 = json_object();
    json_t *tool = json_object(), *driver = json_object();
    put(&b, driver, "name", json_string("tritondx"));
    put(&b, driver, "version", jstr(version));
    put(&b, driver, "semanticVersion", jstr(version));
    put(&b, driver, "informationUri", json_string(TDX_REP_INFO_URI));
    json_t *jrules = json_array();
    for (size_t i = 0; i < nr; i++)
        push(&b, jrules, jrule(&b, rules[i]));
    put(&b, driver, "rules", jrules);
    put(&b, tool, "driver", driver);
    put(&b, r0, "tool", tool);

    json_t *inv = json_object(), *invs = json_array(), *notes = json_array();
    size_t nerr = 0;
    for (size_t i = 0; run->diags && i < run->diags->len; i++) {
        const tdx_diag *g = &run->diags->items[i];
        if (g->sev == TDX_SEV_ERROR)
            nerr++;
        json_t *n = json_object();
        put(&b, n, "level", json_string(sarif_level(g->sev)));
        put(&b, n, "message", jtext(g->msg));
        if (g->file) {
            json_t *locs = json_array();
            push(&b, locs, jlocation(&b, run, g->file, g->line, g->col, 0, 0));
            put(&b, n, "locations", locs);
        }
        push(&b, notes, n);
    }
    put(&b, inv, "executionSuccessful", json_boolean(nerr == 0));
    put(&b, inv, "toolExecutionNotifications", notes);
    push(&b, invs, inv);
    put(&b, r0, "invocations", invs);

    json_t *arts = json_array();
    for (size_t i = 0; i < run->nfiles; i++) {
        json_t *a = json_object();
        put(&b, a, "location", jartifact(&b, run->files[i].path));
        push(&b, arts, a);
    }
    put(&b, r0, "artifacts", arts);
    put(&b, r0, "columnKind", json_string("unicodeCodePoints"));

    json_t *results = json_array();
    for (size_t i = 0; i < nf; i++) {
        const tdx_finding *f = tdx_ledger_at(run->ledger, i);
        size_t k = 0;
        while (k < nr && rules[k] != f->rule)
            k++;
        push(&b, results, jresult(&b, run, f, k));
    }
    put(&b, r0, "results", results);
    push(&b, runs, r0);
    put(&b, root, "runs", runs);
    free(rules);

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
    tdx_rep__index_free(&b.ix);
    return st;
}
