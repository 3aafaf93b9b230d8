/* Per-row values gathered through a divided flat offset (tdx_km_row_gather):
 * the inference batch norm's
 *
 *     offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
 *     c = (offs // HW) % C
 *     mean = tl.load(mean_ptr + c, mask=mask)
 *
 * where every element divides its offset by a runtime extent to find its
 * row (an integer division by a register value: a few dozen instructions
 * an element) and loads its row's value through a gather, though a block of
 * BLOCK <= HW elements spans at most two rows. Read syntactically, as the
 * rewrite that uses it (row-grid) writes the pieces back as text. */
#include <string.h>

#include "model/model.h"
#include "model/model_ctx.h"

/* A call of tl.program_id(0). */
static int pid0(const tdx_src_module *m, const tdx_src_node *e)
{
    const char *fn = e && e->kind == TDX_SRC_CALL ? tdx_km_tl_name(tdx_src_call_func(e)) : NULL;
    if (!fn || strcmp(fn, "program_id") != 0)
        return 0;
    const tdx_src_node *a = tdx_km_arg_or_kw(e, 0, "axis");
    long long v = -1;
    return a && tdx_src_int_value(m, a, &v) == TDX_OK && v == 0;
}

/* Names bound once to tl.program_id(0) (P) and to P * B (S) before the
 * offsets, as Triton's tutorials write them: pid = tl.program_id(axis=0);
 * block_start = pid * BLOCK_SIZE; offsets = block_start + tl.arange(...). */
typedef struct flat {
    const char *pid, *start;
    const tdx_src_node *pid_stmt, *start_stmt, *start_block;
} flat;

/* prod is `P * B` or `B * P`, P tl.program_id(0) or the name bound to it,
 * B a name or a literal: B, else NULL. */
static const tdx_src_node *pid_times(const tdx_src_module *m, const flat *f, const tdx_src_node *prod)
{
    if (!prod || prod->kind != TDX_SRC_BINOP || prod->op != TDX_OP_STAR)
        return NULL;
    const tdx_src_node *l = tdx_src_kid(prod, TDX_SRC_R_LEFT), *r = tdx_src_kid(prod, TDX_SRC_R_RIGHT);
    int pl = pid0(m, l) || (f->pid && tdx_src_is_name(l, f->pid));
    int pr = pid0(m, r) || (f->pid && tdx_src_is_name(r, f->pid));
    const tdx_src_node *b = pl ? r : pr ? l : NULL;
    return b && (b->kind == TDX_SRC_NAME || b->kind == TDX_SRC_NUMBER) ? b : NULL;
}

/* `S + tl.arange(0, B)` (either order), S the program's first offset:
 * P * B as above, or the name bound to it; B the same name or literal in
 * both: *block gets the arange's B. */
static int flat_offsets(const tdx_src_module *m, const flat *f, const tdx_src_node *e, const tdx_src_node **block)
{
    if (!e || e->kind != TDX_SRC_BINOP || e->op != TDX_OP_PLUS)
        return 0;
    const tdx_src_node *side[2] = {tdx_src_kid(e, TDX_SRC_R_LEFT), tdx_src_kid(e, TDX_SRC_R_RIGHT)};
    for (int d = 0; d < 2; d++) {
        const tdx_src_node *first = side[d], *ar = side[1 - d];
        const char *fn = ar && ar->kind == TDX_SRC_CALL ? tdx_km_tl_name(tdx_src_call_func(ar)) : NULL;
        if (!fn || strcmp(fn, "arange") != 0 || tdx_src_call_nargs(ar) != 2)
            continue;
        const tdx_src_node *lo = tdx_src_call_arg(ar, 0), *hi = tdx_src_call_arg(ar, 1);
        long long z = -1;
        if (tdx_src_int_value(m, lo, &z) != TDX_OK || z != 0)
            continue;
        const tdx_src_node *b = f->start && tdx_src_is_name(first, f->start) ? f->start_block : pid_times(m, f, first);
        if (b && tdx_src_same_text(m, b, hi)) {
            *block = hi;
            return 1;
        }
    }
    return 0;
}

/* The row expression: `OFFS // D` once, combined with literals and
 * parameters def never rebinds by + - * // %. Sets *div to the division. */
static int row_expr(const tdx_src_node *def, const tdx_src_node *e, const char *offs, const tdx_src_node **div,
                    int depth)
{
    if (!e || depth > 8)
        return 0;
    if (e->kind == TDX_SRC_NUMBER)
        return 1;
    if (e->kind == TDX_SRC_NAME)
        return e->name && strcmp(e->name, offs) != 0 && tdx_src_param(def, e->name) &&
               tdx_src_count_bindings(def, e->name) == 0;
    if (e->kind != TDX_SRC_BINOP)
        return 0;
    const tdx_src_node *l = tdx_src_kid(e, TDX_SRC_R_LEFT), *r = tdx_src_kid(e, TDX_SRC_R_RIGHT);
    if (e->op == TDX_OP_DSLASH && tdx_src_is_name(l, offs)) {
        if (*div || !tdx_src_is_name(r, NULL) || !tdx_src_param(def, r->name) ||
            tdx_src_count_bindings(def, r->name) != 0)
            return 0;
        *div = e;
        return 1;
    }
    if (e->op != TDX_OP_PLUS && e->op != TDX_OP_MINUS && e->op != TDX_OP_STAR && e->op != TDX_OP_DSLASH &&
        e->op != TDX_OP_PERCENT)
        return 0;
    return row_expr(def, l, offs, div, depth + 1) && row_expr(def, r, offs, div, depth + 1);
}

/* tl.load whose pointer is `P + row` or `row + P`, P a parameter def never
 * rebinds. */
static int row_load(const tdx_src_node *def, const tdx_src_node *call, const char *row)
{
    const char *fn = call && call->kind == TDX_SRC_CALL ? tdx_km_tl_name(tdx_src_call_func(call)) : NULL;
    const tdx_src_node *p = fn && strcmp(fn, "load") == 0 ? tdx_km_arg_or_kw(call, 0, "pointer") : NULL;
    if (!p || p->kind != TDX_SRC_BINOP || p->op != TDX_OP_PLUS)
        return 0;
    const tdx_src_node *l = tdx_src_kid(p, TDX_SRC_R_LEFT), *r = tdx_src_kid(p, TDX_SRC_R_RIGHT);
    const tdx_src_node *base = tdx_src_is_name(r, row) ? l : tdx_src_is_name(l, row) ? r : NULL;
    return base && tdx_src_is_name(base, NULL) && strcmp(base->name, row) != 0 &&
           tdx_src_param(def, base->name) && tdx_src_count_bindings(def, base->name) == 0;
}

typedef struct uses {
    const tdx_src_module *m;
    const tdx_src_node *def;
    tdx_km_row_gather *g;
    int pids, bad;
} uses;

static int visit(tdx_src_node *e, void *ud)
{
    uses *u = ud;
    if (e->kind == TDX_SRC_CALL) {
        const char *fn = tdx_km_tl_name(tdx_src_call_func(e));
        if (fn && strcmp(fn, "program_id") == 0)
            u->pids++;
        if (fn && (strcmp(fn, "num_programs") == 0 || strncmp(fn, "atomic_", 7) == 0))
            u->bad = 1; /* the grid's shape or an order across programs */
        if (row_load(u->def, e, u->g->row)) {
            if (u->g->nloads == TDX_KM_ROW_LOADS)
                u->bad = 1;
            else
                u->g->loads[u->g->nloads++] = e;
            return 1;
        }
    }
    if (e->kind == TDX_SRC_NAME && e->name && strcmp(e->name, u->g->row) == 0 && !tdx_src_is_bound_name(e))
        u->bad = 1; /* a use other than a row load's address */
    return 0;
}

int tdx_km_row_gather_of(const tdx_src_module *m, const tdx_src_node *def, tdx_km_row_gather *g)
{
    memset(g, 0, sizeof *g);
    if (!m || !def)
        return 0;
    flat f = {0};
    for (tdx_src_node *s = tdx_src_next(def, TDX_SRC_R_BODY, NULL); s; s = tdx_src_next(def, TDX_SRC_R_BODY, s)) {
        if (s->kind != TDX_SRC_ASSIGN || tdx_src_count(s, TDX_SRC_R_TARGET) != 1)
            continue;
        const tdx_src_node *tg = tdx_src_kid(s, TDX_SRC_R_TARGET), *v = tdx_src_kid(s, TDX_SRC_R_VALUE);
        if (!tdx_src_is_name(tg, NULL))
            continue;
        if (!g->offs_stmt) {
            if (tdx_src_count_bindings(def, tg->name) != 1)
                continue;
            if (flat_offsets(m, &f, v, &g->block)) {
                g->offs_stmt = s;
                g->offs = tg->name;
            } else if (!f.pid && pid0(m, v)) {
                f.pid = tg->name;
                f.pid_stmt = s;
            } else if (!f.start && (f.start_block = pid_times(m, &f, v)) != NULL) {
                f.start = tg->name;
                f.start_stmt = s;
            }
            continue;
        }
        const tdx_src_node *div = NULL;
        if (!g->row_stmt && tdx_src_count_bindings(def, tg->name) == 1 && row_expr(def, v, g->offs, &div, 0) &&
            div) {
            g->row_stmt = s;
            g->row = tg->name;
            g->div = div;
            g->extent = tdx_src_kid(div, TDX_SRC_R_RIGHT)->name;
        }
    }
    if (!g->row_stmt || !g->offs_stmt)
        return 0;
    /* P and S feed the offsets and nothing else: the rewrite drops them */
    const char *names[2] = {f.pid, f.start};
    const tdx_src_node *stmts[2] = {f.pid_stmt, f.start_stmt};
    for (int i = 0; i < 2; i++) {
        if (!names[i] || stmts[i]->start > g->offs_stmt->start)
            continue;
        if (tdx_src_count_name(def, names[i]) != 2)
            return 0;
        g->dead[g->ndead++] = stmts[i];
    }
    uses u = {m, def, g, 0, 0};
    tdx_src_walk((tdx_src_node *)def, visit, &u);
    return u.pids == 1 && !u.bad && g->nloads > 0;
}
