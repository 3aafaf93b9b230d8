/* Folding a kernel's body into the model: an abstract interpretation of its
 * expressions in program order. Each local variable holds a tdx_km_val
 * (which tl.arange feeds which tile axis, what multiplies it, which pointer
 * parameter it is based on, whether it was loaded, reduced, dotted ...), so
 * that every tl.load / tl.store address is decomposed where it is used.
 * Loops are walked once (enough to see what each iteration does); both arms
 * of an `if` are walked. */
#include <string.h>

#include "model/model_ctx.h"

// Bind name to v (later bindings shadow earlier ones).
void tdx_km_bind(tdx_km_ctx *c, const char *name, tdx_km_val v)
{
    if (!name || c->st)
        return;
    tdx_km_env *e = c->env;
    for (size_t i = e->len; i-- > 0;)
        if (e->items[i].name[0] == name[0] && strcmp(e->items[i].name, name) == 0) {
            e->items[i].val = v;
            return;
        }
    if (e->len == e->cap) {
        if (e->cap >= MAX_ENV)
            return;
        size_t cap = e->cap ? e->cap * 2 : 32;
        tdx_km_binding *items = tdx_arena_alloc(c->arena, cap * sizeof *items);
        if (!items) {
            c->st = TDX_ERR_NOMEM;
            return;
        }
        if (e->len)
            memcpy(items, e->items, e->len * sizeof *items);
        e->items = items;
        e->cap = cap;
    }
    e->items[e->len].name = name;
    e->items[e->len].val = v;
    e->len++;
}

// The value bound to name, or NULL.
static const tdx_km_val *lookup(tdx_km_ctx *c, const char *name)
{
    for (size_t i = c->env->len; i-- > 0;)
        if (c->env->items[i].name[0] == name[0] && strcmp(c->env->items[i].name, name) == 0)
            return &c->env->items[i].val;
    return NULL;
}

// Fold an expression into a value.
tdx_km_val tdx_km_eval_expr(tdx_km_ctx *c, const tdx_src_node *n)
{
    if (!n || c->st)
        return tdx_km_v_none();
    switch (n->kind) {
    case TDX_SRC_NAME: {
        const tdx_km_val *b = lookup(c, n->name);
        if (b)
            return *b;
        long long x;
        if (tdx_km_fold_int(c->f, NULL, NULL, NULL, n, &x))
            return tdx_km_v_const(x);
        tdx_km_val v = tdx_km_v_none();
        v.flags = TDX_KM_V_CONSTEXPR; /* a global: constexpr at compile time */
        return v;
    }
    case TDX_SRC_NUMBER: {
        long long x;
        if (tdx_src_int_value(c->f->mod, n, &x) == TDX_OK)
            return tdx_km_v_const(x);
        tdx_km_val v = tdx_km_v_none();
        v.flags = TDX_KM_V_CONSTEXPR;
        return v;
    }
    case TDX_SRC_CONST:
    case TDX_SRC_STRING: {
        tdx_km_val v = tdx_km_v_none();
        v.flags = TDX_KM_V_CONSTEXPR;
        return v;
    }
    case TDX_SRC_UNARYOP: {
        tdx_km_val v = tdx_km_eval_expr(c, tdx_src_kid(n, TDX_SRC_R_OPERAND));
        int unknown = n->op == TDX_OP_NOT || n->op == TDX_OP_TILDE;
        if (n->op == TDX_OP_MINUS && (v.flags & TDX_KM_V_CONST))
            unknown = __builtin_sub_overflow(0LL, v.ival, &v.ival); /* -LLONG_MIN: not a known constant */
        if (unknown)
            v.flags &= ~TDX_KM_V_CONST;
        v.base = v.param = NULL;
        return v;
    }
    case TDX_SRC_BINOP: {
        tdx_km_val l = tdx_km_eval_expr(c, tdx_src_kid(n, TDX_SRC_R_LEFT));
        tdx_km_val r = tdx_km_eval_expr(c, tdx_src_kid(n, TDX_SRC_R_RIGHT));
        return tdx_km_binop(c, n->op, &l, &r);
    }
    case TDX_SRC_COMPARE:
    case TDX_SRC_BOOLOP:
    case TDX_SRC_TUPLE:
    case TDX_SRC_LIST:
    case TDX_SRC_IFEXP: {
        tdx_km_val v = tdx_km_v_none();
        for (uint32_t i = 0; i < n->nkids; i++) {
            tdx_km_val x = tdx_km_eval_expr(c, n->kids[i]);
            v = i ? tdx_km_merge(&v, &x) : x;
        }
        v.flags &= ~(TDX_KM_V_CONST | TDX_KM_V_ZEROS);
        v.base = v.param = NULL;
        return v;
    }
    case TDX_SRC_SUBSCRIPT:
        return tdx_km_subscript(c, n);
    case TDX_SRC_ATTRIBUTE: {
        const tdx_src_node *obj = tdx_src_kid(n, TDX_SRC_R_VALUE);
        if (tdx_km_tl_name(n))
            return tdx_km_v_none(); /* tl.float16 and the like */
        tdx_km_val v = obj ? tdx_km_eval_expr(c, obj) : tdx_km_v_none();
        if (n->name && strcmp(n->name, "T") == 0 && v.rank >= 2) {
            tdx_km_axis t = v.axis[0];
            v.axis[0] = v.axis[1];
            v.axis[1] = t;
        } else if (n->name && (strcmp(n->name, "dtype") == 0 || strcmp(n->name, "type") == 0 ||
                               strcmp(n->name, "element_ty") == 0 ||
                               strcmp(n->name, "shape") == 0)) {
            v = tdx_km_v_none();
            v.flags = TDX_KM_V_CONSTEXPR;
        }
        return v;
    }
    case TDX_SRC_CALL:
        return tdx_km_call(c, n);
    case TDX_SRC_NAMEDEXPR: {
        tdx_km_val v = tdx_km_eval_expr(c, tdx_src_kid(n, TDX_SRC_R_VALUE));
        const tdx_src_node *t = tdx_src_kid(n, TDX_SRC_R_TARGET);
        if (t && t->kind == TDX_SRC_NAME)
            tdx_km_bind(c, t->name, v);
        return v;
    }
    default:
        return tdx_km_v_none();
    }
}

// Assign v to a target expression (a name, or a tuple of names).
static void assign(tdx_km_ctx *c, const tdx_src_node *target, const tdx_src_node *value, tdx_km_val v)
{
    if (!target)
        return;
    if (target->kind == TDX_SRC_NAME) {
        tdx_km_bind(c, target->name, v);
    } else if (target->kind == TDX_SRC_TUPLE || target->kind == TDX_SRC_LIST) {
        int pairwise = value && (value->kind == TDX_SRC_TUPLE || value->kind == TDX_SRC_LIST) &&
                       value->nkids == target->nkids;
        for (uint32_t i = 0; i < target->nkids; i++) {
            if (pairwise)
                assign(c, target->kids[i], NULL, tdx_km_eval_expr(c, value->kids[i]));
            else
                assign(c, target->kids[i], NULL, v);
        }
    } else {
        /* x[i] = ..., obj.attr = ...: evaluate the parts for their calls */
        (void)tdx_km_eval_expr(c, target);
    }
}

// range / tl.range / tl.static_range / anything else.
static tdx_km_loop_kind loop_kind(const tdx_src_node *iter, const tdx_src_node **callee_out)
{
    *callee_out = NULL;
    if (!iter || iter->kind != TDX_SRC_CALL)
        return TDX_KM_LOOP_OTHER;
    const tdx_src_node *fn = tdx_src_call_func(iter);
    *callee_out = fn;
    if (tdx_src_is_dotted(fn, "range"))
        return TDX_KM_LOOP_RANGE;
    const char *tl = tdx_km_tl_name(fn);
    if (tl && strcmp(tl, "range") == 0)
        return TDX_KM_LOOP_TL_RANGE;
    if (tl && strcmp(tl, "static_range") == 0)
        return TDX_KM_LOOP_STATIC;
    return TDX_KM_LOOP_OTHER;
}

// A for/while loop: record it, bind its variable, walk its body.
static void loop(tdx_km_ctx *c, const tdx_src_node *n)
{
    tdx_km_loop *lp = tdx_arena_alloc(c->arena, sizeof *lp);
    if (!lp) {
        c->st = TDX_ERR_NOMEM;
        return;
    }
    lp->id = (int)c->k->loops.len;
    lp->node = n;
    lp->parent = c->loop;
    lp->depth = c->loop ? c->loop->depth + 1 : 1;
    lp->num_stages = -1;
    if (tdx_ptrvec_push(c->arena, &c->k->loops, lp) != 0) {
        c->st = TDX_ERR_NOMEM;
        return;
    }
    uint32_t bit = lp->id < TDX_KM_MAXLOOPS ? 1u << lp->id : 0;
    tdx_km_val var = tdx_km_v_none();
    if (n->kind == TDX_SRC_WHILE) {
        lp->kind = TDX_KM_LOOP_WHILE;
        tdx_km_val t = tdx_km_eval_expr(c, tdx_src_kid(n, TDX_SRC_R_TEST));
        lp->runtime_bound = (t.flags & (TDX_KM_V_RUNTIME | TDX_KM_V_DATA)) != 0;
    } else {
        const tdx_src_node *iter = tdx_src_kid(n, TDX_SRC_R_ITER), *callee;
        const tdx_src_node *target = tdx_src_kid(n, TDX_SRC_R_TARGET);
        lp->kind = loop_kind(iter, &callee);
        if (target && target->kind == TDX_SRC_NAME)
            lp->var = target->name;
        if (lp->kind != TDX_KM_LOOP_OTHER) {
            size_t na = tdx_src_call_nargs(iter);
            lp->start = na >= 2 ? tdx_src_call_arg(iter, 0) : NULL;
            lp->stop = na >= 2 ? tdx_src_call_arg(iter, 1) : tdx_src_call_arg(iter, 0);
            lp->step = na >= 3 ? tdx_src_call_arg(iter, 2) : tdx_src_call_kwarg(iter, "step");
            tdx_km_val start = lp->start ? tdx_km_eval_expr(c, lp->start) : tdx_km_v_none();
            tdx_km_val stop = lp->stop ? tdx_km_eval_expr(c, lp->stop) : tdx_km_v_none();
            long long s = 1;
            lp->step_is_one = !lp->step || (tdx_km_fold_small(c, lp->step, &s) && s == 1);
            lp->runtime_bound =
                ((start.flags | stop.flags) & (TDX_KM_V_RUNTIME | TDX_KM_V_DATA | TDX_KM_V_PID)) != 0;
            const tdx_src_node *ns = tdx_src_call_kwarg(iter, "num_stages");
            long long nsv;
            if (ns && tdx_km_fold_small(c, ns, &nsv))
                lp->num_stages = (int)nsv;
            else if (ns)
                lp->num_stages = 0; /* given, value not known here */
            var = tdx_km_merge(&start, &stop);
            var.flags &= ~(TDX_KM_V_CONST | TDX_KM_V_ARANGE);
            memset(var.axis, 0, sizeof var.axis);
            var.rank = 0;
            var.base = var.param = NULL;
        } else if (iter) {
            tdx_km_val it = tdx_km_eval_expr(c, iter);
            var = it;
            var.base = var.param = NULL;
            lp->runtime_bound = (it.flags & TDX_KM_V_RUNTIME) != 0;
        }
        var.loops |= bit;
        if (lp->step_is_one && lp->kind != TDX_KM_LOOP_OTHER)
            var.win = bit;
        if (lp->kind == TDX_KM_LOOP_STATIC)
            var.flags |= TDX_KM_V_CONSTEXPR;
        else
            var.flags &= ~TDX_KM_V_CONSTEXPR;
        assign(c, target, NULL, var);
    }
    tdx_km_loop *saved = c->loop;
    c->loop = lp;
    tdx_km_walk_block(c, n, TDX_SRC_R_BODY);
    c->loop = saved;
    tdx_km_walk_block(c, n, TDX_SRC_R_ORELSE);
}

// One statement of a kernel or helper body.
static void stmt(tdx_km_ctx *c, const tdx_src_node *s)
{
    switch (s->kind) {
    case TDX_SRC_ASSIGN: {
        const tdx_src_node *value = tdx_src_kid(s, TDX_SRC_R_VALUE);
        tdx_km_val v = tdx_km_eval_expr(c, value);
        for (const tdx_src_node *t = tdx_src_next(s, TDX_SRC_R_TARGET, NULL); t;
             t = tdx_src_next(s, TDX_SRC_R_TARGET, t))
            assign(c, t, value, v);
        break;
    }
    case TDX_SRC_ANNASSIGN: {
        const tdx_src_node *value = tdx_src_kid(s, TDX_SRC_R_VALUE);
        if (value)
            assign(c, tdx_src_kid(s, TDX_SRC_R_TARGET), value, tdx_km_eval_expr(c, value));
        break;
    }
    case TDX_SRC_AUGASSIGN: {
        const tdx_src_node *t = tdx_src_kid(s, TDX_SRC_R_TARGET);
        tdx_km_val r = tdx_km_eval_expr(c, tdx_src_kid(s, TDX_SRC_R_VALUE));
        tdx_km_val l = tdx_km_eval_expr(c, t);
        tdx_km_val v = tdx_km_binop(c, s->op, &l, &r);
        if (t && t->kind == TDX_SRC_NAME)
            tdx_km_bind(c, t->name, v);
        break;
    }
    case TDX_SRC_EXPR_STMT:
        (void)tdx_km_eval_expr(c, tdx_src_kid(s, TDX_SRC_R_VALUE));
        break;
    case TDX_SRC_RETURN: {
        const tdx_src_node *v = tdx_src_kid(s, TDX_SRC_R_VALUE);
        if (v) {
            c->ret = tdx_km_eval_expr(c, v);
            c->has_ret = 1;
        }
        break;
    }
    case TDX_SRC_IF:
        (void)tdx_km_eval_expr(c, tdx_src_kid(s, TDX_SRC_R_TEST));
        tdx_km_walk_block(c, s, TDX_SRC_R_BODY);
        tdx_km_walk_block(c, s, TDX_SRC_R_ORELSE);
        break;
    case TDX_SRC_FOR:
    case TDX_SRC_WHILE:
        loop(c, s);
        break;
    case TDX_SRC_WITH:
    case TDX_SRC_TRY:
        tdx_km_walk_block(c, s, TDX_SRC_R_BODY);
        break;
    case TDX_SRC_ASSERT:
        (void)tdx_km_eval_expr(c, tdx_src_kid(s, TDX_SRC_R_TEST));
        break;
    default:
        break;
    }
}

// The statements of a block (a body or an orelse), in order.
void tdx_km_walk_block(tdx_km_ctx *c, const tdx_src_node *parent, tdx_src_role role)
{
    for (const tdx_src_node *s = tdx_src_next(parent, role, NULL); s && !c->st;
         s = tdx_src_next(parent, role, s)) {
        if (c->helper && --*c->budget < 0)
            return; /* out of helper budget: the kernel's own statements go on */
        stmt(c, s);
    }
}

// Fold a kernel body with its parameters bound.
tdx_status tdx_km_eval_kernel(tdx_km_file *f, tdx_km_kernel *k, tdx_arena *arena)
{
    tdx_km_env e = {0};
    tdx_km_ctx c = {0};
    long budget = MAX_STMTS;
    c.budget = &budget;
    c.f = f;
    c.k = k;
    c.arena = arena;
    c.env = &e;
    for (size_t i = 0; i < k->nparams; i++) {
        tdx_km_param *p = &k->params[i];
        tdx_km_val v = tdx_km_v_none();
        if (p->kind == TDX_KM_PARAM_CONSTEXPR) {
            v.flags = TDX_KM_V_CONSTEXPR;
        } else {
            v.flags = TDX_KM_V_RUNTIME;
            v.param = p->name;
        }
        tdx_km_bind(&c, p->name, v);
    }
    tdx_km_walk_block(&c, k->def, TDX_SRC_R_BODY);
    return c.st;
}
