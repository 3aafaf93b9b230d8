/* TDX015: a tl.dot kernel whose output tiles at the task's bench shape are
 * fewer than the SMs while each program walks a long K loop; TDX028: many
 * such tiles started in grid order; TDX016: a
 * kernel whose few programs each walk a whole reduction loop. The grid at
 * the bench shape comes from the model's evaluator (tdx_km_bench_grid);
 * where it cannot follow the task, the rules stay silent. */
#include <stdio.h>
#include <string.h>

#include "triage/triage_int.h"

enum { SMS = 132 };

/* The loop of the kernel that holds its tl.dot, with a runtime bound. */
static const tdx_km_op *k_loop_dot(const tdx_km_kernel *k)
{
    const tdx_km_op *dot = NULL;
    for (size_t i = 0; i < k->ops.len; i++) {
        const tdx_km_op *op = k->ops.items[i];
        if (op->kind != TDX_KM_OP_DOT)
            continue;
        if (dot)
            return NULL;
        dot = op;
    }
    return dot && dot->loop && dot->loop->runtime_bound && dot->loop->depth == 1 ? dot : NULL;
}

void tdx_tri_tiles_rule(tdx_tri *t, const tdx_km_kernel *k)
{
    const tdx_km_op *dot = k_loop_dot(k);
    if (!dot || (k->pid_axes & 4u))
        return;
    for (size_t i = 0; i < k->launches.len; i++) {
        const tdx_km_launch *l = k->launches.items[i];
        if (l->grid_size >= 0)
            continue; /* a grid known from the source is TDX009's */
        char shape[96];
        long long tiles = tdx_km_bench_grid(t->file, l, shape, sizeof shape);
        if (tiles <= 0 || tiles >= SMS)
            continue;
        tdx_finding *f = tdx_tri_add(t, "TDX015", l->call, 0, 0, k->name, 0.7,
                                     "%lld output tiles at the bench shape %s leave %lld of the 132 SMs "
                                     "idle while each program walks the whole K loop",
                                     tiles, shape, SMS - tiles);
        if (!f)
            continue;
        tdx_finding_set_hypothesis(t->ledger, f,
                                   "at most %lld%% of the SMs load operands; splitting K over a third "
                                   "grid axis gives the others work",
                                   tiles * 100 / SMS);
        tdx_finding_fact(t->ledger, f, "tiles", "%lld", tiles);
        tdx_finding_fact(t->ledger, f, "bench_shape", "%s", shape);
    }
}

/* Distinct operand tiles one wave of SMS programs reads per K step on a
 * gm x gn grid of output tiles started in groups of g rows, axis 0 first
 * within a group (g = gm: plain grid order): the rows of A tiles and the
 * columns of B tiles the wave reaches. */
static long long wave_tiles(long long gm, long long gn, long long g)
{
    long long rows, cols;
    if (SMS <= g * gn) {
        rows = g < SMS ? g : SMS;
        cols = (SMS + g - 1) / g;
    } else {
        long long groups = (SMS + g * gn - 1) / (g * gn);
        rows = groups * g < gm ? groups * g : gm;
        cols = gn;
    }
    return rows + cols;
}

void tdx_tri_tile_order_rule(tdx_tri *t, const tdx_km_kernel *k)
{
    char copy[160];
    if (!k_loop_dot(k) || k->pid_axes != 3u || !k->name ||
        (size_t)snprintf(copy, sizeof copy, "%s_tma", k->name) >= sizeof copy || tdx_src_find_def(t->file->mod, copy))
        return; /* the launch of a descriptor copy is the one to reorder */
    for (size_t i = 0; i < k->launches.len; i++) {
        const tdx_km_launch *l = k->launches.items[i];
        const tdx_src_node *g = l->grid_def;
        if (g && g->kind == TDX_SRC_LAMBDA)
            g = tdx_src_kid(g, TDX_SRC_R_BODY);
        if (!g || g->kind != TDX_SRC_TUPLE || tdx_src_count(g, TDX_SRC_R_ELT) != 2)
            continue;
        const tdx_src_node *e0 = tdx_src_kid(g, TDX_SRC_R_ELT), *e1 = tdx_src_next(g, TDX_SRC_R_ELT, e0);
        if (e0->kind != TDX_SRC_CALL || e1->kind != TDX_SRC_CALL)
            continue; /* grouped-order maps cdiv(M, BLOCK_M) x cdiv(N, BLOCK_N) */
        long long d[2];
        char shape[96];
        if (tdx_km_bench_grid_dims(t->file, l, d, 2, shape, sizeof shape) != 2 || d[0] <= 8 ||
            d[0] * d[1] < 2 * SMS)
            continue;
        long long plain = wave_tiles(d[0], d[1], d[0]), grouped = wave_tiles(d[0], d[1], 8);
        if (4 * grouped > 3 * plain)
            continue;
        tdx_finding *f = tdx_tri_add(t, "TDX028", l->call, 0, 0, k->name, 0.45,
                                     "the %lld x %lld grid of output tiles at the bench shape %s starts axis 0 "
                                     "first: a wave of %d programs reads %lld operand tiles each K step, in "
                                     "groups of 8 rows it would read %lld",
                                     d[0], d[1], shape, (int)SMS, plain, grouped);
        if (!f)
            continue;
        tdx_finding_set_hypothesis(t->ledger, f,
                                   "each wave reads A's row slabs again from DRAM; grouped, the %lld tiles it "
                                   "shares stay in L2",
                                   grouped);
        tdx_finding_fact(t->ledger, f, "grid", "%lld x %lld", d[0], d[1]);
        tdx_finding_fact(t->ledger, f, "wave_tiles", "%lld", plain);
        tdx_finding_fact(t->ledger, f, "grouped_wave_tiles", "%lld", grouped);
        tdx_finding_fact(t->ledger, f, "bench_shape", "%s", shape);
    }
}

/* The one outermost loop of a kernel without tl.dot that loads under a
 * runtime bound while every store and atomic lies outside any loop: a
 * reduction each program walks from end to end (a column sum over every
 * row); NULL when the kernel is not shaped so. */
const tdx_km_loop *tdx_tri_serial_loop(const tdx_km_kernel *k)
{
    for (size_t i = 0; i < k->ops.len; i++)
        if (((const tdx_km_op *)k->ops.items[i])->kind == TDX_KM_OP_DOT)
            return NULL;
    const tdx_km_loop *found = NULL;
    for (size_t i = 0; i < k->accesses.len; i++) {
        const tdx_km_access *a = k->accesses.items[i];
        if (a->kind != TDX_KM_LOAD) {
            if (a->loop)
                return NULL;
            continue;
        }
        const tdx_km_loop *L = a->loop;
        while (L && L->parent)
            L = L->parent;
        if (!L)
            continue;
        if (found && found != L)
            return NULL; /* several passes: single-pass-reduction's case */
        found = L;
    }
    return found && found->runtime_bound && (found->kind == TDX_KM_LOOP_RANGE || found->kind == TDX_KM_LOOP_TL_RANGE) ? found : NULL;
}

void tdx_tri_serial_rule(tdx_tri *t, const tdx_km_kernel *k)
{
    const tdx_km_loop *loop = tdx_tri_serial_loop(k);
    if (!loop || (k->pid_axes & 4u))
        return;
    for (size_t i = 0; i < k->launches.len; i++) {
        const tdx_km_launch *l = k->launches.items[i];
        if (l->grid_size >= 0)
            continue; /* a grid known from the source is TDX009's */
        char shape[96];
        long long progs = tdx_km_bench_grid(t->file, l, shape, sizeof shape);
        if (progs <= 0 || progs >= 4 * SMS)
            continue;
        tdx_finding *f = tdx_tri_add(t, "TDX016", l->call, 0, 0, k->name, 0.85,
                                     "%lld programs at the bench shape %s each walk the whole loop over %s "
                                     "and reduce it: %.1f programs per SM, one iteration's loads in flight "
                                     "in each", progs, shape, loop->var ? loop->var : "its range",
                                     (double)progs / SMS);
        if (!f)
            continue;
        tdx_finding_set_hypothesis(t->ledger, f,
                                   "the SMs wait on memory latency; splitting the loop over a third grid "
                                   "axis puts several times more loads in flight");
        tdx_finding_fact(t->ledger, f, "programs", "%lld", progs);
        tdx_finding_fact(t->ledger, f, "bench_shape", "%s", shape);
    }
}

/* The integer size of a tile axis at launch l's bench shape: a literal, or a
 * constexpr parameter's argument evaluated there; -1 when unknown. */
static long long axis_size(const tdx_tri *t, const tdx_km_kernel *k, const tdx_km_launch *l,
                           const tdx_src_node *size)
{
    long long v;
    if (!size)
        return -1;
    if (size->kind == TDX_SRC_NUMBER)
        return tdx_src_int_value(t->file->mod, size, &v) == TDX_OK ? v : -1;
    if (size->kind != TDX_SRC_NAME || !size->name)
        return -1;
    for (size_t i = 0; i < k->nparams && i < l->nargs; i++)
        if (strcmp(k->params[i].name, size->name) == 0)
            return l->args[i] && tdx_km_bench_int(t->file, l, l->args[i], &v) ? v : -1;
    return -1;
}

void tdx_tri_tiny_rule(tdx_tri *t, const tdx_km_kernel *k)
{
    if (k->loops.len || (k->pid_axes & ~1u) || !k->accesses.len)
        return;
    static const char *const folds[] = {"sum", "max", "min", "argmax", "argmin", NULL};
    for (size_t i = 0; i < k->ops.len; i++) {
        const tdx_km_op *op = k->ops.items[i];
        int ok = op->kind == TDX_KM_OP_MATH;
        for (size_t f = 0; !ok && op->kind == TDX_KM_OP_REDUCE && op->name && folds[f]; f++)
            ok = strcmp(op->name, folds[f]) == 0 && op->axis <= 0 && op->input.rank <= 1;
        if (!ok)
            return; /* dots, scans, other reductions: folding does not apply */
    }
    for (size_t i = 0; i < k->launches.len; i++) {
        const tdx_km_launch *l = k->launches.items[i];
        /* the largest tile any access touches, in elements */
        long long tile = 0;
        for (size_t a = 0; a < k->accesses.len && tile >= 0; a++) {
            const tdx_km_access *ac = k->accesses.items[a];
            long long n = 1;
            for (int x = 0; x < ac->addr.rank && x < TDX_KM_MAXRANK && n > 0; x++) {
                long long s = axis_size(t, k, l, ac->addr.axis[x].size);
                n = s > 0 ? n * s : -1;
            }
            tile = n < 0 ? -1 : n > tile ? n : tile;
        }
        if (tile <= 0 || tile > 512)
            continue;
        char shape[96];
        long long progs = l->grid_size >= 0 ? l->grid_size : tdx_km_bench_grid(t->file, l, shape, sizeof shape);
        if (progs < 32 * SMS)
            continue;
        tdx_finding *f = tdx_tri_add(t, "TDX017", l->call, 0, 0, k->name, 0.75,
                                     "%lld programs of at most %lld elements each: starting a program "
                                     "costs more than the work in it", progs, tile);
        if (!f)
            continue;
        tdx_finding_set_hypothesis(t->ledger, f,
                                   "folding R programs into one gives each a tile R times larger and "
                                   "R times fewer programs to start");
        tdx_finding_fact(t->ledger, f, "programs", "%lld", progs);
        tdx_finding_fact(t->ledger, f, "tile_elements", "%lld", tile);
    }
}

/* A loop step that moves the index by one step of the data, not by a block:
 * absent, 1, tl.num_programs(...) or a name that is not a constexpr
 * parameter (a runtime stride of a split loop). */
static int unit_like_step(const tdx_km_kernel *k, const tdx_km_loop *lp)
{
    const tdx_src_node *s = lp->step;
    if (!s || lp->step_is_one)
        return 1;
    if (s->kind == TDX_SRC_CALL)
        return tdx_src_is_dotted(tdx_src_call_func(s), "tl.num_programs");
    if (s->kind != TDX_SRC_NAME || !s->name)
        return 0;
    const tdx_km_param *p = tdx_km_param_find(k, s->name);
    return !p || p->kind != TDX_KM_PARAM_CONSTEXPR;
}

void tdx_tri_thin_loop_rule(tdx_tri *t, const tdx_km_kernel *k)
{
    for (size_t i = 0; i < k->ops.len; i++)
        if (((const tdx_km_op *)k->ops.items[i])->kind == TDX_KM_OP_DOT)
            return;
    for (size_t i = 0; i < k->accesses.len; i++) {
        const tdx_km_access *a = k->accesses.items[i];
        if (tdx_tri_naxes(&a->addr) > 1 || (a->addr.flags & TDX_KM_V_BLOCKPTR) || a->addr.rank > 1)
            return; /* 2-D tiles already: not this rule's kernel */
    }
    for (size_t li = 0; li < k->loops.len; li++) {
        const tdx_km_loop *lp = k->loops.items[li];
        if ((lp->kind != TDX_KM_LOOP_RANGE && lp->kind != TDX_KM_LOOP_TL_RANGE) || !lp->runtime_bound ||
            lp->id >= TDX_KM_MAXLOOPS || !unit_like_step(k, lp))
            continue;
        int inner = 0;
        for (size_t j = 0; j < k->loops.len; j++)
            inner |= ((const tdx_km_loop *)k->loops.items[j])->parent == lp;
        if (inner)
            continue;
        /* the loads the index drives: each one 1-D tile, no window, no gather */
        const tdx_km_access *first = NULL;
        int ok = 1;
        for (size_t j = 0; j < k->accesses.len && ok; j++) {
            const tdx_km_access *a = k->accesses.items[j];
            if (a->loop != lp || a->kind != TDX_KM_LOAD || !(a->addr.loops & (1u << lp->id)))
                continue;
            if (tdx_tri_naxes(&a->addr) != 1 || (a->addr.flags & (TDX_KM_V_WINDOW | TDX_KM_V_DATA)))
                ok = 0;
            else if (!first)
                first = a;
        }
        if (!ok || !first)
            continue;
        for (size_t j = 0; j < k->launches.len; j++) {
            const tdx_km_launch *l = k->launches.items[j];
            long long tile = -1;
            for (int x = 0; x < TDX_KM_MAXRANK; x++)
                if (first->addr.axis[x].mult != TDX_KM_MULT_NONE)
                    tile = axis_size(t, k, l, first->addr.axis[x].size);
            if (tile <= 0 || tile > 256)
                continue;
            tdx_finding *f = tdx_tri_add(t, "TDX018", lp->node, 0, 0, k->name, 0.85,
                                         "each iteration of the loop over '%s' loads one 1-D tile of %lld "
                                         "elements per program", lp->var ? lp->var : "?", tile);
            if (!f)
                break;
            tdx_finding_set_hypothesis(t->ledger, f,
                                       "one small tile in flight per iteration keeps each program "
                                       "waiting on memory latency; taking R iterations at once as the "
                                       "leading axis of a 2-D block puts R times more loads in flight");
            tdx_finding_fact(t->ledger, f, "tile_elements", "%lld", tile);
            tdx_finding_fact(t->ledger, f, "load_line", "%d", first->call->line);
            break;
        }
    }
}

/* TDX019: an fp32 dot operand whose tensor runs along M or N in memory
 * (tdx_km_mn_major_operands): the tf32 wgmma needs it K-major, so its copy
 * into shared memory transposes it element by element. */
void tdx_tri_operand_layout_rule(tdx_tri *t, const tdx_km_kernel *k)
{
    tdx_km_mn_operand ops[4];
    size_t n = tdx_km_mn_major_operands(t->file, k, ops, 4);
    for (size_t i = 0; i < n; i++) {
        const tdx_km_mn_operand *o = &ops[i];
        const char *x = o->tensor->name;
        tdx_finding *f = tdx_tri_add(t, "TDX019", o->load->call, 0, 0, k->name, 0.7,
                                     "the %s operand of tl.dot (fp32, read as tf32) comes from '%s', whose "
                                     "stride(%lld) scales K and stride(%lld) the %s axis: it is %s-contiguous, "
                                     "and the tf32 wgmma needs it K-major",
                                     o->which == 0 ? "first" : "second", x, o->k_dim, o->other_dim,
                                     o->which == 0 ? "M" : "N", o->which == 0 ? "M" : "N");
        if (!f)
            return;
        tdx_finding_set_hypothesis(t->ledger, f,
                                   "the copy into shared memory transposes the tile one 4-byte element at a "
                                   "time; passing '%s' K-major makes it 16-byte copies",
                                   x);
        tdx_finding_fact(t->ledger, f, "tensor", "%s", x);
        tdx_finding_fact(t->ledger, f, "operand", "%d", o->which);
        tdx_finding_fact(t->ledger, f, "k_dim", "%lld", o->k_dim);
        tdx_finding_fact(t->ledger, f, "other_dim", "%lld", o->other_dim);
    }
}

/* TDX020: a grid axis whose programs each pick scalar loads and their own
 * output, while the tiles loaded in the kernel's loop do not depend on it:
 * every program along the axis loads the same tiles again (a direct
 * convolution with one program per output channel). */
void tdx_tri_shared_tile_rule(tdx_tri *t, const tdx_km_kernel *k)
{
    for (size_t i = 0; i < k->ops.len; i++)
        if (((const tdx_km_op *)k->ops.items[i])->kind == TDX_KM_OP_DOT)
            return;
    for (int axis = 1; axis <= 2; axis++) {
        uint32_t bit = 1u << axis;
        if (!(k->pid_addr & bit))
            continue;
        const tdx_km_access *shared = NULL;
        int ok = 1, stores = 0;
        for (size_t i = 0; i < k->accesses.len && ok; i++) {
            const tdx_km_access *a = k->accesses.items[i];
            int picked = (a->addr.pids & bit) != 0;
            if (a->kind == TDX_KM_ATOMIC || (a->kind == TDX_KM_STORE && !picked))
                ok = 0; /* an atomic, or a store every program along the axis makes */
            else if (a->kind == TDX_KM_STORE)
                stores++;
            else if (picked)
                ok = a->addr.rank == 0 && tdx_tri_naxes(&a->addr) == 0; /* a scalar it picks */
            else if (a->loop && tdx_tri_naxes(&a->addr) >= 1 && !shared)
                shared = a;
        }
        if (!ok || !shared || !stores)
            continue;
        for (size_t j = 0; j < k->launches.len; j++) {
            const tdx_km_launch *l = k->launches.items[j];
            const tdx_src_node *g = l->grid_def;
            if (!g || g->kind != TDX_SRC_TUPLE)
                continue;
            const tdx_src_node *e = tdx_src_kid(g, TDX_SRC_R_ELT);
            for (int x = 0; x < axis && e; x++)
                e = tdx_src_next(g, TDX_SRC_R_ELT, e);
            long long n = 0;
            if (!e || !tdx_km_bench_int(t->file, l, e, &n) || n < 8)
                continue;
            tdx_finding *f = tdx_tri_add(t, "TDX020", shared->call, 0, 0, k->name, 0.8,
                                         "the %lld programs along grid axis %d each load this tile again: it "
                                         "does not depend on program_id(%d), which only picks scalar loads and "
                                         "the output",
                                         n, axis, axis);
            if (!f)
                return;
            tdx_finding_set_hypothesis(t->ledger, f,
                                       "each element is read %lld times and each multiply-add waits on a load; "
                                       "R programs folded into one load the tile once for R outputs",
                                       n);
            tdx_finding_fact(t->ledger, f, "programs", "%lld", n);
            tdx_finding_fact(t->ledger, f, "axis", "%d", axis);
            return;
        }
    }
}

/* TDX021: a statement that reduces its loop iteration's whole tile into a
 * float scalar (tdx_km_deferrable), or a running arg-max that reduces it
 * twice (tdx_km_argdeferrable) -- the statements defer-reduction rewrites:
 * each iteration pays a cross-warp reduction through shared memory. A
 * tl.dot loop is left alone: its time goes to the dot. */
void tdx_tri_defer_rule(tdx_tri *t, const tdx_km_kernel *k)
{
    tdx_km_deferred d[16];
    size_t n = tdx_km_deferrable(t->file, k, d, 16);
    for (size_t i = 0; i < n; i++) {
        const tdx_src_node *L = d[i].loop;
        char shape[160];
        (void)tdx_km_deferred_shape(t->file->mod, &d[i], " x ", shape, sizeof shape); /* cut when longer */
        char along[32] = "";
        if (d[i].axis >= 0)
            snprintf(along, sizeof along, " along axis %d", d[i].axis);
        const tdx_src_node *var = tdx_src_kid(L, TDX_SRC_R_TARGET);
        tdx_finding *f = tdx_tri_add(t, "TDX021", d[i].op->call, 0, 0, k->name, 0.35,
                                     "each iteration of the loop over '%s' reduces its %s tile%s into '%s' "
                                     "with tl.%s",
                                     var && var->kind == TDX_SRC_NAME ? var->name : "?", shape,
                                     along, d[i].acc, d[i].op->name);
        if (!f)
            return;
        tdx_finding_set_hypothesis(t->ledger, f,
                                   "each iteration reduces its tile across the warps through shared memory, "
                                   "with a barrier before the next iteration's loads are used; an elementwise "
                                   "accumulator defers the one reduction to after the loop");
        tdx_finding_fact(t->ledger, f, "accumulator", "%s", d[i].acc);
        tdx_finding_fact(t->ledger, f, "reduction", "%s", d[i].op->name);
        tdx_finding_fact(t->ledger, f, "tile", "%s", shape);
    }
    tdx_km_argdeferred a[16];
    n = tdx_km_argdeferrable(t->file, k, a, 16);
    for (size_t i = 0; i < n; i++) {
        size_t sl;
        const char *size = tdx_src_text(t->file->mod, a[i].size, &sl);
        const char *red = a[i].is_min ? "min" : "max";
        tdx_finding *f = tdx_tri_add(t, "TDX021", a[i].op->call, 0, 0, k->name, 0.35,
                                     "each iteration of the loop over '%s' reduces its %.*s tile twice, with "
                                     "tl.%s and tl.arg%s, into '%s' and '%s'",
                                     a[i].var, (int)sl, size, red, red, a[i].best, a[i].best_idx);
        if (!f)
            return;
        tdx_finding_set_hypothesis(t->ledger, f,
                                   "each iteration reduces its tile across the warps twice, through shared "
                                   "memory, before the next iteration's loads are used; the best value and its "
                                   "first index kept per lane defer the one reduction to after the loop");
        tdx_finding_fact(t->ledger, f, "accumulator", "%s, %s", a[i].best, a[i].best_idx);
        tdx_finding_fact(t->ledger, f, "reduction", "arg%s", red);
        tdx_finding_fact(t->ledger, f, "tile", "%.*s", (int)sl, size);
    }
}

/* TDX022: a loop with a tl.dot whose masks only its last blocks need
 * (tdx_km_peelable, the loops the peel-masks family splits). Loops without
 * a dot are left out: a memory-bound loop hides its compares behind the
 * loads. */
void tdx_tri_peel_rule(tdx_tri *t, const tdx_km_kernel *k)
{
    tdx_km_peel p[8];
    size_t n = tdx_km_peelable(t->file->mod, k->def, p, 8);
    for (size_t i = 0; i < n; i++) {
        const tdx_src_node *L = p[i].loop;
        if (!tdx_km_loop_has_dot(k, L))
            continue;
        char bounds[200] = "";
        size_t used = 0;
        for (size_t b = 0; b < p[i].nbound && used < sizeof bounds; b++) {
            size_t l;
            const char *s = tdx_src_text(t->file->mod, p[i].bound[b], &l);
            used += (size_t)snprintf(bounds + used, sizeof bounds - used, "%s%.*s", b ? ", " : "", (int)l, s);
        }
        const tdx_src_node *var = tdx_src_kid(L, TDX_SRC_R_TARGET);
        tdx_finding *f = tdx_tri_add(t, "TDX022", p[i].site[0], 0, 0, k->name, 0.5,
                                     "the loop over '%s' masks every block (%zu site%s), though only blocks past "
                                     "%s%s need it",
                                     var && var->kind == TDX_SRC_NAME ? var->name : "?", p[i].nsite,
                                     p[i].nsite == 1 ? "" : "s", p[i].nbound > 1 ? "min of " : "", bounds);
        if (!f)
            return;
        tdx_finding_set_hypothesis(t->ledger, f,
                                   "the compares, selects and predicated loads of the masks run on every block, "
                                   "between the MMAs; a loop over the blocks before the bound needs none of them");
        tdx_finding_fact(t->ledger, f, "bounds", "%s", bounds);
        tdx_finding_fact(t->ledger, f, "masks", "%zu", p[i].nsite);
        tdx_finding_fact(t->ledger, f, "diagonal", "%s", p[i].diagonal ? "yes" : "no");
    }
}

/* TDX023: atomics whose acq_rel ordering serves nothing (tdx_km_relaxable,
 * the ones the relax-atomics family relaxes). One finding per kernel, at
 * its first such atomic. */
void tdx_tri_atomic_rule(tdx_tri *t, const tdx_km_kernel *k)
{
    const tdx_src_node *site[TDX_KM_ATOMIC_MAX];
    size_t n = tdx_km_relaxable(k->def, site, TDX_KM_ATOMIC_MAX);
    if (!n)
        return;
    const tdx_src_node *callee = tdx_src_call_func(site[0]);
    const char *fn = callee && callee->kind == TDX_SRC_ATTRIBUTE ? callee->name : NULL;
    tdx_finding *f = tdx_tri_add(t, "TDX023", site[0], 0, 0, k->name, 0.6,
                                 "tl.%s's result is unused, yet it orders memory as acq_rel (%zu such atomic%s "
                                 "in '%s')",
                                 fn ? fn : "atomic_add", n, n == 1 ? "" : "s", k->name);
    if (!f)
        return;
    tdx_finding_set_hypothesis(t->ledger, f,
                               "each acq_rel atomic waits for its old value behind a GPU-wide memory barrier and "
                               "an L1 invalidate; relaxed, it is a fire-and-forget reduction (REDG)");
    tdx_finding_fact(t->ledger, f, "atomics", "%zu", n);
}

/* TDX031: a kernel without loops on a 1-D grid whose every program adds
 * its tile's tl.sum with one unmasked tl.atomic_add to an address no program
 * id reaches (a whole-tensor sum), launched with more than 8 programs per SM
 * at the bench shape: persistent-grid's register sum. */
void tdx_tri_atomic_tile_rule(tdx_tri *t, const tdx_km_kernel *k)
{
    if (k->loops.len || k->pid_axes != 1u)
        return;
    const tdx_km_access *at = NULL;
    for (size_t i = 0; i < k->accesses.len; i++) {
        const tdx_km_access *a = k->accesses.items[i];
        if (a->kind != TDX_KM_ATOMIC)
            continue;
        if (at)
            return; /* several atomics: not one sum */
        at = a;
    }
    const tdx_src_node *v = at ? tdx_src_call_arg(at->call, 1) : NULL;
    if (!at || !at->op || strcmp(at->op, "atomic_add") != 0 || at->mask || at->helper || at->addr.pids ||
        at->addr.rank || !v || v->kind != TDX_SRC_CALL || !tdx_src_is_dotted(tdx_src_call_func(v), "tl.sum"))
        return;
    for (size_t i = 0; i < k->launches.len; i++) {
        const tdx_km_launch *l = k->launches.items[i];
        char shape[96];
        long long progs = tdx_km_bench_grid(t->file, l, shape, sizeof shape);
        if (progs <= 8 * SMS)
            continue;
        tdx_finding *f = tdx_tri_add(t, "TDX031", at->call, 0, 0, k->name, 0.55,
                                     "each of the %lld programs at the bench shape %s reduces one tile and adds "
                                     "it to the same address: %lld atomics on one word",
                                     progs, shape, progs);
        if (!f)
            continue;
        tdx_finding_set_hypothesis(t->ledger, f,
                                   "a program, a block-wide reduction and an atomic per tile; a persistent grid "
                                   "of at most 8 programs per SM sums its tiles in a register and adds once: "
                                   "at most %d atomics",
                                   8 * SMS);
        tdx_finding_fact(t->ledger, f, "programs", "%lld", progs);
        tdx_finding_fact(t->ledger, f, "bench_shape", "%s", shape);
        return;
    }
}

/* TDX024: a loop over a reduction index that adds one outer product of a
 * column and a row per value (tdx_km_dot_accumulable, the loops the
 * dot-accumulate family rewrites). */
void tdx_tri_dotacc_rule(tdx_tri *t, const tdx_km_kernel *k)
{
    tdx_km_dotacc d[4];
    size_t n = tdx_km_dot_accumulable(t->file, k, d, 4);
    for (size_t i = 0; i < n; i++) {
        size_t bl;
        const char *bt = tdx_src_text(t->file->mod, d[i].bound, &bl);
        tdx_finding *f = tdx_tri_add(t, "TDX024", d[i].stmt, 0, 0, k->name, 0.6,
                                     "each value of '%s' (the loop to %.*s) adds the outer product of a %lld-row "
                                     "column and a %lld-element row into '%s', one rank-1 update at a time",
                                     d[i].var, (int)(bl > 60 ? 60 : bl), bt, d[i].rows, d[i].cols, d[i].acc);
        if (!f)
            return;
        tdx_finding_set_hypothesis(t->ledger, f,
                                   "the loop is a %lld x %lld matrix product over '%s' computed without tl.dot: "
                                   "every update waits on its two loads; tl.dot of 16 values at a time blocks "
                                   "both operands in registers",
                                   d[i].rows, d[i].cols, d[i].var);
        tdx_finding_fact(t->ledger, f, "index", "%s", d[i].var);
        tdx_finding_fact(t->ledger, f, "rows", "%lld", d[i].rows);
        tdx_finding_fact(t->ledger, f, "columns", "%lld", d[i].cols);
    }
}

/* The value of kernel expression e (a literal, or a parameter through the
 * first launch that passes it, or its default) at the bench shape. */
static int bench_value(const tdx_tri *t, const tdx_km_kernel *k, const tdx_src_node *e, long long *v)
{
    if (e && e->kind == TDX_SRC_NUMBER)
        return tdx_src_int_value(t->file->mod, e, v) == TDX_OK;
    const tdx_km_param *p = e && e->kind == TDX_SRC_NAME ? tdx_km_param_find(k, e->name) : NULL;
    if (p && tdx_km_param_bench_int(t->file, k, e->name, v))
        return 1;
    if (p && p->has_default_value) {
        *v = p->default_value;
        return 1;
    }
    return 0;
}

/* An axis of an operand whose tile is longer than the tensor at the bench
 * shape (M = 16 rows under BLOCK_M = 64): most of each box is padding. On
 * the H200 the descriptor copy of such a matmul was slower (small_m: 0.195
 * against 0.189 ms) and took a candidate slot from retune. */
static int tile_past_tensor(const tdx_tri *t, const tdx_km_kernel *k, const tdx_km_tma_operand *o)
{
    for (int ax = 0; ax < 2; ax++) {
        long long bound, size;
        if (bench_value(t, k, o->axis[ax].bound, &bound) && bench_value(t, k, o->axis[ax].size, &size) &&
            bound < size)
            return 1;
    }
    return 0;
}

/* TDX025: a tl.dot loop whose operands a tensor descriptor can load
 * (tdx_km_tma_loads, the loops the tensor-descriptors family rewrites).
 * A kernel that already has its descriptor copy (NAME_tma) is left out, and
 * so is a loop with an operand tile longer than its tensor at the bench
 * shape. */
void tdx_tri_tma_rule(tdx_tri *t, const tdx_km_kernel *k)
{
    tdx_km_tma s[2];
    size_t n = tdx_km_tma_loads(t->file->mod, k->def, s, 2);
    char copy[160];
    snprintf(copy, sizeof copy, "%s_tma", k->name ? k->name : "");
    if (!n || tdx_src_find_def(t->file->mod, copy))
        return;
    for (size_t i = 0; i < n; i++) {
        const tdx_km_tma_operand *a = &s[i].op[0], *b = &s[i].op[1];
        if (tile_past_tensor(t, k, a) || tile_past_tensor(t, k, b))
            continue;
        tdx_finding *f = tdx_tri_add(t, "TDX025", s[i].dot, 0, 0, k->name, 0.6,
                                     "tl.dot's operands are loaded through masked pointers from '%s' and '%s': "
                                     "cp.async copies every thread issues, where a tensor descriptor would hand "
                                     "each tile to the TMA unit",
                                     a->base, b->base);
        if (!f)
            return;
        tdx_finding_set_hypothesis(t->ledger, f,
                                   "the warps that issue the wgmma also compute addresses and predicates and "
                                   "issue 16-byte copies for every tile; a TMA load is one instruction a tile");
        tdx_finding_fact(t->ledger, f, "operands", "%s, %s", a->base, b->base);
        tdx_finding_fact(t->ledger, f, "load_line", "%d", a->load->line);
    }
}

/* Whether scaling site s's operand would move it from shared memory to
 * registers: on sm_90 a tl.dot of 64 rows or more is a wgmma, which reads its
 * first operand (A) from shared memory when it comes from a load, and from
 * registers when an elementwise op computes it. On the H200 the hoisted
 * q * sm_scale of the suite's attentions took the wgmma's register form, 128
 * -> 132 registers a thread at 8 warps (two blocks an SM -> one), and ran 7 %
 * and 33 % slower (bench/RESULTS.md, seventeenth session). The second operand
 * (B) always goes through shared memory: scaled once, it is stored there
 * once. Rows or warps unknown count as a wgmma. */
static int hoist_takes_registers(const tdx_tri *t, const tdx_km_kernel *k, const tdx_km_scaled_dot *s)
{
    if (s->operand != tdx_src_call_arg(s->dot, 0))
        return 0;
    /* wgmma needs warps in groups of 4 (AccelerateMatmul.cpp): with 2 at
     * every launch the dot is an mma.sync, its operands in registers anyway */
    int mma_v2 = k->launches.len > 0;
    for (size_t i = 0; i < k->launches.len && mma_v2; i++) {
        const tdx_km_launch *l = k->launches.items[i];
        long long w;
        mma_v2 = l->num_warps && tdx_km_bench_int(t->file, l, l->num_warps, &w) && w > 0 && w % 4 != 0;
    }
    if (mma_v2)
        return 0;
    for (size_t i = 0; i < k->ops.len; i++) {
        const tdx_km_op *op = k->ops.items[i];
        long long m;
        if (op->kind == TDX_KM_OP_DOT && op->call == s->dot)
            return !(bench_value(t, k, op->dim_m, &m) && m > 0 && m < 64);
    }
    return 1;
}

/* TDX026: a loop-invariant scale of a tl.dot result inside a loop
 * (tdx_km_scaled_dots, the products the hoist-scale family rewrites) whose
 * operand stays where the MMA reads it (hoist_takes_registers); one finding
 * per kernel, at its first such product. Less confident than exp2 (TDX014,
 * 0.4): in the attention's key loop tl.exp's range reduction costs an FSETP
 * and two FMULs a score (exp2 takes 502 SASS instructions to 370), the scale
 * one FMUL (hoist-scale: 370 to 349), so a round of two candidates tries exp2
 * first. */
void tdx_tri_scaled_dot_rule(tdx_tri *t, const tdx_km_kernel *k)
{
    tdx_km_scaled_dot s[4];
    size_t n = tdx_km_scaled_dots(t->file->mod, k->def, s, 4), at = 0;
    while (at < n && hoist_takes_registers(t, k, &s[at]))
        at++;
    if (at == n)
        return;
    size_t cl;
    const char *c = tdx_src_text(t->file->mod, s[at].scale, &cl);
    tdx_finding *f = tdx_tri_add(t, "TDX026", s[at].product, 0, 0, k->name, 0.35,
                                 "the loop multiplies tl.dot's whole result by %.*s each iteration; scaling "
                                 "'%s' once before the loop gives the same product",
                                 (int)(cl > 60 ? 60 : cl), c, s[at].operand->name);
    if (!f)
        return;
    tdx_finding_set_hypothesis(t->ledger, f,
                               "one FMUL per element of every iteration's dot result, beside the softmax's "
                               "own arithmetic; on the operand it is one multiply per element of a tile, once");
    tdx_finding_fact(t->ledger, f, "operand", "%s", s[at].operand->name);
    tdx_finding_fact(t->ledger, f, "products", "%zu", n);
}

/* TDX027: a flat kernel that finds each element's row by a division and
 * gathers the row's values (tdx_km_row_gather_of, the shape row-grid
 * rewrites); quiet when the bench shape's rows are shorter than the block
 * (a 2-D grid would idle most lanes). */
void tdx_tri_row_division_rule(tdx_tri *t, const tdx_km_kernel *k)
{
    tdx_km_row_gather g;
    if (!tdx_km_row_gather_of(t->file->mod, k->def, &g))
        return;
    long long d, b;
    if (tdx_km_param_bench_int(t->file, k, g.extent, &d) && bench_value(t, k, g.block, &b) && d > 0 && d < b)
        return;
    size_t dl;
    const char *dt = tdx_src_text(t->file->mod, g.div, &dl);
    tdx_finding *f = tdx_tri_add(t, "TDX027", g.div, 0, 0, k->name, 0.6,
                                 "every element computes %.*s to find its row and loads %zu per-row value%s "
                                 "through '%s', one address an element",
                                 (int)(dl > 60 ? 60 : dl), dt, g.nloads, g.nloads == 1 ? "" : "s", g.row);
    if (!f)
        return;
    tdx_finding_set_hypothesis(t->ledger, f,
                               "an integer division by a register value and %zu gather%s an element, where a "
                               "program of a 2-D grid of rows would load each value once",
                               g.nloads, g.nloads == 1 ? "" : "s");
    tdx_finding_fact(t->ledger, f, "extent", "%s", g.extent);
    tdx_finding_fact(t->ledger, f, "row_loads", "%zu", g.nloads);
}

/* TDX029: a last pass that reads a range again in the order an earlier pass
 * read it, its iterations independent (tdx_km_reversible, the loops the
 * reverse-pass family turns around). Confidence 0.38: below exp2's 0.4 (an
 * instruction saved on every element) since it pays only when the rows the
 * programs read at once exceed L2, above defer-reduction's 0.35. */
void tdx_tri_reverse_rule(tdx_tri *t, const tdx_km_kernel *k)
{
    tdx_km_rev r[4];
    size_t n = tdx_km_reversible(t->file->mod, k->def, r, 4);
    for (size_t i = 0; i < n; i++) {
        tdx_finding *f = tdx_tri_add(t, "TDX029", r[i].loop, 0, 0, k->name, 0.38,
                                     "the pass over '%s' at line %d reads the blocks the pass at line %d read, "
                                     "first to last again",
                                     r[i].base, r[i].loop->line, r[i].first->line);
        if (!f)
            return;
        tdx_finding_set_hypothesis(t->ledger, f,
                                   "by the time the second pass starts, L2 holds the blocks the first read last; "
                                   "read first to last, the second pass finds the early blocks evicted and reads "
                                   "all of them from DRAM again");
        tdx_finding_fact(t->ledger, f, "base", "%s", r[i].base);
        tdx_finding_fact(t->ledger, f, "first_pass_line", "%d", r[i].first->line);
    }
}

/* TDX032: programs whose key (or column) loop runs longer the larger their
 * id along one grid axis (tdx_km_heavy_last): started in id order, the
 * longest run last and the grid ends on a tail of them. Confidence 0.3: it
 * pays only the tail, a few per cent at most, below reverse-pass's 0.38. */
void tdx_tri_heavy_rule(tdx_tri *t, const tdx_km_kernel *k)
{
    tdx_km_heavy h;
    if (!tdx_km_heavy_last(t->file, k, &h))
        return;
    tdx_finding *f = tdx_tri_add(t, "TDX032", h.loop, 0, 0, k->name, 0.3,
                                 "the loop at line %d runs longer the larger %s (tl.program_id(%lld)): the longest "
                                 "programs start last",
                                 h.loop->line, h.var, h.axis);
    if (!f)
        return;
    tdx_finding_set_hypothesis(t->ledger, f,
                               "CTAs start in program-id order, so the programs with the most iterations start "
                               "at the end of each row of the grid, and the grid ends on a tail of long "
                               "programs that a few SMs run while the rest idle");
    tdx_finding_fact(t->ledger, f, "pid", "%s", h.var);
    tdx_finding_fact(t->ledger, f, "axis", "%lld", h.axis);
}
