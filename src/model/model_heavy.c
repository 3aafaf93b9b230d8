/* Programs whose work grows with their id.
 *
 *     pid_m = tl.program_id(0)
 *     for start_n in range(0, (pid_m + 1) * BLOCK_M, BLOCK_N):   # causal keys
 *
 * Program pid_m walks pid_m + 1 blocks. A grid's CTAs are dispatched in
 * program-id order, x fastest (third_party/nvidia/backend/driver.c launches
 * one CTA a program), so the longest programs of each row of the grid start
 * last and the grid ends on a tail of long programs that a few SMs run
 * while the others idle. Which order the programs run in cannot change what
 * a correct kernel computes: CUDA promises no order among CTAs.
 *
 * The loop's upper bound must not decrease as P grows: it is built from P
 * and names that do not depend on it with +, *, // and - (P only on the
 * left of - and //) and tl.minimum / tl.maximum; names bound once in the
 * kernel are followed to their value. Constants are taken to be positive
 * (block sizes, lengths); a literal factor must be. */
#include <string.h>

#include "model/model_ctx.h"
#include "model/model_int.h"

enum { DEPTH = 12 };

static int trend(const tdx_src_module *m, const tdx_src_node *def, const char *p, const tdx_src_node *e, int depth);

typedef struct names_of {
    const tdx_src_module *m;
    const tdx_src_node *def;
    const char *p;
    int depth, dependent;
} names_of;

static int name_dep_visit(tdx_src_node *n, void *ud)
{
    names_of *c = ud;
    if (n->kind == TDX_SRC_NAME && !c->dependent)
        c->dependent = trend(c->m, c->def, c->p, n, c->depth + 1) != 0;
    return 0;
}

/* 0 when no name under e depends on P (followed as trend follows them),
 * else -1: an expression trend does not model. */
static int opaque(const tdx_src_module *m, const tdx_src_node *def, const char *p, const tdx_src_node *e, int depth)
{
    names_of c = {m, def, p, depth, 0};
    tdx_src_walk((tdx_src_node *)e, name_dep_visit, &c);
    return c.dependent ? -1 : 0;
}

/* How expression e changes as P grows: 0 it does not depend on P, 1 it
 * depends on it and does not decrease, -1 neither shown. */
static int trend(const tdx_src_module *m, const tdx_src_node *def, const char *p, const tdx_src_node *e, int depth)
{
    if (!e || depth > DEPTH)
        return -1;
    switch (e->kind) {
    case TDX_SRC_NUMBER:
    case TDX_SRC_CONST:
    case TDX_SRC_STRING:
        return 0;
    case TDX_SRC_NAME: {
        if (strcmp(e->name, p) == 0)
            return 1;
        int bound = tdx_src_count_bindings(def, e->name);
        if (bound == 0)
            return 0; /* a parameter or a global */
        if (bound > 1)
            return -1;
        int found = 0;
        const tdx_src_node *v = tdx_km_binding_of(def, e->name, NULL, &found);
        return found && v ? trend(m, def, p, v, depth + 1) : -1;
    }
    case TDX_SRC_ATTRIBUTE:
        return opaque(m, def, p, e, depth);
    case TDX_SRC_BINOP: {
        int l = trend(m, def, p, tdx_src_kid(e, TDX_SRC_R_LEFT), depth + 1);
        int r = trend(m, def, p, tdx_src_kid(e, TDX_SRC_R_RIGHT), depth + 1);
        if (l == 0 && r == 0)
            return 0;
        if (l < 0 || r < 0)
            return -1;
        switch (e->op) {
        case TDX_OP_PLUS:
            return 1;
        case TDX_OP_MINUS:
        case TDX_OP_DSLASH:
            return r == 0 ? 1 : -1;
        case TDX_OP_STAR: {
            if (l && r)
                return -1;
            const tdx_src_node *c = tdx_src_kid(e, l ? TDX_SRC_R_RIGHT : TDX_SRC_R_LEFT);
            double v = 0;
            if (c->kind == TDX_SRC_NUMBER)
                return tdx_src_number_value(m, c, &v) == TDX_OK && v > 0 ? 1 : -1;
            return c->kind == TDX_SRC_NAME || c->kind == TDX_SRC_ATTRIBUTE ? 1 : -1;
        }
        default:
            return -1;
        }
    }
    case TDX_SRC_CALL: {
        const tdx_src_node *fn = tdx_src_call_func(e);
        if (!(tdx_src_is_dotted(fn, "tl.minimum") || tdx_src_is_dotted(fn, "tl.maximum") ||
              tdx_src_is_dotted(fn, "min") || tdx_src_is_dotted(fn, "max")) ||
            tdx_src_call_nargs(e) != 2 || tdx_src_next(e, TDX_SRC_R_KEYWORD, NULL))
            return opaque(m, def, p, e, depth);
        int a = trend(m, def, p, tdx_src_call_arg(e, 0), depth + 1);
        int b = trend(m, def, p, tdx_src_call_arg(e, 1), depth + 1);
        return a < 0 || b < 0 ? -1 : a | b;
    }
    default:
        return opaque(m, def, p, e, depth);
    }
}

/* The axis of a tl.program_id(A) call with a literal A (positional or
 * axis=), or -1. */
static long long pid_axis(const tdx_src_module *m, const tdx_src_node *c)
{
    if (!c || c->kind != TDX_SRC_CALL || !tdx_src_is_dotted(tdx_src_call_func(c), "tl.program_id"))
        return -1;
    const tdx_src_node *a = tdx_src_call_nargs(c) == 1 ? tdx_src_call_arg(c, 0) : tdx_src_call_kwarg(c, "axis");
    long long v = -1;
    if (!a || tdx_src_int_value(m, a, &v) != TDX_OK || v < 0 || v > 2)
        return -1;
    return v;
}

typedef struct pid_calls {
    const tdx_src_module *m;
    long long axis;
    int n;
} pid_calls;

static int count_pid(tdx_src_node *n, void *ud)
{
    pid_calls *c = ud;
    if (n->kind == TDX_SRC_CALL && tdx_src_is_dotted(tdx_src_call_func(n), "tl.program_id")) {
        long long a = pid_axis(c->m, n);
        c->n += a < 0 || a == c->axis; /* an axis not read as a literal counts against any */
    }
    return 0;
}

int tdx_km_heavy_last(const tdx_km_file *f, const tdx_km_kernel *k, tdx_km_heavy *out)
{
    const tdx_src_module *m = f->mod;
    const tdx_src_node *def = k->def;
    memset(out, 0, sizeof *out);
    for (tdx_src_node *s = tdx_src_next(def, TDX_SRC_R_BODY, NULL); s; s = tdx_src_next(def, TDX_SRC_R_BODY, s)) {
        if (s->kind != TDX_SRC_ASSIGN || s->nkids != 2)
            continue;
        const tdx_src_node *tg = tdx_src_kid(s, TDX_SRC_R_TARGET), *v = tdx_src_kid(s, TDX_SRC_R_VALUE);
        long long axis = pid_axis(m, v);
        if (axis < 0 || !tdx_src_is_name(tg, NULL) || tdx_src_count_bindings(def, tg->name) != 1)
            continue;
        pid_calls c = {m, axis, 0};
        tdx_src_walk((tdx_src_node *)def, count_pid, &c);
        if (c.n != 1)
            continue; /* the axis read elsewhere too: both must turn around */
        for (size_t i = 0; i < k->loops.len; i++) {
            const tdx_km_loop *L = k->loops.items[i];
            /* an outermost range loop of the kernel itself (not of a folded helper), after the binding */
            if (L->depth != 1 || (L->kind != TDX_KM_LOOP_RANGE && L->kind != TDX_KM_LOOP_TL_RANGE) ||
                L->node->start < s->end || L->node->end > def->end)
                continue;
            if ((L->start && trend(m, def, tg->name, L->start, 0) != 0) ||
                (L->step && trend(m, def, tg->name, L->step, 0) != 0) || trend(m, def, tg->name, L->stop, 0) != 1)
                continue;
            out->pid = v;
            out->var = tg->name;
            out->axis = axis;
            out->loop = L->node;
            return 1;
        }
    }
    return 0;
}
