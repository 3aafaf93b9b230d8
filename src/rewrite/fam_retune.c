/* retune and grouped-order: the families that change a launch's tile grid.
 * retune sets block-size constexprs, num_warps and num_stages (with the
 * grid literals that divide by a block, and a descriptor copy's blocks);
 * grouped-order maps a 1-D program id onto a 2-D grid of matmul tiles in
 * groups of rows. Both read a launch's block keywords (block_args). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/model.h"
#include "rewrite/fam_common.h"

/* Non-zero when a keyword name looks like a block-size constexpr. */
static int is_block_name(const char *name)
{
    return name && (strncmp(name, "BLOCK", 5) == 0 || strncmp(name, "TILE", 4) == 0 ||
                    strstr(name, "BLOCK_SIZE") != NULL);
}

/* The last letter of an expression's text, upper-cased: pairs cdiv(M, 64)
 * with BLOCK_M and cdiv(N, 64) with BLOCK_N. */
static char axis_of_text(const fam_task *t, const tdx_src_node *n)
{
    size_t len;
    const char *s = tdx_src_text(t->m, n, &len);
    return len ? (char)toupper((unsigned char)s[len - 1]) : 0;
}

/* The statement `name = tl.program_id(axis)` directly in the kernel's body. */
static tdx_src_node *program_id_stmt(fam_task *t, tdx_src_node *def, long long axis)
{
    for (tdx_src_node *st = tdx_src_next(def, TDX_SRC_R_BODY, NULL); st;
         st = tdx_src_next(def, TDX_SRC_R_BODY, st)) {
        if (st->kind != TDX_SRC_ASSIGN || tdx_src_count(st, TDX_SRC_R_TARGET) != 1)
            continue;
        tdx_src_node *tg = tdx_src_kid(st, TDX_SRC_R_TARGET), *v = tdx_src_kid(st, TDX_SRC_R_VALUE);
        if (!tg || tg->kind != TDX_SRC_NAME || !v || !tdx_src_is_dotted(tdx_src_call_func(v), "tl.program_id"))
            continue;
        tdx_src_node *a = tdx_src_call_arg(v, 0);
        if (!a)
            a = tdx_src_call_kwarg(v, "axis");
        long long x;
        if (a && tdx_src_int_value(t->m, a, &x) == TDX_OK && x == axis)
            return st;
    }
    return NULL;
}

/* The factors kernel def multiplies tl.program_id(axis) by, directly or
 * through the name it is bound to (`pid_m = tl.program_id(0)` ...
 * `pid_m * BLOCK_M`), pushed onto out. */
static void pid_factors(fam_task *t, tdx_src_node *def, long long axis, tdx_ptrvec *out)
{
    tdx_src_node *ps = program_id_stmt(t, def, axis);
    const char *pid = ps ? tdx_src_kid(ps, TDX_SRC_R_TARGET)->name : NULL;
    tdx_ptrvec bins = {0};
    fam_collect(t, def, TDX_SRC_BINOP, &bins);
    for (size_t i = 0; i < bins.len; i++) {
        tdx_src_node *b = bins.items[i];
        if (b->op != TDX_OP_STAR)
            continue;
        tdx_src_node *l = tdx_src_kid(b, TDX_SRC_R_LEFT), *r = tdx_src_kid(b, TDX_SRC_R_RIGHT);
        for (int side = 0; side < 2; side++) {
            tdx_src_node *p = side ? r : l, *q = side ? l : r;
            long long a = -1;
            int is_pid = p && p->kind == TDX_SRC_NAME && pid && strcmp(p->name, pid) == 0;
            if (!is_pid && p && p->kind == TDX_SRC_CALL && tdx_src_is_dotted(tdx_src_call_func(p), "tl.program_id") &&
                tdx_src_call_arg(p, 0) && tdx_src_int_value(t->m, tdx_src_call_arg(p, 0), &a) == TDX_OK)
                is_pid = a == axis;
            if (is_pid && q)
                tdx_ptrvec_push(&t->arena, out, q);
        }
    }
}

/* The block constexpr that tiles grid axis `axis` in kernel def: the NAME
 * multiplied by its program id (pid_factors); NULL when none or several do. */
static const char *block_of_pid_axis(fam_task *t, tdx_src_node *def, long long axis)
{
    if (!def)
        return NULL;
    tdx_ptrvec qs = {0};
    const char *found = NULL;
    pid_factors(t, def, axis, &qs);
    for (size_t i = 0; i < qs.len; i++) {
        tdx_src_node *q = qs.items[i];
        if (q->kind != TDX_SRC_NAME || !is_block_name(q->name))
            continue;
        if (found && strcmp(found, q->name) != 0)
            return NULL;
        found = q->name;
    }
    return found;
}

/* Non-zero when kernel def multiplies program_id(axis) by an integer
 * literal and never by the constexpr `name`: that axis is tiled by the
 * literal (coalesce writes `tl.program_id(0) * 64`), so a grid entry
 * dividing by the same number is not name's to change. */
static int axis_tiled_by_literal(fam_task *t, tdx_src_node *def, long long axis, const char *name)
{
    if (!def || !name)
        return 0;
    tdx_ptrvec qs = {0};
    int literal = 0;
    pid_factors(t, def, axis, &qs);
    for (size_t i = 0; i < qs.len; i++) {
        tdx_src_node *q = qs.items[i];
        if (tdx_src_is_name(q, name))
            return 0;
        literal |= q->kind == TDX_SRC_NUMBER;
    }
    return literal;
}

/* Rewrite the grid's literals equal to old to nv so that the launch stays
 * consistent. With several block sizes (block != NULL) only `cdiv(X, old)`
 * in a grid entry that the kernel tiles by that block (its program_id axis
 * multiplied by it) is changed, or, when the kernel does not say, one whose
 * X ends in the block's axis letter (BLOCK_M pairs with M). A lambda grid
 * reads meta[...] and needs nothing. */
static void retarget_grid(fam_task *t, fam_edits *e, tdx_src_node *launch, long long old,
                          long long nv, const char *block, const char *name)
{
    tdx_src_node *grid = fam_grid_of(t, launch);
    if (!grid || grid->kind == TDX_SRC_LAMBDA)
        return;
    size_t bl = block ? strlen(block) : 0;
    char axis = bl ? (char)toupper((unsigned char)block[bl - 1]) : 0;
    tdx_src_node *def = fam_launched_kernel(t, launch);
    char buf[32];
    snprintf(buf, sizeof buf, "%lld", nv);
    tdx_ptrvec nums = {0};
    fam_collect(t, grid, TDX_SRC_NUMBER, &nums);
    for (size_t i = 0; i < nums.len; i++) {
        long long v;
        tdx_src_node *n = nums.items[i];
        if (tdx_src_int_value(t->m, n, &v) != TDX_OK || v != old)
            continue;
        long long entry = -1; /* the grid tuple's entry holding it */
        if (grid->kind == TDX_SRC_TUPLE) {
            long long idx = 0;
            for (tdx_src_node *el = tdx_src_kid(grid, TDX_SRC_R_ELT); el && entry < 0;
                 el = tdx_src_next(grid, TDX_SRC_R_ELT, el), idx++)
                if (n->start >= el->start && n->end <= el->end)
                    entry = idx;
        }
        if (entry >= 0 && axis_tiled_by_literal(t, def, entry, name))
            continue;
        if (block) {
            tdx_src_node *call = n->parent;
            if (!call || call->kind != TDX_SRC_CALL || tdx_src_call_nargs(call) != 2 ||
                tdx_src_call_arg(call, 1) != n)
                continue;
            tdx_src_node *x = tdx_src_call_arg(call, 0);
            /* the grid entry holding it, and the block the kernel tiles that axis by */
            const char *tiled = entry >= 0 ? block_of_pid_axis(t, def, entry) : NULL;
            if (tiled ? strcmp(tiled, block) != 0 : (!x || axis_of_text(t, x) != axis))
                continue;
        }
        fam_edit(t, e, n->start, n->end, buf);
    }
}

typedef struct blockarg {
    const char *name;
    tdx_src_node *lit; /* the literal to edit */
    long long v;
    int in_call;       /* the literal is the kwarg itself (not a variable) */
} blockarg;

static size_t block_args(fam_task *t, tdx_src_node *launch, blockarg *out, size_t max)
{
    size_t n = 0;
    for (tdx_src_node *k = tdx_src_next(launch, TDX_SRC_R_KEYWORD, NULL); k && n < max;
         k = tdx_src_next(launch, TDX_SRC_R_KEYWORD, k)) {
        if (!is_block_name(k->name))
            continue;
        tdx_src_node *v = tdx_src_kid(k, TDX_SRC_R_VALUE);
        long long val;
        tdx_src_node *lit = fam_int_literal(t, v, &val);
        if (!lit || val <= 0)
            continue;
        out[n].name = k->name;
        out[n].lit = lit;
        out[n].v = val;
        out[n].in_call = lit == v;
        n++;
    }
    return n;
}

/* A launch that passes tensor descriptors (tensor-descriptors' copy): the
 * `_tdx_descriptor(..., NAME=v)` calls of its function give each
 * descriptor's block by the constexpr's name, and change with it. */
static void retarget_descriptors(fam_task *t, fam_edits *e, tdx_src_node *launch, const char *name, const char *v)
{
    tdx_src_node *def = fam_enclosing_def(launch);
    if (!fam_passes_descriptors(launch) || !def)
        return;
    tdx_ptrvec calls = {0};
    fam_collect(t, def, TDX_SRC_CALL, &calls);
    for (size_t i = 0; i < calls.len; i++) {
        tdx_src_node *c = calls.items[i], *val;
        if (tdx_src_is_name(tdx_src_call_func(c), "_tdx_descriptor") && (val = tdx_src_call_kwarg(c, name)))
            fam_edit(t, e, val->start, val->end, v);
    }
}

static void set_block(fam_task *t, fam_edits *e, tdx_src_node *launch, const blockarg *b,
                      long long nv, int multi)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%lld", nv);
    fam_edit(t, e, b->lit->start, b->lit->end, buf);
    if (b->in_call) {
        retarget_grid(t, e, launch, b->v, nv, multi ? b->name : NULL, b->name);
        retarget_descriptors(t, e, launch, b->name, buf);
    }
}

int fam_launch_block(fam_task *t, fam_edits *e, tdx_src_node *launch, const char *name, long long nv)
{
    blockarg b[6];
    size_t nb = block_args(t, launch, b, 6);
    for (size_t i = 0; i < nb; i++) {
        if (strcmp(b[i].name, name) != 0)
            continue;
        if (!b[i].in_call)
            return 0; /* a variable: other uses of it would change too */
        if (e)
            set_block(t, e, launch, &b[i], nv, nb > 1);
        return 1;
    }
    return 0;
}

static const char *kname(fam_task *t, tdx_src_node *launch)
{
    tdx_src_node *k = fam_launched_kernel(t, launch);
    return k && k->name ? k->name : "kernel";
}

/* retune's steps of num_warps alone at launch L (now cur warps): 8, 2, 16. */
static tdx_status retune_warps(fam_task *t, tdx_src_node *L, long long cur, tdx_rw_emit_fn emit, void *ud)
{
    static const char *const warps[] = {"8", "2", "16"};
    tdx_status st = TDX_OK;
    for (size_t w = 0; w < sizeof warps / sizeof warps[0] && !st; w++) {
        if (atoll(warps[w]) == cur) // NOLINT(cert-err34-c): the literals above
            continue;
        char sum[256];
        fam_edits e = {0};
        fam_set_kwarg(t, &e, L, "num_warps", warps[w]);
        snprintf(sum, sizeof sum, "%s: num_warps %lld -> %s", kname(t, L), cur, warps[w]);
        st = fam_emit(t, &e, emit, ud, "retune", sum);
    }
    return st;
}

/* retune: block sizes, num_warps and num_stages at each launch site. Small
 * blocks leave too few bytes in flight per SM; Hopper's wgmma wants tiles of
 * at least 64 rows and num_warps a multiple of 4 (AccelerateMatmul.cpp). */
/* Bytes per element of the task's inputs (tdx_km_input_bytes): 2, 4, or 0
 * when unknown. */
static int input_bytes(fam_task *t)
{
    return tdx_km_input_bytes(fam_model(t));
}

/* A matmul tile's side v for a matrix side of n at the bench shape (0:
 * unknown): v, or the power of two (at least lo) that covers n when that is
 * smaller. */
static int clamp_tile(int v, long long n, int lo)
{
    if (n <= 0)
        return v;
    int p = lo;
    while (p < v && p < n)
        p *= 2;
    return p < v ? p : v;
}

/* The elements of op's reduced tile (rank 2 or more) in kernel def with
 * block parameter `name` at nv: the product of its axis sizes, 0 when a
 * size is unknown or it is no such tile. */
static long long reduce_tile_elems(fam_task *t, const tdx_src_node *def, const tdx_km_op *op, const char *name,
                                   long long nv)
{
    if (op->kind != TDX_KM_OP_REDUCE || op->input.rank < 2 || op->input.rank > TDX_KM_MAXRANK)
        return 0;
    long long prod = 1;
    for (int a = 0; a < op->input.rank; a++) {
        const tdx_src_node *sz = op->input.axis[a].size;
        long long v = 0;
        if (tdx_src_is_name(sz, name))
            v = nv;
        else if (!fam_size_value(t, def, sz, &v))
            return 0;
        if (v <= 0 || v > (1 << 20) || prod > (1LL << 40) / v)
            return 0;
        prod *= v;
    }
    return prod;
}

/* Over kernel def's reductions of 2-D (or larger) tiles -- only those
 * inside a loop when in_loop -- the most (least, when in_loop) elements of
 * one tile a thread holds with block parameter `name` at nv and nw warps
 * (the product of the axis sizes over 32 x nw); 0 when there is none or a
 * size is unknown. A deferred accumulator keeps one whole tile in
 * registers beside the loaded one: on the H200 the retune candidates that
 * took col_mean's [64, BLOCK_N] fp32 accumulator to 128 elements a thread
 * and more were the slow ones (1.02x and 9.6x the kept kernel's time,
 * against 0.79x for two warps at 64; bench/RESULTS.md, thirteenth
 * session). */
static long long reduce_per_thread(fam_task *t, const tdx_src_node *def, const char *name, long long nv,
                                   long long nw, int in_loop)
{
    const tdx_km_file *f = fam_model(t);
    long long out = 0;
    for (size_t i = 0; f && nw > 0 && i < f->kernels.len; i++) {
        const tdx_km_kernel *k = f->kernels.items[i];
        for (size_t j = 0; k->def == def && j < k->ops.len; j++) {
            const tdx_km_op *op = k->ops.items[j];
            long long e = in_loop && !op->loop ? 0 : reduce_tile_elems(t, def, op, name, nv) / (32 * nw);
            if (e > 0 && (out == 0 || (in_loop ? e < out : e > out)))
                out = e;
        }
    }
    return out;
}

/* Whether block parameter `name` of kernel def sizes the contiguous axis (the
 * last, coefficient 1) of one of its global loads: the axis whose width sets
 * how many bytes of a 128-byte line each row of a tile reads. */
static int sizes_contiguous_load(fam_task *t, const tdx_src_node *def, const char *name)
{
    const tdx_km_file *f = fam_model(t);
    for (size_t i = 0; f && i < f->kernels.len; i++) {
        const tdx_km_kernel *k = f->kernels.items[i];
        for (size_t j = 0; k->def == def && j < k->accesses.len; j++) {
            const tdx_km_access *a = k->accesses.items[j];
            if (a->kind == TDX_KM_LOAD && a->addr.rank >= 2 && a->addr.axis[0].mult == TDX_KM_MULT_UNIT &&
                tdx_src_is_name(a->addr.axis[0].size, name))
                return 1;
        }
    }
    return 0;
}

/* retune's first step on a reduced 2-D tile whose contiguous side reads
 * less than a 128-byte line a row: that side widened to the whole line,
 * the warps grown with it (each thread keeps its elements), while the grid
 * at the bench shape keeps a wave of programs. On the H100 col_max's kept
 * 32 x 32 fp16 tile (64 bytes a row, 4 warps) took 0.943x its time at
 * 32 x 64 with 8 warps and 0.932x at 64 x 64 with 16 (Inductor's tile),
 * but 1.065x at 32 x 64 with 4 warps and 1.265x at 128 x 32, the step
 * retune gave first before (bench/RESULTS.md, twenty-eighth session).
 * A tile reduced inside the loop pays a barrier across its warps every
 * iteration, and more warps share it: col_argmax's 64 x 16 fp32 tile
 * (tl.max and tl.argmax each iteration) at 64 x 32 with 8 warps, 8
 * elements a thread, took 1.54x the time, while its 256 x 16 at 256 x 32
 * with 8 warps, 32 a thread, took 0.893x; with fewer than 16 elements a
 * thread of such a tile (the line drawn between the two, so that the 128
 * rows retune may keep first, 16 a thread, still get the step) it is left
 * out.
 */
static tdx_status retune_full_line(fam_task *t, tdx_src_node *L, tdx_src_node *kd, const blockarg *b, size_t nb,
                                   long long cur, long long progs, tdx_rw_emit_fn emit, void *ud)
{
    int eb = input_bytes(t);
    if (!kd || nb < 2 || eb <= 0 || progs <= 0 || progs >= (1LL << 40))
        return TDX_OK;
    for (size_t i = 0; i < nb; i++) {
        long long line = 128 / eb, f = b[i].v > 0 ? line / b[i].v : 0;
        if (!sizes_contiguous_load(t, kd, b[i].name) || b[i].v * f != line || f < 2 ||
            progs / f < 132 || reduce_per_thread(t, kd, b[i].name, b[i].v, cur, 0) <= 0)
            continue;
        long long nw = cur * f > 16 ? 16 : cur * f;
        if (reduce_per_thread(t, kd, b[i].name, line, nw, 0) > 64)
            continue;
        long long in_loop = reduce_per_thread(t, kd, b[i].name, line, nw, 1);
        if (in_loop > 0 && in_loop < 16)
            continue; /* a tile reduced every iteration across more warps, few elements each */
        char w[24], sum[256];
        fam_edits e = {0};
        set_block(t, &e, L, &b[i], line, 1);
        snprintf(w, sizeof w, "%lld", nw);
        fam_set_kwarg(t, &e, L, "num_warps", w);
        snprintf(sum, sizeof sum, "%s: %s %lld -> %lld, num_warps %lld (a whole 128-byte line a row)", kname(t, L),
                 b[i].name, b[i].v, line, nw);
        return fam_emit(t, &e, emit, ud, "retune", sum);
    }
    return TDX_OK;
}

tdx_status fam_retune(fam_task *t, tdx_rw_emit_fn emit, void *ud)
{
    tdx_status st = TDX_OK;
    char sum[256];
    for (size_t li = 0; li < t->launches.len && !st; li++) {
        tdx_src_node *L = t->launches.items[li];
        blockarg b[6];
        size_t nb = block_args(t, L, b, 6);
        int has_dot = 0;
        tdx_src_node *kd = fam_launched_kernel(t, L);
        if (kd && fam_self_tuned(kd))
            continue; /* its decorator tunes it: a second num_warps is a duplicate keyword */
        if (fam_tma_fallback(t, L))
            continue; /* the descriptor copy runs in its place */
        if (kd) {
            tdx_ptrvec calls = {0};
            fam_collect(t, kd, TDX_SRC_CALL, &calls);
            for (size_t i = 0; i < calls.len; i++)
                if (tdx_src_is_dotted(tdx_src_call_func(calls.items[i]), "tl.dot"))
                    has_dot++;
        }
        if (nb >= 2 && has_dot) {
            /* matmul tiles: a few configurations known to suit Hopper */
            /* wgmma wants M >= 64 per CTA and num_warps % 4 == 0; 128x128 and
             * 128x256 tiles with 3 stages reach most of the fp16 rate; K=32
             * keeps fp32 tiles inside the 227 KiB of shared memory */
            static const int mm[][5] = {{128, 128, 64, 8, 3}, {128, 128, 32, 4, 4},
                                        {128, 256, 64, 8, 3}, {64, 128, 64, 4, 4},
                                        {128, 64, 32, 4, 4}};
            /* two dots (attention: scores, then probabilities times values):
             * the score tile is M x N fp32 in registers beside the M x D
             * accumulator; on the H200 128 queries x 64 keys with 8 warps led
             * with and without the masks (bench/RESULTS.md, the attention
             * sweep), 64 x 64 with 4 warps next; 128 x 128 spills */
            static const int attn[][5] = {{128, 64, 64, 8, 3}, {64, 64, 64, 4, 3}, {128, 64, 64, 8, 4},
                                          {128, 128, 64, 8, 3}, {64, 128, 64, 4, 3}};
            /* fp32 operands (tf32 wgmma reads both from shared memory K-major):
             * on the H200 at 8192^3, 128x256x32 with 8 warps and 3 stages led
             * once B was K-major (3.71 ms; operand-layout supplies that), and
             * K=32 keeps three stages inside shared memory (bench/RESULTS.md,
             * the matmul sweep) */
            static const int mm32[][5] = {{128, 256, 32, 8, 3}, {256, 128, 32, 8, 3},
                                          {128, 128, 32, 4, 3}, {128, 128, 32, 8, 3},
                                          {64, 256, 32, 4, 4}};
            const int(*cfg)[5] = has_dot >= 2 ? attn : input_bytes(t) == 4 ? mm32 : mm;
            /* one 16-bit dot with at least two waves of 128x256 tiles at the
             * bench shape: that tile first (on the H200 it beat 128x128x64 on
             * 8192^3 fp16, 1.74 against 2.03 ms, bench/RESULTS.md) */
            size_t order[5] = {0, 1, 2, 3, 4};
            long long bm = 0, bn = 0, progs = has_dot == 1 && input_bytes(t) == 2 ? fam_bench_grid(t, L) : -1;
            for (size_t i = 0; i < nb; i++) {
                size_t l = strlen(b[i].name);
                char axis = l ? (char)toupper((unsigned char)b[i].name[l - 1]) : 0;
                bm = axis == 'M' ? b[i].v : bm;
                bn = axis == 'N' ? b[i].v : bn;
            }
            long long pm = 0, pn = 0; /* the kernel's M and N at the bench shape, 0 unknown */
            if (has_dot == 1 && !(fam_bench_param(t, kd, "M", &pm) && fam_bench_param(t, kd, "N", &pn)))
                pm = pn = 0;
            if (progs > 0 && pm >= 128 && pn >= 256 && bm > 0 && bn > 0 && bm <= 65536 && bn <= 65536 &&
                progs < (1LL << 30) && progs * bm * bn / (128 * 256) >= 2 * 132) {
                order[0] = 2;
                order[1] = 0;
                order[2] = 1;
            }
            int done[5][2] = {{0}};
            for (size_t oc = 0; oc < sizeof mm / sizeof mm[0] && !st; oc++) {
                size_t c = order[oc];
                /* a tile no larger than the matrix at the bench shape (a
                 * 64-column C in 128-column tiles computes and masks off half
                 * of every tile): its N clamped to the power of two that
                 * covers it, at least 16; its M too, at least 64 (wgmma's
                 * rows per CTA) */
                int tm = clamp_tile(cfg[c][0], pm, 64), tn = clamp_tile(cfg[c][1], pn, 16);
                int twin = 0; /* the same tile and settings as an earlier one */
                for (size_t j = 0; j < oc && !twin; j++) {
                    size_t cj = order[j];
                    twin = done[j][0] == tm && done[j][1] == tn && cfg[cj][2] == cfg[c][2] &&
                           cfg[cj][3] == cfg[c][3] && cfg[cj][4] == cfg[c][4];
                }
                done[oc][0] = tm;
                done[oc][1] = tn;
                if (twin)
                    continue;
                fam_edits e = {0};
                int used = 0;
                for (size_t i = 0; i < nb; i++) {
                    const char *nm = b[i].name;
                    size_t l = strlen(nm);
                    char axis = l ? (char)toupper((unsigned char)nm[l - 1]) : 0;
                    int v = axis == 'M' ? tm : axis == 'N' ? tn : axis == 'K' ? cfg[c][2] : 0;
                    if (v && v != b[i].v) {
                        set_block(t, &e, L, &b[i], v, 1);
                        used = 1;
                    }
                }
                char w[8], s[8];
                snprintf(w, sizeof w, "%d", cfg[c][3]);
                snprintf(s, sizeof s, "%d", cfg[c][4]);
                fam_set_kwarg(t, &e, L, "num_warps", w);
                fam_set_kwarg(t, &e, L, "num_stages", s);
                if (has_dot >= 2)
                    snprintf(sum, sizeof sum, "%s: %d rows x %d columns a block, num_warps=%d, num_stages=%d%s",
                             kname(t, L), cfg[c][0], cfg[c][1], cfg[c][3], cfg[c][4],
                             used ? "" : " (blocks unchanged)");
                else
                    snprintf(sum, sizeof sum, "%s: tiles %dx%dx%d, num_warps=%d, num_stages=%d%s",
                             kname(t, L), tm, tn, cfg[c][2], cfg[c][3], cfg[c][4],
                             used ? "" : " (tiles unchanged)");
                st = fam_emit(t, &e, emit, ud, "retune", sum);
            }
            continue;
        }
        /* 1-D (or row) blocks: larger and smaller. A launch that sets its own
         * num_warps (block-outputs gives each thread four columns of a tile
         * of R rows) keeps the elements a thread holds: its warps grow with
         * the block (on the H200 conv1d's BLOCK 128 -> 512 at one warp spilled,
         * 2.8 -> 56 ms, bench/RESULTS.md ninth session) */
        long long cur = 4;
        tdx_src_node *wv = tdx_src_call_kwarg(L, "num_warps");
        if (wv && (tdx_src_int_value(t->m, wv, &cur) != TDX_OK || cur < 1 || cur > 64)) {
            cur = 4;
            wv = NULL;
        }
        /* a 2-D tile's contiguous side first: its width is what each row
         * reads of a 128-byte line (on the H200 col_mean's BLOCK_N 64 -> 128
         * took the kept kernel from 0.163 to 0.131 ms, while col_max's
         * BLOCK_M 32 -> 128 came first and lost, bench/RESULTS.md
         * seventeenth session); only while the grid at the bench shape
         * keeps two waves of programs after the first candidate's 4x (the
         * columns of col_argmax, with no split, would drop to 128 programs) */
        long long progs = nb > 1 ? fam_bench_grid(t, L) : -1;
        st = retune_full_line(t, L, kd, b, nb, cur, progs, emit, ud);
        for (size_t i = 1; kd && progs >= 4 * 2 * 132 && i < nb; i++)
            if (sizes_contiguous_load(t, kd, b[i].name) && !sizes_contiguous_load(t, kd, b[0].name)) {
                blockarg tmp = b[0];
                b[0] = b[i];
                b[i] = tmp;
                break;
            }
        /* a block of 4096 elements or more at the default 4 warps (TDX012:
         * 32 a thread) takes more warps before it grows: on the H100
         * col_max's 32x128 tile grown to 64x128 at 4 warps took 1.34x
         * the time, and the round's one search ended there */
        long long elems = 1;
        for (size_t i = 0; i < nb && elems < 4096; i++)
            elems = b[i].v > 0 && b[i].v <= 16384 ? elems * b[i].v : 0;
        int warps_first = !wv && nb > 0 && elems >= 4096;
        if (warps_first)
            st = retune_warps(t, L, cur, emit, ud);
        for (size_t i = 0; i < nb && !st; i++) {
            static const int mult[] = {4, 16, 2};
            for (size_t m = 0; m < sizeof mult / sizeof mult[0] && !st; m++) {
                if (b[i].v <= 0 || b[i].v > 16384) /* a huge literal: no product to form (overflow) */
                    continue;
                long long nv = b[i].v * mult[m];
                if (nv > 16384 || (nb > 1 && nv > 256))
                    continue;
                long long nw = 0; /* 0: the launch's warps unchanged */
                if (nv >= 4096)
                    nw = nv >= 8192 ? 16 : 8;
                if (wv && cur * mult[m] > nw)
                    nw = cur * mult[m];
                if (nw > 16)
                    nw = 16;
                if (kd && reduce_per_thread(t, kd, b[i].name, nv, nw ? nw : cur, 0) > 64)
                    continue; /* a reduced tile past 64 elements a thread: spills */
                fam_edits e = {0};
                set_block(t, &e, L, &b[i], nv, nb > 1);
                if (nw) {
                    char w[8];
                    snprintf(w, sizeof w, "%lld", nw);
                    fam_set_kwarg(t, &e, L, "num_warps", w);
                }
                snprintf(sum, sizeof sum, "%s: %s %lld -> %lld%s", kname(t, L), b[i].name, b[i].v, nv,
                         nw ? tdx_arena_printf(&t->arena, ", num_warps %lld", nw) : "");
                st = fam_emit(t, &e, emit, ud, "retune", sum);
            }
        }
        if (!warps_first && !st)
            st = retune_warps(t, L, cur, emit, ud);
    }
    return st;
}

/* grouped-order: a 2-D grid of matmul tiles starts axis 0 first, so the
 * programs of one wave share a few columns of B but each reads its own row
 * of A, and the next wave reads those rows again (TDX028); grouping GROUP_M=8
 * rows of tiles together keeps the tiles they share in L2 (the program order
 * of Triton's matmul tutorial). The 2-D grid becomes 1-D
 * and the kernel maps the program id back to (pid_m, pid_n). */
tdx_status fam_grouped(fam_task *t, tdx_rw_emit_fn emit, void *ud)
{
    tdx_status st = TDX_OK;
    for (size_t li = 0; li < t->launches.len && !st; li++) {
        tdx_src_node *L = t->launches.items[li];
        tdx_src_node *def = fam_launched_kernel(t, L);
        tdx_src_node *g = fam_grid_of(t, L);
        if (!def || !g || fam_tma_fallback(t, L))
            continue;
        tdx_src_node *tup = g->kind == TDX_SRC_LAMBDA ? tdx_src_kid(g, TDX_SRC_R_BODY) : g;
        if (!tup || tup->kind != TDX_SRC_TUPLE || tdx_src_count(tup, TDX_SRC_R_ELT) != 2)
            continue;
        tdx_src_node *e0 = tdx_src_kid(tup, TDX_SRC_R_ELT);
        tdx_src_node *e1 = tdx_src_next(tup, TDX_SRC_R_ELT, e0);
        tdx_src_node *sm = program_id_stmt(t, def, 0), *sn = program_id_stmt(t, def, 1);
        if (!sm || !sn || sn->start < sm->start || e0->kind != TDX_SRC_CALL || e1->kind != TDX_SRC_CALL)
            continue;
        /* M and N: the kernel parameters fed by the first arguments of the grid's cdivs */
        size_t ml, nl;
        const char *mx = tdx_src_text(t->m, tdx_src_call_arg(e0, 0), &ml);
        const char *nx = tdx_src_text(t->m, tdx_src_call_arg(e1, 0), &nl);
        const char *mp = fam_param_of_arg(t, L, def, mx, ml), *np = fam_param_of_arg(t, L, def, nx, nl);
        const char *bm = NULL, *bn = NULL;
        blockarg b[6];
        size_t nb = block_args(t, L, b, 6);
        for (size_t i = 0; i < nb; i++) {
            size_t l = strlen(b[i].name);
            if (b[i].name[l - 1] == 'M')
                bm = b[i].name;
            if (b[i].name[l - 1] == 'N')
                bn = b[i].name;
        }
        if (!mp || !np || !bm || !bn)
            continue;
        /* the line of `pid_n = ...` goes; `pid_m = ...` becomes the mapping */
        size_t ls = sn->start, le = sn->end;
        while (ls > 0 && (t->src[ls - 1] == ' ' || t->src[ls - 1] == '\t'))
            ls--;
        while (le < t->len && t->src[le] != '\n')
            le++;
        if ((ls > 0 && t->src[ls - 1] != '\n') || le >= t->len)
            continue;
        int ind = sm->col - 1;
        const char *tm = tdx_src_kid(sm, TDX_SRC_R_TARGET)->name;
        const char *tn = tdx_src_kid(sn, TDX_SRC_R_TARGET)->name;
        char *block = tdx_arena_printf(
            &t->arena,
            "_pid = tl.program_id(0)\n"
            "%*s_num_pid_m = tl.cdiv(%s, %s)\n"
            "%*s_num_pid_n = tl.cdiv(%s, %s)\n"
            "%*s_group = _pid // (8 * _num_pid_n)\n"
            "%*s_first_m = _group * 8\n"
            "%*s_group_m = min(_num_pid_m - _first_m, 8)\n"
            "%*s%s = _first_m + (_pid %% (8 * _num_pid_n)) %% _group_m\n"
            "%*s%s = (_pid %% (8 * _num_pid_n)) // _group_m",
            ind, "", mp, bm, ind, "", np, bn, ind, "", ind, "", ind, "", ind, "", tm, ind, "", tn);
        size_t l0, l1;
        const char *x0 = tdx_src_text(t->m, e0, &l0), *x1 = tdx_src_text(t->m, e1, &l1);
        char *grid = tdx_arena_printf(&t->arena, "(%.*s * %.*s,)", (int)l0, x0, (int)l1, x1);
        if (!block || !grid)
            return TDX_ERR_NOMEM;
        fam_edits e = {0};
        fam_edit(t, &e, sm->start, sm->end, block);
        fam_edit(t, &e, ls, le + 1, "");
        fam_edit(t, &e, tup->start, tup->end, grid);
        char sum[160];
        snprintf(sum, sizeof sum, "%s: grouped program order (GROUP_M=8) on a 1-D grid", kname(t, L));
        st = fam_emit(t, &e, emit, ud, "grouped-order", sum);
    }
    return st;
}
