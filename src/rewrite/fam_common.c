/* Helpers shared by the built-in families. */
#include "rewrite/fam_common.h"
#include "model/model.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int find_launches(tdx_src_node *n, void *ud)
{
    fam_task *t = ud;
    if (n->kind == TDX_SRC_FUNCDEF && tdx_src_is_jit(n))
        return 1; /* launches are in host code */
    if (n->kind == TDX_SRC_CALL && tdx_src_is_launch(n, NULL, NULL))
        tdx_ptrvec_push(&t->arena, &t->launches, n);
    return 0;
}

tdx_status fam_open(fam_task *t, const char *path, const char *src, size_t len, tdx_diags *diags)
{
    memset(t, 0, sizeof *t);
    t->path = path;
    t->src = src;
    t->len = len;
    tdx_arena_init(&t->arena, 0);
    tdx_status st = tdx_src_parse(path, src, len, &t->arena, diags, &t->m);
    if (st)
        return st;
    if (tdx_src_find_jit(t->m, &t->arena, &t->kernels) < 0)
        return TDX_ERR_NOMEM;
    tdx_src_walk(t->m->root, find_launches, t);
    return TDX_OK;
}

void fam_close(fam_task *t) { tdx_arena_free(&t->arena); }

/* The model's record of a launch CALL, building the model once. */
static const tdx_km_launch *km_launch(fam_task *t, const tdx_src_node *launch)
{
    if (!t->km_tried) {
        t->km_tried = 1;
        if (tdx_km_build(t->m, &t->arena, &t->km) != TDX_OK)
            t->km = NULL;
    }
    for (size_t i = 0; t->km && i < t->km->kernels.len; i++) {
        const tdx_km_kernel *k = t->km->kernels.items[i];
        for (size_t j = 0; j < k->launches.len; j++) {
            const tdx_km_launch *l = k->launches.items[j];
            if (l->call == launch)
                return l;
        }
    }
    return NULL;
}

const tdx_km_file *fam_model(fam_task *t)
{
    (void)km_launch(t, NULL); /* builds the model */
    return t->km;
}

/* The model's record of kernel def, building the model once. */
static const tdx_km_kernel *km_kernel(fam_task *t, const tdx_src_node *def)
{
    (void)km_launch(t, NULL); /* builds the model */
    for (size_t i = 0; t->km && i < t->km->kernels.len; i++) {
        const tdx_km_kernel *k = t->km->kernels.items[i];
        if (k->def == def)
            return k;
    }
    return NULL;
}

int fam_size_value(fam_task *t, const tdx_src_node *def, const tdx_src_node *e, long long *v)
{
    if (!e)
        return 0;
    if (e->kind == TDX_SRC_NUMBER)
        return tdx_src_int_value(t->m, e, v) == TDX_OK;
    const tdx_km_kernel *k = e->kind == TDX_SRC_NAME && e->name ? km_kernel(t, def) : NULL;
    const tdx_km_param *p = k ? tdx_km_param_find(k, e->name) : NULL;
    if (!p || p->kind != TDX_KM_PARAM_CONSTEXPR)
        return 0;
    const tdx_src_node *where = NULL;
    for (size_t j = 0; j < k->launches.len; j++)
        if (tdx_km_launch_constexpr(t->km, k->launches.items[j], e->name, v, &where))
            return 1;
    if (p->has_default_value) {
        *v = p->default_value;
        return 1;
    }
    /* an argument computed from the inputs: its value at the bench shape */
    return fam_bench_param(t, def, e->name, v);
}

/* The elements of the largest tl.arange of kernel def, or -1 when unknown. */
long long fam_widest_arange(fam_task *t, tdx_src_node *def)
{
    tdx_ptrvec calls = {0};
    fam_collect(t, def, TDX_SRC_CALL, &calls);
    long long widest = -1;
    for (size_t i = 0; i < calls.len; i++) {
        tdx_src_node *c = calls.items[i];
        if (!tdx_src_is_dotted(tdx_src_call_func(c), "tl.arange"))
            continue;
        long long lo = 0, hi;
        tdx_src_node *a0 = tdx_src_call_arg(c, 0), *a1 = tdx_src_call_arg(c, 1);
        if (!a1 || !fam_size_value(t, def, a1, &hi) || !fam_size_value(t, def, a0, &lo))
            return -1;
        if (hi - lo > widest)
            widest = hi - lo;
    }
    return widest;
}

int fam_rows_for(long long width, long long elems)
{
    int r = 2;
    while (r < 256 && (long long)r * 2 * width <= elems)
        r *= 2;
    return r;
}

int fam_bench_param(fam_task *t, const tdx_src_node *def, const char *name, long long *v)
{
    const tdx_km_kernel *k = name ? km_kernel(t, def) : NULL;
    return k && tdx_km_param_bench_int(t->km, k, name, v);
}

int fam_bench_int(fam_task *t, const tdx_src_node *launch, const tdx_src_node *e, long long *v)
{
    const tdx_km_launch *l = km_launch(t, launch);
    return l && tdx_km_bench_int(t->km, l, e, v);
}

long long fam_bench_grid(fam_task *t, const tdx_src_node *launch)
{
    const tdx_km_launch *l = km_launch(t, launch);
    char shape[96];
    return l ? tdx_km_bench_grid(t->km, l, shape, sizeof shape) : -1;
}

tdx_src_node *fam_launched_kernel(const fam_task *t, const tdx_src_node *launch)
{
    tdx_src_node *k = NULL;
    if (!tdx_src_is_launch(launch, &k, NULL) || !k || k->kind != TDX_SRC_NAME)
        return NULL;
    for (size_t i = 0; i < t->kernels.len; i++) {
        tdx_src_node *d = t->kernels.items[i];
        if (d->name && strcmp(d->name, k->name) == 0)
            return d;
    }
    return NULL;
}

int fam_self_tuned(const tdx_src_node *kdef)
{
    static const char *const wrappers[] = {"triton.autotune", "autotune", "triton.heuristics", "heuristics"};
    for (size_t i = 0; i < sizeof wrappers / sizeof wrappers[0]; i++)
        if (tdx_src_decorator(kdef, wrappers[i]))
            return 1;
    return 0;
}

int fam_atom(const tdx_src_node *n)
{
    return n->kind == TDX_SRC_NAME || n->kind == TDX_SRC_NUMBER || n->kind == TDX_SRC_CALL ||
           n->kind == TDX_SRC_ATTRIBUTE || n->kind == TDX_SRC_SUBSCRIPT;
}

char *fam_operand(fam_task *t, const tdx_src_node *n)
{
    size_t l;
    const char *s = tdx_src_text(t->m, n, &l);
    return tdx_arena_printf(&t->arena, fam_atom(n) ? "%.*s" : "(%.*s)", (int)l, s);
}

tdx_src_node *fam_enclosing_def(const tdx_src_node *n)
{
    for (tdx_src_node *p = n->parent; p; p = p->parent)
        if (p->kind == TDX_SRC_FUNCDEF)
            return p;
    return NULL;
}

size_t fam_line_start(const fam_task *t, size_t off)
{
    while (off > 0 && t->src[off - 1] != '\n')
        off--;
    return off;
}

typedef struct collect_ud {
    fam_task *t;
    tdx_src_kind kind;
    tdx_ptrvec *out;
} collect_ud;

static int collect_visit(tdx_src_node *n, void *ud)
{
    collect_ud *c = ud;
    if (n->kind == c->kind)
        tdx_ptrvec_push(&c->t->arena, c->out, n);
    return 0;
}

void fam_collect(fam_task *t, tdx_src_node *root, tdx_src_kind kind, tdx_ptrvec *out)
{
    collect_ud c = {t, kind, out};
    tdx_src_walk(root, collect_visit, &c);
}

tdx_src_node *fam_int_literal(const fam_task *t, tdx_src_node *value, long long *v)
{
    if (!value)
        return NULL;
    if (value->kind == TDX_SRC_NUMBER)
        return tdx_src_int_value(t->m, value, v) == TDX_OK ? value : NULL;
    if (value->kind != TDX_SRC_NAME || !value->name)
        return NULL;
    tdx_src_node *def = fam_enclosing_def(value);
    if (!def)
        return NULL;
    tdx_ptrvec assigns = {0};
    fam_task *mt = (fam_task *)t;
    fam_collect(mt, def, TDX_SRC_ASSIGN, &assigns);
    tdx_src_node *found = NULL;
    int count = 0;
    for (size_t i = 0; i < assigns.len; i++) {
        tdx_src_node *a = assigns.items[i];
        tdx_src_node *tg = tdx_src_kid(a, TDX_SRC_R_TARGET);
        if (tg && tg->kind == TDX_SRC_NAME && tg->name && strcmp(tg->name, value->name) == 0) {
            count++;
            found = tdx_src_kid(a, TDX_SRC_R_VALUE);
        }
    }
    if (count != 1 || !found || found->kind != TDX_SRC_NUMBER)
        return NULL;
    return tdx_src_int_value(t->m, found, v) == TDX_OK ? found : NULL;
}

void fam_edit(fam_task *t, fam_edits *e, size_t start, size_t end, const char *text)
{
    if (e->n >= sizeof e->items / sizeof e->items[0])
        return;
    for (size_t i = 0; i < e->n; i++) /* the same edit twice (two launches sharing a line) is one */
        if (e->items[i].start == start && e->items[i].end == end && start != end && strcmp(e->items[i].text, text) == 0)
            return;
    e->items[e->n].start = start;
    e->items[e->n].end = end;
    e->items[e->n].text = tdx_arena_strdup(&t->arena, text);
    e->n++;
}

void fam_set_kwarg(fam_task *t, fam_edits *e, const tdx_src_node *call, const char *name,
                   const char *text)
{
    tdx_src_node *v = tdx_src_call_kwarg(call, name);
    if (v) {
        fam_edit(t, e, v->start, v->end, text);
        return;
    }
    /* insert before the closing parenthesis, after a trailing comma if any */
    size_t close = call->end - 1;
    size_t p = close;
    while (p > call->start && (t->src[p - 1] == ' ' || t->src[p - 1] == '\n' || t->src[p - 1] == '\t'))
        p--;
    int comma = p > call->start && t->src[p - 1] == ',';
    int empty = p > call->start && t->src[p - 1] == '(';
    char buf[256];
    snprintf(buf, sizeof buf, "%s%s=%s", comma ? " " : empty ? "" : ", ", name, text);
    fam_edit(t, e, p, p, buf);
}

tdx_status fam_emit(fam_task *t, fam_edits *e, tdx_rw_emit_fn emit, void *ud, const char *family,
                    const char *summary)
{
    if (e->n == 0)
        return TDX_OK;
    tdx_buf b;
    tdx_buf_init(&b, 16u << 20);
    tdx_status st = tdx_rw_apply(t->src, t->len, e->items, e->n, &b);
    if (st) {
        tdx_buf_free(&b);
        return st == TDX_ERR_ARG ? TDX_OK : st; /* overlapping edits: drop the candidate */
    }
    if (b.len == t->len && memcmp(b.data, t->src, t->len) == 0) {
        tdx_buf_free(&b);
        return TDX_OK;
    }
    size_t n;
    char *s = tdx_buf_detach(&b, &n);
    return emit(ud, s, n, family, summary);
}

tdx_src_node *fam_launch_arg(const tdx_src_node *launch, const tdx_src_node *def, const char *name, int *kw)
{
    size_t i = 0;
    if (kw)
        *kw = 0;
    for (tdx_src_node *p = tdx_src_next(def, TDX_SRC_R_PARAM, NULL); p;
         p = tdx_src_next(def, TDX_SRC_R_PARAM, p), i++) {
        if (!p->name || strcmp(p->name, name) != 0)
            continue;
        if (i < tdx_src_call_nargs(launch))
            return tdx_src_call_arg(launch, i);
        if (kw)
            *kw = 1;
        return tdx_src_call_kwarg(launch, name);
    }
    return NULL;
}
