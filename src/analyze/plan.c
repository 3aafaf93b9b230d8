/* Level 3 hypotheses: for each level 2 finding, the compiler condition that
 * most likely caused it (from the kernel's IR and its specialization) and
 * the single change that would remove it. Conditions follow the passes:
 * AxisInfo (vectorization), AccelerateMatmul (MMAv3), AssignLatencies
 * (pipeliner), ptxas (registers). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/an_int.h"
#include "base/arena.h"
#include "model/model.h"
#include "source/ast.h"

// A plan for one finding, with its location.
static tdx_an_plan *new_plan(tdx_an_plan *out, size_t *n, size_t max, const tdx_finding *f,
                             const char *rule, tdx_an_predict pred)
{
    if (*n >= max)
        return NULL;
    tdx_an_plan *p = &out[(*n)++];
    memset(p, 0, sizeof *p);
    p->findings[p->nfindings++] = f->id;
    p->rule = rule;
    p->kernel = f->kernel;
    p->file = f->file;
    p->line = f->line;
    p->col = f->col;
    p->predict = pred;
    p->gain = f->expected_gain;
    return p;
}

static void set_arg(tdx_an_plan *p, const char *a)
{
    if (p->nargs < 4)
        snprintf(p->args[p->nargs++], sizeof p->args[0], "%s", a);
}

/* ---- vectorization: which argument's missing divisibility ------------------ */

// Plan for a scalar access: the argument whose missing tt.divisibility
// most likely keeps vec at 1, preferring one the launch knew to be a
// multiple of 16 but kept out of specialization.
static void plan_vec(const tdx_finding *f, const tdx_an_kernel *k, tdx_an_plan *out, size_t *n, size_t max)
{
    const char *what = tdx_finding_get_fact(f, "what");
    int store = what && strncmp(what, "store", 5) == 0;
    const tdx_ir_mem *m = NULL;
    for (size_t i = 0; i < k->ir->nmems; i++)
        if (k->ir->mems[i].loc.site.line == f->line && k->ir->mems[i].is_store == store &&
            !k->ir->mems[i].is_async) {
            m = &k->ir->mems[i];
            break;
        }
    const tdx_ir_module *mod = k->ir->ttgir ? k->ir->ttgir : k->ir->ttir;
    if (!m || !mod || !mod->funcs.len)
        return;
    enum { VIA_PTR = 1, VIA_MASK = 2 };
    int via[TDX_AN_MAX_ARGS] = {0};
    const tdx_ir_func *fn = mod->funcs.items[0];
    /* tt.load ptr, mask, other; tt.store ptr, value, mask */
    tdx_an__args_of(mod, m->op, 0, via, VIA_PTR);
    tdx_an__args_of(mod, m->op, store ? 2 : 1, via, VIA_MASK);
    int best = -1, best_score = 0;
    for (size_t i = 0; i < fn->nargs && i < TDX_AN_MAX_ARGS; i++) {
        if (!via[i])
            continue;
        const char *an = fn->args[i].name + (fn->args[i].name[0] == '%');
        const tdx_an_arg *a = tdx_an_kernel_arg(k, an);
        if (!a || a->div16 || !a->type)
            continue;
        int ptr = a->type[0] == '*';
        if (!ptr && a->type[0] != 'i' && a->type[0] != 'u')
            continue;
        int score = (a->dns && a->has_value && a->value % 16 == 0) ? 4
                    : (via[i] & VIA_PTR) ? (ptr ? 3 : 2) : 1;
        if (score > best_score) {
            best_score = score;
            best = (int)i;
        }
    }
    if (best < 0)
        return;
    const char *an = fn->args[best].name + (fn->args[best].name[0] == '%');
    const tdx_an_arg *a = tdx_an_kernel_arg(k, an);
    int via_ptr = (via[best] & VIA_PTR) != 0;
    tdx_an_plan *p = new_plan(out, n, max, f, via_ptr ? "TDX300" : "TDX301", TDX_AN_PRED_VEC_UP);
    if (!p)
        return;
    p->store = store;
    char val[48] = "";
    if (a->has_value)
        snprintf(val, sizeof val, " (launched with %lld)", a->value);
    if (!via_ptr) {
        snprintf(p->title, sizeof p->title, "the mask bound %s is not known divisible by 16", an);
        snprintf(p->cause, sizeof p->cause,
                 "%s%s has no tt.divisibility, so AxisInfo gives the mask that compares against it constancy 1 "
                 "and the access is split to one element per instruction",
                 an, val);
    } else if (a->dns) {
        snprintf(p->title, sizeof p->title, "%s is in do_not_specialize, so it lacks tt.divisibility", an);
        snprintf(p->cause, sizeof p->cause,
                 "%s%s is in do_not_specialize: the JIT never tells the compiler it is a multiple of 16, so "
                 "AxisInfo cannot prove the addresses it offsets aligned and vec stays 1",
                 an, val);
    } else if (a->type[0] == '*') {
        snprintf(p->title, sizeof p->title, "pointer %s lacks tt.divisibility (not 16-byte aligned)", an);
        snprintf(p->cause, sizeof p->cause,
                 "%s got no tt.divisibility: the tensor passed was not 16-byte aligned (or alignment "
                 "specialization is off for it), so AxisInfo's divisibility of the address is one element",
                 an);
    } else {
        snprintf(p->title, sizeof p->title, "%s is not a multiple of 16, so it lacks tt.divisibility", an);
        snprintf(p->cause, sizeof p->cause,
                 "%s%s is not a multiple of 16, so it gets no tt.divisibility and AxisInfo cannot prove the "
                 "addresses it offsets aligned",
                 an, val);
    }
    snprintf(p->change, sizeof p->change, "tt.divisibility = 16 on %s", an);
    set_arg(p, "--set-divisibility");
    char kv[160];
    snprintf(kv, sizeof kv, "%s:%s", k->name, an);
    set_arg(p, kv);
}

/* ---- dots ------------------------------------------------------------------ */

// Find `from` on lines [line, line+4] of src; store where in p.
static int find_edit(const char *src, size_t len, int line, const char *from, const char *to,
                     tdx_an_plan *p)
{
    int ln = 1;
    size_t i = 0;
    while (i < len && ln < line)
        if (src[i++] == '\n')
            ln++;
    for (; i < len && ln <= line + 4; ln++) {
        size_t e = i;
        while (e < len && src[e] != '\n')
            e++;
        size_t fl = strlen(from);
        for (size_t j = i; j + fl <= e; j++)
            if (memcmp(src + j, from, fl) == 0) {
                p->edit_line = ln;
                snprintf(p->edit_from, sizeof p->edit_from, "%s", from);
                snprintf(p->edit_to, sizeof p->edit_to, "%s", to);
                return 1;
            }
        i = e + 1;
    }
    return 0;
}

// A constexpr of the kernel whose value is v and whose name mentions M
// (BLOCK_M, BM); else the only constexpr of value v (block-outputs' row
// count _TDX_R, which sizes the dot's M); NULL when neither.
static const tdx_an_arg *block_m(const tdx_an_kernel *k, long long v)
{
    const tdx_an_arg *only = NULL;
    size_t count = 0;
    for (size_t i = 0; i < k->nargs; i++) {
        const tdx_an_arg *a = &k->args[i];
        if (!a->type || strcmp(a->type, "constexpr") != 0 || !a->has_value || a->value != v)
            continue;
        for (const char *s = a->name; *s; s++)
            if (toupper((unsigned char)*s) == 'M')
                return a;
        only = a;
        count++;
    }
    return count == 1 ? only : NULL;
}

// Plan for a dot off wgmma: fp32 with ieee precision, num_warps % 4, or M
// under 64 (AccelerateMatmul.cpp's MMAv3 conditions, in that order).
static void plan_dot(const tdx_finding *f, const tdx_an_kernel *k, const char *src, size_t len,
                     tdx_an_plan *out, size_t *n, size_t max)
{
    const tdx_ir_dot *d = tdx_ir_kernel_dot_at(k->ir, f->line);
    if (!d)
        return;
    tdx_ir_dot_path path = d->path != TDX_IR_DOT_UNKNOWN ? d->path : d->ptx_path;
    const tdx_ir_type *t = tdx_ir_op_type(d->op);
    tdx_an_plan *p;
    if (path == TDX_IR_DOT_FMA && d->a_elem && strcmp(d->a_elem, "f32") == 0 &&
        !(d->precision && strncmp(d->precision, "tf32", 4) == 0)) {
        p = new_plan(out, n, max, f, "TDX302", TDX_AN_PRED_DOT_TC);
        if (!p)
            return;
        snprintf(p->title, sizeof p->title, "the fp32 dot uses input_precision \"ieee\"");
        snprintf(p->cause, sizeof p->cause,
                 "MMA takes fp32 operands only as tf32; with ieee precision AccelerateMatmul keeps the dot on "
                 "a blocked layout and it is lowered to fma.rn.f32");
        snprintf(p->change, sizeof p->change, "input_precision \"tf32\"");
        /* a precision passed as a constexpr changes at the launch */
        for (size_t i = 0; i < k->nargs; i++)
            if (k->args[i].str && strcmp(k->args[i].str, "ieee") == 0) {
                snprintf(p->change, sizeof p->change, "%s \"ieee\" -> \"tf32\"", k->args[i].name);
                set_arg(p, "--constexpr");
                char kv[160];
                snprintf(kv, sizeof kv, "%s:%s=tf32", k->name, k->args[i].name);
                set_arg(p, kv);
                return;
            }
        if (src && !find_edit(src, len, f->line, "\"ieee\"", "\"tf32\"", p) &&
            !find_edit(src, len, f->line, "'ieee'", "'tf32'", p))
            find_edit(src, len, f->line, "allow_tf32=False", "allow_tf32=True", p);
        if (!p->edit_line)
            p->predict = TDX_AN_PRED_NONE;
        return;
    }
    if (path != TDX_IR_DOT_MMA || !t || t->rank != 2)
        return;
    int nw = k->num_warps ? k->num_warps : k->ir->num_warps;
    if (nw > 0 && nw % 4 != 0) {
        p = new_plan(out, n, max, f, "TDX303", TDX_AN_PRED_DOT_WGMMA);
        if (!p)
            return;
        snprintf(p->title, sizeof p->title, "num_warps = %d is not a multiple of 4", nw);
        snprintf(p->cause, sizeof p->cause,
                 "wgmma runs on warp groups of 4 warps; with num_warps = %d AccelerateMatmul cannot pick MMAv3 "
                 "and falls back to mma.sync",
                 nw);
        snprintf(p->change, sizeof p->change, "num_warps %d -> 4", nw);
        set_arg(p, "--num-warps");
        set_arg(p, "4");
        return;
    }
    long long m = t->shape[0];
    if (m % 64 != 0) {
        p = new_plan(out, n, max, f, "TDX304", TDX_AN_PRED_DOT_WGMMA);
        if (!p)
            return;
        snprintf(p->title, sizeof p->title, "the dot's M tile is %lld, not a multiple of 64", m);
        snprintf(p->cause, sizeof p->cause,
                 "a wgmma covers 64 rows; with M = %lld per CTA AccelerateMatmul falls back to mma.sync", m);
        const tdx_an_arg *bm = block_m(k, m);
        if (bm) {
            snprintf(p->change, sizeof p->change, "%s %lld -> 64", bm->name, m);
            set_arg(p, "--constexpr");
            char kv[160];
            snprintf(kv, sizeof kv, "%s:%s=64", k->name, bm->name);
            set_arg(p, kv);
        } else {
            p->predict = TDX_AN_PRED_NONE;
        }
    }
}

// The task's source parsed into arena a (initialised here, freed by the
// caller), or NULL when there is none or it does not parse.
static tdx_src_module *parse_task(const tdx_finding *f, const char *src, size_t len, tdx_arena *a)
{
    tdx_arena_init(a, 0);
    if (!src)
        return NULL;
    tdx_diags d;
    tdx_diags_init(&d);
    tdx_src_module *m = NULL;
    if (tdx_src_parse(f->file, src, len, a, &d, &m) != TDX_OK)
        m = NULL;
    tdx_diags_free(&d);
    return m;
}

// The name that sizes the 1-D tile of the access on the finding's line: the
// end of the tl.arange its address is folded from (`offs = pid * BLOCK +
// tl.arange(0, BLOCK)` gives "BLOCK"), in arena a (initialised here, freed by
// the caller); NULL when the source, the access or a named end is not there.
static const char *tile_size_name(const tdx_finding *f, const tdx_an_kernel *k, const char *src, size_t len,
                                  tdx_arena *a)
{
    tdx_src_module *m = parse_task(f, src, len, a);
    tdx_km_file *km = NULL;
    if (!m || tdx_km_build(m, a, &km) != TDX_OK)
        return NULL;
    const char *name = NULL;
    for (size_t i = 0; i < km->kernels.len; i++) {
        const tdx_km_kernel *kk = km->kernels.items[i];
        if (kk->is_helper || strcmp(kk->name, k->name) != 0)
            continue;
        for (size_t j = 0; j < kk->accesses.len; j++) {
            const tdx_km_access *acc = kk->accesses.items[j];
            if (acc->helper || f->line < acc->call->line || f->line > acc->call->end_line ||
                acc->addr.rank != 1 || !tdx_src_is_name(acc->addr.axis[0].size, NULL))
                continue;
            if (name && strcmp(name, acc->addr.axis[0].size->name) != 0)
                return NULL; /* two accesses on the line, tiled by different names */
            name = acc->addr.axis[0].size->name;
        }
    }
    return name;
}

// Plan for a tile too small for its threads (TDX209): the constexpr that
// sizes the tile, raised until each thread holds 16 bytes. The constexpr is
// the one the access's tl.arange ends at; without the source, the one whose
// value is the tile's size, when only one has it.
static void plan_narrow(const tdx_finding *f, const tdx_an_kernel *k, const char *src, size_t len,
                        tdx_an_plan *out, size_t *n, size_t max)
{
    const char *tile = tdx_finding_get_fact(f, "tile");
    const char *per = tdx_finding_get_fact(f, "per_thread");
    const char *thr = tdx_finding_get_fact(f, "threads");
    long long t = tile ? strtoll(tile, NULL, 10) : 0, pt = per ? strtoll(per, NULL, 10) : 0,
              threads = thr ? strtoll(thr, NULL, 10) : 0; /* facts TDX209 wrote as %lld / %d */
    const tdx_ir_mem *m = NULL;
    for (size_t i = 0; i < k->ir->nmems && !m; i++)
        if (k->ir->mems[i].loc.site.line == f->line && !k->ir->mems[i].is_async)
            m = &k->ir->mems[i];
    if (!m || t <= 0 || pt <= 0 || threads <= 0 || m->elem_bits <= 0 || pt * m->elem_bits >= 128)
        return;
    tdx_arena a;
    const char *sized = tile_size_name(f, k, src, len, &a);
    const tdx_an_arg *first = NULL, *named = NULL;
    int same = 0; /* constexprs whose value is the tile's size */
    for (size_t i = 0; i < k->nargs; i++)
        if (k->args[i].type && strcmp(k->args[i].type, "constexpr") == 0 && k->args[i].has_value &&
            k->args[i].value == t) {
            first = first ? first : &k->args[i];
            same++;
            if (sized && strcmp(k->args[i].name, sized) == 0)
                named = &k->args[i];
        }
    tdx_arena_free(&a);
    /* the named one; else the only one; two of the same value and none named: not known */
    const tdx_an_arg *b = named ? named : same == 1 ? first : NULL;
    long long want = t;
    while (want / threads * m->elem_bits < 128 && want < (1LL << 20))
        want *= 2; /* double the tile until each thread holds 16 bytes */
    tdx_an_plan *p = new_plan(out, n, max, f, "TDX314", b ? TDX_AN_PRED_VEC_UP : TDX_AN_PRED_NONE);
    if (!p)
        return;
    p->store = m->is_store;
    snprintf(p->title, sizeof p->title, "a %lld-element tile over %lld threads: %lld element%s a thread", t,
             threads, pt, pt == 1 ? "" : "s");
    snprintf(p->cause, sizeof p->cause,
             "the layout gives each thread %lld contiguous element%s (%lld bits), and the lowering's vector is at "
             "most that: a 128-bit access needs %d",
             pt, pt == 1 ? "" : "s", pt * m->elem_bits, 128 / m->elem_bits);
    if (!b) {
        if (same > 1) /* the cause says why nothing is recompiled */
            snprintf(p->cause + strlen(p->cause), sizeof p->cause - strlen(p->cause),
                     "; %d constexprs equal the tile's %lld and the source names none of them", same, t);
        return; /* the tile's size is no constexpr of the launch: nothing to recompile with */
    }
    snprintf(p->change, sizeof p->change, "%s %lld -> %lld", b->name, t, want);
    set_arg(p, "--constexpr");
    char kv[160];
    snprintf(kv, sizeof kv, "%s:%s=%lld", k->name, b->name, want);
    set_arg(p, kv);
}

/* ---- loops, registers, reductions -------------------------------------------- */

// On source line `line`, the loop's `range(...)` (or `tl.range(...)`) call
// on one line, and its rewrite asking for N pipeline stages.
static int find_range(const char *src, size_t len, int line, tdx_an_plan *p)
{
    int ln = 1;
    size_t i = 0;
    while (i < len && ln < line)
        if (src[i++] == '\n')
            ln++;
    size_t e = i;
    while (e < len && src[e] != '\n')
        e++;
    for (size_t j = i; j + 6 <= e; j++) {
        if (memcmp(src + j, "range(", 6) != 0 || (j > i && (isalnum((unsigned char)src[j - 1]) ||
                                                           src[j - 1] == '_')))
            continue;
        size_t start = j >= i + 3 && memcmp(src + j - 3, "tl.", 3) == 0 ? j - 3 : j;
        int depth = 0;
        size_t k = j + 5;
        for (; k < e; k++) {
            depth += src[k] == '(';
            depth -= src[k] == ')';
            if (depth == 0)
                break;
        }
        if (k >= e || k - start + 1 >= sizeof p->edit_from)
            return 0;
        size_t n = k - start + 1;
        for (size_t q = start; q + 10 <= start + n; q++)
            if (memcmp(src + q, "num_stages", 10) == 0)
                return 0;
        snprintf(p->edit_from, sizeof p->edit_from, "%.*s", (int)n, src + start);
        snprintf(p->edit_to, sizeof p->edit_to, "tl.range(%.*s, num_stages=3)", (int)(k - j - 6), src + j + 6);
        p->edit_line = line;
        return 1;
    }
    return 0;
}

static void plan_loop(const tdx_finding *f, const tdx_an_kernel *k, const char *src, size_t len,
                      tdx_an_plan *out, size_t *n, size_t max)
{
    const tdx_ir_loop *lp = tdx_ir_kernel_loop_at(k->ir, f->line);
    if (!lp)
        return;
    const char *dots = tdx_finding_get_fact(f, "dots");
    tdx_an_plan *p;
    if (k->num_stages > 0 && k->num_stages <= 1) {
        p = new_plan(out, n, max, f, "TDX305", TDX_AN_PRED_PIPELINED);
        if (!p)
            return;
        snprintf(p->title, sizeof p->title, "num_stages = %d turns the pipeliner off", k->num_stages);
        snprintf(p->cause, sizeof p->cause,
                 "AssignLatencies gives loads a latency only when num_stages > 1; with %d stage the loads stay "
                 "synchronous tt.loads",
                 k->num_stages);
        snprintf(p->change, sizeof p->change, "num_stages %d -> 3", k->num_stages);
        set_arg(p, "--num-stages");
        set_arg(p, "3");
    } else if (lp->outer) {
        p = new_plan(out, n, max, f, "TDX306", TDX_AN_PRED_NONE);
        if (!p)
            return;
        snprintf(p->title, sizeof p->title, "the loop holds another loop");
        snprintf(p->cause, sizeof p->cause,
                 "the pipeliner only handles innermost loops; this scf.for contains a loop, so its %d loads are "
                 "left plain",
                 lp->loads);
    } else if (dots && strcmp(dots, "0") == 0) {
        p = new_plan(out, n, max, f, "TDX307", TDX_AN_PRED_PIPELINED);
        if (!p)
            return;
        snprintf(p->title, sizeof p->title, "the loop's loads feed no dot");
        snprintf(p->cause, sizeof p->cause,
                 "without tl.range(..., num_stages=N) only loads that reach a tt.dot operand are pipelined; "
                 "this loop has %d load%s and no dot",
                 lp->loads, lp->loads == 1 ? "" : "s");
        snprintf(p->change, sizeof p->change, "the loop as tl.range(..., num_stages=3)");
        if (!src || !find_range(src, len, f->line, p))
            p->predict = TDX_AN_PRED_NONE;
    }
}

// Spills: the live values per thread at this num_warps.
static void plan_spills(const tdx_finding *f, const tdx_an_kernel *k, tdx_an_plan *out, size_t *n, size_t max)
{
    int nw = k->num_warps ? k->num_warps : k->ir->num_warps;
    if (nw <= 0 || nw >= 16)
        return;
    long long big = 0;
    for (size_t i = 0; i < k->ir->nmems; i++) {
        const tdx_ir_type *t = tdx_ir_op_type(k->ir->mems[i].op);
        long long e = 1;
        for (int d = 0; t && t->kind == TDX_IR_TYPE_TENSOR && d < t->rank; d++)
            e *= t->shape[d];
        if (t && t->kind == TDX_IR_TYPE_TENSOR && e > big)
            big = e;
    }
    int to = nw < 4 ? 4 : nw * 2;
    tdx_an_plan *p = new_plan(out, n, max, f, "TDX308", TDX_AN_PRED_NO_SPILLS);
    if (!p)
        return;
    snprintf(p->title, sizeof p->title, "too many live values per thread for num_warps = %d", nw);
    if (big)
        snprintf(p->cause, sizeof p->cause,
                 "a %lld-element tensor over 32 x %d threads is %lld values per thread for each live copy; past "
                 "255 registers ptxas spills",
                 big, nw, big / (32LL * nw));
    else
        snprintf(p->cause, sizeof p->cause, "the live values per thread exceed 255 registers at num_warps = %d",
                 nw);
    snprintf(p->change, sizeof p->change, "num_warps %d -> %d", nw, to);
    set_arg(p, "--num-warps");
    char v[16];
    snprintf(v, sizeof v, "%d", to);
    set_arg(p, v);
}

// A conversion out of a reduction along the non-contiguous dim.
static void plan_cvt(const tdx_finding *f, const tdx_an_kernel *k, tdx_an_plan *out, size_t *n, size_t max)
{
    const char *fs = tdx_finding_get_fact(f, "from_slice");
    if (!fs || strcmp(fs, "1") != 0)
        return;
    for (size_t i = 0; i < k->ir->ncvts; i++) {
        const tdx_ir_cvt *v = &k->ir->cvts[i];
        if (v->loc.site.line != f->line || !v->src || v->src->kind != TDX_IR_LAYOUT_SLICE || !v->src->parent)
            continue;
        const tdx_ir_layout *par = v->src->parent;
        if (par->rank < 2 || par->order[0] == v->src->dim)
            return;
        tdx_an_plan *p = new_plan(out, n, max, f, "TDX309", TDX_AN_PRED_NONE);
        if (!p)
            return;
        snprintf(p->title, sizeof p->title, "the reduction runs along dim %d, not the contiguous dim %d",
                 v->src->dim, par->order[0]);
        snprintf(p->cause, sizeof p->cause,
                 "reducing dim %d of a blocked layout whose order[0] is %d leaves a slice layout spread across "
                 "threads; the contiguous store needs it converted through shared memory",
                 v->src->dim, par->order[0]);
        return;
    }
}

// Where index math becomes int64: arith.extsi to i64 and i64 arguments.
static void plan_i64(const tdx_finding *f, const tdx_an_kernel *k, tdx_an_plan *out, size_t *n, size_t max)
{
    const tdx_ir_module *mod = k->ir->ttgir ? k->ir->ttgir : k->ir->ttir;
    if (!mod || !mod->funcs.len)
        return;
    char lines[96] = "", args[96] = "";
    size_t ul = 0, ua = 0;
    int last = -1;
    for (size_t i = 0; i < mod->ops.len && ul + 12 < sizeof lines; i++) {
        const tdx_ir_op *op = mod->ops.items[i];
        const tdx_ir_type *t = tdx_ir_op_type(op);
        if (strcmp(op->name, "arith.extsi") != 0 || !t || !t->elem || strcmp(t->elem, "i64") != 0 ||
            op->loc.site.line == last)
            continue;
        last = op->loc.site.line;
        ul += (size_t)snprintf(lines + ul, sizeof lines - ul, "%s%d", ul ? ", " : "", last);
    }
    const tdx_ir_func *fn = mod->funcs.items[0];
    for (size_t i = 0; i < fn->nargs && ua + 40 < sizeof args; i++)
        if (fn->args[i].type.elem && strcmp(fn->args[i].type.elem, "i64") == 0 &&
            fn->args[i].type.kind == TDX_IR_TYPE_SCALAR)
            ua += (size_t)snprintf(args + ua, sizeof args - ua, "%s%s", ua ? ", " : "",
                                   fn->args[i].name + (fn->args[i].name[0] == '%'));
    if (!ul && !ua)
        return;
    tdx_an_plan *p = new_plan(out, n, max, f, "TDX311", TDX_AN_PRED_NONE);
    if (!p)
        return;
    if (ul)
        snprintf(p->title, sizeof p->title, "indices are widened to int64 at line%s %s%s%s",
                 strchr(lines, ',') ? "s" : "", lines, ua ? " and by the int64 argument " : "", ua ? args : "");
    else
        snprintf(p->title, sizeof p->title, "the int64 argument %s makes the index math 64-bit", args);
    snprintf(p->cause, sizeof p->cause,
             "every value computed from a widened index or an i64 argument stays i64: %s%s%s",
             ul ? "arith.extsi to i64 (a .to(tl.int64) or a mixed-width expression)" : "",
             ul && ua ? "; " : "", ua ? "an int argument specialized as i64" : "");
}

// Plan for a transposing copy (TDX207): the source names the operand whose
// tensor runs along M or N (tdx_km_mn_major_operands); the counterfactual
// passes it K-major with one copy on the launch's line, and predicts the
// copies at the finding's line get 16 bytes wide.
static void plan_copy(const tdx_finding *f, const tdx_an_kernel *k, const char *src, size_t len,
                      tdx_an_plan *out, size_t *n, size_t max)
{
    tdx_arena a;
    tdx_src_module *m = parse_task(f, src, len, &a);
    tdx_km_file *km = NULL;
    if (m && tdx_km_build(m, &a, &km) == TDX_OK) {
        for (size_t i = 0; i < km->kernels.len; i++) {
            const tdx_km_kernel *kk = km->kernels.items[i];
            if (!kk->name || strcmp(kk->name, k->name) != 0)
                continue;
            tdx_km_mn_operand ops[4];
            size_t no = tdx_km_mn_major_operands(km, kk, ops, 4);
            for (size_t j = 0; j < no; j++) {
                const tdx_km_mn_operand *o = &ops[j];
                if (o->load->call->line != f->line)
                    continue;
                /* the launch must be a statement of its own: `kernel[grid](...)` */
                const tdx_src_node *call = o->launch->call, *fn = tdx_src_call_func(call);
                if (!call->parent || call->parent->kind != TDX_SRC_EXPR_STMT || !fn || fn->line != call->line)
                    break;
                size_t fl;
                const char *ft = tdx_src_text(m, fn, &fl);
                tdx_an_plan *p = new_plan(out, n, max, f, "TDX312", TDX_AN_PRED_COPY_WIDE);
                if (!p || !ft || fl + 1 >= sizeof p->edit_from)
                    break;
                const char *x = o->tensor->name;
                snprintf(p->title, sizeof p->title, "'%s' is %s-contiguous; the tf32 wgmma needs it K-major", x,
                         o->which == 0 ? "M" : "N");
                snprintf(p->cause, sizeof p->cause,
                         "the launch passes %s.stride(%lld) for K and %s.stride(%lld) for the other axis of a "
                         "contiguous tensor; wgmma reads 32-bit operands only K-major, so the NVMMA shared "
                         "layout is the transpose of the global tile and each cp.async moves one element",
                         x, o->k_dim, x, o->other_dim);
                snprintf(p->change, sizeof p->change, "%s passed K-major (%s.movedim(%lld, -1).contiguous()...)", x,
                         x, o->k_dim);
                p->edit_line = call->line;
                snprintf(p->edit_from, sizeof p->edit_from, "%.*s", (int)fl, ft);
                snprintf(p->edit_to, sizeof p->edit_to, "%s = %s.movedim(%lld, -1).contiguous().movedim(-1, %lld); %.*s",
                         x, x, o->k_dim, o->k_dim, (int)fl, ft);
                if (strlen(p->edit_to) + 1 >= sizeof p->edit_to) {
                    p->edit_line = 0; /* too long to write: not tested */
                    p->predict = TDX_AN_PRED_NONE;
                }
                break;
            }
            break;
        }
    }
    tdx_arena_free(&a);
}

// Plan for an acq_rel atomic (TDX208): when the source's call at the line is
// one tl.atomic_* the kernel only accumulates through (tdx_km_relaxable),
// the counterfactual passes it sem="relaxed" and predicts the PTX atomics at
// the line stop being acq_rel. A kernel that needs the order gets no plan.
static void plan_atomic(const tdx_finding *f, const tdx_an_kernel *k, const char *src, size_t len,
                        tdx_an_plan *out, size_t *n, size_t max)
{
    tdx_arena a;
    tdx_src_module *m = parse_task(f, src, len, &a);
    if (m) {
        const tdx_src_node *def = tdx_src_find_def(m, k->name);
        const tdx_src_node *site[TDX_KM_ATOMIC_MAX];
        size_t ns = def ? tdx_km_relaxable(def, site, TDX_KM_ATOMIC_MAX) : 0;
        for (size_t i = 0; i < ns; i++) {
            const tdx_src_node *call = site[i];
            if (call->line != f->line || call->end_line != call->line)
                continue;
            size_t cl;
            const char *ct = tdx_src_text(m, call, &cl);
            tdx_an_plan *p = new_plan(out, n, max, f, "TDX313", TDX_AN_PRED_ATOM_RELAXED);
            if (!p)
                break;
            const tdx_src_node *fn = tdx_src_call_func(call);
            const char *name = fn && fn->kind == TDX_SRC_ATTRIBUTE ? fn->name : "atomic";
            snprintf(p->title, sizeof p->title, "tl.%s orders memory as acq_rel, and nothing in '%s' reads that order",
                     name, k->name);
            snprintf(p->cause, sizeof p->cause,
                     "the call's old value is unused and the kernel has no atomic_cas / atomic_xchg, no used atomic "
                     "result, no load through the pointers its atomics write, no helper call; the default "
                     "sem=\"acq_rel\" adds a fence and an L1 invalidate to each atomic");
            snprintf(p->change, sizeof p->change, "sem=\"relaxed\" on the tl.%s", name);
            if (cl + 1 >= sizeof p->edit_from || cl + 16 >= sizeof p->edit_to) {
                p->predict = TDX_AN_PRED_NONE; /* too long to write: not tested */
                break;
            }
            size_t close = cl - 1; /* the call's `)`: after a trailing comma, no second one */
            while (close > 0 && (ct[close - 1] == ' ' || ct[close - 1] == '\t'))
                close--;
            const char *sep = close > 0 && (ct[close - 1] == ',' || ct[close - 1] == '(') ? "" : ", ";
            p->edit_line = call->line;
            snprintf(p->edit_from, sizeof p->edit_from, "%.*s", (int)cl, ct);
            snprintf(p->edit_to, sizeof p->edit_to, "%.*s%ssem=\"relaxed\")", (int)close, ct, sep);
            break;
        }
    }
    tdx_arena_free(&a);
}

// Merge a plan into an earlier one with the same change on the same kernel.
static int merge(tdx_an_plan *out, size_t n)
{
    tdx_an_plan *p = &out[n - 1];
    if (!p->nargs)
        return 0;
    for (size_t i = 0; i + 1 < n; i++) {
        tdx_an_plan *q = &out[i];
        if (q->nargs != p->nargs || strcmp(q->rule, p->rule) != 0 || strcmp(q->kernel, p->kernel) != 0)
            continue;
        int same = 1;
        for (int a = 0; a < p->nargs; a++)
            same &= strcmp(q->args[a], p->args[a]) == 0;
        if (same && q->nfindings < 8) {
            q->findings[q->nfindings++] = p->findings[0];
            return 1;
        }
    }
    return 0;
}

size_t tdx_an_plan_all(const tdx_ledger *l, const tdx_an_capture *c, const char *src, size_t len,
                       tdx_an_plan *out, size_t max)
{
    size_t n = 0;
    for (size_t i = 0; i < tdx_ledger_count(l); i++) {
        const tdx_finding *f = tdx_ledger_at(l, i);
        if (f->level != TDX_LEVEL_IR || !f->kernel)
            continue;
        const tdx_an_kernel *k = tdx_an_capture_find(c, f->kernel);
        if (!k)
            continue;
        size_t before = n;
        const char *r = f->rule->id;
        if (strcmp(r, "TDX200") == 0)
            plan_vec(f, k, out, &n, max);
        else if (strcmp(r, "TDX201") == 0)
            plan_cvt(f, k, out, &n, max);
        else if (strcmp(r, "TDX202") == 0)
            plan_dot(f, k, src, len, out, &n, max);
        else if (strcmp(r, "TDX203") == 0)
            plan_loop(f, k, src, len, out, &n, max);
        else if (strcmp(r, "TDX204") == 0)
            plan_spills(f, k, out, &n, max);
        else if (strcmp(r, "TDX205") == 0)
            plan_i64(f, k, out, &n, max);
        else if (strcmp(r, "TDX207") == 0)
            plan_copy(f, k, src, len, out, &n, max);
        else if (strcmp(r, "TDX208") == 0)
            plan_atomic(f, k, src, len, out, &n, max);
        else if (strcmp(r, "TDX209") == 0)
            plan_narrow(f, k, src, len, out, &n, max);
        if (n > before && merge(out, n))
            n--;
    }
    return n;
}
