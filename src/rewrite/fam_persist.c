/* persistent-grid: a grid of one program per tile becomes a grid of at most
 * k programs per SM, each looping over the tiles program_id, program_id +
 * num_programs, ... A grid of a few waves leaves most SMs idle during the
 * last one (waves = CTAs / (SMs x resident CTAs per SM)); with as many
 * programs as can be resident, every SM works until the last tile, and each
 * program's setup runs once instead of once per tile (the persistent matmul
 * of Triton's tutorials, 09-persistent-matmul.py).
 *
 * The kernel's body moves into `for _tile in tl.range(tl.program_id(0),
 * _n_tiles, tl.num_programs(0))`, with tl.program_id(0) read as _tile. The
 * tile count is the grid's expression written in the kernel's terms: each
 * name of the grid must be an argument of the launch. A 2-D grid of a tl.dot
 * kernel is flattened first: tile t is row t // n_cols, column t % n_cols.
 *
 * A body that ends by adding its tile's sum to one address,
 * `tl.atomic_add(out_ptr, tl.sum(x, axis=0))` with out_ptr a parameter (a
 * whole-tensor sum: every program's atomic on the same word), keeps the sum
 * in a register across its tiles and adds once after the loop:
 *
 *     _tdx_part = tl.zeros([], dtype=out_ptr.dtype.element_ty)
 *     for _tile in ...:
 *         ...
 *         _tdx_part += tl.sum(x, axis=0)
 *     tl.atomic_add(out_ptr, _tdx_part)
 *
 * a few atomics per SM instead of one per tile. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rewrite/fam_common.h"

/* The grid of a launch, following a name to its single assignment. */
tdx_src_node *fam_grid_of(fam_task *t, tdx_src_node *launch)
{
    tdx_src_node *grid = NULL;
    tdx_src_is_launch(launch, NULL, &grid);
    if (!grid || grid->kind != TDX_SRC_NAME || !grid->name)
        return grid;
    tdx_src_node *def = fam_enclosing_def(launch);
    if (!def)
        return NULL;
    tdx_ptrvec assigns = {0};
    fam_collect(t, def, TDX_SRC_ASSIGN, &assigns);
    tdx_src_node *found = NULL;
    for (size_t i = 0; i < assigns.len; i++) {
        tdx_src_node *tg = tdx_src_kid(assigns.items[i], TDX_SRC_R_TARGET);
        if (tg && tg->kind == TDX_SRC_NAME && tg->name && strcmp(tg->name, grid->name) == 0) {
            if (found)
                return NULL; /* assigned twice: leave it alone */
            found = tdx_src_kid(assigns.items[i], TDX_SRC_R_VALUE);
        }
    }
    return found;
}

/* The kernel parameter that receives launch argument text x (positional or
 * keyword), or NULL. */
const char *fam_param_of_arg(fam_task *t, tdx_src_node *launch, tdx_src_node *def, const char *x,
                             size_t xl)
{
    size_t i = 0;
    for (tdx_src_node *a = tdx_src_next(launch, TDX_SRC_R_ARG, NULL); a;
         a = tdx_src_next(launch, TDX_SRC_R_ARG, a), i++) {
        size_t al;
        const char *at = tdx_src_text(t->m, a, &al);
        if (al != xl || memcmp(at, x, xl) != 0 || a->kind == TDX_SRC_STARRED)
            continue;
        size_t k = 0;
        for (tdx_src_node *p = tdx_src_next(def, TDX_SRC_R_PARAM, NULL); p;
             p = tdx_src_next(def, TDX_SRC_R_PARAM, p), k++)
            if (k == i)
                return p->flags & (TDX_SRC_F_STAR | TDX_SRC_F_DSTAR) ? NULL : p->name;
    }
    for (tdx_src_node *k = tdx_src_next(launch, TDX_SRC_R_KEYWORD, NULL); k;
         k = tdx_src_next(launch, TDX_SRC_R_KEYWORD, k)) {
        tdx_src_node *v = tdx_src_kid(k, TDX_SRC_R_VALUE);
        size_t vl;
        const char *vt = v ? tdx_src_text(t->m, v, &vl) : NULL;
        if (k->name && vt && vl == xl && memcmp(vt, x, xl) == 0 && tdx_src_param(def, k->name))
            return k->name;
    }
    return NULL;
}

/* The constexpr keyword of the launch whose literal is the divisor lit of
 * cdiv(x, lit): the one whose name ends in x's last letter (BLOCK_N for
 * cdiv(N, 64)), else the only one with that literal; NULL when none, so the
 * literal stays. Naming the constexpr keeps the tile count right when the
 * block size is retuned later. */
static const char *block_for(fam_task *t, tdx_src_node *launch, tdx_src_node *def, tdx_src_node *x,
                             tdx_src_node *lit)
{
    if (!lit || lit->kind != TDX_SRC_NUMBER || !x)
        return NULL;
    size_t ll, xl;
    const char *lt = tdx_src_text(t->m, lit, &ll), *xt = tdx_src_text(t->m, x, &xl);
    const char *only = NULL;
    int count = 0;
    for (tdx_src_node *k = tdx_src_next(launch, TDX_SRC_R_KEYWORD, NULL); k;
         k = tdx_src_next(launch, TDX_SRC_R_KEYWORD, k)) {
        tdx_src_node *v = tdx_src_kid(k, TDX_SRC_R_VALUE);
        size_t vl;
        const char *vt = v ? tdx_src_text(t->m, v, &vl) : NULL;
        if (!k->name || !vt || vl != ll || memcmp(vt, lt, ll) != 0 || !tdx_src_param(def, k->name))
            continue;
        size_t nl = strlen(k->name);
        if (xl && nl && toupper((unsigned char)k->name[nl - 1]) == toupper((unsigned char)xt[xl - 1]))
            return k->name;
        only = k->name;
        count++;
    }
    return count == 1 ? only : NULL;
}

/* Write host expression e (a grid entry) in the kernel's terms into b:
 * launch arguments become the parameters they bind, triton.cdiv becomes
 * tl.cdiv, meta["X"] of a lambda grid becomes X, numbers stay. 0 when some
 * part has no kernel equivalent. */
int fam_host_to_kernel(fam_task *t, tdx_src_node *launch, tdx_src_node *def, tdx_src_node *e,
                       tdx_buf *b)
{
    size_t el;
    const char *et = tdx_src_text(t->m, e, &el);
    const char *p = e->kind == TDX_SRC_NUMBER ? NULL : fam_param_of_arg(t, launch, def, et, el);
    if (p)
        return tdx_buf_adds(b, p) == TDX_OK;
    switch (e->kind) {
    case TDX_SRC_NUMBER:
        return tdx_buf_add(b, et, el) == TDX_OK;
    case TDX_SRC_SUBSCRIPT: {
        /* meta["BLOCK"] in a lambda grid: the constexpr itself */
        tdx_src_node *v = tdx_src_kid(e, TDX_SRC_R_VALUE), *ix = tdx_src_kid(e, TDX_SRC_R_INDEX);
        char *key = ix ? tdx_src_string_value(t->m, ix, &t->arena) : NULL;
        if (!v || v->kind != TDX_SRC_NAME || !key || !tdx_src_param(def, key))
            return 0;
        tdx_src_node *lam = fam_enclosing_lambda(e);
        if (!lam || !tdx_src_param(lam, v->name))
            return 0;
        return tdx_buf_adds(b, key) == TDX_OK;
    }
    case TDX_SRC_CALL: {
        tdx_src_node *fn = tdx_src_call_func(e);
        if (!(tdx_src_is_dotted(fn, "triton.cdiv") || tdx_src_is_dotted(fn, "cdiv")) ||
            tdx_src_call_nargs(e) != 2 || tdx_src_kid(e, TDX_SRC_R_KEYWORD))
            return 0;
        tdx_buf_adds(b, "tl.cdiv(");
        if (!fam_host_to_kernel(t, launch, def, tdx_src_call_arg(e, 0), b))
            return 0;
        tdx_buf_adds(b, ", ");
        const char *blk = block_for(t, launch, def, tdx_src_call_arg(e, 0), tdx_src_call_arg(e, 1));
        if (blk)
            tdx_buf_adds(b, blk);
        else if (!fam_host_to_kernel(t, launch, def, tdx_src_call_arg(e, 1), b))
            return 0;
        return tdx_buf_adds(b, ")") == TDX_OK;
    }
    case TDX_SRC_BINOP:
    case TDX_SRC_UNARYOP: {
        /* the text between the children (operators, parentheses) stays */
        size_t pos = e->start;
        for (uint32_t i = 0; i < e->nkids; i++) {
            tdx_src_node *k = e->kids[i];
            tdx_buf_add(b, t->src + pos, k->start - pos);
            if (!fam_host_to_kernel(t, launch, def, k, b))
                return 0;
            pos = k->end;
        }
        return tdx_buf_add(b, t->src + pos, e->end - pos) == TDX_OK;
    }
    default:
        return 0;
    }
}

/* The LAMBDA enclosing n (a grid lambda), or NULL. */
tdx_src_node *fam_enclosing_lambda(const tdx_src_node *n)
{
    for (tdx_src_node *p = n->parent; p; p = p->parent)
        if (p->kind == TDX_SRC_LAMBDA)
            return p;
    return NULL;
}

/* The axis of a tl.program_id call, or -1 when it is not a constant. */
static long long pid_axis(fam_task *t, const tdx_src_node *c)
{
    tdx_src_node *a = tdx_src_call_arg(c, 0);
    if (!a)
        a = tdx_src_call_kwarg(c, "axis");
    long long x;
    return a && tdx_src_int_value(t->m, a, &x) == TDX_OK ? x : -1;
}

/* What keeps a kernel body from running once per tile inside a loop: an
 * early return would end the program's remaining tiles, and tl.num_programs
 * would read the new grid. */
static const char *const not_per_tile[] = {"tl.num_programs", NULL};
/* A helper reading the program id would still see the program, not the tile. */
static const char *const program_reads[] = {"tl.program_id", "tl.num_programs", NULL};

/* Non-zero when a node of kind k lies below root (root itself not counted). */
static int has_kind(fam_task *t, tdx_src_node *root, tdx_src_kind k)
{
    tdx_ptrvec v = {0};
    fam_collect(t, root, k, &v);
    return v.len > (root->kind == k);
}

/* The module-level statement that contains n. */
static tdx_src_node *top_stmt(tdx_src_node *n)
{
    while (n->parent && n->parent->kind != TDX_SRC_MODULE)
        n = n->parent;
    return n;
}

static const char num_sms_helper[] =
    "def _num_sms():\n"
    "    \"\"\"SMs of the current device: the unit of a persistent grid (132 on an H200).\"\"\"\n"
    "    if torch.cuda.is_available():\n"
    "        return torch.cuda.get_device_properties(torch.cuda.current_device()).multi_processor_count\n"
    "    return 132\n"
    "\n"
    "\n";

/* The kernel's body, from its first statement after a docstring to its
 * end, re-indented one level under the tile loop, with each program_id(a)
 * replaced by pid_text[a]. */
static char *loop_body(fam_task *t, tdx_src_node *first, tdx_src_node *last, const char *head,
                       const char *const pid_text[2])
{
    tdx_ptrvec calls = {0};
    for (tdx_src_node *s = first; s; s = s == last ? NULL : tdx_src_next(s->parent, TDX_SRC_R_BODY, s))
        fam_collect(t, s, TDX_SRC_CALL, &calls);
    tdx_buf b;
    tdx_buf_init(&b, 4u << 20);
    tdx_buf_adds(&b, head);
    size_t pos = first->start, ci = 0;
    while (pos < last->end) {
        while (ci < calls.len && (!tdx_src_is_dotted(tdx_src_call_func(calls.items[ci]), "tl.program_id") ||
                                  ((tdx_src_node *)calls.items[ci])->start < pos))
            ci++;
        size_t next = ci < calls.len ? ((tdx_src_node *)calls.items[ci])->start : last->end;
        if (next > last->end)
            next = last->end;
        for (; pos < next; pos++) {
            tdx_buf_addc(&b, t->src[pos]);
            if (t->src[pos] == '\n' && pos + 1 < last->end && t->src[pos + 1] != '\n')
                tdx_buf_adds(&b, "    ");
        }
        if (ci < calls.len && pos == ((tdx_src_node *)calls.items[ci])->start) {
            tdx_src_node *c = calls.items[ci];
            long long ax = pid_axis(t, c); /* 0 or 1: the caller refused other axes */
            tdx_buf_adds(&b, pid_text[ax == 1 ? 1 : 0]);
            pos = c->end;
            ci++;
        }
    }
    size_t n;
    char *s = tdx_buf_detach(&b, &n);
    char *out = s ? tdx_arena_strdup(&t->arena, s) : NULL;
    free(s);
    return out;
}

/* The body's last statement last when it is `tl.atomic_add(P, tl.sum(E[,
 * 0 | axis=0]))` with P a parameter of def and only sem / scope keywords:
 * sets *sum to the tl.sum call. NULL otherwise. */
static tdx_src_node *trailing_atomic_sum(fam_task *t, tdx_src_node *def, tdx_src_node *last, tdx_src_node **sum)
{
    *sum = NULL;
    tdx_src_node *c = last && last->kind == TDX_SRC_EXPR_STMT ? tdx_src_kid(last, TDX_SRC_R_VALUE) : NULL;
    if (!c || c->kind != TDX_SRC_CALL || !tdx_src_is_dotted(tdx_src_call_func(c), "tl.atomic_add") ||
        tdx_src_call_nargs(c) != 2)
        return NULL;
    for (tdx_src_node *k = tdx_src_next(c, TDX_SRC_R_KEYWORD, NULL); k; k = tdx_src_next(c, TDX_SRC_R_KEYWORD, k))
        if (!k->name || (strcmp(k->name, "sem") != 0 && strcmp(k->name, "scope") != 0))
            return NULL; /* a mask or anything else stays per tile */
    tdx_src_node *p = tdx_src_call_arg(c, 0), *v = tdx_src_call_arg(c, 1);
    if (!p || p->kind != TDX_SRC_NAME || !p->name || !tdx_src_param(def, p->name) || !v || v->kind != TDX_SRC_CALL ||
        !tdx_src_is_dotted(tdx_src_call_func(v), "tl.sum"))
        return NULL;
    /* the whole tile's sum: tl.sum(E), tl.sum(E, 0) or tl.sum(E, axis=0), nothing else */
    size_t na = tdx_src_call_nargs(v);
    for (tdx_src_node *k = tdx_src_next(v, TDX_SRC_R_KEYWORD, NULL); k; k = tdx_src_next(v, TDX_SRC_R_KEYWORD, k))
        if (na != 1 || !k->name || strcmp(k->name, "axis") != 0)
            return NULL;
    tdx_src_node *ax = na == 2 ? tdx_src_call_arg(v, 1) : tdx_src_call_kwarg(v, "axis");
    long long axis = 0;
    if (na < 1 || na > 2 || (ax && (tdx_src_int_value(t->m, ax, &axis) || axis)))
        return NULL;
    *sum = v;
    return c;
}

/* One launch: the candidates for k programs per SM. */
static tdx_status persist_launch(fam_task *t, tdx_src_node *L, tdx_rw_emit_fn emit, void *ud)
{
    tdx_src_node *def = fam_launched_kernel(t, L);
    tdx_src_node *g = fam_grid_of(t, L);
    if (!def || !g || fam_mentions(def, "_tile") || fam_mentions(def, "_n_tiles") ||
        fam_calls_any(def, not_per_tile) || fam_calls_helper(t, def, program_reads) ||
        has_kind(t, def, TDX_SRC_RETURN) ||
        has_kind(t, def, TDX_SRC_FUNCDEF))
        return TDX_OK;
    tdx_src_node *tup = g->kind == TDX_SRC_LAMBDA ? tdx_src_kid(g, TDX_SRC_R_BODY) : g;
    if (!tup || tup->kind != TDX_SRC_TUPLE)
        return TDX_OK;
    size_t rank = tdx_src_count(tup, TDX_SRC_R_ELT);
    static const char *const dot[] = {"tl.dot", NULL};
    if (rank < 1 || rank > 2 || (rank == 2 && !fam_calls_any(def, dot)))
        return TDX_OK;
    tdx_src_node *e0 = tdx_src_kid(tup, TDX_SRC_R_ELT);
    tdx_src_node *e1 = rank == 2 ? tdx_src_next(tup, TDX_SRC_R_ELT, e0) : NULL;
    /* every program_id reads an axis of the grid */
    tdx_ptrvec calls = {0};
    fam_collect(t, def, TDX_SRC_CALL, &calls);
    int pids = 0;
    for (size_t i = 0; i < calls.len; i++) {
        if (!tdx_src_is_dotted(tdx_src_call_func(calls.items[i]), "tl.program_id"))
            continue;
        long long a = pid_axis(t, calls.items[i]);
        if (a < 0 || a >= (long long)rank)
            return TDX_OK;
        pids++;
    }
    if (!pids)
        return TDX_OK;
    /* the tile counts in the kernel's terms */
    tdx_buf b0, b1;
    tdx_buf_init(&b0, 4096);
    tdx_buf_init(&b1, 4096);
    int ok = fam_host_to_kernel(t, L, def, e0, &b0) && (!e1 || fam_host_to_kernel(t, L, def, e1, &b1));
    char *k0 = ok ? tdx_arena_strdup(&t->arena, tdx_buf_str(&b0)) : NULL;
    char *k1 = ok && e1 ? tdx_arena_strdup(&t->arena, tdx_buf_str(&b1)) : NULL;
    tdx_buf_free(&b0);
    tdx_buf_free(&b1);
    /* a grid not written in launch arguments: pass its sizes as new
     * trailing parameters (not for a lambda grid, whose sizes need meta) */
    tdx_src_node *lastp = NULL;
    for (tdx_src_node *p = tdx_src_next(def, TDX_SRC_R_PARAM, NULL); p;
         p = tdx_src_next(def, TDX_SRC_R_PARAM, p))
        lastp = p;
    int passed = 0;
    if (!k0) {
        if (g->kind == TDX_SRC_LAMBDA || !lastp || !lastp->name || tdx_src_kid(lastp, TDX_SRC_R_DEFAULT) ||
            (lastp->flags & (TDX_SRC_F_STAR | TDX_SRC_F_DSTAR | TDX_SRC_F_SLASH)) ||
            fam_mentions(def, "_grid0") || fam_mentions(def, "_grid1"))
            return TDX_OK;
        k0 = "_grid0";
        k1 = "_grid1";
        passed = 1;
    }
    /* the body: after a docstring, starting on its own line */
    tdx_src_node *first = tdx_src_kid(def, TDX_SRC_R_BODY), *last = NULL;
    if (first && first->kind == TDX_SRC_EXPR_STMT &&
        tdx_src_kid(first, TDX_SRC_R_VALUE)->kind == TDX_SRC_STRING)
        first = tdx_src_next(def, TDX_SRC_R_BODY, first);
    for (tdx_src_node *s = first; s; s = tdx_src_next(def, TDX_SRC_R_BODY, s))
        last = s;
    if (!first || first->line == def->line || first->col < 2)
        return TDX_OK;
    int ind = first->col - 1;
    char *head;
    const char *pid_text[2];
    tdx_src_node *sum = NULL, *atomic = NULL;
    if (rank == 1 && !fam_mentions(def, "_tdx_part"))
        atomic = trailing_atomic_sum(t, def, last, &sum);
    if (rank == 1) {
        /* with the trailing atomic, the register its sum goes to */
        size_t pl = 0;
        const char *pt = atomic ? tdx_src_text(t->m, tdx_src_call_arg(atomic, 0), &pl) : "";
        char *init = atomic ? tdx_arena_printf(&t->arena, "_tdx_part = tl.zeros([], dtype=%.*s.dtype.element_ty)\n%*s",
                                               (int)pl, pt, ind, "")
                            : "";
        head = init ? tdx_arena_printf(&t->arena,
                                       "_n_tiles = %s\n%*s%sfor _tile in tl.range(tl.program_id(0), _n_tiles, "
                                       "tl.num_programs(0)):\n%*s",
                                       k0, ind, "", init, ind + 4, "")
                    : NULL;
        pid_text[0] = "_tile";
        pid_text[1] = "_tile";
    } else {
        head = tdx_arena_printf(&t->arena,
                                "_n_tiles_n = %s\n%*s_n_tiles = (%s) * _n_tiles_n\n%*sfor _tile in "
                                "tl.range(tl.program_id(0), _n_tiles, tl.num_programs(0)):\n%*s",
                                k1, ind, "", k0, ind, "", ind + 4, "");
        pid_text[0] = "(_tile // _n_tiles_n)";
        pid_text[1] = "(_tile % _n_tiles_n)";
    }
    char *body = NULL;
    if (atomic && head) {
        /* the statements before the atomic, the sum added to the register,
         * the atomic once after the loop */
        tdx_src_node *prev = NULL;
        for (tdx_src_node *st = first; st && st != last; st = tdx_src_next(def, TDX_SRC_R_BODY, st))
            prev = st;
        char *acc = loop_body(t, sum, sum, "", pid_text);
        char *lead = prev ? loop_body(t, first, prev, head, pid_text) : head;
        size_t hl, tl_;
        const char *ht = tdx_src_text(t->m, atomic, &hl), *tt = tdx_src_text(t->m, sum, &tl_);
        size_t pre = (size_t)(tt - ht), post = hl - pre - tl_;
        /* lead ends after prev's text, or (no statement before the atomic) after head's indent */
        body = acc && lead ? tdx_arena_printf(&t->arena, "%s%s%*s_tdx_part += %s\n%*s%.*s_tdx_part%.*s", lead,
                                              prev ? "\n" : "", prev ? ind + 4 : 0, "", acc, ind, "", (int)pre, ht,
                                              (int)post, tt + tl_)
                           : NULL;
    } else if (head)
        body = loop_body(t, first, last, head, pid_text);
    if (!body)
        return TDX_ERR_NOMEM;
    /* the host side: the helper once, the grid capped */
    tdx_src_node *host = top_stmt(L);
    int have_helper = tdx_src_find_def(t->m, "_num_sms") != NULL;
    size_t l0, l1 = 0;
    const char *x0 = tdx_src_text(t->m, e0, &l0), *x1 = e1 ? tdx_src_text(t->m, e1, &l1) : NULL;
    static const int per_sm[] = {2, 4, 8};
    tdx_status st = TDX_OK;
    for (size_t k = 0; k < sizeof per_sm / sizeof per_sm[0] && !st; k++) {
        fam_edits e = {0};
        fam_edit(t, &e, first->start, last->end, body);
        if (passed) {
            fam_edit(t, &e, lastp->end, lastp->end, e1 ? ", _grid0, _grid1" : ", _grid0");
            char *v0 = tdx_arena_strndup(&t->arena, x0, l0);
            char *v1 = e1 ? tdx_arena_strndup(&t->arena, x1, l1) : NULL;
            if (!v0 || (e1 && !v1))
                return TDX_ERR_NOMEM;
            fam_set_kwarg(t, &e, L, "_grid0", v0);
            if (e1)
                fam_set_kwarg(t, &e, L, "_grid1", v1);
        }
        if (!have_helper)
            fam_edit(t, &e, host->start, host->start, num_sms_helper);
        char *grid = rank == 1
                         ? tdx_arena_printf(&t->arena, "min(%.*s, %d * _num_sms())", (int)l0, x0, per_sm[k])
                         : tdx_arena_printf(&t->arena, "(min((%.*s) * (%.*s), %d * _num_sms()),)", (int)l0,
                                            x0, (int)l1, x1, per_sm[k]);
        if (!grid)
            return TDX_ERR_NOMEM;
        if (rank == 1)
            fam_edit(t, &e, e0->start, e0->end, grid);
        else
            fam_edit(t, &e, tup->start, tup->end, grid);
        char what[240];
        snprintf(what, sizeof what, "%s: persistent grid of at most %d programs per SM looping over %s tiles%s",
                 def->name ? def->name : "kernel", per_sm[k], rank == 1 ? "its" : "its flattened 2-D",
                 atomic ? ", summing them in a register and adding once after the loop" : "");
        st = fam_emit(t, &e, emit, ud, "persistent-grid", what);
    }
    return st;
}

/* The family: each launch of a kernel whose body can run once per tile. */
tdx_status fam_persistent_grid(fam_task *t, tdx_rw_emit_fn emit, void *ud)
{
    tdx_status st = TDX_OK;
    for (size_t i = 0; i < t->launches.len && !st; i++)
        st = persist_launch(t, t->launches.items[i], emit, ud);
    return st;
}
