/* tensor-descriptors: a tl.dot loop's operand tiles loaded by the tensor
 * memory accelerator (TMA) instead of masked pointers.
 *
 * On Hopper, a masked pointer load of a dot operand becomes cp.async copies
 * of 16 bytes that every thread of the program issues, with the addresses
 * and the predicates computed in registers each iteration. A tensor
 * descriptor hands the whole box to the TMA unit (one UTMALDG a tile, the
 * out-of-bounds part filled with zeros, as the mask's other=0 did), which
 * frees the warps for the MMAs. Measured on the H200 on the suite's kept
 * matmuls (bench/gpu/tma_variants.py): 3-8 % faster at the same tiles.
 *
 * For a loop tdx_km_tma_loads finds, the rewrite adds a copy of the kernel,
 * NAME_tma, whose loads are `_tdx_desc0.load([R, C])` (or the transposed
 * view `.load([C, R]).T` when the operand's rows are its contiguous axis, as
 * the K-major copy operand-layout makes), and a host helper that builds the
 * descriptors from the launch's own arguments (the mask's bounds as the
 * shape, the strides, the tile sizes). The launch uses the copy when TMA can
 * read every operand (16-byte aligned base and row stride, a unit stride)
 * and the original kernel otherwise, so misaligned inputs keep working.
 *
 * An operand whose base a program id moves (`a_ptr += batch * stride_ab`)
 * is read through a 3-D descriptor: the box [1, rows, columns] at [batch,
 * R, C], reshaped to the tile (Triton 3.6 keeps the reshape in shared
 * memory: the TMA copy lands where the wgmma reads it). Its first extent is
 * how many such steps the tensor holds, so a box never reads past it. */
#include <stdio.h>
#include <string.h>

#include "model/model.h"
#include "rewrite/edit.h"
#include "rewrite/fam_common.h"

enum { MAX_SITES = 2, MAX_OPS = 2 * MAX_SITES, MAX_LOCAL = 2 + MAX_OPS };

static const char helper_text[] =
    "def _tdx_descriptor(x, shape, strides, _tdx_lead=None, **block):\n"
    "    \"\"\"A TMA descriptor of x for the 2-D tiles a kernel reads (shape, strides and the block's\n"
    "    sizes, named by the kernel's constexprs, in its row, column order), and whether it is of the\n"
    "    transposed view (rows contiguous); None when the tensor memory accelerator cannot read x so\n"
    "    (alignment, strides, tile bytes). With _tdx_lead, the stride the kernel moves the base by\n"
    "    (a batch), a 3-D descriptor of boxes [1, rows, columns]: its first extent is how many such\n"
    "    steps x holds.\"\"\"\n"
    "    from triton.tools.tensor_descriptor import TensorDescriptor\n"
    "    shape, strides, block = [int(v) for v in shape], [int(v) for v in strides], [int(v) for v in block.values()]\n"
    "    flip = strides[1] != 1 and strides[0] == 1\n"
    "    if flip:\n"
    "        shape, strides, block = shape[::-1], strides[::-1], block[::-1]\n"
    "    size = x.element_size()\n"
    "    if (strides[1] != 1 or x.data_ptr() % 16 or strides[0] * size % 16 or min(shape) < 1\n"
    "            or block[1] * size < 16 or any(b < 1 or b > 256 or b & (b - 1) for b in block)):\n"
    "        return None\n"
    "    if _tdx_lead is None:\n"
    "        return TensorDescriptor(x, shape, strides, block), flip\n"
    "    lead = int(_tdx_lead)\n"
    "    span = 1 + sum((d - 1) * s for d, s in zip(x.shape, x.stride()))\n"
    "    last = (shape[0] - 1) * strides[0] + shape[1] - 1\n"
    "    if lead < 1 or lead * size % 16 or x.numel() == 0 or span <= last:\n"
    "        return None\n"
    "    return TensorDescriptor(x, [(span - 1 - last) // lead + 1] + shape, [lead] + strides, [1] + block), flip\n";

/* The offset of an axis as kernel text: its terms added, or 0. */
static char *offset_text(fam_task *t, const tdx_km_tma_axis *a)
{
    char *s = a->nterm ? "" : "0";
    for (size_t i = 0; i < a->nterm && s; i++) {
        size_t l;
        const char *x = tdx_src_text(t->m, a->term[i], &l);
        s = tdx_arena_printf(&t->arena, fam_atom(a->term[i]) ? "%s%s%.*s" : "%s%s(%.*s)", s, i ? " + " : "", (int)l, x);
    }
    return s;
}

/* The host text of kernel expression e (a parameter or a literal) at launch
 * L: the literal, the launch's argument for the parameter, or its default. */
static char *host_text(fam_task *t, const tdx_src_node *L, const tdx_src_node *def, const tdx_src_node *e)
{
    if (!e)
        return "1";
    if (e->kind == TDX_SRC_NUMBER)
        return fam_operand(t, e);
    const tdx_src_node *a = e->kind == TDX_SRC_NAME ? fam_launch_arg(L, def, e->name, NULL) : NULL;
    if (!a && e->kind == TDX_SRC_NAME) {
        const tdx_src_node *p = tdx_src_param(def, e->name);
        a = p ? tdx_src_kid(p, TDX_SRC_R_DEFAULT) : NULL;
    }
    if (!a || a->kind == TDX_SRC_STARRED)
        return NULL;
    return fam_operand(t, a);
}

/* The keyword that names an axis's block size in the descriptor call: the
 * constexpr's own name (retune changes it with the launch's), or _rows /
 * _cols for a literal. */
static const char *block_key(const tdx_km_tma_axis *a, int ax)
{
    return a->size->kind == TDX_SRC_NAME ? a->size->name : ax ? "_cols" : "_rows";
}

/* `_tdx_dI = _tdx_descriptor(x, (B0, B1), (S0, S1), Z0name=Z0, Z1name=Z1)` for operand o at launch L. */
static char *descriptor_line(fam_task *t, const tdx_src_node *L, const tdx_src_node *def, const tdx_km_tma_operand *o,
                             const char *ind, const char *var)
{
    const tdx_src_node *x = fam_launch_arg(L, def, o->base, NULL);
    if (!tdx_src_is_name(x, NULL))
        return NULL;
    const char *v[6] = {host_text(t, L, def, o->axis[0].bound), host_text(t, L, def, o->axis[1].bound),
                        host_text(t, L, def, o->axis[0].stride), host_text(t, L, def, o->axis[1].stride),
                        host_text(t, L, def, o->axis[0].size), host_text(t, L, def, o->axis[1].size)};
    for (int i = 0; i < 6; i++)
        if (!v[i])
            return NULL;
    const char *k0 = block_key(&o->axis[0], 0), *k1 = block_key(&o->axis[1], 1);
    /* one constexpr for both sides, or one named like the helper's own
     * _tdx_lead: the keywords would collide */
    if (strcmp(k0, k1) == 0 || strncmp(k0, "_tdx", 4) == 0 || strncmp(k1, "_tdx", 4) == 0)
        return NULL;
    char *lead = "";
    if (o->lead_stride) {
        const char *ls = host_text(t, L, def, o->lead_stride);
        lead = ls ? tdx_arena_printf(&t->arena, "_tdx_lead=%s, ", ls) : NULL;
        if (!lead)
            return NULL;
    }
    return tdx_arena_printf(&t->arena, "%s%s = _tdx_descriptor(%s, (%s, %s), (%s, %s), %s%s=%s, %s=%s)\n", ind, var,
                            x->name, v[0], v[1], v[2], v[3], lead, k0, v[4], k1, v[5]);
}

/* The statement holding launch L, when it is one written on lines of its own. */
static const tdx_src_node *launch_statement(fam_task *t, const tdx_src_node *L)
{
    const tdx_src_node *s = L->parent;
    if (!s || s->kind != TDX_SRC_EXPR_STMT || tdx_src_kid(s, TDX_SRC_R_VALUE) != L || s->role != TDX_SRC_R_BODY)
        return NULL;
    for (size_t p = fam_line_start(t, s->start); p < s->start; p++)
        if (t->src[p] != ' ' && t->src[p] != '\t')
            return NULL;
    return s;
}

/* The kernel copy: renamed, the descriptors added as parameters, the
 * operand loads through them. */
static char *kernel_copy(fam_task *t, const tdx_src_node *def, const tdx_km_tma *sites, size_t nsite, const char *name)
{
    size_t base = fam_line_start(t, def->start);
    tdx_rw_edit e[MAX_LOCAL];
    size_t n = 0;
    int line, col;
    tdx_src_def_name_pos(t->m, def, &line, &col);
    size_t at = tdx_src_offset(t->m, line, col);
    if (at == (size_t)-1 || !def->name)
        return NULL;
    e[n].start = at - base;
    e[n].end = at + strlen(def->name) - base;
    e[n++].text = name;
    const tdx_src_node *last = NULL;
    for (tdx_src_node *p = tdx_src_next(def, TDX_SRC_R_PARAM, NULL); p; p = tdx_src_next(def, TDX_SRC_R_PARAM, p)) {
        if (!p->name)
            return NULL; /* `*` or `/`: the new parameters would not be plain ones */
        last = p;
    }
    if (!last)
        return NULL;
    char *params = "";
    for (size_t i = 0; i < 2 * nsite; i++)
        params = tdx_arena_printf(&t->arena, "%s, _tdx_desc%zu", params, i);
    for (size_t i = 0; i < 2 * nsite && params; i++)
        params = tdx_arena_printf(&t->arena, "%s, _TDX_T%zu: tl.constexpr", params, i);
    e[n].start = e[n].end = last->end - base;
    e[n++].text = params;
    for (size_t s = 0; s < nsite; s++)
        for (int k = 0; k < 2; k++) {
            const tdx_km_tma_operand *o = &sites[s].op[k];
            char *r = offset_text(t, &o->axis[0]), *c = offset_text(t, &o->axis[1]);
            size_t i = 2 * s + (size_t)k;
            e[n].start = o->load->start - base;
            e[n].end = o->load->end - base;
            /* a moved base: the 3-D box at [I, R, C], reshaped to the tile */
            char *lead = "", *rs = "", *rs_t = "";
            if (o->lead_index) {
                size_t il, z0l, z1l;
                const char *it = tdx_src_text(t->m, o->lead_index, &il);
                const char *z0 = tdx_src_text(t->m, o->axis[0].size, &z0l);
                const char *z1 = tdx_src_text(t->m, o->axis[1].size, &z1l);
                lead = tdx_arena_printf(&t->arena, fam_atom(o->lead_index) ? "%.*s, " : "(%.*s), ", (int)il, it);
                rs = tdx_arena_printf(&t->arena, ".reshape([%.*s, %.*s])", (int)z0l, z0, (int)z1l, z1);
                rs_t = tdx_arena_printf(&t->arena, ".reshape([%.*s, %.*s])", (int)z1l, z1, (int)z0l, z0);
            }
            e[n++].text = r && c && lead && rs && rs_t
                              ? tdx_arena_printf(&t->arena,
                                                 "(_tdx_desc%zu.load([%s%s, %s])%s.T if _TDX_T%zu else "
                                                 "_tdx_desc%zu.load([%s%s, %s])%s)",
                                                 i, lead, c, r, rs_t, i, i, lead, r, c, rs)
                              : NULL;
            if (!e[n - 1].text)
                return NULL;
        }
    tdx_buf b;
    tdx_buf_init(&b, 16u << 20);
    char *out = NULL;
    if (tdx_rw_apply(t->src + base, def->end - base, e, n, &b) == TDX_OK)
        out = tdx_arena_strdup(&t->arena, tdx_buf_str(&b));
    tdx_buf_free(&b);
    return out;
}

/* The launch statement replaced: descriptors built, the copy launched when
 * TMA can read them all, else the statement as it was. */
static int launch_edit(fam_task *t, fam_edits *e, const tdx_src_node *L, const tdx_src_node *def,
                       const tdx_km_tma *sites, size_t nsite, const char *name)
{
    const tdx_src_node *s = launch_statement(t, L);
    tdx_src_node *kname = NULL;
    if (!s || !tdx_src_is_launch(L, &kname, NULL) || !tdx_src_is_name(kname, NULL) || tdx_src_count_name(s, "_tdx_d0"))
        return 0;
    size_t ls = fam_line_start(t, s->start);
    char *ind = tdx_arena_printf(&t->arena, "%.*s", (int)(s->start - ls), t->src + ls);
    char *lines = "", *cond = "", *kw = "";
    for (size_t i = 0; i < 2 * nsite && lines; i++) {
        char var[32];
        snprintf(var, sizeof var, "_tdx_d%zu", i);
        char *d = descriptor_line(t, L, def, &sites[i / 2].op[i % 2], ind, var);
        if (!d)
            return 0;
        lines = tdx_arena_printf(&t->arena, "%s%s", lines, d);
        cond = tdx_arena_printf(&t->arena, "%s%s%s", cond, i ? " and " : "", var);
        kw = tdx_arena_printf(&t->arena, "%s%s_tdx_desc%zu=%s[0], _TDX_T%zu=%s[1]", kw, i ? ", " : "", i, var, i, var);
    }
    if (!lines || !cond || !kw)
        return 0;
    /* the copy's call: the kernel renamed, the descriptors passed by keyword */
    size_t close = L->end - 1, p = close;
    while (p > L->start && (t->src[p - 1] == ' ' || t->src[p - 1] == '\n' || t->src[p - 1] == '\t'))
        p--;
    int comma = t->src[p - 1] == ',' || t->src[p - 1] == '(';
    tdx_rw_edit ce[3] = {{kname->start - s->start, kname->end - s->start, name},
                         {close - s->start, close - s->start, tdx_arena_printf(&t->arena, "%s%s", comma ? "" : ", ", kw)}};
    size_t nce = 2;
    if (!ce[1].text || t->src[close] != ')')
        return 0;
    /* a grid bound to a name gets written out in the copy's launch: retune
     * retargets the grid with the copy's tiles, and the pointer kernel keeps
     * the name and its own */
    tdx_src_node *grid = NULL, *gv;
    tdx_src_is_launch(L, NULL, &grid);
    if (tdx_src_is_name(grid, NULL) && (gv = fam_grid_of(t, (tdx_src_node *)L)) && gv != grid) {
        size_t gl;
        const char *gt = tdx_src_text(t->m, gv, &gl);
        ce[nce].start = grid->start - s->start;
        ce[nce].end = grid->end - s->start;
        ce[nce++].text = tdx_arena_printf(&t->arena, "%.*s", (int)gl, gt);
    }
    tdx_buf b;
    tdx_buf_init(&b, 16u << 20);
    char *call = NULL;
    if (tdx_rw_apply(t->src + s->start, s->end - s->start, ce, nce, &b) == TDX_OK)
        call = tdx_arena_strdup(&t->arena, tdx_buf_str(&b));
    tdx_buf_free(&b);
    if (!call)
        return 0;
    char *text = tdx_arena_printf(&t->arena, "%s%sif %s:\n%s    %s\n%selse:\n%s    %.*s", lines, ind, cond, ind, call, ind, ind,
                                  (int)(s->end - s->start), t->src + s->start);
    if (!text)
        return 0;
    fam_edit(t, e, ls, s->end, text);
    return 1;
}

int fam_tma_fallback(fam_task *t, const tdx_src_node *L)
{
    const tdx_src_node *def = fam_launched_kernel(t, L);
    char name[256];
    if (!def || !def->name || (size_t)snprintf(name, sizeof name, "%s_tma", def->name) >= sizeof name)
        return 0;
    return tdx_src_find_def(t->m, name) != NULL;
}

int fam_passes_descriptors(const tdx_src_node *L)
{
    for (tdx_src_node *k = tdx_src_next(L, TDX_SRC_R_KEYWORD, NULL); k; k = tdx_src_next(L, TDX_SRC_R_KEYWORD, k))
        if (k->name && strncmp(k->name, "_tdx_desc", 9) == 0)
            return 1;
    return 0;
}

tdx_status fam_tensor_descriptors(fam_task *t, tdx_rw_emit_fn emit, void *ud)
{
    tdx_status st = TDX_OK;
    int helper = !tdx_src_find_def(t->m, "_tdx_descriptor");
    for (size_t k = 0; k < t->kernels.len && !st; k++) {
        tdx_src_node *def = t->kernels.items[k];
        tdx_km_tma sites[MAX_SITES];
        size_t nsite = fam_self_tuned(def) || !def->name ? 0 : tdx_km_tma_loads(t->m, def, sites, MAX_SITES);
        if (!nsite)
            continue;
        char *name = tdx_arena_printf(&t->arena, "%s_tma", def->name);
        if (!name || tdx_src_find_def(t->m, name))
            continue;
        char *copy = kernel_copy(t, def, sites, nsite, name);
        if (!copy)
            continue;
        fam_edits e = {0};
        int launches = 0, ok = 1;
        for (size_t i = 0; i < t->launches.len && ok; i++) {
            tdx_src_node *L = t->launches.items[i];
            if (fam_launched_kernel(t, L) != def)
                continue;
            ok = launch_edit(t, &e, L, def, sites, nsite, name);
            launches += ok;
        }
        if (!ok || !launches)
            continue;
        fam_edit(t, &e, def->end, def->end,
                 tdx_arena_printf(&t->arena, "\n\n\n%s%s%.*s", copy, helper ? "\n\n\n" : "",
                                  helper ? (int)sizeof helper_text - 2 : 0, helper_text));
        char sum[256];
        snprintf(sum, sizeof sum,
                 "%s: the tl.dot operands of %zu loop%s loaded through tensor descriptors (TMA) in a copy, %s; "
                 "the pointer kernel kept for inputs TMA cannot read",
                 def->name, nsite, nsite == 1 ? "" : "s", name);
        st = fam_emit(t, &e, emit, ud, "tensor-descriptors", sum);
    }
    return st;
}
