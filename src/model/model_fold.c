/* Folding integers in the non-jit code: literals, module and function
 * constants, launch keywords (META["BLOCK"] in grid lambdas), triton.cdiv,
 * next_power_of_2, min / max and arithmetic; and the launch grid size. */
#include <limits.h>
#include <string.h>

#include "model/model_int.h"

/* Folding follows at most this many names and operators deep. */
enum { MAX_FOLD_DEPTH = 24 };

typedef struct fold {
    const tdx_km_file *f;
    const tdx_src_node *scope;  /* FUNCDEF, or NULL for module constants only */
    const tdx_km_launch *launch;
    const char *meta;           /* lambda parameter standing for the launch keywords */
    int depth;
} fold;

// Fold an expression of the non-jit code to an integer.
static int fold_expr(fold *fx, const tdx_src_node *before, const tdx_src_node *n, long long *v);

typedef struct finder {
    const char *name;
    size_t before;              /* only assignments starting before this offset */
    const tdx_src_node *value;  /* last value found (NULL: none or unknown) */
    const tdx_src_node *stmt;
    int found;
} finder;

// Look for `name = value` (or a tuple assignment) in a block, recursively
// through if/for/while/with/try, never into nested functions or classes.
static void find_assign(finder *fd, const tdx_src_node *block)
{
    for (uint32_t i = 0; i < block->nkids; i++) {
        const tdx_src_node *s = block->kids[i];
        if (s->start >= fd->before)
            return;
        if (s->role != TDX_SRC_R_BODY && s->role != TDX_SRC_R_ORELSE &&
            s->role != TDX_SRC_R_FINALBODY && s->role != TDX_SRC_R_HANDLER)
            continue;
        switch (s->kind) {
        case TDX_SRC_ASSIGN: {
            const tdx_src_node *value = tdx_src_kid(s, TDX_SRC_R_VALUE);
            for (const tdx_src_node *t = tdx_src_next(s, TDX_SRC_R_TARGET, NULL); t;
                 t = tdx_src_next(s, TDX_SRC_R_TARGET, t)) {
                if (t->kind == TDX_SRC_NAME && strcmp(t->name, fd->name) == 0) {
                    fd->value = value, fd->stmt = s, fd->found = 1;
                } else if (t->kind == TDX_SRC_TUPLE) {
                    for (uint32_t j = 0; j < t->nkids; j++) {
                        const tdx_src_node *e = t->kids[j];
                        if (e->kind != TDX_SRC_NAME || strcmp(e->name, fd->name) != 0)
                            continue;
                        fd->found = 1, fd->stmt = s;
                        fd->value = (value && value->kind == TDX_SRC_TUPLE &&
                                     value->nkids == t->nkids)
                                        ? value->kids[j]
                                        : NULL;
                    }
                }
            }
            break;
        }
        case TDX_SRC_AUGASSIGN:
        case TDX_SRC_ANNASSIGN: {
            const tdx_src_node *t = tdx_src_kid(s, TDX_SRC_R_TARGET);
            if (t && t->kind == TDX_SRC_NAME && strcmp(t->name, fd->name) == 0) {
                fd->found = 1, fd->stmt = s;
                fd->value = s->kind == TDX_SRC_ANNASSIGN ? tdx_src_kid(s, TDX_SRC_R_VALUE) : NULL;
            }
            break;
        }
        case TDX_SRC_FOR: {
            const tdx_src_node *t = tdx_src_kid(s, TDX_SRC_R_TARGET);
            if (t && t->kind == TDX_SRC_NAME && strcmp(t->name, fd->name) == 0)
                fd->found = 1, fd->value = NULL, fd->stmt = s;
            find_assign(fd, s);
            break;
        }
        case TDX_SRC_IF:
        case TDX_SRC_WHILE:
        case TDX_SRC_WITH:
        case TDX_SRC_TRY:
        case TDX_SRC_EXCEPT:
            find_assign(fd, s);
            break;
        default:
            break;
        }
    }
}

// The expression a name is bound to in scope before `before` (NULL: end).
const tdx_src_node *tdx_km_binding_of(const tdx_src_node *scope, const char *name,
                                      const tdx_src_node *before, int *found)
{
    finder fd = {name, before ? before->start : (size_t)-1, NULL, NULL, 0};
    find_assign(&fd, scope);
    *found = fd.found;
    return fd.value;
}

// A name: a local bound before `before`, else a module constant.
static int fold_name(fold *fx, const tdx_src_node *before, const char *name, long long *v)
{
    int found = 0;
    if (fx->scope) {
        const tdx_src_node *val = tdx_km_binding_of(fx->scope, name, before, &found);
        if (found)
            return val ? fold_expr(fx, val, val, v) : 0;
        if (tdx_src_param(fx->scope, name))
            return 0;
    }
    const tdx_src_node *val = NULL;
    for (size_t i = fx->f->nglobals; i-- > 0;)
        if (fx->f->global_names[i][0] == name[0] && strcmp(fx->f->global_names[i], name) == 0) {
            val = fx->f->global_values[i];
            found = 1;
            break;
        }
    if (!found || !val)
        return 0;
    fold mod = *fx;
    mod.scope = NULL;
    return fold_expr(&mod, val, val, v);
}

// Literals, names, + - * // % << >>, cdiv, next_power_of_2, min, max, int, META["X"].
static int fold_expr(fold *fx, const tdx_src_node *before, const tdx_src_node *n, long long *v)
{
    if (!n || fx->depth > MAX_FOLD_DEPTH)
        return 0;
    fx->depth++;
    int ok = 0;
    long long a, b;
    switch (n->kind) {
    case TDX_SRC_NUMBER:
        ok = tdx_src_int_value(fx->f->mod, n, v) == TDX_OK;
        break;
    case TDX_SRC_NAME:
        ok = fold_name(fx, before, n->name, v);
        break;
    case TDX_SRC_UNARYOP:
        if (n->op == TDX_OP_MINUS && fold_expr(fx, before, tdx_src_kid(n, TDX_SRC_R_OPERAND), &a))
            ok = !__builtin_sub_overflow(0LL, a, v); /* a value out of range folds to nothing */
        else if (n->op == TDX_OP_PLUS)
            ok = fold_expr(fx, before, tdx_src_kid(n, TDX_SRC_R_OPERAND), v);
        break;
    case TDX_SRC_BINOP:
        if (!fold_expr(fx, before, tdx_src_kid(n, TDX_SRC_R_LEFT), &a) ||
            !fold_expr(fx, before, tdx_src_kid(n, TDX_SRC_R_RIGHT), &b))
            break;
        switch (n->op) {
        case TDX_OP_PLUS: ok = !__builtin_add_overflow(a, b, v); break;
        case TDX_OP_MINUS: ok = !__builtin_sub_overflow(a, b, v); break;
        case TDX_OP_STAR: ok = !__builtin_mul_overflow(a, b, v); break;
        case TDX_OP_DSLASH: ok = b > 0 && a >= 0; if (ok) *v = a / b; break;
        case TDX_OP_PERCENT: ok = b > 0 && a >= 0; if (ok) *v = a % b; break;
        case TDX_OP_LSHIFT: ok = a >= 0 && b >= 0 && b < 62 && a <= (LLONG_MAX >> b); if (ok) *v = a << b; break;
        case TDX_OP_RSHIFT: ok = b >= 0 && b < 63; if (ok) *v = a >> b; break;
        default: ok = 0; break;
        }
        break;
    case TDX_SRC_CALL: {
        const tdx_src_node *fn = tdx_src_call_func(n);
        const char *name = fn ? tdx_km_last_name(fn) : NULL;
        size_t na = tdx_src_call_nargs(n);
        if (!name)
            break;
        if ((strcmp(name, "cdiv") == 0) && na == 2 &&
            fold_expr(fx, before, tdx_src_call_arg(n, 0), &a) &&
            fold_expr(fx, before, tdx_src_call_arg(n, 1), &b) && b > 0 && a >= 0) {
            *v = a / b + (a % b != 0), ok = 1;
        } else if (strcmp(name, "next_power_of_2") == 0 && na == 1 &&
                   fold_expr(fx, before, tdx_src_call_arg(n, 0), &a) && a >= 0 &&
                   a < (1LL << 40)) {
            long long p = 1;
            while (p < a)
                p <<= 1;
            *v = p, ok = 1;
        } else if ((strcmp(name, "min") == 0 || strcmp(name, "max") == 0) && na >= 1 &&
                   fn->kind == TDX_SRC_NAME) {
            ok = 1;
            for (size_t i = 0; i < na && ok; i++) {
                if (!fold_expr(fx, before, tdx_src_call_arg(n, i), &a))
                    ok = 0;
                else if (i == 0 || (name[1] == 'i' ? a < *v : a > *v))
                    *v = a;
            }
        } else if (strcmp(name, "int") == 0 && na == 1 && fn->kind == TDX_SRC_NAME) {
            ok = fold_expr(fx, before, tdx_src_call_arg(n, 0), v);
        }
        break;
    }
    case TDX_SRC_SUBSCRIPT: {
        /* META["BLOCK"] in a grid lambda: the launch keyword BLOCK */
        const tdx_src_node *obj = tdx_src_kid(n, TDX_SRC_R_VALUE);
        const tdx_src_node *idx = tdx_src_kid(n, TDX_SRC_R_INDEX);
        if (fx->meta && fx->launch && obj && obj->kind == TDX_SRC_NAME &&
            strcmp(obj->name, fx->meta) == 0 && idx && idx->kind == TDX_SRC_STRING) {
            tdx_arena tmp;
            tdx_arena_init(&tmp, 256);
            const char *key = tdx_src_string_value(fx->f->mod, idx, &tmp);
            const tdx_src_node *w;
            ok = key && tdx_km_launch_constexpr(fx->f, fx->launch, key, v, &w);
            tdx_arena_free(&tmp);
        }
        break;
    }
    default:
        break;
    }
    fx->depth--;
    return ok;
}

// Public entry of fold_expr (see model.h).
int tdx_km_fold_int(const tdx_km_file *f, const tdx_src_node *scope, const tdx_src_node *before,
                    const tdx_km_launch *launch, const tdx_src_node *expr, long long *v)
{
    fold fx = {f, (scope && scope->kind == TDX_SRC_FUNCDEF) ? scope : NULL, launch, NULL, 0};
    if (!before)
        before = expr;
    return fold_expr(&fx, fx.scope ? before : NULL, expr, v);
}

// The value a launch gives a constexpr: its argument, else the default.
int tdx_km_launch_constexpr(const tdx_km_file *f, const tdx_km_launch *l, const char *name,
                            long long *v, const tdx_src_node **where)
{
    tdx_km_param *p = tdx_km_param_find(l->kernel, name);
    if (!p)
        return 0;
    const tdx_src_node *a = l->args[p->index];
    if (a) {
        *where = a;
        return tdx_km_fold_int(f, l->scope, l->call, NULL, a, v);
    }
    if (p->has_default_value) {
        *where = p->dflt;
        *v = p->default_value;
        return 1;
    }
    return 0;
}

// Number of programs of a launch grid, when the source makes it knowable.
long long tdx_km_grid_size(const tdx_km_file *f, const tdx_km_launch *l)
{
    const tdx_src_node *g = l->grid_def;
    fold fx = {f, l->scope->kind == TDX_SRC_FUNCDEF ? l->scope : NULL, l, NULL, 0};
    if (g && g->kind == TDX_SRC_LAMBDA) {
        const tdx_src_node *p = tdx_src_next(g, TDX_SRC_R_PARAM, NULL);
        fx.meta = p ? p->name : NULL;
        g = tdx_src_kid(g, TDX_SRC_R_BODY);
    }
    if (!g)
        return -1;
    const tdx_src_node *before = fx.scope ? l->call : NULL;
    long long total = 1, v;
    if (g->kind == TDX_SRC_TUPLE || g->kind == TDX_SRC_LIST) {
        if (g->nkids == 0)
            return -1;
        for (uint32_t i = 0; i < g->nkids; i++) {
            if (!fold_expr(&fx, before, g->kids[i], &v) || v < 0 || __builtin_mul_overflow(total, v, &total))
                return -1;
        }
        return total;
    }
    return fold_expr(&fx, before, g, &v) && v >= 0 ? v : -1;
}
