/* Differences between two joined kernels: the evidence of a counterfactual
 * compile (the same kernel with one change, e.g. a divisibility hint or
 * num_stages), as "what changed where":
 *
 *     load line=18 col=16 name=x: vec 1 -> 4, pbits 32 -> 128
 *     loop line=19 col=25: pipelined 0 -> 1, bufs 1 -> 3
 *     + copy line=20 col=20 name=a
 *     res: regs 236 -> 206
 *
 * Records are paired by kind, line, column and order of appearance, on
 * their rendering by tdx_ir_kernel_dump, so every field a record prints is
 * compared and new fields need no code here. */
#include <stdlib.h>
#include <string.h>

#include "ir/ir_int.h"

#define MAX_FIELDS 32

typedef struct drec {
    const char *kind, *line, *col, *name;
    const char *keys[MAX_FIELDS], *vals[MAX_FIELDS];
    int nf;
    int used;
} drec;

// Split a dump (modified in place) into records.
static size_t split_dump(char *text, drec **out)
{
    size_t cap = 64, n = 0;
    drec *rs = calloc(cap, sizeof *rs);
    for (char *line = text; rs && line && *line;) {
        char *nl = strchr(line, '\n');
        if (nl)
            *nl = 0;
        if (n == cap) {
            drec *g = realloc(rs, 2 * cap * sizeof *rs);
            if (!g)
                break;
            rs = g;
            cap *= 2;
        }
        drec *r = &rs[n];
        memset(r, 0, sizeof *r);
        char *save = NULL;
        r->kind = strtok_r(line, " ", &save);
        for (char *tok; r->kind && (tok = strtok_r(NULL, " ", &save)) && r->nf < MAX_FIELDS;) {
            char *eq = strchr(tok, '=');
            if (!eq)
                continue;
            *eq = 0;
            if (strcmp(tok, "line") == 0)
                r->line = eq + 1;
            else if (strcmp(tok, "col") == 0)
                r->col = eq + 1;
            else if (strcmp(tok, "name") == 0)
                r->name = eq + 1;
            r->keys[r->nf] = tok;
            r->vals[r->nf++] = eq + 1;
        }
        if (r->kind)
            n++;
        line = nl ? nl + 1 : NULL;
    }
    *out = rs;
    return rs ? n : 0;
}

static int same(const char *a, const char *b)
{
    return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

// The first unused record of b with a's kind and place.
static drec *partner(const drec *a, drec *b, size_t nb)
{
    for (size_t i = 0; i < nb; i++)
        if (!b[i].used && strcmp(a->kind, b[i].kind) == 0 && same(a->line, b[i].line) &&
            same(a->col, b[i].col))
            return &b[i];
    return NULL;
}

static tdx_status head(tdx_buf *out, const char *sign, const drec *r)
{
    tdx_status st = tdx_buf_printf(out, "%s%s", sign, r->kind);
    if (!st && r->line)
        st = tdx_buf_printf(out, " line=%s", r->line);
    if (!st && r->col)
        st = tdx_buf_printf(out, " col=%s", r->col);
    if (!st && r->name && strcmp(r->name, "-") != 0)
        st = tdx_buf_printf(out, " name=%s", r->name);
    return st;
}

// Changed fields of a pair, on one line; nothing when they agree.
static tdx_status compare(tdx_buf *out, const drec *a, const drec *b, size_t *nchanges)
{
    int first = 1;
    tdx_status st = TDX_OK;
    for (int i = 0; i < a->nf && !st; i++) {
        const char *k = a->keys[i];
        if (strcmp(k, "line") == 0 || strcmp(k, "col") == 0 || strcmp(k, "name") == 0)
            continue;
        const char *bv = NULL;
        for (int j = 0; j < b->nf; j++)
            if (strcmp(b->keys[j], k) == 0)
                bv = b->vals[j];
        if (bv && strcmp(bv, a->vals[i]) == 0)
            continue;
        if (first) {
            st = head(out, "", a);
            st = st ? st : tdx_buf_adds(out, ":");
            first = 0;
        } else {
            st = tdx_buf_adds(out, ",");
        }
        st = st ? st : tdx_buf_printf(out, " %s %s -> %s", k, a->vals[i], bv ? bv : "(none)");
    }
    if (!first) {
        (*nchanges)++;
        st = st ? st : tdx_buf_addc(out, '\n');
    }
    return st;
}

tdx_status tdx_ir_kernel_diff(const tdx_ir_kernel *a, const tdx_ir_kernel *b, tdx_buf *out,
                              size_t *nchanges)
{
    size_t dummy = 0;
    if (!nchanges)
        nchanges = &dummy;
    *nchanges = 0;
    tdx_buf da, db;
    tdx_buf_init(&da, 0);
    tdx_buf_init(&db, 0);
    tdx_status st = tdx_ir_kernel_dump(a, &da);
    st = st ? st : tdx_ir_kernel_dump(b, &db);
    drec *ra = NULL, *rb = NULL;
    size_t na = 0, nb = 0;
    if (!st) {
        na = split_dump(da.data ? da.data : (char[]){0}, &ra);
        nb = split_dump(db.data ? db.data : (char[]){0}, &rb);
        if (!ra || !rb)
            st = TDX_ERR_NOMEM;
    }
    for (size_t i = 0; i < na && !st; i++) {
        drec *p = partner(&ra[i], rb, nb);
        if (!p) {
            (*nchanges)++;
            st = head(out, "- ", &ra[i]);
            st = st ? st : tdx_buf_addc(out, '\n');
            continue;
        }
        p->used = 1;
        st = compare(out, &ra[i], p, nchanges);
    }
    for (size_t i = 0; i < nb && !st; i++) {
        if (rb[i].used)
            continue;
        (*nchanges)++;
        st = head(out, "+ ", &rb[i]);
        st = st ? st : tdx_buf_addc(out, '\n');
    }
    free(ra);
    free(rb);
    tdx_buf_free(&da);
    tdx_buf_free(&db);
    return st;
}
