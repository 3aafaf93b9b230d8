/* Compiler-style text output: `file:line:col: warning: message [TDX012]`,
 * the source line with a caret (GCC's layout), and `note:` lines. */
#include <stdlib.h>
#include <string.h>

#include "report/report_int.h"

#define BOLD "\033[1m"
#define RESET "\033[0m"
#define GREEN "\033[1;32m"

/* Lines longer than this are not echoed under a finding (minified code). */
#define CARET_MAX_LINE 2000

// The ANSI colour of a severity, as GCC and Clang use them.
static const char *sev_color(tdx_severity s)
{
    switch (s) {
    case TDX_SEV_ERROR: return "\033[1;31m";
    case TDX_SEV_WARNING: return "\033[1;35m";
    case TDX_SEV_NOTE: return "\033[1;36m";
    }
    return "";
}

// Append s with control characters made harmless: a message or source line
// must never move the cursor or switch colours on the reader's terminal.
static tdx_status add_clean(tdx_buf *b, const char *s, size_t n)
{
    tdx_status st = TDX_OK;
    for (size_t i = 0; i < n && st == TDX_OK; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '\t')
            st = tdx_buf_addc(b, '\t');
        else if (c == '\n' || c == '\r')
            st = tdx_buf_addc(b, ' ');
        else if (c < 0x20 || c == 0x7f)
            st = tdx_buf_addc(b, '?');
        else
            st = tdx_buf_addc(b, (char)c);
    }
    return st;
}

// add_clean over a NUL-terminated string.
static tdx_status add_cleans(tdx_buf *b, const char *s) { return add_clean(b, s, strlen(s)); }

// "file:line:col: " (bold when coloured); the kernel's name or the tool's
// when the finding has no file.
static tdx_status add_loc(tdx_buf *b, const tdx_rep_opts *o, const char *file, const char *fallback,
                          int line, int col)
{
    tdx_status st = tdx_buf_adds(b, o->color ? BOLD : "");
    if (!st)
        st = add_cleans(b, file ? file : fallback ? fallback : "tritondx");
    if (!st && file && line > 0)
        st = tdx_buf_printf(b, ":%d", line);
    if (!st && file && line > 0 && col > 0)
        st = tdx_buf_printf(b, ":%d", col);
    if (!st)
        st = tdx_buf_printf(b, ":%s ", o->color ? RESET : "");
    return st;
}

// "warning: " (coloured when asked).
static tdx_status add_sev(tdx_buf *b, const tdx_rep_opts *o, tdx_severity s)
{
    if (o->color)
        return tdx_buf_printf(b, "%s%s:" RESET " ", sev_color(s), tdx_severity_str(s));
    return tdx_buf_printf(b, "%s: ", tdx_severity_str(s));
}

// The source line under a finding and a caret (with ~ over the rest of a
// one-line range), in GCC's "  18 | code" layout. Tabs are copied into the
// caret line so that it stays aligned whatever the tab width.
static tdx_status add_caret(tdx_buf *b, const tdx_rep_opts *o, const tdx_rep_file *rf,
                            const tdx_finding *f)
{
    size_t n;
    const char *s = rf && f->line > 0 ? tdx_rep__line(rf->text, rf->len, f->line, &n) : NULL;
    if (!s || n > CARET_MAX_LINE)
        return TDX_OK;
    tdx_status st = tdx_buf_printf(b, "%5d | ", f->line);
    if (!st)
        st = add_clean(b, s, n);
    if (!st)
        st = tdx_buf_adds(b, "\n      | ");
    if (st)
        return st;
    size_t col = f->col > 0 ? (size_t)f->col - 1 : 0;
    for (size_t i = 0; i < col && !st; i++) {
        unsigned char c = i < n ? (unsigned char)s[i] : ' ';
        if (c == '\t')
            st = tdx_buf_addc(b, '\t');
        else if ((c & 0xC0) != 0x80)
            st = tdx_buf_addc(b, ' ');
    }
    if (!st && o->color)
        st = tdx_buf_adds(b, GREEN);
    if (!st)
        st = tdx_buf_addc(b, '^');
    if (!st && f->end_line == f->line && f->end_col > f->col + 1) {
        size_t end = (size_t)f->end_col - 1;
        for (size_t i = col + 1; i < end && i < n && !st; i++)
            if (((unsigned char)s[i] & 0xC0) != 0x80)
                st = tdx_buf_addc(b, '~');
    }
    if (!st && o->color)
        st = tdx_buf_adds(b, RESET);
    if (!st)
        st = tdx_buf_addc(b, '\n');
    return st;
}

// A `note:` line at the finding's location.
static tdx_status add_note(tdx_buf *b, const tdx_rep_opts *o, const tdx_finding *f,
                           const char *label, const char *text)
{
    tdx_status st = add_loc(b, o, f->file, f->kernel, f->line, f->col);
    if (!st)
        st = add_sev(b, o, TDX_SEV_NOTE);
    if (!st)
        st = tdx_buf_printf(b, "%s", label);
    if (!st && text)
        st = add_cleans(b, text);
    if (!st)
        st = tdx_buf_addc(b, '\n');
    return st;
}

// The finding with ledger id `id` (ids follow the order of addition, which
// a sort of the ledger may have changed, hence the search).
static const tdx_finding *cited(const tdx_ledger *l, int id)
{
    size_t n = l ? tdx_ledger_count(l) : 0;
    if (id >= 1 && (size_t)id <= n && tdx_ledger_at(l, (size_t)id - 1)->id == id)
        return tdx_ledger_at(l, (size_t)id - 1);
    for (size_t i = 0; i < n; i++)
        if (tdx_ledger_at(l, i)->id == id)
            return tdx_ledger_at(l, i);
    return NULL;
}

// One finding: the headline, the caret, and the notes behind it.
static tdx_status add_finding(tdx_buf *b, const tdx_rep__index *ix, const tdx_rep_opts *o,
                              const tdx_finding *f)
{
    tdx_status st = add_loc(b, o, f->file, f->kernel, f->line, f->col);
    if (!st)
        st = add_sev(b, o, f->sev);
    if (!st)
        st = add_cleans(b, f->message ? f->message : "");
    if (!st)
        st = tdx_buf_printf(b, " [%s]\n", f->rule->id);
    if (!st && o->caret)
        st = add_caret(b, o, tdx_rep__file(ix, f->file), f);
    if (!st && f->hypothesis && *f->hypothesis)
        st = add_note(b, o, f, "why: ", f->hypothesis);
    if (!st && f->family && *f->family) {
        tdx_buf t;
        tdx_buf_init(&t, 4096);
        st = tdx_buf_printf(&t, "%s (confidence %.2f", f->family, f->confidence);
        if (!st && f->expected_gain > 0)
            st = tdx_buf_printf(&t, ", expected gain %.2fx", f->expected_gain);
        if (!st)
            st = tdx_buf_addc(&t, ')');
        if (!st)
            st = add_note(b, o, f, "rewrite family: ", tdx_buf_str(&t));
        tdx_buf_free(&t);
    }
    if (!st && f->nfacts) {
        tdx_buf t;
        tdx_buf_init(&t, 1 << 16);
        for (size_t i = 0; i < f->nfacts && !st; i++)
            st = tdx_buf_printf(&t, "%s%s=%s", i ? ", " : "", f->facts[i].key, f->facts[i].value);
        if (!st)
            st = add_note(b, o, f, "facts: ", tdx_buf_str(&t));
        tdx_buf_free(&t);
    }
    for (size_t i = 0; !st && i < f->ncites; i++) {
        const tdx_finding *c = cited(ix->run->ledger, f->cites[i]);
        if (!c)
            continue;
        tdx_buf t;
        tdx_buf_init(&t, 4096);
        st = tdx_buf_printf(&t, "%s %s", c->rule->id, c->rule->name);
        if (!st && c->file && c->line > 0)
            st = tdx_buf_printf(&t, " at %s:%d", c->file, c->line);
        if (!st && c->file && c->line > 0 && c->col > 0)
            st = tdx_buf_printf(&t, ":%d", c->col);
        if (!st)
            st = add_note(b, o, f, "builds on: ", tdx_buf_str(&t));
        tdx_buf_free(&t);
    }
    if (!st && f->evidence && *f->evidence) {
        st = add_note(b, o, f, "evidence:", NULL);
        const char *p = f->evidence;
        while (!st && *p) {
            const char *nl = strchr(p, '\n');
            size_t n = nl ? (size_t)(nl - p) : strlen(p);
            st = tdx_buf_adds(b, "      | ");
            if (!st)
                st = add_clean(b, p, n);
            if (!st)
                st = tdx_buf_addc(b, '\n');
            p += n + (nl ? 1 : 0);
        }
    }
    return st;
}

// One kernel's summary: its pattern class, how sure, and why.
static tdx_status add_kernel(tdx_buf *b, const tdx_rep_opts *o, const tdx_kernel_info *k,
                             size_t nfindings)
{
    tdx_status st = add_loc(b, o, k->file, k->name, k->line, k->col);
    if (!st)
        st = add_sev(b, o, TDX_SEV_NOTE);
    if (!st)
        st = tdx_buf_adds(b, "kernel '");
    if (!st)
        st = add_cleans(b, k->name);
    if (!st)
        st = tdx_buf_adds(b, "': ");
    if (!st)
        st = add_cleans(b, k->pattern ? k->pattern : "unknown");
    if (!st)
        st = tdx_buf_printf(b, " (confidence %.2f", k->confidence);
    if (!st && k->why && *k->why) {
        st = tdx_buf_adds(b, "; ");
        if (!st)
            st = add_cleans(b, k->why);
    }
    if (!st)
        st = tdx_buf_printf(b, "), %zu finding%s\n", nfindings, nfindings == 1 ? "" : "s");
    return st;
}

/* A kernel with its place in reading order. */
typedef struct kitem {
    const tdx_kernel_info *k;
    size_t rank;
} kitem;

// Reading order of two places: file rank, a file before none, path, line, col.
static int cmp_place(size_t ra, const char *fa, int la, int ca, size_t rb, const char *fb, int lb,
                     int cb)
{
    if (ra != rb)
        return ra < rb ? -1 : 1;
    if (!fa != !fb)
        return fa ? -1 : 1;
    int c = strcmp(fa ? fa : "", fb ? fb : "");
    if (c)
        return c;
    if (la != lb)
        return la < lb ? -1 : 1;
    return (ca > cb) - (ca < cb);
}

// Kernels in reading order (then by name).
static int cmp_kitems(const void *a, const void *b)
{
    const kitem *x = a, *y = b;
    int c = cmp_place(x->rank, x->k->file, x->k->line, x->k->col, y->rank, y->k->file, y->k->line,
                      y->k->col);
    return c ? c : (x->k->name && y->k->name ? strcmp(x->k->name, y->k->name) : 0);
}

// Two file names equal, NULL equal only to NULL.
static int same_file(const char *a, const char *b)
{
    return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

// Every kernel summary and finding of the run, in reading order.
tdx_status tdx_rep_text(const tdx_rep_run *run, const tdx_rep_opts *o, tdx_buf *out)
{
    tdx_rep__index ix;
    if (tdx_rep__index_init(&ix, run) != TDX_OK)
        return TDX_ERR_NOMEM;
    size_t nf;
    tdx_finding **fs = tdx_rep__sorted(&ix, &nf);
    size_t nk = run->ledger ? run->ledger->kernels.len : 0;
    kitem *ks = calloc(nk ? nk : 1, sizeof *ks);
    size_t *frank = calloc(nf ? nf : 1, sizeof *frank);
    if (!fs || !ks || !frank) {
        free(fs);
        free(ks);
        free(frank);
        tdx_rep__index_free(&ix);
        return TDX_ERR_NOMEM;
    }
    for (size_t i = 0; i < nk; i++) {
        ks[i].k = run->ledger->kernels.items[i];
        ks[i].rank = tdx_rep__rank(&ix, ks[i].k->file);
    }
    qsort(ks, nk, sizeof *ks, cmp_kitems);
    for (size_t j = 0; j < nf; j++)
        frank[j] = tdx_rep__rank(&ix, fs[j]->file);
    /* Merge kernels and findings in reading order; a kernel's summary comes
     * before the findings at or after its def line. */
    tdx_status st = TDX_OK;
    size_t i = 0, j = 0;
    while (st == TDX_OK && (i < nk || j < nf)) {
        if (i < nk && (j >= nf || cmp_place(ks[i].rank, ks[i].k->file, ks[i].k->line,
                                            ks[i].k->col, frank[j], fs[j]->file, fs[j]->line,
                                            fs[j]->col) <= 0)) {
            /* Its findings are among those of the same file, which are
             * contiguous from j on. */
            size_t count = 0;
            for (size_t x = j; x < nf && same_file(fs[x]->file, ks[i].k->file); x++)
                if (fs[x]->kernel && strcmp(fs[x]->kernel, ks[i].k->name) == 0)
                    count++;
            st = add_kernel(out, o, ks[i++].k, count);
        } else {
            st = add_finding(out, &ix, o, fs[j++]);
        }
    }
    free(frank);
    free(ks);
    free(fs);
    tdx_rep__index_free(&ix);
    return st;
}

// Count files, kernels and findings by severity.
void tdx_rep_count(const tdx_rep_run *run, tdx_rep_totals *t)
{
    memset(t, 0, sizeof *t);
    t->files = run->nfiles;
    if (!run->ledger)
        return;
    t->kernels = run->ledger->kernels.len;
    for (size_t i = 0; i < tdx_ledger_count(run->ledger); i++) {
        switch (tdx_ledger_at(run->ledger, i)->sev) {
        case TDX_SEV_ERROR: t->errors++; break;
        case TDX_SEV_WARNING: t->warnings++; break;
        case TDX_SEV_NOTE: t->notes++; break;
        }
    }
}

// The word for n things.
static const char *plural(size_t n, const char *one, const char *many)
{
    return n == 1 ? one : many;
}

// "1 error, 4 warnings, 1 note, 1 kernel in 2 files".
tdx_status tdx_rep_text_totals(const tdx_rep_totals *t, const tdx_rep_opts *o, tdx_buf *out)
{
    (void)o;
    return tdx_buf_printf(out, "%zu %s, %zu %s, %zu %s, %zu %s in %zu %s\n", t->errors,
                          plural(t->errors, "error", "errors"), t->warnings,
                          plural(t->warnings, "warning", "warnings"), t->notes,
                          plural(t->notes, "note", "notes"), t->kernels,
                          plural(t->kernels, "kernel", "kernels"), t->files,
                          plural(t->files, "file", "files"));
}

// Diags without carets.
tdx_status tdx_rep_diags_text(const tdx_diags *d, const tdx_rep_opts *o, tdx_buf *out)
{
    return tdx_rep_diags_text_src(d, NULL, o, out);
}

// Diags, with carets under those located in src when asked.
tdx_status tdx_rep_diags_text_src(const tdx_diags *d, const tdx_rep_file *src,
                                  const tdx_rep_opts *o, tdx_buf *out)
{
    tdx_status st = TDX_OK;
    for (size_t i = 0; d && i < d->len && !st; i++) {
        const tdx_diag *g = &d->items[i];
        st = add_loc(out, o, g->file, NULL, g->line, g->col);
        if (!st)
            st = add_sev(out, o, g->sev);
        if (!st)
            st = add_cleans(out, g->msg ? g->msg : "");
        if (!st)
            st = tdx_buf_addc(out, '\n');
        if (!st && o->caret && src && src->path && g->file && strcmp(src->path, g->file) == 0) {
            tdx_finding at = {0};
            at.line = g->line;
            at.col = g->col;
            st = add_caret(out, o, src, &at);
        }
    }
    return st;
}
