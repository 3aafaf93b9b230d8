/* Level 2 rules (TDX200..TDX209): the per-op records of one kernel as
 * launched, turned into findings at the source lines responsible, and the
 * symptom (measured at level 1, or estimated from the IR) attached to them. */
#include <stdio.h>
#include <string.h>

#include "analyze/an_int.h"

typedef struct l2ctx {
    const tdx_an_kernel *k;
    const tdx_an_l2opts *o;
    tdx_ledger *l;
    size_t first; /* index of this kernel's first finding in the ledger */
} l2ctx;

// A finding at a record's location, with the kernel, the level 1 cites and
// a short "what" fact (used by the summary and by tests).
static tdx_finding *add(l2ctx *c, const char *rule, const tdx_ir_srcloc *loc, const char *what,
                        const char *fmt, const char *msg)
{
    const char *file = tdx_an__file(c->k, loc, c->o ? c->o->file : NULL);
    int line = loc ? loc->site.line : c->k->line;
    int col = loc ? loc->site.col : 0;
    tdx_finding *f = tdx_ledger_add(c->l, rule, file, line, col, fmt, msg);
    if (!f)
        return NULL;
    tdx_finding_set_kernel(c->l, f, c->k->name);
    tdx_finding_fact(c->l, f, "what", "%s", what);
    f->confidence = 0.6;
    for (size_t i = 0; c->o && i < c->o->ncites; i++)
        tdx_finding_cite(c->l, f, c->o->cites[i]);
    return f;
}

// Elements of a tensor type, 0 when it is not a tensor.
static long long numel(const tdx_ir_type *t)
{
    if (!t || t->kind != TDX_IR_TYPE_TENSOR)
        return 0;
    long long n = 1;
    for (int i = 0; i < t->rank; i++)
        n *= t->shape[i];
    return n;
}

// TDX200: a global access with no vector form where each thread holds
// several elements, so 128-bit accesses would fit (LoadStoreOpToLLVM.cpp
// takes vec from AxisInfo's contiguity, divisibility and mask constancy).
static void rule_scalar(l2ctx *c)
{
    const tdx_ir_kernel *k = c->k->ir;
    int threads = 32 * (k->num_warps > 0 ? k->num_warps : 4);
    for (size_t i = 0; i < k->nmems; i++) {
        const tdx_ir_mem *m = &k->mems[i];
        if (m->is_async || m->ptx_count <= 0 || m->ptx_vec != 1 || m->ptx_bits <= 0 || m->ptx_bits >= 128)
            continue;
        long long n = numel(tdx_ir_op_type(m->op));
        if (n / threads < 2)
            continue; /* one element per thread: nothing to widen */
        int ideal = (int)((m->ptx_count * m->ptx_bits + 127) / 128);
        if (ideal >= m->ptx_count)
            continue; /* already as few accesses as its bytes allow (two fp16 in one b32) */
        const tdx_ir_ptx_insn *in =
            tdx_an__ptx_at(k, m->loc.site.line, m->is_store ? TDX_PTX_ST_GLOBAL : TDX_PTX_LD_GLOBAL);
        char what[128], msg[256];
        snprintf(what, sizeof what, "%s %s", m->is_store ? "store" : "load",
                 m->loc.name ? m->loc.name : "-");
        snprintf(msg, sizeof msg, "%s%s%s is scalar: %d %s per thread where %d 128-bit access%s would do",
                 m->is_store ? "store" : "load", m->loc.name ? " of " : "", m->loc.name ? m->loc.name : "",
                 m->ptx_count, in ? in->opcode : "accesses", ideal, ideal == 1 ? "" : "es");
        tdx_finding *f = add(c, "TDX200", &m->loc, what, "%s", msg);
        if (!f)
            return;
        static const char *const divisions[] = {"arith.divsi", "arith.divui", "arith.remsi", "arith.remui",
                                                NULL};
        const tdx_ir_module *mod = k->ttgir ? k->ttgir : k->ttir;
        int gather = tdx_an__through(mod, m->op, 0, divisions);
        if (gather) {
            /* a gather: no hint makes neighbours contiguous; computing the
             * quotient once a program (a row of the grid) does */
            tdx_finding_set_hypothesis(c->l, f,
                                       "the address goes through a division or a remainder (// or %%): "
                                       "AxisInfo proves no two neighbours contiguous, so every element is "
                                       "its own access, a gather");
            f->family = "row-grid";
        } else if (m->contig > 1)
            tdx_finding_set_hypothesis(c->l, f,
                                       "the layout holds %d contiguous elements per thread, but the address "
                                       "or the mask is not provably aligned, so the lowering splits each "
                                       "access to one element",
                                       m->contig);
        else
            tdx_finding_set_hypothesis(c->l, f,
                                       "the coalescer gave the layout one element per thread: AxisInfo could "
                                       "not prove the addresses contiguous and aligned");
        tdx_finding_fact(c->l, f, "vec", "%d", m->ptx_vec);
        tdx_finding_fact(c->l, f, "bits", "%d", m->ptx_bits);
        tdx_finding_fact(c->l, f, "contig", "%d", m->contig);
        tdx_finding_fact(c->l, f, "count", "%d", m->ptx_count);
        tdx_finding_fact(c->l, f, "masked", "%d", m->masked);
        tdx_finding_fact(c->l, f, "gather", "%d", gather);
        f->expected_gain = m->ptx_bits <= 16 ? 1.25 : 1.1;
        tdx_buf ev;
        tdx_buf_init(&ev, 0);
        tdx_an__ev_op(&ev, "ttgir", m->op);
        tdx_an__ev_ptx(&ev, in);
        tdx_an__ev_remarks(&ev, c->k, m->loc.site.line);
        tdx_finding_set_evidence(c->l, f, tdx_buf_str(&ev));
        tdx_buf_free(&ev);
    }
}

// TDX209: every tile access of the kernel is one access a thread that takes
// all the thread holds, and the tile holds fewer than 16 bytes a thread:
// the block, not alignment, caps the width (vec <= sizePerThread).
static void rule_narrow(l2ctx *c)
{
    const tdx_ir_kernel *k = c->k->ir;
    int threads = 32 * (k->num_warps > 0 ? k->num_warps : 4);
    const tdx_ir_mem *first = NULL;
    long long first_n = 0;
    int narrow = 0;
    for (size_t i = 0; i < k->nmems; i++) {
        const tdx_ir_mem *m = &k->mems[i];
        if (m->is_async || m->is_tma || m->ptx_count <= 0 || m->elem_bits <= 0)
            continue;
        long long n = numel(tdx_ir_op_type(m->op));
        if (n <= 1)
            continue; /* a scalar (a row's value) is not a tile */
        if (n * m->elem_bits >= (long long)threads * 128 || m->ptx_count != 1)
            return; /* a tile with 16 bytes a thread, or several accesses: not the block's limit */
        if (!first) {
            first = m;
            first_n = n;
        }
        narrow++;
    }
    if (!first)
        return;
    long long per = (first_n + threads - 1) / threads;
    long long bits = per * first->elem_bits;
    char msg[256];
    snprintf(msg, sizeof msg,
             "each of the %d threads holds %lld element%s (%lld bits) of the %lld-element tile: no access "
             "can be wider, where 128-bit accesses need %d a thread",
             threads, per, per == 1 ? "" : "s", bits, first_n, 128 / first->elem_bits);
    tdx_finding *f = add(c, "TDX209", &first->loc, "tile", "%s", msg);
    if (!f)
        return;
    tdx_finding_set_hypothesis(c->l, f,
                               "the tile is too small for the threads: %d global access%s move %lld of 16 "
                               "bytes a thread each",
                               narrow, narrow == 1 ? "" : "es", bits / 8);
    tdx_finding_fact(c->l, f, "threads", "%d", threads);
    tdx_finding_fact(c->l, f, "tile", "%lld", first_n);
    tdx_finding_fact(c->l, f, "per_thread", "%lld", per);
    tdx_finding_fact(c->l, f, "accesses", "%d", narrow);
    f->confidence = 0.7;
    f->expected_gain = bits <= 32 ? 1.2 : 1.1;
    tdx_buf ev;
    tdx_buf_init(&ev, 0);
    tdx_an__ev_op(&ev, "ttgir", first->op);
    tdx_an__ev_ptx(&ev, tdx_an__ptx_at(k, first->loc.site.line,
                                       first->is_store ? TDX_PTX_ST_GLOBAL : TDX_PTX_LD_GLOBAL));
    tdx_finding_set_evidence(c->l, f, tdx_buf_str(&ev));
    tdx_buf_free(&ev);
}

// TDX201: a conversion through shared memory inside a loop, or out of a
// reduction's slice layout. The mma -> blocked conversion of a matmul's
// epilogue, once per program, is the normal cost and is not reported.
static void rule_cvt(l2ctx *c)
{
    const tdx_ir_kernel *k = c->k->ir;
    for (size_t i = 0; i < k->ncvts; i++) {
        const tdx_ir_cvt *v = &k->cvts[i];
        if (v->smem != 1)
            continue;
        const tdx_ir_op *loop = tdx_an__loop_of(v->op);
        int slice = v->src && v->src->kind == TDX_IR_LAYOUT_SLICE;
        if (!loop && !slice)
            continue;
        const char *sk = v->src ? tdx_ir_layout_kind_str(v->src->kind) : "?";
        const char *dk = v->dst ? tdx_ir_layout_kind_str(v->dst->kind) : "?";
        char what[96], msg[256];
        snprintf(what, sizeof what, "cvt %s->%s", sk, dk);
        if (loop)
            snprintf(msg, sizeof msg, "layout conversion %s -> %s through shared memory in the loop at line %d",
                     sk, dk, loop->loc.site.line);
        else
            snprintf(msg, sizeof msg, "layout conversion of a reduction result (%s -> %s) through shared memory",
                     sk, dk);
        tdx_finding *f = add(c, "TDX201", &v->loc, what, "%s", msg);
        if (!f)
            return;
        tdx_finding_fact(c->l, f, "in_loop", "%d", loop != NULL);
        tdx_finding_fact(c->l, f, "from_slice", "%d", slice);
        tdx_finding_set_hypothesis(c->l, f, "%s",
                                   slice ? "the value comes out of a reduction in a slice layout whose "
                                           "elements are spread across threads; the consumer wants them "
                                           "contiguous per thread"
                                         : "producer and consumer disagree on the layout, and the conversion "
                                           "runs on every iteration");
        f->expected_gain = loop ? 1.2 : 1.05;
        tdx_buf ev;
        tdx_buf_init(&ev, 0);
        tdx_an__ev_op(&ev, "ttgir", v->op);
        tdx_finding_set_evidence(c->l, f, tdx_buf_str(&ev));
        tdx_buf_free(&ev);
    }
}

// TDX202: a dot off wgmma (AccelerateMatmul.cpp: MMAv3, then MMAv2, else FMA).
// On FMA the operands' precision keeps it off the tensor cores (tensor-cores,
// the rule's family); on mma.sync it is on them already and the CTA's tile
// or warps keep it off wgmma (retune, as TDX303/TDX304 say at level 3).
static void rule_dot(l2ctx *c)
{
    const tdx_ir_kernel *k = c->k->ir;
    for (size_t i = 0; i < k->ndots; i++) {
        const tdx_ir_dot *d = &k->dots[i];
        tdx_ir_dot_path p = d->path != TDX_IR_DOT_UNKNOWN ? d->path : d->ptx_path;
        if (p != TDX_IR_DOT_MMA && p != TDX_IR_DOT_FMA)
            continue;
        const tdx_ir_type *t = tdx_ir_op_type(d->op);
        const char *to = p == TDX_IR_DOT_MMA ? "mma.sync (MMAv2)" : "fp32 FMA (no tensor cores)";
        char msg[256];
        if (t && t->rank >= 2)
            snprintf(msg, sizeof msg, "%s dot with a %lldx%lld tile is lowered to %s instead of wgmma",
                     d->a_elem ? d->a_elem : "?", t->shape[t->rank - 2], t->shape[t->rank - 1], to);
        else
            snprintf(msg, sizeof msg, "dot is lowered to %s instead of wgmma", to);
        tdx_finding *f = add(c, "TDX202", &d->loc, p == TDX_IR_DOT_MMA ? "dot mma" : "dot fma", "%s", msg);
        if (!f)
            return;
        if (p == TDX_IR_DOT_MMA)
            f->family = "retune";
        tdx_finding_fact(c->l, f, "path", "%s", tdx_ir_dot_path_str(p));
        tdx_finding_fact(c->l, f, "a_elem", "%s", d->a_elem ? d->a_elem : "?");
        tdx_finding_fact(c->l, f, "precision", "%s", d->precision ? d->precision : "default");
        tdx_finding_fact(c->l, f, "num_warps", "%d", k->num_warps);
        tdx_finding_set_hypothesis(c->l, f, "the dot runs at %s the rate wgmma reaches on Hopper",
                                   p == TDX_IR_DOT_FMA ? "a small fraction of" : "about half");
        f->expected_gain = p == TDX_IR_DOT_FMA ? 4.0 : 2.0;
        tdx_buf ev;
        tdx_buf_init(&ev, 0);
        tdx_an__ev_op(&ev, "ttgir", d->op);
        tdx_buf_printf(&ev, "  ptx: %d %s instructions, %zu wgmma\n", d->ptx_count,
                       p == TDX_IR_DOT_MMA ? "mma.sync" : "fma.rn.f32", tdx_an__ptx_count(k, TDX_PTX_WGMMA));
        tdx_an__ev_remarks(&ev, c->k, d->loc.site.line);
        tdx_finding_set_evidence(c->l, f, tdx_buf_str(&ev));
        tdx_buf_free(&ev);
    }
}

// TDX207: an async copy into shared memory that transposes its tile: the
// global tile is contiguous along one axis (the blocked layout's order[0]),
// the NVMMA shared layout along the other (transposed: the first, else the
// last), so the lowering issues one element per cp.async.
static void rule_transpose_copy(l2ctx *c)
{
    const tdx_ir_kernel *k = c->k->ir;
    for (size_t i = 0; i < k->nmems; i++) {
        const tdx_ir_mem *m = &k->mems[i];
        if (!m->is_async || m->is_tma || m->ptx_count <= 0 || m->ptx_bits <= 0 || m->ptx_bits >= 128)
            continue;
        const tdx_ir_op *op = m->op;
        const tdx_ir_layout *src = op->nin ? op->in_types[0].layout : NULL;
        const tdx_ir_layout *dst = op->nout ? op->out_types[op->nout - 1].layout : NULL;
        if (!src || !dst || src->kind != TDX_IR_LAYOUT_BLOCKED || dst->kind != TDX_IR_LAYOUT_NVMMA_SHARED ||
            src->rank != 2)
            continue;
        int smem_fast = dst->transposed ? 0 : 1;
        if (src->order[0] == smem_fast)
            continue;
        /* the pipeliner's prologue copies share the loop's line: one finding a line */
        int seen = 0;
        for (size_t j = c->first; j < tdx_ledger_count(c->l) && !seen; j++) {
            const tdx_finding *g = tdx_ledger_at(c->l, j);
            seen = strcmp(g->rule->id, "TDX207") == 0 && g->line == m->loc.site.line && g->col == m->loc.site.col;
        }
        if (seen)
            continue;
        int ideal = (int)((m->ptx_count * m->ptx_bits + 127) / 128);
        const char *name = m->loc.name ? m->loc.name : NULL;
        char what[128], msg[320];
        snprintf(what, sizeof what, "copy %s", name ? name : "-");
        snprintf(msg, sizeof msg,
                 "the copy%s%s into shared memory transposes its tile: %d cp.async of %d bytes where %d of 16 "
                 "bytes would do",
                 name ? " of " : "", name ? name : "", m->ptx_count, m->ptx_bits / 8, ideal);
        tdx_finding *f = add(c, "TDX207", &m->loc, what, "%s", msg);
        if (!f)
            return;
        if (m->elem_bits == 32)
            tdx_finding_set_hypothesis(c->l, f,
                                       "the tf32 wgmma reads 32-bit operands only K-major, while this tile is "
                                       "contiguous along its other axis in global memory; passing the tensor "
                                       "K-major makes the copies 16 bytes wide");
        else
            tdx_finding_set_hypothesis(c->l, f,
                                       "the shared layout's contiguous axis is not the global one, so each "
                                       "thread copies one element at a time");
        tdx_finding_fact(c->l, f, "bytes", "%d", m->ptx_bits / 8);
        tdx_finding_fact(c->l, f, "count", "%d", m->ptx_count);
        tdx_finding_fact(c->l, f, "elem_bits", "%d", m->elem_bits);
        tdx_finding_fact(c->l, f, "global_order", "%d", src->order[0]);
        tdx_finding_fact(c->l, f, "smem_transposed", "%d", dst->transposed);
        f->expected_gain = m->elem_bits == 32 ? 2.0 : 1.25;
        tdx_buf ev;
        tdx_buf_init(&ev, 0);
        tdx_an__ev_op(&ev, "ttgir", op);
        tdx_buf_printf(&ev, "  global layout: %s\n  shared layout: %s\n", src->text ? src->text : "?",
                       dst->text ? dst->text : "?");
        tdx_an__ev_ptx(&ev, tdx_an__ptx_at(k, m->loc.site.line, TDX_PTX_CP_ASYNC));
        tdx_an__ev_remarks(&ev, c->k, m->loc.site.line);
        tdx_finding_set_evidence(c->l, f, tdx_buf_str(&ev));
        tdx_buf_free(&ev);
    }
}

// Dots in a loop or in any loop nested in it.
static int loop_dots(const tdx_ir_kernel *k, const tdx_ir_loop *lp)
{
    int n = lp->dots;
    for (size_t j = 0; j < k->nloops; j++)
        if (tdx_an__is_inside(k->loops[j].op, lp->op))
            n += k->loops[j].dots;
    return n;
}

// TDX203: a loop whose body still holds plain tt.loads in the final TTGIR
// (the pipeliner turns pipelined loads into async copies into a
// multi-buffered local_alloc).
static void rule_loop(l2ctx *c)
{
    const tdx_ir_kernel *k = c->k->ir;
    for (size_t i = 0; i < k->nloops; i++) {
        const tdx_ir_loop *lp = &k->loops[i];
        if (lp->pipelined || lp->loads <= 0)
            continue;
        int dots = loop_dots(k, lp);
        char msg[256];
        snprintf(msg, sizeof msg, "loop with %d plain tt.load%s is not pipelined%s", lp->loads,
                 lp->loads == 1 ? "" : "s",
                 lp->outer ? " (it holds another loop)" : dots ? "" : " (its loads feed no dot)");
        tdx_finding *f = add(c, "TDX203", &lp->loc, "loop", "%s", msg);
        if (!f)
            return;
        if (!dots)
            f->sev = TDX_SEV_NOTE;
        tdx_finding_fact(c->l, f, "loads", "%d", lp->loads);
        tdx_finding_fact(c->l, f, "outer", "%d", lp->outer);
        tdx_finding_fact(c->l, f, "dots", "%d", dots);
        tdx_finding_fact(c->l, f, "num_stages", "%d", c->k->num_stages);
        tdx_finding_set_hypothesis(c->l, f, "each iteration waits for its own loads: memory latency is not "
                                            "overlapped with the previous iteration's work");
        f->expected_gain = dots ? 1.5 : 1.1;
        tdx_buf ev;
        tdx_buf_init(&ev, 0);
        tdx_an__ev_op(&ev, "ttgir", lp->op);
        for (size_t j = 0; j < k->nmems; j++)
            if (!k->mems[j].is_store && !k->mems[j].is_async && k->mems[j].op->parent == lp->op)
                tdx_an__ev_op(&ev, "ttgir", k->mems[j].op);
        tdx_buf_printf(&ev, "  %d async copies, %d waits, %d buffers\n", lp->async_copies, lp->waits, lp->bufs);
        tdx_finding_set_evidence(c->l, f, tdx_buf_str(&ev));
        tdx_buf_free(&ev);
    }
}

// TDX204: spills from ptxas -v, placed at the line with the most local
// memory traffic in SASS (else the kernel's definition).
static void rule_spills(l2ctx *c)
{
    const tdx_ir_kernel *k = c->k->ir;
    int sp = tdx_an__spills(k);
    if (sp <= 0)
        return;
    tdx_ir_srcloc loc;
    memset(&loc, 0, sizeof loc);
    loc.site.line = c->k->line;
    int best = 0;
    for (size_t i = 0; i < k->nlocals; i++) {
        const tdx_ir_local *lc = &k->locals[i];
        int t = lc->ptx_ld + lc->ptx_st + lc->sass_ldl + lc->sass_stl;
        if (lc->line > 0 && t > best) {
            best = t;
            loc.site.line = lc->line;
        }
    }
    char msg[256];
    snprintf(msg, sizeof msg, "ptxas spills %d bytes to local memory (%d B stores, %d B loads) at %d registers "
             "per thread with %d warp%s",
             sp, k->res->spill_stores, k->res->spill_loads, k->res->registers, k->num_warps,
             k->num_warps == 1 ? "" : "s");
    tdx_finding *f = add(c, "TDX204", loc.site.line ? &loc : NULL, "spills", "%s", msg);
    if (!f)
        return;
    tdx_finding_fact(c->l, f, "spill_stores", "%d", k->res->spill_stores);
    tdx_finding_fact(c->l, f, "spill_loads", "%d", k->res->spill_loads);
    tdx_finding_fact(c->l, f, "registers", "%d", k->res->registers);
    tdx_finding_fact(c->l, f, "num_warps", "%d", k->num_warps);
    tdx_finding_set_hypothesis(c->l, f, "live values exceed the registers a thread may use, so ptxas moves "
                                        "some through local memory in the middle of the work");
    f->expected_gain = 1.3;
    tdx_buf ev;
    tdx_buf_init(&ev, 0);
    tdx_buf_printf(&ev, "  ptxas: %d bytes stack frame, %d bytes spill stores, %d bytes spill loads\n"
                        "  ptxas: Used %d registers\n",
                   k->res->stack, k->res->spill_stores, k->res->spill_loads, k->res->registers);
    for (size_t i = 0; i < k->nlocals; i++)
        if (k->locals[i].line > 0)
            tdx_buf_printf(&ev, "  sass: line %d: %d LDL, %d STL\n", k->locals[i].line, k->locals[i].sass_ldl,
                           k->locals[i].sass_stl);
    tdx_finding_set_evidence(c->l, f, tdx_buf_str(&ev));
    tdx_buf_free(&ev);
}

// TDX205: arithmetic on i64 tensors; a warning inside a loop, a note outside.
static void rule_i64(l2ctx *c)
{
    const tdx_ir_kernel *k = c->k->ir;
    if (!k->ni64s)
        return;
    size_t at = 0;
    int in_loop = 0;
    for (size_t i = 0; i < k->ni64s; i++)
        if (tdx_an__loop_of(k->i64s[i].op)) {
            at = i;
            in_loop = 1;
            break;
        }
    char lines[128] = "";
    size_t used = 0;
    int last = -1;
    for (size_t i = 0; i < k->ni64s && used + 12 < sizeof lines; i++) {
        int ln = k->i64s[i].loc.site.line;
        if (ln == last)
            continue;
        used += (size_t)snprintf(lines + used, sizeof lines - used, "%s%d", used ? ", " : "", ln);
        last = ln;
    }
    char msg[256];
    snprintf(msg, sizeof msg, "%zu arithmetic op%s on 64-bit index tensors%s (lines %s)", k->ni64s,
             k->ni64s == 1 ? "" : "s", in_loop ? " inside a loop" : "", lines);
    tdx_finding *f = add(c, "TDX205", &k->i64s[at].loc, "i64", "%s", msg);
    if (!f)
        return;
    if (!in_loop)
        f->sev = TDX_SEV_NOTE;
    tdx_finding_fact(c->l, f, "ops", "%zu", k->ni64s);
    tdx_finding_fact(c->l, f, "in_loop", "%d", in_loop);
    tdx_finding_set_hypothesis(c->l, f, "each 64-bit integer op costs two or more 32-bit instructions and twice "
                                        "the registers per index");
    f->expected_gain = in_loop ? 1.1 : 1.02;
    tdx_buf ev;
    tdx_buf_init(&ev, 0);
    for (size_t i = 0; i < k->ni64s && i < 6; i++)
        tdx_an__ev_op(&ev, "ttgir", k->i64s[i].op);
    tdx_finding_set_evidence(c->l, f, tdx_buf_str(&ev));
    tdx_buf_free(&ev);
}

// TDX208: global atomics the PTX orders as acq_rel, one finding per line.
static void rule_atomic(l2ctx *c)
{
    const tdx_ir_kernel *k = c->k->ir;
    int done[8] = {0}, ndone = 0;
    for (size_t i = 0; k->ptx && i < k->ptx->ninsns && ndone < 8; i++) {
        const tdx_ir_ptx_insn *in = &k->ptx->insns[i];
        if (in->cls != TDX_PTX_ATOM || in->site_line <= 0 || !in->mods || !strstr(in->mods, "acq_rel"))
            continue;
        int seen = 0;
        for (int d = 0; d < ndone; d++)
            seen |= done[d] == in->site_line;
        if (seen)
            continue;
        done[ndone++] = in->site_line;
        int n = 0;
        for (size_t j = 0; j < k->ptx->ninsns; j++) {
            const tdx_ir_ptx_insn *o = &k->ptx->insns[j];
            n += o->cls == TDX_PTX_ATOM && o->site_line == in->site_line && o->mods && strstr(o->mods, "acq_rel");
        }
        tdx_ir_srcloc loc;
        memset(&loc, 0, sizeof loc);
        loc.site.line = in->site_line;
        loc.site.col = in->site_col;
        loc.site.file = in->site_file;
        char msg[200];
        snprintf(msg, sizeof msg, "%d %s at the line: each waits for its old value behind a GPU-wide fence", n,
                 in->opcode ? in->opcode : "acq_rel atomic");
        tdx_finding *f = add(c, "TDX208", &loc, "atomic", "%s", msg);
        if (!f)
            return;
        tdx_finding_fact(c->l, f, "atomics", "%d", n);
        tdx_finding_fact(c->l, f, "opcode", "%s", in->opcode ? in->opcode : "");
        tdx_finding_set_hypothesis(c->l, f, "acq_rel atomics serialize on a memory barrier and an L1 invalidate; "
                                            "relaxed ones with unused results are fire-and-forget reductions");
        f->expected_gain = 1.2;
        tdx_buf ev;
        tdx_buf_init(&ev, 0);
        tdx_an__ev_ptx(&ev, in);
        tdx_finding_set_evidence(c->l, f, tdx_buf_str(&ev));
        tdx_buf_free(&ev);
    }
}

// Append "label at file:line (names), file:line (names)" for the findings
// of one rule (and one access kind for TDX200) to b.
static int summarize(l2ctx *c, tdx_buf *b, const char *rule, const char *kind, const char *label)
{
    int n = 0, last = -1;
    for (size_t i = c->first; i < tdx_ledger_count(c->l); i++) {
        const tdx_finding *f = tdx_ledger_at(c->l, i);
        if (strcmp(f->rule->id, rule) != 0)
            continue;
        const char *what = tdx_finding_get_fact(f, "what");
        if (kind && (!what || strncmp(what, kind, strlen(kind)) != 0))
            continue;
        const char *name = kind && what ? strchr(what, ' ') : NULL;
        if (name && strcmp(name + 1, "-") == 0)
            name = NULL;
        if (f->line == last && name) {
            /* same line: add the name to the open parenthesis */
            if (b->len && b->data[b->len - 1] == ')')
                b->len--, b->data[b->len] = '\0';
            tdx_buf_printf(b, ", %s)", name + 1);
            continue;
        }
        tdx_buf_printf(b, "%s%s%s:%d", n ? ", " : (b->len ? "; " : ""), n ? "" : label,
                       tdx_an__base(f->file), f->line);
        if (name)
            tdx_buf_printf(b, " (%s)", name + 1);
        last = f->line;
        n++;
    }
    return n;
}

// Bytes per element: every load and store site reads or writes its
// pointer's element once; the ideal touches each pointer argument once.
// A pointer loaded at several lines is a re-read (a multi-pass kernel).
typedef struct bytes_est {
    double actual, ideal;
    int reread;          /* a pointer argument loaded at 2+ lines */
    char reread_text[160];
} bytes_est;

static void estimate_bytes(const tdx_ir_kernel *k, bytes_est *b)
{
    memset(b, 0, sizeof *b);
    const tdx_ir_module *mod = k->ttgir ? k->ttgir : k->ttir;
    /* In a loop the bytes per element depend on the trip count and on
     * values carried around the loop: no static estimate. */
    if (!mod || !mod->funcs.len || k->nloops)
        return;
    const tdx_ir_func *fn = mod->funcs.items[0];
    int lines[TDX_AN_MAX_ARGS][8], nl[TDX_AN_MAX_ARGS] = {0}, ebytes[TDX_AN_MAX_ARGS] = {0};
    int stored[TDX_AN_MAX_ARGS] = {0};
    for (size_t i = 0; i < k->nmems; i++) {
        const tdx_ir_mem *m = &k->mems[i];
        int via[TDX_AN_MAX_ARGS] = {0};
        tdx_an__args_of(mod, m->op, 0, via, 1);
        int p = -1, np = 0;
        for (size_t a = 0; a < fn->nargs && a < TDX_AN_MAX_ARGS; a++)
            if (via[a] && fn->args[a].type.kind == TDX_IR_TYPE_PTR) {
                p = (int)a;
                np++;
            }
        if (np != 1 || m->elem_bits <= 0)
            continue;
        ebytes[p] = m->elem_bits / 8;
        if (m->is_store) {
            stored[p] = 1;
            continue;
        }
        int seen = 0;
        for (int j = 0; j < nl[p]; j++)
            seen |= lines[p][j] == m->loc.site.line;
        if (!seen && nl[p] < 8)
            lines[p][nl[p]++] = m->loc.site.line;
    }
    for (size_t a = 0; a < fn->nargs && a < TDX_AN_MAX_ARGS; a++) {
        if (!nl[a] && !stored[a])
            continue;
        b->ideal += ebytes[a] * ((nl[a] > 0) + stored[a]);
        b->actual += ebytes[a] * (nl[a] + stored[a]);
        if (nl[a] >= 2 && !b->reread) {
            b->reread = nl[a];
            size_t u = (size_t)snprintf(b->reread_text, sizeof b->reread_text, "%s read at lines",
                                        fn->args[a].name + (fn->args[a].name[0] == '%'));
            for (int j = 0; j < nl[a] && u < sizeof b->reread_text; j++)
                u += (size_t)snprintf(b->reread_text + u, sizeof b->reread_text - u, "%s %d", j ? "," : "",
                                      lines[a][j]);
        }
    }
}

// TDX206: the symptom attached to what this kernel's findings point at.
static void rule_summary(l2ctx *c)
{
    const tdx_ir_kernel *k = c->k->ir;
    size_t end = tdx_ledger_count(c->l);
    bytes_est be;
    estimate_bytes(k, &be);
    if (end == c->first && !be.reread)
        return;
    tdx_buf parts;
    tdx_buf_init(&parts, 0);
    if (be.reread)
        tdx_buf_printf(&parts, "%s (%.1fx the ideal bytes per element)", be.reread_text,
                       be.ideal > 0 ? be.actual / be.ideal : 0);
    summarize(c, &parts, "TDX200", "load", "scalar loads at ");
    summarize(c, &parts, "TDX200", "store", "scalar stores at ");
    summarize(c, &parts, "TDX209", NULL, "accesses narrowed by a small tile at ");
    summarize(c, &parts, "TDX201", NULL, "layout conversions through shared memory at ");
    summarize(c, &parts, "TDX202", NULL, "a dot off wgmma at ");
    summarize(c, &parts, "TDX203", NULL, "an unpipelined loop at ");
    summarize(c, &parts, "TDX204", NULL, "spills at ");
    summarize(c, &parts, "TDX205", NULL, "int64 index math at ");
    summarize(c, &parts, "TDX207", NULL, "transposing copies into shared memory at ");
    long insns = 0, bits = 0;
    for (size_t i = 0; i < k->nmems; i++)
        if (!k->mems[i].is_async && k->mems[i].ptx_count > 0 && k->mems[i].ptx_bits > 0) {
            insns += k->mems[i].ptx_count;
            bits += (long)k->mems[i].ptx_count * k->mems[i].ptx_bits;
        }
    double bpi = insns ? bits / 8.0 / (double)insns : 0;
    tdx_finding *f;
    if (c->o && c->o->symptom) {
        f = add(c, "TDX206", NULL, "summary", "%s", c->o->symptom);
        if (f) {
            char *m = tdx_arena_printf(&c->l->arena, "%s: %s", c->o->symptom, tdx_buf_str(&parts));
            if (m)
                f->message = m;
        }
    } else {
        char head[200];
        int u = snprintf(head, sizeof head, "static estimate");
        if (be.ideal > 0)
            u += snprintf(head + u, sizeof head - (size_t)u, ": %.0f B moved per element where %.0f B is ideal",
                          be.actual, be.ideal);
        if (insns && u > 0 && (size_t)u < sizeof head)
            snprintf(head + u, sizeof head - (size_t)u, "%s global accesses move %.1f of 16 bytes per instruction",
                     be.ideal > 0 ? ";" : ":", bpi);
        f = add(c, "TDX206", NULL, "summary", "%s", head);
        if (f) {
            char *m = tdx_arena_printf(&c->l->arena, "%s; %s", head, tdx_buf_str(&parts));
            if (m)
                f->message = m;
        }
    }
    if (f) {
        for (size_t i = c->first; i < end; i++)
            tdx_finding_cite(c->l, f, tdx_ledger_at(c->l, i)->id);
        if (be.ideal > 0) {
            tdx_finding_fact(c->l, f, "bytes_per_elem", "%.0f", be.actual);
            tdx_finding_fact(c->l, f, "ideal_bytes_per_elem", "%.0f", be.ideal);
        }
        if (insns) {
            tdx_finding_fact(c->l, f, "bytes_per_access", "%.2f", bpi);
            tdx_finding_fact(c->l, f, "ideal_bytes_per_access", "16");
        }
        tdx_finding_fact(c->l, f, "spill_bytes", "%d", tdx_an__spills(k));
        f->confidence = 0.5;
    }
    tdx_buf_free(&parts);
}

tdx_status tdx_an_attribute(const tdx_an_kernel *k, const tdx_an_l2opts *o, tdx_ledger *l)
{
    if (!k || !k->ir || !l)
        return TDX_ERR_ARG;
    l2ctx c = {k, o, l, tdx_ledger_count(l)};
    rule_scalar(&c);
    rule_narrow(&c);
    rule_cvt(&c);
    rule_dot(&c);
    rule_loop(&c);
    rule_spills(&c);
    rule_i64(&c);
    rule_transpose_copy(&c);
    rule_atomic(&c);
    rule_summary(&c);
    return TDX_OK;
}
