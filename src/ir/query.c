/* Queries on a joined kernel, and the one-record-per-line rendering used by
 * reports and by the fixture tests (tests/data/ir/<case>/expected.txt). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/ir_int.h"

// Names of dot paths as the records print them.
const char *tdx_ir_dot_path_str(tdx_ir_dot_path p)
{
    switch (p) {
    case TDX_IR_DOT_WGMMA: return "wgmma";
    case TDX_IR_DOT_MMA: return "mma.sync";
    case TDX_IR_DOT_FMA: return "fma";
    default: return "unknown";
    }
}

// Names of layout kinds as the records print them.
const char *tdx_ir_layout_kind_str(tdx_ir_layout_kind k)
{
    switch (k) {
    case TDX_IR_LAYOUT_BLOCKED: return "blocked";
    case TDX_IR_LAYOUT_NVIDIA_MMA: return "nvidia_mma";
    case TDX_IR_LAYOUT_NVMMA_SHARED: return "nvmma_shared";
    case TDX_IR_LAYOUT_SWIZZLED_SHARED: return "swizzled_shared";
    case TDX_IR_LAYOUT_SLICE: return "slice";
    case TDX_IR_LAYOUT_DOT_OP: return "dot_op";
    case TDX_IR_LAYOUT_LINEAR: return "linear";
    case TDX_IR_LAYOUT_SHARED_MEMORY: return "shared_memory";
    default: return "other";
    }
}

// Plain loads or stores (not async copies) at a line.
static size_t mems_at(const tdx_ir_kernel *k, int line, int store, const tdx_ir_mem **out,
                      size_t max)
{
    size_t n = 0;
    for (size_t i = 0; i < k->nmems; i++) {
        const tdx_ir_mem *r = &k->mems[i];
        if (r->is_store != store || r->is_async || r->loc.site.line != line)
            continue;
        if (out && n < max)
            out[n] = r;
        n++;
    }
    return n;
}

// Loads at a source line.
size_t tdx_ir_kernel_loads_at(const tdx_ir_kernel *k, int line, const tdx_ir_mem **out, size_t max)
{
    return mems_at(k, line, 0, out, max);
}

// Stores at a source line.
size_t tdx_ir_kernel_stores_at(const tdx_ir_kernel *k, int line, const tdx_ir_mem **out, size_t max)
{
    return mems_at(k, line, 1, out, max);
}

// The first dot at a source line.
const tdx_ir_dot *tdx_ir_kernel_dot_at(const tdx_ir_kernel *k, int line)
{
    for (size_t i = 0; i < k->ndots; i++)
        if (k->dots[i].loc.site.line == line)
            return &k->dots[i];
    return NULL;
}

// The first loop at a source line.
const tdx_ir_loop *tdx_ir_kernel_loop_at(const tdx_ir_kernel *k, int line)
{
    for (size_t i = 0; i < k->nloops; i++)
        if (k->loops[i].loc.site.line == line)
            return &k->loops[i];
    return NULL;
}

// SASS instructions with a base opcode at a line.
size_t tdx_ir_kernel_sass_count(const tdx_ir_kernel *k, int line, const char *base)
{
    return tdx_ir_sass_count(k->sass, line, base);
}

// Most frequent first, then by name.
static int cmp_opcount(const void *a, const void *b)
{
    const tdx_ir_opcount *x = a, *y = b;
    if (x->count != y->count)
        return y->count - x->count;
    return strcmp(x->base, y->base);
}

// Opcode histogram at a line (see ir.h); distinct bases are few, so a
// linear table is enough.
size_t tdx_ir_kernel_sass_hist(const tdx_ir_kernel *k, int line, tdx_ir_opcount *out, size_t max)
{
    if (!k->sass)
        return 0;
    size_t cap = 64, n = 0;
    tdx_ir_opcount *t = malloc(cap * sizeof *t);
    if (!t)
        return 0;
    for (size_t i = 0; i < k->sass->ninsns; i++) {
        const tdx_ir_sass_insn *in = &k->sass->insns[i];
        if (line && in->line != line)
            continue;
        size_t j = 0;
        while (j < n && strcmp(t[j].base, in->base) != 0)
            j++;
        if (j == n) {
            if (n == cap) {
                tdx_ir_opcount *g = realloc(t, 2 * cap * sizeof *t);
                if (!g)
                    break;
                t = g;
                cap *= 2;
            }
            t[n].base = in->base;
            t[n].count = 0;
            n++;
        }
        t[j].count++;
    }
    qsort(t, n, sizeof *t, cmp_opcount);
    for (size_t i = 0; out && i < n && i < max; i++)
        out[i] = t[i];
    free(t);
    return n;
}

// "-" for a missing string.
static const char *or_dash(const char *s)
{
    return s && *s ? s : "-";
}

// A layout's kind name, "-" when unknown.
static const char *layout_name(const tdx_ir_layout *l)
{
    return l ? tdx_ir_layout_kind_str(l->kind) : "-";
}

// One line per record; the field order is fixed so that diffs read well.
tdx_status tdx_ir_kernel_dump(const tdx_ir_kernel *k, tdx_buf *b)
{
    tdx_status st = tdx_buf_printf(b, "kernel name=%s file=%s warps=%d ctas=%d tpw=%d\n",
                                   or_dash(k->name), or_dash(k->file), k->num_warps, k->num_ctas,
                                   k->threads_per_warp);
    if (k->res)
        st = st ? st
                : tdx_buf_printf(b, "res regs=%d spill_st=%d spill_ld=%d stack=%d smem=%d\n",
                                 k->res->registers, k->res->spill_stores, k->res->spill_loads,
                                 k->res->stack, k->res->smem);
    size_t nload = 0, nstore = 0, ncopy = 0;
    for (size_t i = 0; i < k->nmems && !st; i++) {
        const tdx_ir_mem *r = &k->mems[i];
        if (r->is_async) {
            ncopy++;
            st = tdx_buf_printf(b,
                                "copy line=%d col=%d name=%s tma=%d bits=%d contig=%d mask=%d n=%d "
                                "pbits=%d sass=%d\n",
                                r->loc.site.line, r->loc.site.col, or_dash(r->loc.name), r->is_tma,
                                r->elem_bits, r->contig, r->masked, r->ptx_count, r->ptx_bits,
                                r->sass_count);
            continue;
        }
        r->is_store ? nstore++ : nload++;
        st = tdx_buf_printf(b,
                            "%s line=%d col=%d name=%s bits=%d contig=%d mask=%d cache=%s evict=%s "
                            "n=%d vec=%d pbits=%d pred=%d mods=%s sass=%d swidth=%d\n",
                            r->is_store ? "store" : "load", r->loc.site.line, r->loc.site.col,
                            or_dash(r->loc.name), r->elem_bits, r->contig, r->masked,
                            or_dash(r->cache), or_dash(r->evict), r->ptx_count, r->ptx_vec,
                            r->ptx_bits, r->ptx_pred, or_dash(r->ptx_mods), r->sass_count,
                            r->sass_width);
    }
    for (size_t i = 0; i < k->ncvts && !st; i++) {
        const tdx_ir_cvt *r = &k->cvts[i];
        st = tdx_buf_printf(b, "cvt line=%d col=%d src=%s dst=%s smem=%d shfl=%d by=%s\n",
                            r->loc.site.line, r->loc.site.col, layout_name(r->src),
                            layout_name(r->dst), r->smem, r->shuffles,
                            r->smem_by_ptx ? "ptx" : "layout");
    }
    for (size_t i = 0; i < k->ndots && !st; i++) {
        const tdx_ir_dot *r = &k->dots[i];
        char instr[48] = "-";
        if (r->ninstr == 3)
            snprintf(instr, sizeof instr, "%dx%dx%d", r->instr[0], r->instr[1], r->instr[2]);
        else if (r->ninstr == 2)
            snprintf(instr, sizeof instr, "%dx%d", r->instr[0], r->instr[1]);
        st = tdx_buf_printf(b,
                            "dot line=%d col=%d path=%s instr=%s a=%s prec=%s ptx=%s pshape=%s "
                            "n=%d sass=%d\n",
                            r->loc.site.line, r->loc.site.col, tdx_ir_dot_path_str(r->path), instr,
                            or_dash(r->a_elem), or_dash(r->precision),
                            tdx_ir_dot_path_str(r->ptx_path), or_dash(r->ptx_shape), r->ptx_count,
                            r->sass_count);
    }
    for (size_t i = 0; i < k->nloops && !st; i++) {
        const tdx_ir_loop *r = &k->loops[i];
        st = tdx_buf_printf(b,
                            "loop line=%d col=%d depth=%d outer=%d pipelined=%d bufs=%d loads=%d "
                            "copies=%d dots=%d waits=%d\n",
                            r->loc.site.line, r->loc.site.col, r->depth, r->outer, r->pipelined,
                            r->bufs, r->loads, r->async_copies, r->dots, r->waits);
    }
    for (size_t i = 0; i < k->ni64s && !st; i++)
        st = tdx_buf_printf(b, "i64 line=%d col=%d op=%s\n", k->i64s[i].loc.site.line,
                            k->i64s[i].loc.site.col, k->i64s[i].op->name);
    for (size_t i = 0; i < k->nlocals && !st; i++) {
        const tdx_ir_local *r = &k->locals[i];
        st = tdx_buf_printf(b, "local line=%d ld=%d st=%d ldl=%d stl=%d\n", r->line, r->ptx_ld,
                            r->ptx_st, r->sass_ldl, r->sass_stl);
    }
    if (!st)
        st = tdx_buf_printf(b,
                            "count loads=%zu stores=%zu copies=%zu cvts=%zu dots=%zu loops=%zu "
                            "i64=%zu allocs=%d local_loads=%d\n",
                            nload, nstore, ncopy, k->ncvts, k->ndots, k->nloops, k->ni64s,
                            k->local_allocs, k->local_loads);
    return st;
}
