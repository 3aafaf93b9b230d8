/* The joined kernel: per-op records built from TTGIR (or TTIR) ops and the
 * PTX and SASS instructions that carry the same source location.
 *
 * Joining is by source location because that is the only key the stages
 * share: MLIR ops carry loc(...), PTX carries .loc with the inlined-at chain,
 * SASS carries `//## File ..., line N`. Every location is first brought to
 * the kernel's own file (the innermost frame there), so a tl.sum body in
 * triton/language/standard.py lands on the kernel line that called it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/file.h"
#include "ir/ir_int.h"

// An empty kernel with its own arena.
void tdx_ir_kernel_init(tdx_ir_kernel *k)
{
    memset(k, 0, sizeof *k);
    tdx_arena_init(&k->arena, 64 * 1024);
}

// Release the arena and everything parsed into it.
void tdx_ir_kernel_free(tdx_ir_kernel *k)
{
    tdx_arena_free(&k->arena);
    memset(k, 0, sizeof *k);
}

// Monotonic seconds, for the per-stage parse times.
static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

// Dispatch one stage's text to its parser, timing it.
tdx_status tdx_ir_kernel_add(tdx_ir_kernel *k, tdx_ir_stage stage, const char *text, size_t len,
                             tdx_diags *diags)
{
    double t0 = now();
    tdx_status st = TDX_ERR_ARG;
    switch (stage) {
    case TDX_IR_TTIR: st = tdx_ir_mlir_parse(text, len, &k->arena, &k->ttir, diags); break;
    case TDX_IR_TTGIR: st = tdx_ir_mlir_parse(text, len, &k->arena, &k->ttgir, diags); break;
    case TDX_IR_PTX: st = tdx_ir_ptx_parse(text, len, &k->arena, &k->ptx, diags); break;
    case TDX_IR_SASS: st = tdx_ir_sass_parse(text, len, &k->arena, &k->sass, diags); break;
    case TDX_IR_PTXAS: st = tdx_ir_ptxas_parse(text, len, &k->arena, &k->ptxas, diags); break;
    default: break;
    }
    if ((unsigned)stage < TDX_IR_NSTAGES)
        k->parse_seconds[stage] = now() - t0;
    return st;
}

// 1 when needle occurs in s[0..n).
static int has(const char *s, size_t n, const char *needle)
{
    size_t k = strlen(needle);
    for (const char *p = s; n >= k && (p = memchr(p, needle[0], (size_t)(s + n - p - (k - 1))));
         p++)
        if (memcmp(p, needle, k) == 0)
            return 1;
    return 0;
}

// Guess a stage from its content (see ir.h).
tdx_ir_stage tdx_ir_guess_stage(const char *text, size_t len)
{
    size_t n = len < 65536 ? len : 65536;
    if (!text)
        return TDX_IR_NSTAGES;
    if (has(text, n, "tt.func"))
        return has(text, n, "ttg.") || has(text, n, "triton_gpu.") ? TDX_IR_TTGIR : TDX_IR_TTIR;
    if (has(text, n, ".version") && (has(text, n, ".entry") || has(text, n, ".target")))
        return TDX_IR_PTX;
    if (has(text, n, "ptxas"))
        return TDX_IR_PTXAS;
    if (has(text, n, "/*0000*/") || has(text, n, "//## File") || has(text, n, "Function : "))
        return TDX_IR_SASS;
    return TDX_IR_NSTAGES;
}

// Read a fixture-style folder of stage files and join them.
tdx_status tdx_ir_kernel_load_dir(tdx_ir_kernel *k, const char *dir, tdx_diags *diags)
{
    static const char *const names[TDX_IR_NSTAGES] = {"k.ttir", "k.ttgir", "k.ptx", "k.sass",
                                                      "k.ptxas.txt"};
    tdx_status first = TDX_OK;
    for (int s = 0; s < TDX_IR_NSTAGES; s++) {
        char path[4096];
        int w = snprintf(path, sizeof path, "%s/%s", dir, names[s]);
        if (w < 0 || (size_t)w >= sizeof path)
            return TDX_ERR_ARG;
        char *text = NULL;
        size_t len = 0;
        tdx_status st = tdx_file_read(path, TDX_IR_MAX_INPUT, &text, &len);
        if (st == TDX_ERR_IO)
            continue;
        if (st == TDX_OK)
            st = tdx_ir_kernel_add(k, (tdx_ir_stage)s, text, len, diags);
        free(text);
        if (st != TDX_OK && first == TDX_OK)
            first = st;
    }
    if (!k->ttgir && !k->ttir && !k->ptx) {
        if (diags)
            tdx_diags_add(diags, TDX_SEV_ERROR, dir, 0, 0, "no k.ttgir, k.ttir or k.ptx here");
        return first != TDX_OK ? first : TDX_ERR_NOTFOUND;
    }
    tdx_status st = tdx_ir_kernel_join(k, diags);
    return first != TDX_OK ? first : st;
}

/* ---- PTX / SASS lookups by source location ----------------------------------------- */

// The location of a PTX instruction in the kernel's own file (line 0 when it
// cannot be brought there).
static void ptx_site(const tdx_ir_kernel *k, const tdx_ir_ptx_insn *in, int *line, int *col)
{
    *line = *col = 0;
    const char *f = in->file >= 0 && (size_t)in->file < k->ptx->nfiles ? k->ptx->files[in->file]
                                                                      : NULL;
    if (!k->file || (f && tdx_ir__same_file(f, k->file))) {
        *line = in->line;
        *col = in->col;
    } else if (in->site_file &&
               strcmp(tdx_ir__basename(in->site_file), tdx_ir__basename(k->file)) == 0) {
        *line = in->site_line;
        *col = in->site_col;
    }
}

/* Instructions of PTX and SASS sorted by their line in the kernel's file,
 * so each record finds its instructions by binary search. */
typedef struct ent {
    int line, col;
    size_t i;
} ent;

struct tdx_ir_index {
    ent *ptx, *sass;
    size_t nptx, nsass;
};

// Order index entries by line, then by position in the listing.
static int cmp_ent(const void *a, const void *b)
{
    const ent *x = a, *y = b;
    if (x->line != y->line)
        return (x->line > y->line) - (x->line < y->line);
    return (x->i > y->i) - (x->i < y->i);
}

// Sort PTX and SASS instructions by their line in the kernel's file.
static tdx_status build_index(tdx_ir_kernel *k)
{
    struct tdx_ir_index *ix = tdx_arena_alloc(&k->arena, sizeof *ix);
    if (!ix)
        return TDX_ERR_NOMEM;
    if (k->ptx && k->ptx->ninsns) {
        ix->ptx = tdx_arena_alloc(&k->arena, k->ptx->ninsns * sizeof *ix->ptx);
        if (!ix->ptx)
            return TDX_ERR_NOMEM;
        for (size_t i = 0; i < k->ptx->ninsns; i++) {
            ix->ptx[i].i = i;
            ptx_site(k, &k->ptx->insns[i], &ix->ptx[i].line, &ix->ptx[i].col);
        }
        ix->nptx = k->ptx->ninsns;
        qsort(ix->ptx, ix->nptx, sizeof *ix->ptx, cmp_ent);
    }
    if (k->sass && k->sass->ninsns) {
        ix->sass = tdx_arena_alloc(&k->arena, k->sass->ninsns * sizeof *ix->sass);
        if (!ix->sass)
            return TDX_ERR_NOMEM;
        for (size_t i = 0; i < k->sass->ninsns; i++) {
            const tdx_ir_sass_insn *in = &k->sass->insns[i];
            ix->sass[i].i = i;
            ix->sass[i].line =
                k->file && in->file && !tdx_ir__same_file(in->file, k->file) ? 0 : in->line;
        }
        ix->nsass = k->sass->ninsns;
        qsort(ix->sass, ix->nsass, sizeof *ix->sass, cmp_ent);
    }
    k->index = ix;
    return TDX_OK;
}

// The run of entries with this line: [*lo, *hi).
static void range(const ent *e, size_t n, int line, size_t *lo, size_t *hi)
{
    size_t a = 0, b = n;
    while (a < b) {
        size_t m = a + (b - a) / 2;
        if (e[m].line < line)
            a = m + 1;
        else
            b = m;
    }
    *lo = a;
    while (a < n && e[a].line == line)
        a++;
    *hi = a;
}

typedef struct ptx_match {
    int count, pred, bits, bytes;
    int vec_hist[9];
    int cls_count[TDX_PTX_NCLASSES];
    const char *first[TDX_PTX_NCLASSES]; /* opcode of the first match per class */
    char mods[128];
} ptx_match;

// 1 for PTX cache and eviction modifiers (.cg, .cs, .L1::evict_first, ...).
static int cache_mod(const char *m, size_t n)
{
    static const char *const mods[] = {"ca", "cg", "cs", "lu", "cv", "wb", "wt", "nc"};
    if (n > 4 && (memcmp(m, "L1::", 4) == 0 || memcmp(m, "L2::", 4) == 0))
        return 1;
    for (size_t i = 0; i < sizeof mods / sizeof mods[0]; i++)
        if (n == 2 && memcmp(m, mods[i], 2) == 0)
            return 1;
    return 0;
}

// Collect an instruction's cache modifiers into m->mods, once each.
static void add_mods(ptx_match *m, const char *mods)
{
    for (const char *s = mods; s && *s;) {
        const char *dot = strchr(s, '.');
        size_t n = dot ? (size_t)(dot - s) : strlen(s);
        if (cache_mod(s, n) && n < 32) {
            char tok[40];
            memcpy(tok, s, n);
            tok[n] = 0;
            int seen = 0;
            for (const char *h = m->mods; *h;) {
                size_t hn = strcspn(h, ".");
                if (hn == n && memcmp(h, tok, n) == 0)
                    seen = 1;
                h += hn;
                if (*h == '.')
                    h++;
            }
            size_t cur = strlen(m->mods);
            if (!seen && cur + n + 2 < sizeof m->mods) {
                if (cur)
                    m->mods[cur++] = '.';
                memcpy(m->mods + cur, tok, n + 1);
            }
        }
        s = dot ? dot + 1 : NULL;
    }
}

// PTX instructions of the given classes at line:col (col 0: any column);
// when none match the column and widen is set, the whole line.
static void ptx_at(const tdx_ir_kernel *k, int line, int col, int widen,
                   const tdx_ir_ptx_class *cls, size_t ncls, ptx_match *m)
{
    memset(m, 0, sizeof *m);
    if (!k->ptx || !k->index || line <= 0)
        return;
    size_t lo, hi;
    range(k->index->ptx, k->index->nptx, line, &lo, &hi);
    for (int pass = 0; pass < 2 && !m->count; pass++) {
        int want_col = pass == 0 ? col : 0;
        if (pass == 1 && (col == 0 || !widen))
            break;
        for (size_t e = lo; e < hi; e++) {
            const tdx_ir_ptx_insn *in = &k->ptx->insns[k->index->ptx[e].i];
            int ok = 0;
            for (size_t c = 0; c < ncls; c++)
                ok |= in->cls == cls[c];
            if (!ok || (want_col && k->index->ptx[e].col != want_col))
                continue;
            m->count++;
            if (!m->cls_count[in->cls]++)
                m->first[in->cls] = in->opcode;
            m->pred |= in->pred != NULL;
            m->vec_hist[in->vec <= 8 ? in->vec : 8]++;
            if (!m->bits || in->bits)
                m->bits = in->bits;
            if (in->cls == TDX_PTX_CP_ASYNC && in->bytes > m->bytes)
                m->bytes = in->bytes;
            add_mods(m, in->mods);
        }
    }
}

// The .vN seen most often (1 for scalar), 0 when nothing matched.
static int most_common_vec(const ptx_match *m)
{
    int best = 0;
    for (int v = 1; v <= 8; v++)
        if (m->vec_hist[v] > (best ? m->vec_hist[best] : 0))
            best = v;
    return best;
}

// SASS instructions with one of the bases at a line of the kernel's file.
static void sass_at(const tdx_ir_kernel *k, int line, const char *const *bases, size_t nb,
                    int *count, int *width)
{
    *count = *width = 0;
    if (!k->sass || !k->index || line <= 0)
        return;
    size_t lo, hi;
    range(k->index->sass, k->index->nsass, line, &lo, &hi);
    for (size_t e = lo; e < hi; e++) {
        const tdx_ir_sass_insn *in = &k->sass->insns[k->index->sass[e].i];
        for (size_t b = 0; b < nb; b++)
            if (strcmp(in->base, bases[b]) == 0) {
                (*count)++;
                if (in->width > *width)
                    *width = in->width;
            }
    }
}

/* ---- records ------------------------------------------------------------------------ */

// 1 when s starts with p.
static int starts(const char *s, const char *p)
{
    return s && strncmp(s, p, strlen(p)) == 0;
}

// 1 when the op has this name.
static int is_op(const tdx_ir_op *op, const char *name)
{
    return op->name && strcmp(op->name, name) == 0;
}

// A global access record: TTGIR facts, then the PTX and SASS at its location.
static void mem_record(tdx_ir_kernel *k, const tdx_ir_op *op, tdx_ptrvec *out)
{
    tdx_ir_mem *r = tdx_arena_alloc(&k->arena, sizeof *r);
    if (!r)
        return;
    r->op = op;
    r->loc = op->loc;
    r->is_store = is_op(op, "tt.store") || is_op(op, "tt.descriptor_store");
    r->is_tma = strstr(op->name, "tma") != NULL || starts(op->name, "tt.descriptor_");
    r->is_async = is_op(op, "ttg.async_copy_global_to_local") || r->is_tma;
    const tdx_ir_type *pt = op->nin ? &op->in_types[0] : NULL;
    if (pt) {
        r->elem_bits = pt->elem_bits;
        r->contig = tdx_ir_layout_contig(pt->layout);
    }
    /* A TMA copy reads through a descriptor: the element is the shared
     * buffer's. */
    if (!r->elem_bits && op->nout && op->out_types[op->nout - 1].elem_bits)
        r->elem_bits = op->out_types[op->nout - 1].elem_bits;
    if (is_op(op, "ttg.async_copy_global_to_local")) {
        r->masked = op->noperands >= 3;
        r->contig = (int)tdx_ir_op_attr_int(op, "contiguity", r->contig);
    } else if (r->is_store) {
        r->masked = op->noperands >= 3;
    } else {
        r->masked = op->noperands >= 2 && !r->is_tma;
    }
    const tdx_ir_attr *c = tdx_ir_op_attr(op, "cacheModifier");
    const tdx_ir_attr *e = tdx_ir_op_attr(op, "evictionPolicy");
    r->cache = c ? c->value : NULL;
    r->evict = e ? e->value : NULL;
    tdx_ir_ptx_class cls;
    const char *sb[2] = {NULL, NULL};
    size_t nsb = 1;
    if (r->is_tma) {
        cls = TDX_PTX_CP_ASYNC_BULK;
        sb[0] = r->is_store ? "UTMASTG" : "UTMALDG";
    } else if (r->is_async) {
        cls = TDX_PTX_CP_ASYNC;
        sb[0] = "LDGSTS";
    } else if (r->is_store) {
        cls = TDX_PTX_ST_GLOBAL;
        sb[0] = "STG";
    } else {
        cls = TDX_PTX_LD_GLOBAL;
        sb[0] = "LDG";
    }
    ptx_match m;
    ptx_at(k, r->loc.site.line, r->loc.site.col, 1, &cls, 1, &m);
    r->ptx_count = m.count;
    r->ptx_vec = most_common_vec(&m);
    r->ptx_bits = r->is_async && !r->is_tma ? 0 : r->ptx_vec * m.bits;
    if (cls == TDX_PTX_CP_ASYNC)
        r->ptx_bits = m.bytes * 8; /* the copy size is in bytes, not a .vN modifier */
    r->ptx_pred = m.pred;
    r->ptx_mods = tdx_arena_strdup(&k->arena, m.mods);
    sass_at(k, r->loc.site.line, sb, nsb, &r->sass_count, &r->sass_width);
    tdx_ptrvec_push(&k->arena, out, r);
}

// 1 when two blocked layouts share rank, warps and order; *threads_differ
// says whether lanes or registers move between them.
static int same_blocked(const tdx_ir_layout *a, const tdx_ir_layout *b, int *threads_differ)
{
    *threads_differ = 0;
    if (a->rank != b->rank)
        return 0;
    for (int i = 0; i < a->rank; i++) {
        if (a->warps_per_cta[i] != b->warps_per_cta[i] || a->order[i] != b->order[i])
            return 0;
        if (a->threads_per_warp[i] != b->threads_per_warp[i] ||
            a->size_per_thread[i] != b->size_per_thread[i])
            *threads_differ = 1;
    }
    return 1;
}

// A layout conversion record and whether it goes through shared memory.
static void cvt_record(tdx_ir_kernel *k, const tdx_ir_op *op, tdx_ptrvec *out)
{
    tdx_ir_cvt *r = tdx_arena_alloc(&k->arena, sizeof *r);
    if (!r)
        return;
    r->op = op;
    r->loc = op->loc;
    r->src = op->nin ? op->in_types[0].layout : NULL;
    r->dst = op->nout ? op->out_types[0].layout : NULL;
    r->smem = -1;
    if (k->ptx) {
        /* A conversion through shared memory stores and loads shared memory
         * at its own location (ConvertLayoutOpToLLVM). */
        static const tdx_ir_ptx_class sh[] = {TDX_PTX_ST_SHARED, TDX_PTX_LD_SHARED,
                                              TDX_PTX_STMATRIX, TDX_PTX_LDMATRIX, TDX_PTX_SHFL};
        ptx_match m;
        /* Only its own column: a reduction on the same line also uses
         * shared memory. */
        ptx_at(k, r->loc.site.line, r->loc.site.col, 0, sh, 5, &m);
        r->shuffles = m.cls_count[TDX_PTX_SHFL];
        r->smem = m.count > r->shuffles;
        r->smem_by_ptx = 1;
    } else if (r->src && r->dst) {
        /* Without PTX, from the layouts: a different order or warp split
         * moves data across warps, which only shared memory can do. A change
         * of lanes or registers within the same warps stays in registers:
         * Triton 3.6 lowers it to warp shuffles (the dot_fp32_ieee fixture:
         * blocked [2,16] → [4,8] lanes, 8 shfl.sync and no shared access). */
        int td;
        if (r->src->kind == TDX_IR_LAYOUT_BLOCKED && r->dst->kind == TDX_IR_LAYOUT_BLOCKED &&
            same_blocked(r->src, r->dst, &td))
            r->smem = 0;
        else
            r->smem = 1;
    }
    tdx_ptrvec_push(&k->arena, out, r);
}

// A dot record: the path TTGIR chose and the instructions PTX and SASS show.
static void dot_record(tdx_ir_kernel *k, const tdx_ir_op *op, tdx_ptrvec *out)
{
    tdx_ir_dot *r = tdx_arena_alloc(&k->arena, sizeof *r);
    if (!r)
        return;
    r->op = op;
    r->loc = op->loc;
    const tdx_ir_type *t = tdx_ir_op_type(op);
    const tdx_ir_layout *l = t ? t->layout : NULL;
    if (starts(op->name, "ttng.warp_group_dot"))
        r->path = TDX_IR_DOT_WGMMA;
    else if (l && l->kind == TDX_IR_LAYOUT_NVIDIA_MMA)
        r->path = l->version_major >= 3 ? TDX_IR_DOT_WGMMA : TDX_IR_DOT_MMA;
    else if (l && l->kind == TDX_IR_LAYOUT_BLOCKED)
        r->path = TDX_IR_DOT_FMA;
    if (l && l->kind == TDX_IR_LAYOUT_NVIDIA_MMA) {
        r->ninstr = l->ninstr;
        memcpy(r->instr, l->instr_shape, sizeof r->instr);
    }
    r->a_elem = op->nin ? op->in_types[0].elem : NULL;
    /* tt.dot prints the enum by name, ttng.warp_group_dot by number
     * (TritonAttrDefs.td: TF32 = 0, TF32x3 = 1, IEEE = 2). */
    const tdx_ir_attr *pr = tdx_ir_op_attr(op, "inputPrecision");
    if (pr) {
        static const char *const names[] = {"tf32", "tf32x3", "ieee", "bf16x3", "bf16x6"};
        long long v = -1;
        const char *val = pr->value;
        size_t n = strcspn(val, " :");
        if (tdx_ir__int(val, n, &v) == n && v >= 0 && v < 5)
            r->precision = names[v];
        else
            r->precision = tdx_arena_strndup(&k->arena, val, n);
    }
    static const tdx_ir_ptx_class dc[] = {TDX_PTX_WGMMA, TDX_PTX_MMA, TDX_PTX_FMA_F32};
    ptx_match m;
    ptx_at(k, r->loc.site.line, 0, 0, dc, 3, &m);
    if (m.cls_count[TDX_PTX_WGMMA]) {
        r->ptx_path = TDX_IR_DOT_WGMMA;
        r->ptx_count = m.cls_count[TDX_PTX_WGMMA];
    } else if (m.cls_count[TDX_PTX_MMA]) {
        r->ptx_path = TDX_IR_DOT_MMA;
        r->ptx_count = m.cls_count[TDX_PTX_MMA];
    } else if (m.cls_count[TDX_PTX_FMA_F32]) {
        r->ptx_path = TDX_IR_DOT_FMA;
        r->ptx_count = m.cls_count[TDX_PTX_FMA_F32];
    }
    /* The instruction shape PTX spells: ".m64n128k16". */
    const char *opc = r->ptx_path == TDX_IR_DOT_WGMMA ? m.first[TDX_PTX_WGMMA]
                      : r->ptx_path == TDX_IR_DOT_MMA ? m.first[TDX_PTX_MMA]
                                                      : NULL;
    for (const char *d = opc ? strchr(opc, '.') : NULL; d; d = strchr(d + 1, '.')) {
        size_t n = strcspn(d + 1, ".");
        if (n >= 5 && d[1] == 'm' && d[2] >= '0' && d[2] <= '9' && memchr(d + 1, 'n', n) &&
            memchr(d + 1, 'k', n)) {
            r->ptx_shape = tdx_arena_strndup(&k->arena, d + 1, n);
            break;
        }
    }
    static const char *const sb[] = {"HGMMA", "HMMA", "FFMA"};
    const char *const *pick = r->ptx_path == TDX_IR_DOT_WGMMA ? sb
                              : r->ptx_path == TDX_IR_DOT_MMA ? sb + 1
                                                              : sb + 2;
    int w;
    sass_at(k, r->loc.site.line, pick, 1, &r->sass_count, &w);
    tdx_ptrvec_push(&k->arena, out, r);
}

// Walk a loop body, not descending into nested loops, counting what the
// pipeliner leaves behind.
static void loop_walk(const tdx_ir_module *m, const tdx_ir_op *op, tdx_ir_loop *r)
{
    for (size_t g = 0; g < op->nregions; g++)
        for (size_t i = 0; i < op->regions[g].nops; i++) {
            const tdx_ir_op *c = op->regions[g].ops[i];
            if (!c->name)
                continue;
            if (is_op(c, "scf.for") || is_op(c, "scf.while")) {
                r->outer = 1;
                continue;
            }
            if (is_op(c, "tt.load"))
                r->loads++;
            else if (is_op(c, "ttg.async_copy_global_to_local") ||
                     strstr(c->name, "async_tma_copy") || is_op(c, "tt.descriptor_load"))
                r->async_copies++;
            else if (is_op(c, "ttg.async_wait") || is_op(c, "ttng.wait_barrier"))
                r->waits++;
            else if (is_op(c, "tt.dot") || starts(c->name, "ttng.warp_group_dot") ||
                     is_op(c, "tt.dot_scaled"))
                r->dots += !strstr(c->name, "wait");
            else if ((is_op(c, "ttg.memdesc_index") || is_op(c, "ttg.memdesc_subview")) &&
                     c->noperands) {
                const tdx_ir_op *def = tdx_ir_def(m, c->operands[0]);
                const tdx_ir_type *t = def ? tdx_ir_op_type(def) : NULL;
                const tdx_ir_type *rt = tdx_ir_op_type(c);
                if (def && is_op(def, "ttg.local_alloc") && t && t->kind == TDX_IR_TYPE_MEMDESC &&
                    rt && t->rank == rt->rank + 1 && t->shape[0] > r->bufs)
                    r->bufs = (int)t->shape[0];
            }
            loop_walk(m, c, r);
        }
}

// An scf.for record: nesting, and what the pipeliner did to its body.
static void loop_record(tdx_ir_kernel *k, const tdx_ir_module *m, const tdx_ir_op *op,
                        tdx_ptrvec *out)
{
    tdx_ir_loop *r = tdx_arena_alloc(&k->arena, sizeof *r);
    if (!r)
        return;
    r->op = op;
    r->loc = op->loc;
    for (const tdx_ir_op *p = op->parent; p; p = p->parent)
        r->depth += is_op(p, "scf.for") || is_op(p, "scf.while");
    loop_walk(m, op, r);
    r->pipelined = r->async_copies > 0 && r->waits > 0;
    if (r->bufs < 1)
        r->bufs = 1;
    tdx_ptrvec_push(&k->arena, out, r);
}

// Count one local-memory access (which: 0 ld.local, 1 st.local, 2 LDL, 3 STL) at a line.
static void local_add(tdx_ptrvec *v, tdx_arena *a, int line, int which)
{
    tdx_ir_local *r = NULL;
    for (size_t i = 0; i < v->len; i++)
        if (((tdx_ir_local *)v->items[i])->line == line)
            r = v->items[i];
    if (!r) {
        r = tdx_arena_alloc(a, sizeof *r);
        if (!r || tdx_ptrvec_push(a, v, r))
            return;
        r->line = line;
    }
    int *f[] = {&r->ptx_ld, &r->ptx_st, &r->sass_ldl, &r->sass_stl};
    (*f[which])++;
}

// Order local-memory records by line.
static int cmp_local(const void *a, const void *b)
{
    const tdx_ir_local *x = *(tdx_ir_local *const *)a, *y = *(tdx_ir_local *const *)b;
    return (x->line > y->line) - (x->line < y->line);
}

#define FINISH(vec, field, nfield, type)                                               \
    do {                                                                               \
        k->field = tdx_arena_alloc(&k->arena, ((vec).len ? (vec).len : 1) * sizeof(type)); \
        if (!k->field)                                                                 \
            return TDX_ERR_NOMEM;                                                      \
        for (size_t i_ = 0; i_ < (vec).len; i_++)                                      \
            k->field[i_] = *(type *)(vec).items[i_];                                   \
        k->nfield = (vec).len;                                                         \
    } while (0)

// Build every record from the stages that were added.
tdx_status tdx_ir_kernel_join(tdx_ir_kernel *k, tdx_diags *diags)
{
    const tdx_ir_module *m = k->ttgir ? k->ttgir : k->ttir;
    k->name = NULL;
    k->file = NULL;
    if (m) {
        k->num_warps = m->num_warps;
        k->threads_per_warp = m->threads_per_warp;
        k->num_ctas = m->num_ctas;
        k->file = m->kernel_file;
        for (size_t i = 0; i < m->funcs.len && !k->name; i++) {
            const tdx_ir_func *f = m->funcs.items[i];
            if (f->op && f->op->text && strstr(f->op->text, "tt.func public"))
                k->name = f->name;
        }
        if (!k->name && m->funcs.len)
            k->name = ((tdx_ir_func *)m->funcs.items[0])->name;
    }
    if (!k->name && k->ptx)
        k->name = k->ptx->entry;
    if (!k->file && k->ptx && k->ptx->nfiles > 1)
        k->file = k->ptx->files[1];
    k->res = NULL;
    for (size_t i = 0; k->ptxas && i < k->ptxas->nfuncs; i++)
        if (!k->res || (k->name && strcmp(k->ptxas->funcs[i].name, k->name) == 0))
            k->res = &k->ptxas->funcs[i];
    tdx_status ist = build_index(k);
    if (ist != TDX_OK)
        return ist;
    tdx_ptrvec mems = {0}, cvts = {0}, dots = {0}, loops = {0}, i64s = {0}, locals = {0};
    k->local_allocs = k->local_loads = 0;
    for (size_t i = 0; m && i < m->ops.len; i++) {
        const tdx_ir_op *op = m->ops.items[i];
        const char *n = op->name;
        if (!n)
            continue;
        if (is_op(op, "tt.load") || is_op(op, "tt.store") || is_op(op, "tt.descriptor_load") ||
            is_op(op, "tt.descriptor_store") || is_op(op, "ttg.async_copy_global_to_local") ||
            is_op(op, "ttng.async_tma_copy_global_to_local") ||
            is_op(op, "ttng.async_tma_copy_local_to_global")) {
            mem_record(k, op, &mems);
        } else if (is_op(op, "ttg.convert_layout")) {
            cvt_record(k, op, &cvts);
        } else if (is_op(op, "tt.dot") || is_op(op, "ttng.warp_group_dot") ||
                   is_op(op, "tt.dot_scaled")) {
            dot_record(k, op, &dots);
        } else if (is_op(op, "scf.for")) {
            loop_record(k, m, op, &loops);
        } else if (is_op(op, "ttg.local_alloc")) {
            k->local_allocs += op->noperands > 0; /* registers → shared */
        } else if (is_op(op, "ttg.local_load")) {
            k->local_loads++;
        } else if (starts(n, "arith.") && !is_op(op, "arith.constant")) {
            const tdx_ir_type *t = tdx_ir_op_type(op);
            if (t && t->kind == TDX_IR_TYPE_TENSOR && t->elem && strcmp(t->elem, "i64") == 0) {
                tdx_ir_i64 *r = tdx_arena_alloc(&k->arena, sizeof *r);
                if (r) {
                    r->op = op;
                    r->loc = op->loc;
                    tdx_ptrvec_push(&k->arena, &i64s, r);
                }
            }
        }
    }
    for (size_t i = 0; k->ptx && i < k->ptx->ninsns; i++) {
        const tdx_ir_ptx_insn *in = &k->ptx->insns[i];
        if (in->cls == TDX_PTX_LD_LOCAL || in->cls == TDX_PTX_ST_LOCAL) {
            int l, c;
            ptx_site(k, in, &l, &c);
            local_add(&locals, &k->arena, l, in->cls == TDX_PTX_LD_LOCAL ? 0 : 1);
        }
    }
    for (size_t i = 0; k->sass && i < k->sass->ninsns; i++) {
        const tdx_ir_sass_insn *in = &k->sass->insns[i];
        if (strcmp(in->base, "LDL") == 0 || strcmp(in->base, "STL") == 0) {
            int line = k->file && in->file && !tdx_ir__same_file(in->file, k->file) ? 0 : in->line;
            local_add(&locals, &k->arena, line, in->base[0] == 'L' ? 2 : 3);
        }
    }
    if (locals.len > 1)
        qsort(locals.items, locals.len, sizeof *locals.items, cmp_local);
    FINISH(mems, mems, nmems, tdx_ir_mem);
    FINISH(cvts, cvts, ncvts, tdx_ir_cvt);
    FINISH(dots, dots, ndots, tdx_ir_dot);
    FINISH(loops, loops, nloops, tdx_ir_loop);
    FINISH(i64s, i64s, ni64s, tdx_ir_i64);
    FINISH(locals, locals, nlocals, tdx_ir_local);
    /* Stages whose lines never name the kernel's file were compiled from
     * another source (or without line info): their facts are left out. */
    size_t placed = 0;
    for (size_t i = 0; i < k->index->nptx; i++)
        placed += k->index->ptx[i].line > 0;
    if (diags && k->ptx && k->ptx->ninsns && !placed)
        tdx_diags_add(diags, TDX_SEV_WARNING, k->file, 0, 0,
                      "ptx: no instruction maps to a line of the kernel's file");
    placed = 0;
    for (size_t i = 0; i < k->index->nsass; i++)
        placed += k->index->sass[i].line > 0;
    if (diags && k->sass && k->sass->ninsns && !placed)
        tdx_diags_add(diags, TDX_SEV_WARNING, k->file, 0, 0,
                      "sass: no instruction maps to a line of the kernel's file");
    return TDX_OK;
}
