/* The bench-shape evaluator of the kernel model: what a launch's grid and
 * arguments come to at the task's bench shape.
 *
 * The grid of a task's launch depends on its input shapes, which the source
 * gives only through SHAPES["bench"], make_inputs and launch. A small
 * evaluator follows them the way the task format writes them: the bench
 * shape bound to make_inputs' first parameter, tensors made by torch
 * factories (or by module-level helpers that call them) with their sizes,
 * `M, K = a.shape` in launch, and the grid's triton.cdiv over the block
 * sizes the launch passes. Anything else is unknown. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/model.h"

/* POOL values and STEPS evaluations per launch bound the work on any input */
enum { MAXV = 6, POOL = 512, MAXENV = 48, MAXDEPTH = 4, STEPS = 20000 };

typedef enum vkind { V_UNKNOWN = 0, V_INT, V_STR, V_TUPLE, V_TENSOR, V_LAMBDA, V_META } vkind;

/* A value: an int, a string, a tuple of values, a tensor of known sizes, a
 * lambda (the grid) or the meta dict a lambda grid receives. */
typedef struct val {
    vkind kind;
    int n;                       /* tuple elements / tensor rank */
    long long i;                 /* V_INT */
    long long dims[MAXV];        /* V_TENSOR */
    struct val *el[MAXV];        /* V_TUPLE */
    const tdx_src_node *node;    /* V_LAMBDA */
} val;

typedef struct env {
    const char *name[MAXENV];
    val *v[MAXENV];
    int n;
} env;

typedef struct ctx {
    const tdx_km_file *f;
    const tdx_km_launch *launch; /* for META["X"] */
    val pool[POOL];
    int used;
    int steps;
    val unknown;
} ctx;

static val *mk(ctx *c, vkind k)
{
    if (c->used >= POOL)
        return &c->unknown;
    val *v = &c->pool[c->used++];
    memset(v, 0, sizeof *v);
    v->kind = k;
    return v;
}

static val *mk_int(ctx *c, long long i)
{
    val *v = mk(c, V_INT);
    if (v != &c->unknown)
        v->i = i;
    return v;
}

/* Integer arithmetic that gives up (unknown) instead of overflowing. */
static val *arith(ctx *c, int op, long long a, long long b)
{
    long long r;
    switch (op) {
    case TDX_OP_PLUS:
        return __builtin_add_overflow(a, b, &r) ? &c->unknown : mk_int(c, r);
    case TDX_OP_MINUS:
        return __builtin_sub_overflow(a, b, &r) ? &c->unknown : mk_int(c, r);
    case TDX_OP_STAR:
        return __builtin_mul_overflow(a, b, &r) ? &c->unknown : mk_int(c, r);
    case TDX_OP_DSLASH:
        return a >= 0 && b > 0 ? mk_int(c, a / b) : &c->unknown;
    case TDX_OP_PERCENT:
        return a >= 0 && b > 0 ? mk_int(c, a % b) : &c->unknown;
    case TDX_OP_LSHIFT: /* 1 << 20 in a bench shape */
        return a >= 0 && b >= 0 && b < 62 && a <= (LLONG_MAX >> b) ? mk_int(c, a << b) : &c->unknown;
    case TDX_OP_RSHIFT:
        return a >= 0 && b >= 0 && b < 63 ? mk_int(c, a >> b) : &c->unknown;
    default:
        return &c->unknown;
    }
}

/* A tuple of one value. */
static val *single(ctx *c, val *x)
{
    val *t = mk(c, V_TUPLE);
    if (t != &c->unknown)
        t->el[t->n++] = x;
    return t;
}

static void bind(env *e, const char *name, val *v)
{
    for (int i = e->n - 1; i >= 0; i--)
        if (strcmp(e->name[i], name) == 0) {
            e->v[i] = v;
            return;
        }
    if (e->n < MAXENV) {
        e->name[e->n] = name;
        e->v[e->n++] = v;
    }
}

static val *eval(ctx *c, env *e, const tdx_src_node *n, int depth);
static val *run_def(ctx *c, const tdx_src_node *def, env *e, const tdx_src_node *stop, env **at, int depth);

static int is_dotted_any(const tdx_src_node *fn, const char *const *names)
{
    for (; *names; names++)
        if (tdx_src_is_dotted(fn, *names))
            return 1;
    return 0;
}

/* The sizes a torch factory call gives its tensor: a tuple argument (or
 * size=), else its leading integer arguments (torch.randn(M, K)). */
static val *factory(ctx *c, env *e, const tdx_src_node *call, int depth)
{
    val *t = mk(c, V_TENSOR);
    if (t == &c->unknown)
        return t;
    const tdx_src_node *sz = tdx_src_call_kwarg(call, "size");
    val *s = sz ? eval(c, e, sz, depth) : NULL;
    for (size_t i = 0; !s && i < tdx_src_call_nargs(call); i++) {
        val *a = eval(c, e, tdx_src_call_arg(call, i), depth);
        if (a->kind == V_TUPLE)
            s = a;
    }
    if (s && s->kind == V_TUPLE) {
        for (int i = 0; i < s->n; i++) {
            if (s->el[i]->kind != V_INT)
                return &c->unknown;
            t->dims[t->n++] = s->el[i]->i;
        }
        return t;
    }
    for (size_t i = 0; i < tdx_src_call_nargs(call) && t->n < MAXV; i++) {
        val *a = eval(c, e, tdx_src_call_arg(call, i), depth);
        if (a->kind != V_INT)
            break;
        t->dims[t->n++] = a->i;
    }
    return t->n ? t : &c->unknown;
}

/* The tuple of a tensor's sizes. */
static val *shape_of(ctx *c, const val *t)
{
    val *s = mk(c, V_TUPLE);
    for (int i = 0; i < t->n && s != &c->unknown; i++)
        s->el[s->n++] = mk_int(c, t->dims[i]);
    return s;
}

/* A tuple built from a generator over a tuple (`tuple(int(d) for d in
 * shape if ...)`): its integer elements, the way the task helpers drop the
 * "misaligned" flag. */
static val *tuple_of(ctx *c, env *e, const tdx_src_node *arg, int depth)
{
    const tdx_src_node *src = arg;
    if (arg->kind == TDX_SRC_GENEXP || arg->kind == TDX_SRC_LISTCOMP) {
        const tdx_src_node *g = tdx_src_kid(arg, TDX_SRC_R_GENERATOR);
        src = g ? tdx_src_kid(g, TDX_SRC_R_ITER) : NULL;
    }
    val *v = src ? eval(c, e, src, depth) : &c->unknown;
    if (v->kind == V_TENSOR)
        v = shape_of(c, v);
    if (v->kind != V_TUPLE)
        return &c->unknown;
    val *r = mk(c, V_TUPLE);
    for (int i = 0; i < v->n && r != &c->unknown; i++)
        if (v->el[i]->kind == V_INT)
            r->el[r->n++] = v->el[i];
    return r;
}

static val *call_value(ctx *c, env *e, const tdx_src_node *n, int depth)
{
    static const char *const factories[] = {"torch.randn", "torch.rand", "torch.empty", "torch.zeros",
                                            "torch.ones", "torch.full", "torch.randint", "torch.normal",
                                            NULL};
    static const char *const same[] = {"to", "contiguous", "cuda", "cpu", "half", "float", "bfloat16",
                                       "double", "clone", "detach", "requires_grad_", "normal_",
                                       "uniform_", "fill_", "zero_", NULL};
    const tdx_src_node *fn = tdx_src_call_func(n);
    size_t na = tdx_src_call_nargs(n);
    val *a0 = na ? eval(c, e, tdx_src_call_arg(n, 0), depth) : &c->unknown;
    val *a1 = na > 1 ? eval(c, e, tdx_src_call_arg(n, 1), depth) : &c->unknown;
    if (is_dotted_any(fn, factories))
        return factory(c, e, n, depth);
    if (tdx_src_is_dotted(fn, "triton.cdiv") || tdx_src_is_dotted(fn, "cdiv"))
        return a0->kind == V_INT && a1->kind == V_INT && a0->i >= 0 && a1->i > 0
                   ? mk_int(c, a0->i / a1->i + (a0->i % a1->i != 0))
                   : &c->unknown;
    if (tdx_src_is_dotted(fn, "triton.next_power_of_2") && a0->kind == V_INT && a0->i <= (1LL << 40)) {
        long long p = 1;
        while (p < a0->i)
            p <<= 1;
        return mk_int(c, p);
    }
    if ((tdx_src_is_dotted(fn, "min") || tdx_src_is_dotted(fn, "max")) && na == 2 && a0->kind == V_INT &&
        a1->kind == V_INT)
        return mk_int(c, (tdx_src_is_dotted(fn, "min") ? a0->i < a1->i : a0->i > a1->i) ? a0->i : a1->i);
    if (tdx_src_is_dotted(fn, "int") && a0->kind == V_INT)
        return a0;
    if (tdx_src_is_dotted(fn, "tuple") && na == 1)
        return tuple_of(c, e, tdx_src_call_arg(n, 0), depth);
    if (tdx_src_is_dotted(fn, "math.prod") && a0->kind == V_TUPLE) {
        val *p = mk_int(c, 1);
        for (int i = 0; i < a0->n && p->kind == V_INT; i++)
            p = a0->el[i]->kind == V_INT ? arith(c, TDX_OP_STAR, p->i, a0->el[i]->i) : &c->unknown;
        return p;
    }
    if (fn && fn->kind == TDX_SRC_ATTRIBUTE && fn->name) {
        /* the sizes of a view come from its arguments, whatever it views */
        if (strcmp(fn->name, "view") == 0 || strcmp(fn->name, "reshape") == 0 ||
            strcmp(fn->name, "new_empty") == 0 || strcmp(fn->name, "new_zeros") == 0)
            return factory(c, e, n, depth);
        val *obj = eval(c, e, tdx_src_kid(fn, TDX_SRC_R_VALUE), depth);
        if (obj->kind != V_TENSOR)
            return &c->unknown;
        for (const char *const *s = same; *s; s++)
            if (strcmp(fn->name, *s) == 0)
                return obj;
        if (strcmp(fn->name, "t") == 0 && obj->n == 2) {
            val *t = mk(c, V_TENSOR);
            if (t != &c->unknown) {
                t->n = 2;
                t->dims[0] = obj->dims[1];
                t->dims[1] = obj->dims[0];
            }
            return t;
        }
        if ((strcmp(fn->name, "numel") == 0 || strcmp(fn->name, "nelement") == 0) && na == 0) {
            long long p = 1;
            for (int i = 0; i < obj->n && p > 0; i++)
                p = obj->dims[i] >= 0 && obj->dims[i] <= (1LL << 62) / p ? p * obj->dims[i] : -1;
            return p >= 0 ? mk_int(c, p) : &c->unknown;
        }
        if (strcmp(fn->name, "size") == 0)
            return na == 0 ? shape_of(c, obj)
                           : a0->kind == V_INT && a0->i >= -obj->n && a0->i < obj->n
                                 ? mk_int(c, obj->dims[a0->i < 0 ? a0->i + obj->n : a0->i])
                                 : &c->unknown;
        return &c->unknown;
    }
    /* a module-level helper: run its body on the arguments */
    if (fn && fn->kind == TDX_SRC_NAME && fn->name && depth < MAXDEPTH) {
        const tdx_src_node *def = tdx_src_find_def(c->f->mod, fn->name);
        if (!def || def->parent != c->f->mod->root || tdx_src_is_jit(def))
            return &c->unknown;
        env he = {0};
        size_t i = 0;
        for (const tdx_src_node *p = tdx_src_next(def, TDX_SRC_R_PARAM, NULL); p;
             p = tdx_src_next(def, TDX_SRC_R_PARAM, p), i++) {
            if (!p->name)
                continue;
            const tdx_src_node *arg = i < na ? tdx_src_call_arg(n, i) : tdx_src_call_kwarg(n, p->name);
            bind(&he, p->name, arg ? eval(c, e, arg, depth) : &c->unknown);
        }
        return run_def(c, def, &he, NULL, NULL, depth + 1);
    }
    return &c->unknown;
}

static val *eval(ctx *c, env *e, const tdx_src_node *n, int depth)
{
    if (!n || ++c->steps > STEPS)
        return &c->unknown;
    switch (n->kind) {
    case TDX_SRC_NUMBER: {
        long long v;
        return tdx_src_int_value(c->f->mod, n, &v) == TDX_OK ? mk_int(c, v) : &c->unknown;
    }
    case TDX_SRC_UNARYOP: {
        val *v = eval(c, e, tdx_src_kid(n, TDX_SRC_R_OPERAND), depth);
        return n->op == TDX_OP_MINUS && v->kind == V_INT ? arith(c, TDX_OP_MINUS, 0, v->i) : &c->unknown;
    }
    case TDX_SRC_STRING:
        return mk(c, V_STR);
    case TDX_SRC_NAME:
        for (int i = e->n - 1; i >= 0; i--)
            if (strcmp(e->name[i], n->name) == 0)
                return e->v[i];
        for (size_t i = c->f->nglobals; i-- > 0;)
            if (strcmp(c->f->global_names[i], n->name) == 0 && depth < MAXDEPTH) {
                env none = {0};
                return eval(c, &none, c->f->global_values[i], depth + 1);
            }
        return &c->unknown;
    case TDX_SRC_TUPLE:
    case TDX_SRC_LIST: {
        val *t = mk(c, V_TUPLE);
        for (const tdx_src_node *x = tdx_src_next(n, TDX_SRC_R_ELT, NULL); x && t != &c->unknown;
             x = tdx_src_next(n, TDX_SRC_R_ELT, x)) {
            if (t->n >= MAXV)
                return &c->unknown;
            t->el[t->n++] = eval(c, e, x, depth);
        }
        return t;
    }
    case TDX_SRC_BINOP: {
        val *a = eval(c, e, tdx_src_kid(n, TDX_SRC_R_LEFT), depth);
        val *b = eval(c, e, tdx_src_kid(n, TDX_SRC_R_RIGHT), depth);
        return a->kind == V_INT && b->kind == V_INT ? arith(c, n->op, a->i, b->i) : &c->unknown;
    }
    case TDX_SRC_ATTRIBUTE: {
        val *o = eval(c, e, tdx_src_kid(n, TDX_SRC_R_VALUE), depth);
        if (o->kind == V_TENSOR && strcmp(n->name, "shape") == 0)
            return shape_of(c, o);
        return &c->unknown;
    }
    case TDX_SRC_SUBSCRIPT: {
        val *o = eval(c, e, tdx_src_kid(n, TDX_SRC_R_VALUE), depth);
        const tdx_src_node *ix = tdx_src_kid(n, TDX_SRC_R_INDEX);
        if (o->kind == V_META && ix && ix->kind == TDX_SRC_STRING && c->launch) {
            char key[64];
            size_t l;
            const char *s = tdx_src_text(c->f->mod, ix, &l);
            if (l < 3 || l - 2 >= sizeof key)
                return &c->unknown;
            memcpy(key, s + 1, l - 2);
            key[l - 2] = 0;
            long long v;
            const tdx_src_node *where;
            return tdx_km_launch_constexpr(c->f, c->launch, key, &v, &where) ? mk_int(c, v) : &c->unknown;
        }
        if (o->kind == V_TENSOR && ix && ix->kind == TDX_SRC_SLICE)
            return o; /* buf[offset:] keeps the sizes that .view() gives next */
        val *i = eval(c, e, ix, depth);
        if (o->kind == V_TENSOR)
            o = shape_of(c, o);
        if (o->kind != V_TUPLE || i->kind != V_INT || i->i < -o->n || i->i >= o->n)
            return &c->unknown;
        return o->el[i->i < 0 ? i->i + o->n : i->i];
    }
    case TDX_SRC_CALL:
        return call_value(c, e, n, depth);
    case TDX_SRC_LAMBDA: {
        val *v = mk(c, V_LAMBDA);
        if (v != &c->unknown)
            v->node = n;
        return v;
    }
    default:
        return &c->unknown;
    }
}

/* Bind an assignment target to v (names, and tuples unpacked). */
static void assign(ctx *c, env *e, const tdx_src_node *tg, val *v)
{
    if (tg->kind == TDX_SRC_NAME) {
        bind(e, tg->name, v);
        return;
    }
    if (tg->kind != TDX_SRC_TUPLE && tg->kind != TDX_SRC_LIST)
        return;
    if (v->kind == V_TENSOR)
        v = shape_of(c, v);
    int i = 0;
    for (const tdx_src_node *x = tdx_src_next(tg, TDX_SRC_R_ELT, NULL); x; x = tdx_src_next(tg, TDX_SRC_R_ELT, x), i++)
        assign(c, e, x, v->kind == V_TUPLE && v->n == (int)tdx_src_count(tg, TDX_SRC_R_ELT) ? v->el[i] : &c->unknown);
}

/* Run the straight-line statements of a def (if-blocks are skipped: the
 * task helpers only branch for the "meta" device) and give the value of the
 * first return. With stop, run up to the statement that holds it and leave
 * the environment there in *at. */
static val *run_def(ctx *c, const tdx_src_node *def, env *e, const tdx_src_node *stop, env **at, int depth)
{
    for (const tdx_src_node *s = tdx_src_next(def, TDX_SRC_R_BODY, NULL); s; s = tdx_src_next(def, TDX_SRC_R_BODY, s)) {
        if (stop && stop->start >= s->start && stop->end <= s->end) {
            *at = e;
            return &c->unknown;
        }
        if (s->kind == TDX_SRC_ASSIGN) {
            val *v = eval(c, e, tdx_src_kid(s, TDX_SRC_R_VALUE), depth);
            for (const tdx_src_node *tg = tdx_src_next(s, TDX_SRC_R_TARGET, NULL); tg;
                 tg = tdx_src_next(s, TDX_SRC_R_TARGET, tg))
                assign(c, e, tg, v);
        } else if (s->kind == TDX_SRC_RETURN && !stop) {
            return eval(c, e, tdx_src_kid(s, TDX_SRC_R_VALUE), depth);
        }
    }
    return &c->unknown;
}

/* Run the task up to launch l at the bench shape: 0 with the environment
 * there in *at (which may be le, the caller's storage for launch's own
 * scope), -1 when unknown; shape gets the bench shape's text. */
static int bench_env(ctx *c, const tdx_km_launch *l, char *shape, size_t shape_len, env *le, env **at_out)
{
    const tdx_km_file *f = c->f;
    const tdx_src_node *mk_inputs = tdx_src_find_def(f->mod, "make_inputs");
    const tdx_src_node *launch = l->scope;
    if (!mk_inputs || !launch || launch->kind != TDX_SRC_FUNCDEF)
        return -1;
    /* SHAPES["bench"] */
    const tdx_src_node *shapes = NULL, *bench = NULL;
    for (size_t i = 0; i < f->nglobals; i++)
        if (strcmp(f->global_names[i], "SHAPES") == 0)
            shapes = f->global_values[i];
    if (!shapes || shapes->kind != TDX_SRC_DICT)
        return -1;
    for (uint32_t i = 0; i + 1 < shapes->nkids; i++) {
        const tdx_src_node *k = shapes->kids[i];
        if (k->role != TDX_SRC_R_KEY || k->kind != TDX_SRC_STRING)
            continue;
        size_t kl;
        const char *kt = tdx_src_text(f->mod, k, &kl);
        if (kl == 7 && memcmp(kt + 1, "bench", 5) == 0)
            bench = shapes->kids[i + 1];
    }
    if (!bench)
        return -1;
    size_t bl;
    const char *bt = tdx_src_text(f->mod, bench, &bl);
    snprintf(shape, shape_len, "%.*s", (int)bl, bt);
    env me = {0};
    const tdx_src_node *p0 = tdx_src_next(mk_inputs, TDX_SRC_R_PARAM, NULL);
    if (!p0 || !p0->name)
        return -1;
    val *bv = eval(c, &me, bench, 0);
    if (bv->kind == V_INT) /* a 1-D shape written as a number */
        bv = single(c, bv);
    bind(&me, p0->name, bv);
    val *inputs = run_def(c, mk_inputs, &me, NULL, NULL, 0);
    if (inputs->kind == V_TENSOR)
        inputs = single(c, inputs);
    if (inputs->kind != V_TUPLE)
        return -1;
    /* launch(*inputs) up to the kernel launch */
    env *at = NULL;
    int i = 0;
    memset(le, 0, sizeof *le);
    for (const tdx_src_node *p = tdx_src_next(launch, TDX_SRC_R_PARAM, NULL); p;
         p = tdx_src_next(launch, TDX_SRC_R_PARAM, p), i++)
        if (p->name)
            bind(le, p->name, i < inputs->n ? inputs->el[i] : &c->unknown);
    run_def(c, launch, le, l->call, &at, 0);
    if (!at)
        return -1;
    *at_out = at;
    return 0;
}

/* The grid's program count in environment at, or -1. */
/* The grid of launch l at env at, axis by axis, into dims[0..cap): the
 * number of axes (an int grid is one), or -1 when an axis is unknown. */
static int grid_dims(ctx *c, const tdx_km_launch *l, env *at, long long *dims, int cap)
{
    val *g = eval(c, at, l->grid, 0);
    if (g->kind == V_LAMBDA) {
        const tdx_src_node *lp = tdx_src_next(g->node, TDX_SRC_R_PARAM, NULL);
        env ge = *at;
        if (lp && lp->name)
            bind(&ge, lp->name, mk(c, V_META));
        g = eval(c, &ge, tdx_src_kid(g->node, TDX_SRC_R_BODY), 0);
    }
    if (g->kind == V_INT && cap >= 1) {
        dims[0] = g->i;
        return g->i >= 0 ? 1 : -1;
    }
    if (g->kind != V_TUPLE || g->n == 0 || g->n > cap)
        return -1;
    for (int k = 0; k < g->n; k++) {
        if (g->el[k]->kind != V_INT || g->el[k]->i < 0)
            return -1;
        dims[k] = g->el[k]->i;
    }
    return g->n;
}

static long long grid_in(ctx *c, const tdx_km_launch *l, env *at)
{
    long long dims[8];
    int n = grid_dims(c, l, at, dims, 8);
    val *prod = mk_int(c, 1);
    for (int k = 0; k < n && prod->kind == V_INT; k++)
        prod = arith(c, TDX_OP_STAR, prod->i, dims[k]);
    return n > 0 && prod->kind == V_INT ? prod->i : -1;
}

/* A fresh evaluator for launch l of file f, or NULL when the file has no
 * make_inputs or SHAPES dict to follow (nothing is allocated then). The
 * value pool is malloc'd, not zeroed: mk() clears each value it hands out. */
static ctx *ctx_new(const tdx_km_file *f, const tdx_km_launch *l)
{
    int shapes = 0;
    for (size_t i = 0; i < f->nglobals && !shapes; i++)
        shapes = strcmp(f->global_names[i], "SHAPES") == 0;
    if (!shapes || !tdx_src_find_def(f->mod, "make_inputs"))
        return NULL;
    ctx *c = malloc(sizeof *c);
    if (c) {
        c->f = f;
        c->launch = l;
        c->used = c->steps = 0;
        memset(&c->unknown, 0, sizeof c->unknown);
    }
    return c;
}

long long tdx_km_bench_grid(const tdx_km_file *f, const tdx_km_launch *l, char *shape, size_t shape_len)
{
    ctx *c = ctx_new(f, l);
    env le, *at = NULL;
    long long g = -1;
    if (c && bench_env(c, l, shape, shape_len, &le, &at) == 0)
        g = grid_in(c, l, at);
    free(c);
    return g;
}

int tdx_km_bench_grid_dims(const tdx_km_file *f, const tdx_km_launch *l, long long *dims, int cap, char *shape,
                           size_t shape_len)
{
    ctx *c = ctx_new(f, l);
    env le, *at = NULL;
    int n = -1;
    if (c && bench_env(c, l, shape, shape_len, &le, &at) == 0)
        n = grid_dims(c, l, at, dims, cap);
    free(c);
    return n;
}

int tdx_km_bench_int(const tdx_km_file *f, const tdx_km_launch *l, const tdx_src_node *expr, long long *v)
{
    /* a literal needs no bench shape (a task whose inputs the model cannot follow still has its
     * num_warps=8) */
    if (expr && expr->kind == TDX_SRC_NUMBER)
        return tdx_src_int_value(f->mod, expr, v) == TDX_OK;
    char shape[96];
    ctx *c = ctx_new(f, l);
    env le, *at = NULL;
    int ok = 0;
    if (c && expr && bench_env(c, l, shape, sizeof shape, &le, &at) == 0) {
        val *x = eval(c, at, expr, 0);
        if (x->kind == V_INT) {
            *v = x->i;
            ok = 1;
        }
    }
    free(c);
    return ok;
}

int tdx_km_param_bench_int(const tdx_km_file *f, const tdx_km_kernel *k, const char *name, long long *v)
{
    const tdx_km_param *p = k && name ? tdx_km_param_find(k, name) : NULL;
    for (size_t j = 0; p && p->index >= 0 && j < k->launches.len; j++) {
        const tdx_km_launch *l = k->launches.items[j];
        if ((size_t)p->index < l->nargs && l->args[p->index] && tdx_km_bench_int(f, l, l->args[p->index], v))
            return 1;
    }
    return 0;
}
