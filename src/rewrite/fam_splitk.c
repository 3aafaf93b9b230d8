/* split-k and split-reduction.
 *
 * split-k: a tl.dot kernel runs one program per output tile and walks the
 * whole K range in it. When M and N are small and K is long, the tiles are
 * fewer than the 132 SMs of an H200 and most SMs idle for the whole kernel
 * (one Triton program is one CTA on one SM). Splitting the K loop over a
 * third grid axis multiplies the programs by SPLIT_K; each adds its partial
 * tile into a zero-initialised fp32 buffer with tl.atomic_add (red.global.add
 * when the result is unused), and launch casts the buffer into the output.
 * fp32 partial sums keep the result within the dot's own rounding whatever
 * order the atomics land in.
 *
 * split-reduction: the same split for a loop that reduces loaded values
 * into one accumulator (`acc += x`, `acc = tl.maximum(acc, m)`,
 * `tl.minimum`) and stores it (or a scale of a sum, or a cast) once after
 * the loop -- a column reduction that walks every row in one program per
 * block of columns. Such a grid holds a few programs per SM, each with one
 * load in flight per iteration (the loop is not pipelined), so the SMs wait
 * on memory latency; SPLIT programs per block multiply what is in flight.
 * Partial sums go into a zeroed fp32 buffer with tl.atomic_add, partial
 * maxima / minima into one filled with -inf / +inf with tl.atomic_max /
 * tl.atomic_min (exact whatever the order); launch casts the buffer back.
 *
 * Each split also comes as one kernel: no filled buffer, no copy back (two
 * launches fewer). Each program stores its partial result into its own slab
 * of an fp32 workspace (torch.empty: no kernel), then counts itself in its
 * tile's counter (tl.atomic_add, acquire-release, after a barrier so the
 * whole tile's stores come first); the program that counts last adds the
 * slabs in slab order -- the result does not depend on which program came
 * last -- stores the output, and sets the counter back to zero, so the
 * counters, zeroed once by the module's _tdx_zeroed_counters and kept, are
 * zero at every launch. No program waits on another. */
#include <stdio.h>
#include <string.h>

#include "model/model.h"
#include "rewrite/fam_common.h"

/* The grid expression of a launch, following a name to its one assignment. */
static tdx_src_node *grid_of(fam_task *t, tdx_src_node *launch)
{
    tdx_src_node *grid = NULL;
    tdx_src_is_launch(launch, NULL, &grid);
    if (!tdx_src_is_name(grid, NULL))
        return grid;
    tdx_src_node *def = fam_enclosing_def(launch), *found = NULL;
    if (!def)
        return NULL;
    tdx_ptrvec assigns = {0};
    fam_collect(t, def, TDX_SRC_ASSIGN, &assigns);
    for (size_t i = 0; i < assigns.len; i++) {
        if (!tdx_src_is_name(tdx_src_kid(assigns.items[i], TDX_SRC_R_TARGET), grid->name))
            continue;
        if (found)
            return NULL;
        found = tdx_src_kid(assigns.items[i], TDX_SRC_R_VALUE);
    }
    return found;
}

/* Non-zero when a statement of def's body before `before` assigns name. */
static int assigned_before(tdx_src_node *def, const char *name, size_t before)
{
    for (tdx_src_node *s = tdx_src_next(def, TDX_SRC_R_BODY, NULL); s && s->start < before;
         s = tdx_src_next(def, TDX_SRC_R_BODY, s))
        for (tdx_src_node *tg = tdx_src_next(s, TDX_SRC_R_TARGET, NULL); tg;
             tg = tdx_src_next(s, TDX_SRC_R_TARGET, tg))
            if (tdx_src_is_name(tg, name))
                return 1;
    return 0;
}

/* Non-zero when expression e reads no name that the loop assigns (its
 * variable included). */
static int loop_invariant(fam_task *t, tdx_src_node *loop, tdx_src_node *e)
{
    tdx_ptrvec names = {0};
    fam_collect(t, e, TDX_SRC_NAME, &names);
    tdx_src_node *var = tdx_src_kid(loop, TDX_SRC_R_TARGET);
    for (size_t i = 0; i < names.len; i++) {
        tdx_src_node *n = names.items[i];
        if (tdx_src_count_name(var, n->name))
            return 0;
        for (tdx_src_node *s = tdx_src_next(loop, TDX_SRC_R_BODY, NULL); s;
             s = tdx_src_next(loop, TDX_SRC_R_BODY, s))
            for (tdx_src_node *tg = tdx_src_next(s, TDX_SRC_R_TARGET, NULL); tg;
                 tg = tdx_src_next(s, TDX_SRC_R_TARGET, tg))
                if (tdx_src_is_name(tg, n->name))
                    return 0;
    }
    return 1;
}

/* The accumulator of `acc += tl.dot(a, b)` or `acc = tl.dot(a, b, acc)`. */
static const char *dot_accumulator(const tdx_src_node *stmt, const tdx_src_node *dot)
{
    tdx_src_node *tg = tdx_src_kid(stmt, TDX_SRC_R_TARGET), *v = tdx_src_kid(stmt, TDX_SRC_R_VALUE);
    if (!tdx_src_is_name(tg, NULL) || v != dot)
        return NULL;
    if (stmt->kind == TDX_SRC_AUGASSIGN && stmt->op == TDX_OP_PLUS)
        return tg->name;
    tdx_src_node *acc = tdx_src_call_arg(dot, 2);
    if (!acc)
        acc = tdx_src_call_kwarg(dot, "acc");
    return stmt->kind == TDX_SRC_ASSIGN && tdx_src_is_name(acc, tg->name) ? tg->name : NULL;
}

/* What the loop reduces. */
typedef enum red_op { RED_DOT = 0, RED_SUM, RED_MAX, RED_MIN } red_op;

/* A split site: the loop, its accumulator and the store of the result. */
typedef struct ksite {
    red_op op;
    const char *lin;  /* the value to combine: the accumulator, or a scale of it (RED_SUM) */
    tdx_src_node *def, *loop, *store, *value;
    tdx_src_node *start, *stop, *step; /* range arguments; start and step may be NULL */
    const char *acc;
    const char *out;      /* the output pointer parameter */
    tdx_src_node *adv[4]; /* `ptrs += step` statements that walk pointers along K */
    size_t nadv;
} ksite;

/* For a sum: `acc / x` or `acc * x` with x free of acc (a scale, linear in
 * the partial sums); for any reduction: its own fold of a block
 * accumulator (`tl.sum(acc, axis=0)` of a sum, `tl.max` of a maximum). The
 * text goes into *lin. */
static int scaled_sum(fam_task *t, const ksite *k, tdx_src_node *v, const char **lin)
{
    /* tl.sum / tl.max / tl.min of a block accumulator, by the update's own operator */
    static const char *const fold[] = {NULL, "tl.sum", "tl.max", "tl.min"};
    if (k->op != RED_DOT && v && v->kind == TDX_SRC_CALL && tdx_src_is_dotted(tdx_src_call_func(v), fold[k->op]) &&
        tdx_src_is_name(tdx_src_call_arg(v, 0), k->acc)) {
        size_t n;
        const char *x = tdx_src_text(t->m, v, &n);
        *lin = tdx_arena_printf(&t->arena, "%.*s", (int)n, x);
        return *lin != NULL;
    }
    if (k->op != RED_SUM || !v || v->kind != TDX_SRC_BINOP || (v->op != TDX_OP_SLASH && v->op != TDX_OP_STAR))
        return 0;
    tdx_src_node *l = tdx_src_kid(v, TDX_SRC_R_LEFT), *r = tdx_src_kid(v, TDX_SRC_R_RIGHT);
    if (!tdx_src_is_name(l, k->acc) || !r || tdx_src_count_name(r, k->acc))
        return 0;
    size_t n;
    const char *x = tdx_src_text(t->m, v, &n);
    *lin = tdx_arena_printf(&t->arena, "(%.*s)", (int)n, x);
    return *lin != NULL;
}

/* The value stored is the accumulator or its cast: `acc`, `acc.to(...)`, or
 * a name bound once to `acc.to(...)` (for a sum, a scale of acc in place of
 * acc). Epilogues (bias, activation) are not linear in the partial sums and
 * are left alone. Sets k->lin to what the atomics combine. */
static int plain_result(fam_task *t, ksite *k, tdx_src_node *v)
{
    k->lin = k->acc;
    if (tdx_src_is_name(v, k->acc))
        return 1;
    if (scaled_sum(t, k, v, &k->lin))
        return 1;
    if (tdx_src_is_name(v, NULL)) {
        tdx_src_node *val = NULL;
        int n = 0;
        for (tdx_src_node *s = tdx_src_next(k->def, TDX_SRC_R_BODY, k->loop); s;
             s = tdx_src_next(k->def, TDX_SRC_R_BODY, s))
            for (tdx_src_node *tg = tdx_src_next(s, TDX_SRC_R_TARGET, NULL); tg;
                 tg = tdx_src_next(s, TDX_SRC_R_TARGET, tg))
                if (tdx_src_is_name(tg, v->name)) {
                    n++;
                    val = s->kind == TDX_SRC_ASSIGN ? tdx_src_kid(s, TDX_SRC_R_VALUE) : NULL;
                }
        if (n != 1 || !val)
            return 0;
        v = val;
    }
    tdx_src_node *fn = v && v->kind == TDX_SRC_CALL ? tdx_src_call_func(v) : NULL;
    if (!fn || fn->kind != TDX_SRC_ATTRIBUTE || !fn->name || strcmp(fn->name, "to") != 0)
        return 0;
    tdx_src_node *x = tdx_src_kid(fn, TDX_SRC_R_VALUE);
    return tdx_src_is_name(x, k->acc) || scaled_sum(t, k, x, &k->lin);
}

/* A reduction update directly in a loop body (tdx_km_update_of: `acc += e`,
 * `acc = acc + e` or `e + acc`, `acc = tl.maximum(acc, e)` / `tl.minimum`,
 * either order), e free of acc; returns the accumulator's name and sets *op. */
static const char *reduce_accumulator(fam_task *t, const tdx_src_node *stmt, red_op *op)
{
    tdx_km_update_op u;
    const tdx_src_node *e = NULL;
    const char *acc = tdx_km_update_of(stmt, &u, &e);
    if (!acc || tdx_src_count_name((tdx_src_node *)e, acc))
        return NULL;
    *op = u == TDX_KM_UPDATE_MAX ? RED_MAX : u == TDX_KM_UPDATE_MIN ? RED_MIN : RED_SUM;
    return acc;
}

/* The loop directly in def's body that holds the one reduction update of
 * the kernel (see reduce_accumulator), with the update's operator. */
static tdx_src_node *reduce_loop(fam_task *t, tdx_src_node *def, red_op *op, const char **acc)
{
    tdx_src_node *found = NULL;
    for (tdx_src_node *L = tdx_src_next(def, TDX_SRC_R_BODY, NULL); L; L = tdx_src_next(def, TDX_SRC_R_BODY, L)) {
        if (L->kind != TDX_SRC_FOR)
            continue;
        for (tdx_src_node *s = tdx_src_next(L, TDX_SRC_R_BODY, NULL); s; s = tdx_src_next(L, TDX_SRC_R_BODY, s)) {
            red_op o;
            const char *a = reduce_accumulator(t, s, &o);
            if (!a || !assigned_before(def, a, L->start))
                continue;
            if (found)
                return NULL; /* several accumulators (argmax's value and index): not split */
            found = L, *op = o, *acc = a;
        }
    }
    return found;
}

/* Find the K loop of a kernel (op RED_DOT) or its reduction loop (any other
 * op) and check that splitting it is exact. */
static int find_site(fam_task *t, const tdx_km_file *kf, tdx_src_node *def, ksite *k, red_op want)
{
    memset(k, 0, sizeof *k);
    k->def = def;
    k->op = want;
    tdx_ptrvec calls = {0};
    fam_collect(t, def, TDX_SRC_CALL, &calls);
    tdx_src_node *dot = NULL;
    for (size_t i = 0; i < calls.len; i++) {
        tdx_src_node *c = calls.items[i];
        char *d = tdx_src_dotted(tdx_src_call_func(c), &t->arena);
        if (!d)
            continue;
        if (strcmp(d, "tl.dot") == 0) {
            if (dot)
                return 0; /* one dot per kernel: attention-like chains are not split */
            dot = c;
        } else if (strcmp(d, "tl.store") == 0) {
            if (k->store)
                return 0;
            k->store = c;
        } else if (strncmp(d, "tl.atomic_", 10) == 0) {
            return 0;
        } else if (strcmp(d, "tl.program_id") == 0) {
            /* axis 2 is where the split goes */
            tdx_src_node *ax = tdx_src_call_arg(c, 0);
            long long a = 0;
            if (!ax)
                ax = tdx_src_call_kwarg(c, "axis");
            if (!ax || tdx_src_int_value(t->m, ax, &a) != TDX_OK || a == 2)
                return 0;
        }
    }
    if (!k->store || (want == RED_DOT) != (dot != NULL))
        return 0;
    if (want == RED_DOT) {
        /* the loop directly in the body that holds the dot, over range(start, K, step) */
        for (tdx_src_node *p = dot->parent; p && p != def; p = p->parent)
            if (p->kind == TDX_SRC_FOR || p->kind == TDX_SRC_WHILE)
                k->loop = p;
        if (!k->loop || k->loop->kind != TDX_SRC_FOR || k->loop->parent != def || !dot->parent ||
            dot->parent->parent != k->loop)
            return 0;
        k->acc = dot_accumulator(dot->parent, dot);
    } else {
        k->loop = reduce_loop(t, def, &k->op, &k->acc);
        if (!k->loop)
            return 0;
    }
    tdx_src_node *it = tdx_src_kid(k->loop, TDX_SRC_R_ITER);
    size_t na = it && it->kind == TDX_SRC_CALL ? tdx_src_call_nargs(it) : 0;
    if (na < 1 || na > 3 || (!tdx_src_is_dotted(tdx_src_call_func(it), "range") &&
                             !tdx_src_is_dotted(tdx_src_call_func(it), "tl.range")))
        return 0;
    k->start = na > 1 ? tdx_src_call_arg(it, 0) : NULL;
    k->stop = tdx_src_call_arg(it, na > 1 ? 1 : 0);
    k->step = na > 2 ? tdx_src_call_arg(it, 2) : NULL;
    for (size_t i = 0; i < na; i++)
        if (tdx_src_call_arg(it, i)->kind == TDX_SRC_STARRED)
            return 0;
    if (!k->acc || !assigned_before(def, k->acc, k->loop->start))
        return 0;
    /* the loop carries the accumulator and pointers advanced by a step that
     * does not change inside the loop (`a_ptrs += BLOCK_K * stride_ak`):
     * each split starts them pid_k steps in and advances SPLIT_K steps */
    for (tdx_src_node *s = tdx_src_next(k->loop, TDX_SRC_R_BODY, NULL); s;
         s = tdx_src_next(k->loop, TDX_SRC_R_BODY, s)) {
        if (s->kind != TDX_SRC_ASSIGN && s->kind != TDX_SRC_AUGASSIGN)
            return 0;
        for (tdx_src_node *tg = tdx_src_next(s, TDX_SRC_R_TARGET, NULL); tg;
             tg = tdx_src_next(s, TDX_SRC_R_TARGET, tg)) {
            if (!tdx_src_is_name(tg, NULL))
                return 0;
            if (strcmp(tg->name, k->acc) == 0 || !assigned_before(def, tg->name, k->loop->start))
                continue;
            if (s->kind != TDX_SRC_AUGASSIGN || s->op != TDX_OP_PLUS || k->nadv >= 4 ||
                !loop_invariant(t, k->loop, tdx_src_kid(s, TDX_SRC_R_VALUE)))
                return 0;
            k->adv[k->nadv++] = s;
        }
    }
    /* after the loop: the store of the accumulator, nothing else reads it */
    tdx_src_node *sst = k->store->parent;
    if (!sst || sst->kind != TDX_SRC_EXPR_STMT || sst->parent != def || sst->start < k->loop->end)
        return 0;
    k->value = tdx_src_call_arg(k->store, 1);
    if (!k->value || tdx_src_call_nargs(k->store) > 3 || !plain_result(t, k, k->value))
        return 0;
    for (tdx_src_node *kw = tdx_src_next(k->store, TDX_SRC_R_KEYWORD, NULL); kw;
         kw = tdx_src_next(k->store, TDX_SRC_R_KEYWORD, kw))
        if (!kw->name || strcmp(kw->name, "mask") != 0)
            return 0;
    for (tdx_src_node *s = tdx_src_next(def, TDX_SRC_R_BODY, k->loop); s; s = tdx_src_next(def, TDX_SRC_R_BODY, s)) {
        if (s == sst || !tdx_src_count_name(s, k->acc))
            continue;
        tdx_src_node *v = tdx_src_kid(s, TDX_SRC_R_VALUE);
        if (s->kind != TDX_SRC_ASSIGN || !tdx_src_is_name(k->value, NULL) ||
            !tdx_src_is_name(tdx_src_kid(s, TDX_SRC_R_TARGET), k->value->name) || !plain_result(t, k, v))
            return 0;
    }
    /* the output pointer, read nowhere else */
    for (size_t i = 0; i < kf->kernels.len; i++) {
        const tdx_km_kernel *kk = kf->kernels.items[i];
        if (kk->def != def)
            continue;
        for (size_t a = 0; a < kk->accesses.len; a++) {
            const tdx_km_access *ac = kk->accesses.items[a];
            if (ac->call == k->store)
                k->out = ac->addr.base;
        }
        for (size_t a = 0; k->out && a < kk->accesses.len; a++) {
            const tdx_km_access *ac = kk->accesses.items[a];
            if (ac->call != k->store && ac->addr.base && strcmp(ac->addr.base, k->out) == 0)
                return 0;
        }
    }
    return k->out != NULL;
}

/* Non-zero when name is bound once in def, to a fresh tensor of torch's
 * (torch.empty(...), torch.zeros_like(...), ...): no input shares its
 * memory, so it can be the kernel's accumulator when it is fp32. */
static int fresh_tensor(fam_task *t, tdx_src_node *def, const char *name)
{
    static const char *const makers[] = {"torch.empty", "torch.empty_like", "torch.zeros", "torch.zeros_like",
                                         "torch.full", "torch.full_like", "torch.empty_strided"};
    if (tdx_src_count_bindings(def, name) != 1)
        return 0;
    tdx_ptrvec as = {0};
    fam_collect(t, def, TDX_SRC_ASSIGN, &as);
    for (size_t i = 0; i < as.len; i++) {
        tdx_src_node *a = as.items[i], *v = tdx_src_kid(a, TDX_SRC_R_VALUE);
        if (!tdx_src_is_name(tdx_src_kid(a, TDX_SRC_R_TARGET), name) || tdx_src_count(a, TDX_SRC_R_TARGET) != 1 ||
            !v || v->kind != TDX_SRC_CALL)
            continue;
        for (size_t m = 0; m < sizeof makers / sizeof makers[0]; m++)
            if (tdx_src_is_dotted(tdx_src_call_func(v), makers[m]))
                return 1;
    }
    return 0;
}

static const char counters_text[] =
    "_tdx_counters = {}\n"
    "\n"
    "\n"
    "def _tdx_zeroed_counters(n, device):\n"
    "    \"\"\"At least n int32 counters on device, zero at every launch: the last program of each\n"
    "    tile sets its counter back (launches on concurrent streams need counters of their own).\"\"\"\n"
    "    buf = _tdx_counters.get(str(device))\n"
    "    if buf is None or buf.numel() < n:\n"
    "        buf = torch.zeros(max(n, 1024), dtype=torch.int32, device=device)\n"
    "        _tdx_counters[str(device)] = buf\n"
    "    return buf\n";

/* The store's pointer as text with the output pointer replaced by
 * `repl`: the store's own pointer expression, or the one value of a name
 * bound once before the store and after every write of the names it reads.
 * NULL when the output pointer is not in it exactly once. */
static char *slab_pointer(fam_task *t, const ksite *k, const char *repl)
{
    tdx_src_node *p = tdx_src_call_arg(k->store, 0);
    if (tdx_src_is_name(p, NULL) && strcmp(p->name, k->out) != 0) {
        if (tdx_src_count_bindings(k->def, p->name) != 1)
            return NULL;
        tdx_ptrvec as = {0};
        tdx_src_node *val = NULL, *bind = NULL;
        fam_collect(t, k->def, TDX_SRC_ASSIGN, &as);
        for (size_t i = 0; i < as.len; i++) {
            tdx_src_node *a = as.items[i];
            if (tdx_src_is_name(tdx_src_kid(a, TDX_SRC_R_TARGET), p->name) && tdx_src_count(a, TDX_SRC_R_TARGET) == 1 &&
                a->parent == k->def)
                bind = a, val = tdx_src_kid(a, TDX_SRC_R_VALUE);
        }
        /* bound after the loop, or before it from names the loop leaves alone */
        if (!val || (val->start < k->loop->start && !loop_invariant(t, k->loop, val)))
            return NULL;
        /* and nothing it reads bound again before the store, where it is evaluated again */
        for (tdx_src_node *s = tdx_src_next(k->def, TDX_SRC_R_BODY, bind); s && s->start < k->store->start;
             s = tdx_src_next(k->def, TDX_SRC_R_BODY, s))
            for (tdx_src_node *tg = tdx_src_next(s, TDX_SRC_R_TARGET, NULL); tg;
                 tg = tdx_src_next(s, TDX_SRC_R_TARGET, tg))
                if (tdx_src_is_name(tg, NULL) && tdx_src_count_name(val, tg->name))
                    return NULL;
        p = val;
    }
    if (!p || tdx_src_count_name(p, k->out) != 1)
        return NULL;
    tdx_ptrvec names = {0};
    fam_collect(t, p, TDX_SRC_NAME, &names);
    tdx_src_node *o = NULL;
    for (size_t i = 0; i < names.len; i++)
        if (tdx_src_is_name(names.items[i], k->out))
            o = names.items[i];
    if (!o)
        return NULL;
    size_t n;
    const char *x = tdx_src_text(t->m, p, &n);
    size_t a = o->start - p->start, b = o->end - p->start;
    return tdx_arena_printf(&t->arena, "%.*s%s%.*s", (int)a, x, repl, (int)(n - b), x + b);
}

/* The one-kernel form of a split (see the head of the file): the store
 * replaced by the slab, the count and the last program's combine, the
 * workspace and counters passed after the output pointer. Returns 0 when
 * the kernel does not allow it (the edits are then incomplete: drop e). */
static int slab_edits(fam_task *t, const ksite *k, tdx_src_node *L, tdx_src_node *stmt, tdx_src_node *out,
                      const tdx_src_node *g, tdx_src_node *tup, const char *x0, int l0, const char *x1, int l1, int ne,
                      int split, fam_edits *e)
{
    int kw = 0;
    tdx_src_node *param = tdx_src_param(k->def, k->out), *sst = k->store->parent;
    int launches = 0;
    for (size_t i = 0; i < t->launches.len; i++)
        launches += fam_launched_kernel(t, t->launches.items[i]) == k->def;
    if (!param || tdx_src_kid(param, TDX_SRC_R_DEFAULT) || launches != 1 || !fam_launch_arg(L, k->def, k->out, &kw) ||
        tdx_src_find_def(t->m, "_tdx_zeroed_counters"))
        return 0;
    char *part = slab_pointer(t, k, "(_tdx_ws_ptr + _tdx_pid_k * _tdx_ws_span)");
    size_t pl;
    const char *ptext = tdx_src_text(t->m, tdx_src_call_arg(k->store, 0), &pl);
    tdx_src_node *m = tdx_src_call_arg(k->store, 2);
    if (!m)
        m = tdx_src_call_kwarg(k->store, "mask");
    size_t ml = 0;
    const char *mtext = m ? tdx_src_text(t->m, m, &ml) : NULL;
    int ind = sst->col - 1;
    char *mask = m ? ", mask=_tdx_mask" : "", *lmask = m ? ", mask=_tdx_mask, other=0.0" : "";
    char *mdef = m ? tdx_arena_printf(&t->arena, "_tdx_mask = %.*s\n%*s", (int)ml, mtext, ind, "") : "";
    /* the grid by name: the counters follow it when retune changes a block */
    tdx_src_node *garg = NULL;
    tdx_src_is_launch(L, NULL, &garg);
    if (!garg)
        return 0;
    int named = tdx_src_is_name(garg, NULL);
    const char *gname = named ? garg->name : "_tdx_grid";
    char *gdef = named ? "" : tdx_arena_printf(&t->arena, "_tdx_grid = (%.*s, %.*s, %d)\n%*s", l0, x0, l1, x1, split,
                                               stmt->col - 1, "");
    /* a lambda over the meta-parameters has no [0] */
    if (!part || !mdef || !gdef || g->kind == TDX_SRC_LAMBDA)
        return 0;
    const char *tile = ne == 1 ? "tl.program_id(0)" : "tl.program_id(0) + tl.num_programs(0) * tl.program_id(1)";
    static const char *const combine[] = {"_tdx_red += %s", "_tdx_red += %s", "_tdx_red = tl.maximum(_tdx_red, %s)",
                                          "_tdx_red = tl.minimum(_tdx_red, %s)"};
    char *next = tdx_arena_printf(&t->arena, "tl.load(_tdx_slab + _tdx_s * _tdx_ws_span%s, cache_modifier=\".cg\")",
                                  lmask);
    char *comb = next ? tdx_arena_printf(&t->arena, combine[k->op], next) : NULL;
    char *block = comb ? tdx_arena_printf(
        &t->arena,
        "%s_tdx_part = %s\n"
        "%*stl.store(_tdx_part, %s%s)\n"
        "%*stl.debug_barrier()\n"
        "%*s_tdx_tile = %s\n"
        "%*sif tl.atomic_add(_tdx_cnt_ptr + _tdx_tile, 1) == _tdx_split_k - 1:\n"
        "%*s    _tdx_slab = _tdx_part - _tdx_pid_k * _tdx_ws_span\n"
        "%*s    _tdx_red = tl.load(_tdx_slab%s, cache_modifier=\".cg\")\n"
        "%*s    for _tdx_s in range(1, _tdx_split_k):\n"
        "%*s        %s\n"
        "%*s    tl.store(%.*s, _tdx_red.to(%s.dtype.element_ty)%s)\n"
        "%*s    tl.atomic_xchg(_tdx_cnt_ptr + _tdx_tile, 0)",
        mdef, part, ind, "", k->lin, mask, ind, "", ind, "", tile, ind, "", ind, "", ind, "", lmask, ind, "", ind, "", comb,
        ind, "", (int)pl, ptext, k->out, mask, ind, "") : NULL;
    char *pre = tdx_arena_printf(
        &t->arena,
        "%s_tdx_span = 1 + sum((d - 1) * s for d, s in zip(%s.shape, %s.stride()))\n"
        "%*s_tdx_ws = torch.empty((%s[2], _tdx_span), dtype=torch.float32, device=%s.device)\n"
        "%*s_tdx_cnt = _tdx_zeroed_counters(%s[0] * %s[1], %s.device)\n%*s",
        gdef, out->name, out->name, stmt->col - 1, "", gname, out->name, stmt->col - 1, "", gname, gname, out->name,
        stmt->col - 1, "");
    if (!block || !pre)
        return 0;
    fam_edit(t, e, tup->start, tup->end,
             named ? tdx_arena_printf(&t->arena, "(%.*s, %.*s, %d)", l0, x0, l1, x1, split) : "_tdx_grid");
    fam_edit(t, e, sst->start, sst->end, block);
    fam_edit(t, e, param->end, param->end, ", _tdx_ws_ptr, _tdx_ws_span, _tdx_cnt_ptr");
    fam_edit(t, e, out->end, out->end,
             kw ? ", _tdx_ws_ptr=_tdx_ws, _tdx_ws_span=_tdx_span, _tdx_cnt_ptr=_tdx_cnt" : ", _tdx_ws, _tdx_span, _tdx_cnt");
    fam_edit(t, e, stmt->start, stmt->start, pre);
    fam_edit(t, e, k->def->end, k->def->end,
             tdx_arena_printf(&t->arena, "\n\n\n%.*s", (int)sizeof counters_text - 2, counters_text));
    return 1;
}

static tdx_status split_launch(fam_task *t, const ksite *k, tdx_src_node *L, tdx_rw_emit_fn emit, void *ud)
{
    tdx_src_node *g = grid_of(t, L);
    tdx_src_node *tup = g && g->kind == TDX_SRC_LAMBDA ? tdx_src_kid(g, TDX_SRC_R_BODY) : g;
    size_t ne = tup && tup->kind == TDX_SRC_TUPLE ? tdx_src_count(tup, TDX_SRC_R_ELT) : 0;
    tdx_src_node *out = fam_launch_arg(L, k->def, k->out, NULL);
    tdx_src_node *stmt = L->parent;
    if (ne < 1 || ne > 2 || !tdx_src_is_name(out, NULL) || !stmt || stmt->kind != TDX_SRC_EXPR_STMT ||
        !stmt->parent || stmt->parent->kind != TDX_SRC_FUNCDEF)
        return TDX_OK;
    tdx_src_node *e0 = tdx_src_kid(tup, TDX_SRC_R_ELT), *e1 = tdx_src_next(tup, TDX_SRC_R_ELT, e0);
    size_t l0, l1 = 1;
    const char *x0 = tdx_src_text(t->m, e0, &l0), *x1 = e1 ? tdx_src_text(t->m, e1, &l1) : "1";
    int kind = k->loop->col - 1, lind = stmt->col - 1;
    long long v0 = -1, v1 = -1;
    if (k->start && k->start->kind == TDX_SRC_NUMBER)
        tdx_src_int_value(t->m, k->start, &v0);
    if (k->step && k->step->kind == TDX_SRC_NUMBER)
        tdx_src_int_value(t->m, k->step, &v1);
    const char *step = k->step ? fam_operand(t, k->step) : "1";
    /* range(start, stop, step) -> range(start + pid_k * step, stop, step * SPLIT_K) */
    char *nstart = !k->start || v0 == 0
                       ? (!k->step || v1 == 1 ? "_tdx_pid_k" : tdx_arena_printf(&t->arena, "_tdx_pid_k * %s", step))
                       : tdx_arena_printf(&t->arena, "%s + _tdx_pid_k * %s", fam_operand(t, k->start), step);
    char *nstep = !k->step || v1 == 1 ? "_tdx_split_k" : tdx_arena_printf(&t->arena, "%s * _tdx_split_k", step);
    if (!nstart || !nstep)
        return TDX_ERR_NOMEM;
    /* a K loop is short (a few thousand): a few splits fill the SMs; a
     * reduction over a whole column is long and its grid small: more */
    static const int ksplits[] = {4, 2, 8};
    int rsplits[3] = {8, 32, 4};
    if (k->op != RED_DOT) {
        /* the first split fills every SM with 16 programs (2048 threads of
         * 4 warps: an SM's limit) at the bench shape when the model can
         * follow the task there; then 4x more, then half (twice when the
         * first is already 2) */
        long long progs = fam_bench_grid(t, L);
        if (progs > 0) {
            int s = 2;
            while (s < 64 && progs * s < 16LL * 132)
                s *= 2;
            rsplits[0] = s, rsplits[1] = s * 4, rsplits[2] = s > 2 ? s / 2 : s * 2;
        }
    }
    const int *splits = k->op == RED_DOT ? ksplits : rsplits;
    int fresh = fresh_tensor(t, stmt->parent, out->name);
    static const char *const atomic[] = {"tl.atomic_add", "tl.atomic_add", "tl.atomic_max", "tl.atomic_min"};
    static const char *const fill[] = {"", "", "float(\"-inf\")", "float(\"inf\")"};
    tdx_status st = TDX_OK;
    /* each split as one kernel (slabs) and with atomics. On the H100 the
     * one-kernel split-k of matmul_fp16_small_m took 0.102 ms where the
     * atomics took 0.105 (4 splits) and 0.107 (2), while after retune the
     * column maxima of col_max_fp16 lost 1-13 % as one kernel at blocks of
     * 64 and 128 columns (bench/RESULTS.md, twenty-fourth session): the
     * one-kernel forms first for a dot, last for a reduction */
    for (size_t c = 0; c < 6 && !st; c++) {
        size_t si = c % 3;
        int slab = (c < 3) == (k->op == RED_DOT);
        fam_edits e = {0};
        /* kernel: the programs of axis 2 take every SPLIT_K-th block of K */
        char *pre = tdx_arena_printf(&t->arena, "_tdx_pid_k = tl.program_id(2)\n%*s"
                                     "_tdx_split_k = tl.num_programs(2)\n%*s", kind, "", kind, "");
        for (size_t a = 0; a < k->nadv && pre; a++) {
            tdx_src_node *tg = tdx_src_kid(k->adv[a], TDX_SRC_R_TARGET), *v = tdx_src_kid(k->adv[a], TDX_SRC_R_VALUE);
            char *inc = fam_operand(t, v);
            pre = tdx_arena_printf(&t->arena, "%s%s += _tdx_pid_k * %s\n%*s", pre, tg->name, inc, kind, "");
            fam_edit(t, &e, v->start, v->end, tdx_arena_printf(&t->arena, "%s * _tdx_split_k", inc));
        }
        if (!pre)
            return TDX_ERR_NOMEM;
        fam_edit(t, &e, k->loop->start, k->loop->start, pre);
        if (k->start)
            fam_edit(t, &e, k->start->start, k->start->end, nstart);
        else
            fam_edit(t, &e, k->stop->start, k->stop->start, tdx_arena_printf(&t->arena, "%s, ", nstart));
        if (k->step)
            fam_edit(t, &e, k->step->start, k->step->end, nstep);
        else
            fam_edit(t, &e, k->stop->end, k->stop->end, tdx_arena_printf(&t->arena, ", %s", nstep));
        if (slab) {
            if (!slab_edits(t, k, L, stmt, out, g, tup, x0, (int)l0, x1, (int)l1, (int)ne, splits[si], &e))
                continue;
            char sum[256];
            tdx_src_node *var = tdx_src_kid(k->loop, TDX_SRC_R_TARGET);
            snprintf(sum, sizeof sum, "%s: %s%s split over %d programs per %s (grid axis 2) in one kernel: fp32 "
                     "partial results in slabs, the last program of each %s combines them",
                     k->def->name ? k->def->name : "kernel", k->op == RED_DOT ? "K" : "the loop over ",
                     k->op == RED_DOT ? "" : var && var->name ? var->name : "its range", splits[si],
                     k->op == RED_DOT ? "tile" : "block", k->op == RED_DOT ? "tile" : "block");
            st = fam_emit(t, &e, emit, ud, k->op == RED_DOT ? "split-k" : "split-reduction", sum);
            continue;
        }
        tdx_src_node *fn = tdx_src_call_func(k->store);
        fam_edit(t, &e, fn->start, fn->end, atomic[k->op]);
        fam_edit(t, &e, k->value->start, k->value->end, k->lin);
        fam_set_kwarg(t, &e, k->store, "sem", "\"relaxed\"");
        /* launch: a third grid axis, an fp32 buffer, the cast back */
        fam_edit(t, &e, tup->start, tup->end,
                 tdx_arena_printf(&t->arena, "(%.*s, %.*s, %d)", (int)l0, x0, (int)l1, x1, splits[si]));
        fam_edit(t, &e, out->start, out->end, "_tdx_acc");
        /* the buffer starts at the update's identity; a fresh fp32 output
         * is its own buffer (no copy back, one launch less) */
        const char *o = out->name;
        int ext = k->op == RED_MAX || k->op == RED_MIN;
        char *acc = ext ? tdx_arena_printf(&t->arena, "torch.full_like(%s, %s, dtype=torch.float32)", o, fill[k->op])
                        : tdx_arena_printf(&t->arena, "torch.zeros_like(%s, dtype=torch.float32)", o);
        if (fresh)
            acc = tdx_arena_printf(&t->arena, "%s.%s if %s.dtype == torch.float32 else %s", o,
                                   ext ? tdx_arena_printf(&t->arena, "fill_(%s)", fill[k->op]) : "zero_()", o, acc);
        fam_edit(t, &e, stmt->start, stmt->start, tdx_arena_printf(&t->arena, "_tdx_acc = %s\n%*s", acc, lind, ""));
        fam_edit(t, &e, stmt->end, stmt->end,
                 fresh ? tdx_arena_printf(&t->arena, "\n%*sif _tdx_acc is not %s:\n%*s    %s.copy_(_tdx_acc)", lind, "",
                                          o, lind, "", o)
                       : tdx_arena_printf(&t->arena, "\n%*s%s.copy_(_tdx_acc)", lind, "", o));
        char sum[256];
        const char *kn = k->def->name ? k->def->name : "kernel";
        if (k->op == RED_DOT)
            snprintf(sum, sizeof sum, "%s: K split over %d programs per tile (grid axis 2), fp32 partial "
                     "tiles added with tl.atomic_add", kn, splits[si]);
        else
            snprintf(sum, sizeof sum, "%s: the loop over %s split over %d programs per block (grid axis 2), "
                     "fp32 partial results combined with %s", kn, tdx_src_kid(k->loop, TDX_SRC_R_TARGET)->name ?
                     tdx_src_kid(k->loop, TDX_SRC_R_TARGET)->name : "its range", splits[si], atomic[k->op]);
        st = fam_emit(t, &e, emit, ud, k->op == RED_DOT ? "split-k" : "split-reduction", sum);
    }
    return st;
}

static tdx_status split_sites(fam_task *t, red_op want, tdx_rw_emit_fn emit, void *ud)
{
    tdx_km_file *kf = NULL;
    tdx_status st = tdx_km_build(t->m, &t->arena, &kf);
    if (st)
        return st;
    for (size_t li = 0; li < t->launches.len && !st; li++) {
        tdx_src_node *L = t->launches.items[li];
        tdx_src_node *def = fam_launched_kernel(t, L);
        ksite k;
        if (def && find_site(t, kf, def, &k, want))
            st = split_launch(t, &k, L, emit, ud);
    }
    return st;
}

tdx_status fam_split_k(fam_task *t, tdx_rw_emit_fn emit, void *ud)
{
    return split_sites(t, RED_DOT, emit, ud);
}

tdx_status fam_split_reduction(fam_task *t, tdx_rw_emit_fn emit, void *ud)
{
    return split_sites(t, RED_SUM, emit, ud);
}
