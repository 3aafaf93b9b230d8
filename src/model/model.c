/* Building the kernel model of a file: kernels and helpers, their
 * parameters and decorators (autotune configs, heuristics,
 * do_not_specialize), and the launch sites in the non-jit code with their
 * grids, constexpr arguments and launch-side passes. Kernel bodies are
 * folded by model_eval.c, integers by model_fold.c. */
#include <string.h>

#include "model/model_int.h"

// The jit function named name in f, or NULL.
tdx_km_kernel *tdx_km_kernel_named(const tdx_km_file *f, const char *name)
{
    if (!name)
        return NULL;
    for (size_t i = 0; i < f->kernels.len; i++) {
        tdx_km_kernel *k = f->kernels.items[i];
        if (strcmp(k->name, name) == 0)
            return k;
    }
    return NULL;
}

// The parameter of k named name, or NULL.
tdx_km_param *tdx_km_param_find(const tdx_km_kernel *k, const char *name)
{
    if (!name)
        return NULL;
    for (size_t i = 0; i < k->nparams; i++)
        if (strcmp(k->params[i].name, name) == 0)
            return &k->params[i];
    return NULL;
}

// "load" for tl.load, triton.language.load, tl.math.exp -> "exp"; NULL otherwise.
const char *tdx_km_tl_name(const tdx_src_node *callee)
{
    if (!callee || callee->kind != TDX_SRC_ATTRIBUTE || !callee->name)
        return NULL;
    const tdx_src_node *n = tdx_src_kid(callee, TDX_SRC_R_VALUE);
    while (n && n->kind == TDX_SRC_ATTRIBUTE)
        n = tdx_src_kid(n, TDX_SRC_R_VALUE);
    if (!n || n->kind != TDX_SRC_NAME || !n->name)
        return NULL;
    static const char *const roots[] = {"tl", "triton", "libdevice", "tlm", "language", NULL};
    for (const char *const *r = roots; *r; r++)
        if (strcmp(n->name, *r) == 0)
            return callee->name;
    return NULL;
}

// The last name of a NAME/ATTRIBUTE chain, or NULL.
const char *tdx_km_last_name(const tdx_src_node *n)
{
    if (n && (n->kind == TDX_SRC_NAME || n->kind == TDX_SRC_ATTRIBUTE))
        return n->name;
    return NULL;
}

// tl.int64 / tl.uint64.
int tdx_km_is_int64_dtype(const tdx_src_node *n)
{
    const char *s = tdx_km_last_name(n);
    return s && (strcmp(s, "int64") == 0 || strcmp(s, "uint64") == 0);
}

// tl.float16 / tl.bfloat16 / the fp8 types: dtypes a tl.dot runs on tensor cores.
int tdx_km_is_half_dtype(const tdx_src_node *n)
{
    const char *s = tdx_km_last_name(n);
    return s && (strcmp(s, "float16") == 0 || strcmp(s, "bfloat16") == 0 ||
                 strcmp(s, "fp16") == 0 || strcmp(s, "bf16") == 0 ||
                 strncmp(s, "float8", 6) == 0);
}


// Record the module-level assignments (the last binding of each name wins
// because lookups scan from the end).
static tdx_status collect_globals(tdx_km_file *f, const tdx_src_node *block, tdx_arena *arena,
                                  size_t *cap)
{
    for (uint32_t i = 0; i < block->nkids; i++) {
        const tdx_src_node *s = block->kids[i];
        if (s->role != TDX_SRC_R_BODY && s->role != TDX_SRC_R_ORELSE)
            continue;
        if (s->kind == TDX_SRC_IF || s->kind == TDX_SRC_TRY || s->kind == TDX_SRC_WITH) {
            tdx_status st = collect_globals(f, s, arena, cap);
            if (st)
                return st;
            continue;
        }
        if (s->kind != TDX_SRC_ASSIGN && s->kind != TDX_SRC_AUGASSIGN &&
            s->kind != TDX_SRC_ANNASSIGN)
            continue;
        const tdx_src_node *value = tdx_src_kid(s, TDX_SRC_R_VALUE);
        for (const tdx_src_node *t = tdx_src_next(s, TDX_SRC_R_TARGET, NULL); t;
             t = tdx_src_next(s, TDX_SRC_R_TARGET, t)) {
            const tdx_src_node *names[64], *vals[64];
            size_t n = 0;
            if (t->kind == TDX_SRC_NAME) {
                names[n] = t;
                vals[n++] = s->kind == TDX_SRC_AUGASSIGN ? NULL : value;
            } else if (t->kind == TDX_SRC_TUPLE || t->kind == TDX_SRC_LIST) {
                int pair = value && value->kind == t->kind && value->nkids == t->nkids;
                for (uint32_t j = 0; j < t->nkids && n < 64; j++)
                    if (t->kids[j]->kind == TDX_SRC_NAME) {
                        names[n] = t->kids[j];
                        vals[n++] = pair ? value->kids[j] : NULL;
                    }
            }
            for (size_t j = 0; j < n; j++) {
                if (f->nglobals == *cap) {
                    size_t nc = *cap ? *cap * 2 : 16;
                    const char **nn = tdx_arena_alloc(arena, nc * sizeof *nn);
                    const tdx_src_node **nv = tdx_arena_alloc(arena, nc * sizeof *nv);
                    if (!nn || !nv)
                        return TDX_ERR_NOMEM;
                    if (f->nglobals) {
                        memcpy(nn, f->global_names, f->nglobals * sizeof *nn);
                        memcpy(nv, f->global_values, f->nglobals * sizeof *nv);
                    }
                    f->global_names = nn;
                    f->global_values = nv;
                    *cap = nc;
                }
                f->global_names[f->nglobals] = names[j]->name;
                f->global_values[f->nglobals++] = vals[j];
            }
        }
    }
    return TDX_OK;
}

/* ---- kernels: parameters and decorators ------------------------------ */

// Parameters of a jit FUNCDEF.
static tdx_status read_params(tdx_km_file *f, tdx_km_kernel *k, tdx_arena *arena)
{
    size_t n = tdx_src_count(k->def, TDX_SRC_R_PARAM);
    k->params = tdx_arena_alloc(arena, (n + 1) * sizeof *k->params);
    if (!k->params)
        return TDX_ERR_NOMEM;
    size_t i = 0;
    for (const tdx_src_node *p = tdx_src_next(k->def, TDX_SRC_R_PARAM, NULL); p;
         p = tdx_src_next(k->def, TDX_SRC_R_PARAM, p)) {
        if (!p->name || (p->flags & (TDX_SRC_F_STAR | TDX_SRC_F_DSTAR)))
            continue;
        tdx_km_param *q = &k->params[i];
        q->name = p->name;
        q->index = (int)i;
        q->node = p;
        q->dflt = tdx_src_kid(p, TDX_SRC_R_DEFAULT);
        q->kind = tdx_src_param_is_constexpr(p) ? TDX_KM_PARAM_CONSTEXPR : TDX_KM_PARAM_SCALAR;
        const tdx_src_node *ann = tdx_src_kid(p, TDX_SRC_R_ANNOTATION);
        if (ann && ann->kind == TDX_SRC_STRING) {
            /* a string annotation: BLOCK: "tl.constexpr" */
            const char *text = tdx_src_string_value(f->mod, ann, arena);
            size_t tl = text ? strlen(text) : 0;
            if (tl >= 9 && strcmp(text + tl - 9, "constexpr") == 0)
                q->kind = TDX_KM_PARAM_CONSTEXPR;
        }
        if (q->dflt)
            q->has_default_value = tdx_km_fold_int(f, NULL, NULL, NULL, q->dflt,
                                                   &q->default_value);
        i++;
    }
    k->nparams = i;
    return TDX_OK;
}

// The list of configs an autotune decorator names: a literal list, a module
// variable bound to one, or a module function returning one.
static const tdx_src_node *config_list(const tdx_km_file *f, const tdx_src_node *e)
{
    for (int hop = 0; e && hop < 4; hop++) {
        if (e->kind == TDX_SRC_LIST || e->kind == TDX_SRC_TUPLE)
            return e;
        if (e->kind == TDX_SRC_NAME) {
            int found;
            e = tdx_km_binding_of(f->mod->root, e->name, NULL, &found);
        } else if (e->kind == TDX_SRC_CALL) {
            const tdx_src_node *fn = tdx_src_call_func(e);
            const tdx_src_node *def =
                (fn && fn->kind == TDX_SRC_NAME) ? tdx_src_find_def(f->mod, fn->name) : NULL;
            e = NULL;
            if (def)
                for (const tdx_src_node *s = tdx_src_next(def, TDX_SRC_R_BODY, NULL); s;
                     s = tdx_src_next(def, TDX_SRC_R_BODY, s))
                    if (s->kind == TDX_SRC_RETURN)
                        e = tdx_src_kid(s, TDX_SRC_R_VALUE);
        } else {
            return NULL;
        }
    }
    return NULL;
}

// @triton.autotune(configs=[triton.Config({...}, num_warps=..., num_stages=...)], key=...).
static tdx_status read_autotune(tdx_km_file *f, tdx_km_kernel *k, tdx_arena *arena)
{
    const tdx_src_node *d = tdx_src_decorator(k->def, "triton.autotune");
    if (!d)
        d = tdx_src_decorator(k->def, "autotune");
    if (!d)
        return TDX_OK;
    k->autotune_deco = d;
    const tdx_src_node *c = tdx_src_kid(d, TDX_SRC_R_VALUE);
    if (!c || c->kind != TDX_SRC_CALL)
        return TDX_OK;
    const tdx_src_node *list = tdx_src_call_kwarg(c, "configs");
    if (!list)
        list = tdx_src_call_arg(c, 0);
    list = config_list(f, list);
    if (!list)
        return TDX_OK;
    k->configs = tdx_arena_alloc(arena, (list->nkids + 1) * sizeof *k->configs);
    if (!k->configs)
        return TDX_ERR_NOMEM;
    k->configs_known = 1;
    for (uint32_t i = 0; i < list->nkids; i++) {
        const tdx_src_node *cfg = list->kids[i];
        const char *fname = cfg->kind == TDX_SRC_CALL ? tdx_km_last_name(tdx_src_call_func(cfg)) : NULL;
        if (!fname || strcmp(fname, "Config") != 0) {
            k->configs_known = 0;
            continue;
        }
        tdx_km_config *kc = &k->configs[k->nconfigs++];
        kc->node = cfg;
        kc->num_warps = kc->num_stages = -1;
        long long x;
        const tdx_src_node *nw = tdx_src_call_kwarg(cfg, "num_warps");
        if (!nw)
            nw = tdx_src_call_arg(cfg, 1);
        if (nw)
            kc->num_warps = tdx_km_fold_int(f, NULL, NULL, NULL, nw, &x) ? (int)x : 0;
        const tdx_src_node *ns = tdx_src_call_kwarg(cfg, "num_stages");
        if (!ns)
            ns = tdx_src_call_arg(cfg, 2);
        if (ns)
            kc->num_stages = tdx_km_fold_int(f, NULL, NULL, NULL, ns, &x) ? (int)x : 0;
        const tdx_src_node *dict = tdx_src_call_kwarg(cfg, "kwargs");
        if (!dict)
            dict = tdx_src_call_arg(cfg, 0);
        if (!dict || dict->kind != TDX_SRC_DICT)
            continue;
        size_t pairs = dict->nkids / 2;
        kc->keys = tdx_arena_alloc(arena, (pairs + 1) * sizeof *kc->keys);
        kc->values = tdx_arena_alloc(arena, (pairs + 1) * sizeof *kc->values);
        kc->known = tdx_arena_alloc(arena, (pairs + 1) * sizeof *kc->known);
        if (!kc->keys || !kc->values || !kc->known)
            return TDX_ERR_NOMEM;
        for (size_t j = 0; j + 1 < dict->nkids; j += 2) {
            const tdx_src_node *key = dict->kids[j], *val = dict->kids[j + 1];
            if (key->kind != TDX_SRC_STRING)
                continue;
            kc->keys[kc->n] = tdx_src_string_value(f->mod, key, arena);
            if (!kc->keys[kc->n])
                return TDX_ERR_NOMEM;
            kc->known[kc->n] = tdx_km_fold_int(f, NULL, NULL, NULL, val, &kc->values[kc->n]);
            kc->n++;
        }
    }
    return TDX_OK;
}

// @triton.heuristics({...}): the names it sets.
static tdx_status read_heuristics(tdx_km_file *f, tdx_km_kernel *k, tdx_arena *arena)
{
    for (const tdx_src_node *d = tdx_src_next(k->def, TDX_SRC_R_DECORATOR, NULL); d;
         d = tdx_src_next(k->def, TDX_SRC_R_DECORATOR, d)) {
        const tdx_src_node *c = tdx_src_kid(d, TDX_SRC_R_VALUE);
        if (!c || c->kind != TDX_SRC_CALL)
            continue;
        const char *name = tdx_km_last_name(tdx_src_call_func(c));
        if (!name || strcmp(name, "heuristics") != 0)
            continue;
        const tdx_src_node *dict = tdx_src_call_kwarg(c, "values");
        if (!dict)
            dict = tdx_src_call_arg(c, 0);
        if (!dict || dict->kind != TDX_SRC_DICT)
            continue;
        const char **keys = tdx_arena_alloc(arena, (k->nheuristic_keys + dict->nkids / 2 + 1) *
                                                       sizeof *keys);
        if (!keys)
            return TDX_ERR_NOMEM;
        if (k->nheuristic_keys)
            memcpy(keys, k->heuristic_keys, k->nheuristic_keys * sizeof *keys);
        for (size_t j = 0; j + 1 < dict->nkids; j += 2)
            if (dict->kids[j]->kind == TDX_SRC_STRING) {
                keys[k->nheuristic_keys] = tdx_src_string_value(f->mod, dict->kids[j], arena);
                if (keys[k->nheuristic_keys])
                    k->nheuristic_keys++;
            }
        k->heuristic_keys = keys;
    }
    return TDX_OK;
}

// @triton.jit(do_not_specialize=[...], do_not_specialize_on_alignment=[...]).
static void read_jit(tdx_km_file *f, tdx_km_kernel *k, tdx_arena *arena)
{
    for (const tdx_src_node *d = tdx_src_next(k->def, TDX_SRC_R_DECORATOR, NULL); d;
         d = tdx_src_next(k->def, TDX_SRC_R_DECORATOR, d)) {
        const tdx_src_node *e = tdx_src_kid(d, TDX_SRC_R_VALUE);
        const tdx_src_node *c = (e && e->kind == TDX_SRC_CALL) ? e : NULL;
        const char *name = tdx_km_last_name(c ? tdx_src_call_func(c) : e);
        if (!name || strcmp(name, "jit") != 0)
            continue;
        k->jit_deco = d;
        if (!c)
            continue;
        static const char *const kws[] = {"do_not_specialize", "do_not_specialize_on_alignment"};
        for (int w = 0; w < 2; w++) {
            const tdx_src_node *list = tdx_src_call_kwarg(c, kws[w]);
            if (!list || (list->kind != TDX_SRC_LIST && list->kind != TDX_SRC_TUPLE))
                continue;
            for (uint32_t i = 0; i < list->nkids; i++) {
                const tdx_src_node *it = list->kids[i];
                tdx_km_param *p = NULL;
                long long idx;
                if (it->kind == TDX_SRC_STRING) {
                    const char *s = tdx_src_string_value(f->mod, it, arena);
                    p = tdx_km_param_find(k, s);
                } else if (tdx_src_int_value(f->mod, it, &idx) == TDX_OK && idx >= 0 &&
                           (size_t)idx < k->nparams) {
                    p = &k->params[idx];
                }
                if (p) {
                    p->no_specialize = 1;
                    k->no_specialize_deco = d;
                }
            }
        }
    }
}

/* ---- launches -------------------------------------------------------- */

typedef struct launch_walk {
    tdx_km_file *f;
    tdx_arena *arena;
    tdx_km_kernel *cur;  /* the jit function being walked, or NULL */
    uint32_t cur_end;    /* where its span ends */
    tdx_status st;
} launch_walk;

// The FUNCDEF around a node, or the MODULE.
static const tdx_src_node *enclosing_scope(const tdx_src_node *n)
{
    const tdx_src_node *p = n->parent;
    while (p && p->kind != TDX_SRC_FUNCDEF)
        p = p->parent;
    if (p)
        return p;
    while (n->parent)
        n = n->parent;
    return n;
}

// One walk of the module: inside jit functions it notes the names of other
// jit functions (helpers) and `return <value>`; outside, the launch sites.
static int visit_launch(tdx_src_node *n, void *ud)
{
    launch_walk *w = ud;
    if (w->cur && n->start >= w->cur_end)
        w->cur = NULL;
    if (n->kind == TDX_SRC_FUNCDEF && !w->cur) {
        tdx_km_kernel *k = tdx_km_kernel_named(w->f, n->name);
        if (k && k->def == n) {
            w->cur = k;
            w->cur_end = n->end;
        }
        return 0;
    }
    if (w->cur) {
        /* `tl` in tl.load and `x` in x.to(...) cannot name a helper */
        if (n->kind == TDX_SRC_NAME && n->role != TDX_SRC_R_TARGET &&
            !(n->parent && n->parent->kind == TDX_SRC_ATTRIBUTE)) {
            tdx_km_kernel *h = tdx_km_kernel_named(w->f, n->name);
            if (h && h != w->cur)
                h->referenced = 1;
        } else if (n->kind == TDX_SRC_RETURN && tdx_src_kid(n, TDX_SRC_R_VALUE)) {
            w->cur->returns_value = 1;
        }
        return 0;
    }
    tdx_src_node *kexpr, *grid;
    if (n->kind != TDX_SRC_CALL || !tdx_src_is_launch(n, &kexpr, &grid))
        return 0;
    tdx_km_kernel *k = tdx_km_kernel_named(w->f, tdx_km_last_name(kexpr));
    if (!k)
        return 0;
    tdx_km_launch *l = tdx_arena_alloc(w->arena, sizeof *l);
    const tdx_src_node **args =
        tdx_arena_alloc(w->arena, (k->nparams + 1) * sizeof *args);
    if (!l || !args) {
        w->st = TDX_ERR_NOMEM;
        return -1;
    }
    l->kernel = k;
    l->call = n;
    l->grid = grid;
    l->grid_def = grid;
    l->scope = enclosing_scope(n);
    l->args = args;
    l->nargs = k->nparams;
    l->grid_size = -1;
    size_t na = tdx_src_call_nargs(n);
    for (size_t i = 0; i < na && i < k->nparams; i++) {
        const tdx_src_node *a = tdx_src_call_arg(n, i);
        if (a->kind == TDX_SRC_STARRED)
            break;
        args[i] = a;
    }
    for (const tdx_src_node *kw = tdx_src_next(n, TDX_SRC_R_KEYWORD, NULL); kw;
         kw = tdx_src_next(n, TDX_SRC_R_KEYWORD, kw)) {
        if (!kw->name)
            continue;
        const tdx_src_node *val = tdx_src_kid(kw, TDX_SRC_R_VALUE);
        tdx_km_param *p = tdx_km_param_find(k, kw->name);
        if (p)
            args[p->index] = val;
        else if (strcmp(kw->name, "num_warps") == 0)
            l->num_warps = val;
        else if (strcmp(kw->name, "num_stages") == 0)
            l->num_stages = val;
    }
    if (grid && grid->kind == TDX_SRC_NAME && l->scope->kind == TDX_SRC_FUNCDEF) {
        int found;
        const tdx_src_node *b = tdx_km_binding_of(l->scope, grid->name, n, &found);
        if (found && b)
            l->grid_def = b;
    }
    if (tdx_ptrvec_push(w->arena, &w->f->launches, l) != 0 ||
        tdx_ptrvec_push(w->arena, &k->launches, l) != 0) {
        w->st = TDX_ERR_NOMEM;
        return -1;
    }
    return 0;
}


/* ---- launch-side passes ---------------------------------------------- */

typedef struct pass_walk {
    tdx_km_file *f;
    tdx_arena *arena;
    const tdx_src_node *scope;
    tdx_status st;
} pass_walk;

// A re-layout of a tensor (see model.h).
int tdx_km_is_relayout(const tdx_src_node *obj)
{
    static const char *const calls[] = {"t", "transpose", "permute", "movedim", "swapaxes", "swapdims", NULL};
    if (!obj)
        return 0;
    if (obj->kind == TDX_SRC_ATTRIBUTE && obj->name)
        return strcmp(obj->name, "T") == 0 || strcmp(obj->name, "mT") == 0;
    const tdx_src_node *fn = obj->kind == TDX_SRC_CALL ? tdx_src_call_func(obj) : NULL;
    if (!fn || fn->kind != TDX_SRC_ATTRIBUTE || !fn->name)
        return 0;
    for (const char *const *c = calls; *c; c++)
        if (strcmp(fn->name, *c) == 0)
            return 1;
    return 0;
}

// A launch-side pass in a scope that launches a kernel: x.float(), x.to(...), x.contiguous().
static int visit_pass(tdx_src_node *n, void *ud)
{
    pass_walk *w = ud;
    if (n != w->scope && (n->kind == TDX_SRC_FUNCDEF || n->kind == TDX_SRC_CLASSDEF ||
                          n->kind == TDX_SRC_LAMBDA))
        return 1;
    if (n->kind != TDX_SRC_CALL)
        return 0;
    const tdx_src_node *fn = tdx_src_call_func(n);
    if (!fn || fn->kind != TDX_SRC_ATTRIBUTE || !fn->name)
        return 0;
    static const char *const methods[] = {"float", "half", "bfloat16", "double", "to",
                                          "contiguous", NULL};
    for (const char *const *m = methods; *m; m++) {
        if (strcmp(fn->name, *m) != 0)
            continue;
        const tdx_src_node *obj = tdx_src_kid(fn, TDX_SRC_R_VALUE);
        if (obj && (tdx_src_is_dotted(obj, "torch") || tdx_src_is_dotted(obj, "np")))
            return 0;
        if (strcmp(*m, "contiguous") == 0 && tdx_km_is_relayout(obj))
            return 0; /* a layout chosen on purpose (operand-layout's K-major copy), not a stray pass */
        tdx_km_pass *p = tdx_arena_alloc(w->arena, sizeof *p);
        if (!p || tdx_ptrvec_push(w->arena, &w->f->passes, p) != 0) {
            w->st = TDX_ERR_NOMEM;
            return -1;
        }
        p->method = *m;
        p->call = n;
        p->scope = w->scope;
        return 0;
    }
    return 0;
}

// x_ptr, xPtr, X_PTR: named like a pointer.
static int is_pointer_name(const char *s)
{
    size_t n = strlen(s);
    return (n >= 3 && (strcmp(s + n - 3, "ptr") == 0 || strcmp(s + n - 3, "Ptr") == 0 ||
                       strcmp(s + n - 3, "PTR") == 0));
}

// Build the model: kernels, decorators, launches, kernel bodies, pointer parameters, passes.
tdx_status tdx_km_build(const tdx_src_module *mod, tdx_arena *arena, tdx_km_file **out)
{
    *out = NULL;
    tdx_km_file *f = tdx_arena_alloc(arena, sizeof *f);
    if (!f)
        return TDX_ERR_NOMEM;
    f->mod = mod;
    size_t cap = 0;
    tdx_status gst = collect_globals(f, mod->root, arena, &cap);
    if (gst)
        return gst;
    tdx_ptrvec defs = {0};
    if (tdx_src_find_jit(mod, arena, &defs) < 0)
        return TDX_ERR_NOMEM;
    for (size_t i = 0; i < defs.len; i++) {
        tdx_km_kernel *k = tdx_arena_alloc(arena, sizeof *k);
        if (!k)
            return TDX_ERR_NOMEM;
        k->def = defs.items[i];
        k->name = k->def->name ? k->def->name : "";
        if (tdx_ptrvec_push(arena, &f->kernels, k) != 0)
            return TDX_ERR_NOMEM;
    }
    tdx_status st;
    for (size_t i = 0; i < f->kernels.len; i++) {
        tdx_km_kernel *k = f->kernels.items[i];
        if ((st = read_params(f, k, arena)) || (st = read_autotune(f, k, arena)) ||
            (st = read_heuristics(f, k, arena)))
            return st;
        read_jit(f, k, arena);
    }
    if (f->kernels.len == 0) {
        *out = f;
        return TDX_OK;
    }
    launch_walk lw = {f, arena, NULL, 0, TDX_OK};
    tdx_src_walk(mod->root, visit_launch, &lw);
    if (lw.st)
        return lw.st;
    for (size_t i = 0; i < f->kernels.len; i++) {
        tdx_km_kernel *k = f->kernels.items[i];
        /* a kernel cannot return a value: a jit function that does is a
         * device function (a helper), even when this file never calls it */
        if (!k->launches.len && (k->referenced || k->returns_value))
            k->is_helper = 1;
        if (k->is_helper)
            continue;
        if ((st = tdx_km_eval_kernel(f, k, arena)))
            return st;
        for (size_t j = 0; j < k->nparams; j++) {
            tdx_km_param *p = &k->params[j];
            if (p->kind != TDX_KM_PARAM_SCALAR)
                continue;
            if (is_pointer_name(p->name))
                p->kind = TDX_KM_PARAM_POINTER;
            for (size_t a = 0; a < k->accesses.len && p->kind == TDX_KM_PARAM_SCALAR; a++) {
                const tdx_km_access *acc = k->accesses.items[a];
                if (acc->addr.base && strcmp(acc->addr.base, p->name) == 0)
                    p->kind = TDX_KM_PARAM_POINTER;
            }
        }
    }
    for (size_t i = 0; i < f->launches.len; i++) {
        tdx_km_launch *l = f->launches.items[i];
        l->grid_size = tdx_km_grid_size(f, l);
        int seen = 0;
        for (size_t j = 0; j < i && !seen; j++)
            seen = ((tdx_km_launch *)f->launches.items[j])->scope == l->scope;
        if (seen)
            continue;
        pass_walk pw = {f, arena, l->scope, TDX_OK};
        tdx_src_walk((tdx_src_node *)l->scope, visit_pass, &pw);
        if (pw.st)
            return pw.st;
    }
    *out = f;
    return TDX_OK;
}

int tdx_km_names_has(const tdx_km_names *s, const char *nm)
{
    for (size_t i = 0; i < s->n; i++)
        if (strcmp(s->v[i], nm) == 0)
            return 1;
    return s->full;
}

void tdx_km_names_add(tdx_km_names *s, const char *nm)
{
    if (!nm)
        return;
    for (size_t i = 0; i < s->n; i++)
        if (strcmp(s->v[i], nm) == 0)
            return;
    if (s->n < sizeof s->v / sizeof s->v[0])
        s->v[s->n++] = nm;
    else
        s->full = 1;
}

int tdx_km_bound_visit(tdx_src_node *n, void *ud)
{
    if (tdx_src_is_bound_name(n))
        tdx_km_names_add(ud, n->name);
    return 0;
}

int tdx_km_read_visit(tdx_src_node *n, void *ud)
{
    if (tdx_src_is_name(n, NULL) && !tdx_src_is_bound_name(n))
        tdx_km_names_add(ud, n->name);
    return 0;
}

int tdx_km_name_visit(tdx_src_node *n, void *ud)
{
    if (tdx_src_is_name(n, NULL))
        tdx_km_names_add(ud, n->name);
    return 0;
}
