/* Parsers for the artifacts of one compiled Triton kernel (tdx_ir_*), and
 * the per-op records joined across them.
 *
 * Stages: MLIR text (TTIR, TTGIR), PTX, SASS (`nvdisasm -g -c` or
 * `cuobjdump -sass`) and the `ptxas -v` log. Each parser is tolerant: ops,
 * attributes, directives and opcodes it does not know are kept as text or
 * skipped, never an error. Input is bounded (TDX_IR_MAX_INPUT bytes, nesting
 * depth, location chains), malformed text yields TDX_ERR_PARSE with a
 * diagnostic, and no input makes a parser crash.
 *
 * Ownership: every parsed structure and string lives in the tdx_arena passed
 * to the parser (for a tdx_ir_kernel: the kernel's own arena) and is freed
 * with it. Input text is copied where kept; the caller's buffer may go away
 * after the call. */
#ifndef TDX_IR_IR_H
#define TDX_IR_IR_H

#include <stddef.h>

#include "base/arena.h"
#include "base/buf.h"
#include "base/diag.h"
#include "base/status.h"

#define TDX_IR_MAX_INPUT ((size_t)64 << 20) /* bytes per stage */
#define TDX_IR_MAX_RANK 8
#define TDX_IR_MAX_DEPTH 64 /* nested regions / brackets */
#define TDX_IR_MAX_FRAMES 8 /* frames kept per resolved location */

/* ---- source locations ---------------------------------------------------- */

typedef struct tdx_ir_loc {
    const char *file; /* NULL when unknown */
    int line, col;    /* 0 when unknown */
} tdx_ir_loc;

/* A resolved location: its frames from the innermost (where the op's code
 * is, possibly in a helper or in triton/language/) to the outermost call
 * site, and `site`, the innermost frame in the kernel's own file: the line a
 * kernel author reads. */
typedef struct tdx_ir_srcloc {
    tdx_ir_loc frames[TDX_IR_MAX_FRAMES];
    int nframes;
    tdx_ir_loc site;
    const char *name; /* variable name from a name location, may be NULL */
} tdx_ir_srcloc;

/* ---- MLIR: layouts, types, ops -------------------------------------------- */

typedef enum tdx_ir_layout_kind {
    TDX_IR_LAYOUT_OTHER = 0,
    TDX_IR_LAYOUT_BLOCKED,
    TDX_IR_LAYOUT_NVIDIA_MMA,
    TDX_IR_LAYOUT_NVMMA_SHARED,
    TDX_IR_LAYOUT_SWIZZLED_SHARED,
    TDX_IR_LAYOUT_SLICE,
    TDX_IR_LAYOUT_DOT_OP,
    TDX_IR_LAYOUT_LINEAR,
    TDX_IR_LAYOUT_SHARED_MEMORY,
} tdx_ir_layout_kind;

typedef struct tdx_ir_layout tdx_ir_layout;
struct tdx_ir_layout {
    const char *alias; /* "blocked1" for `#blocked1 = ...`; NULL when inline */
    const char *text;  /* the attribute as written, e.g. "#ttg.blocked<{...}>" */
    tdx_ir_layout_kind kind;
    int rank;          /* of the array fields below, 0 when absent */
    int size_per_thread[TDX_IR_MAX_RANK], threads_per_warp[TDX_IR_MAX_RANK];
    int warps_per_cta[TDX_IR_MAX_RANK], order[TDX_IR_MAX_RANK];
    int version_major, version_minor;       /* nvidia_mma */
    int instr_shape[3], ninstr;             /* nvidia_mma */
    int dim;                                /* slice */
    int op_idx, k_width;                    /* dot_op */
    int swizzle_bytes, transposed, elem_bits; /* nvmma_shared */
    int vec, per_phase, max_phase;          /* swizzled_shared */
    const tdx_ir_layout *parent;            /* slice, dot_op; NULL when unknown */
};

typedef enum tdx_ir_type_kind {
    TDX_IR_TYPE_OTHER = 0,
    TDX_IR_TYPE_SCALAR,  /* i32, f16, index, ... */
    TDX_IR_TYPE_PTR,     /* !tt.ptr<f16> */
    TDX_IR_TYPE_TENSOR,  /* tensor<128x64xf16, #blocked> */
    TDX_IR_TYPE_MEMDESC, /* !ttg.memdesc<3x128x64xf16, #shared, #smem, mutable> */
    TDX_IR_TYPE_TOKEN,   /* !ttg.async.token and other opaque types */
} tdx_ir_type_kind;

typedef struct tdx_ir_type {
    tdx_ir_type_kind kind;
    const char *text;            /* as written */
    int rank;
    long long shape[TDX_IR_MAX_RANK];
    const char *elem;            /* element ("f16", "i64"); for pointers "ptr" */
    const char *pointee;         /* pointers and tensors of pointers: "f16"; else NULL */
    int elem_bits;               /* of elem, or of the pointee for pointers; 0 unknown */
    const tdx_ir_layout *layout; /* tensors, memdescs: the encoding; may be NULL */
    int mutable_;                /* memdesc */
} tdx_ir_type;

typedef struct tdx_ir_attr {
    const char *name;  /* unquoted */
    const char *value; /* text as written, "" for a unit attribute */
} tdx_ir_attr;

typedef struct tdx_ir_op tdx_ir_op;

typedef struct tdx_ir_region {
    tdx_ir_op **ops; /* in order, block labels dropped */
    size_t nops;
} tdx_ir_region;

struct tdx_ir_op {
    const char *name;      /* "tt.load", "scf.for", "module", "tt.func" */
    const char *text;      /* the op's own text, regions left out */
    int ir_line;           /* 1-based line in the IR text */
    const char **results;  /* "%x" (a "%x:3" group counts once), may be 0 */
    size_t nresults;
    const char **operands; /* "%x", "%x#1" in order of appearance */
    size_t noperands;
    tdx_ir_attr *attrs;
    size_t nattrs;
    tdx_ir_type *in_types;  /* types before "->" (or the only list) */
    size_t nin;
    tdx_ir_type *out_types; /* types after "->" / "to", may be 0 */
    size_t nout;
    tdx_ir_region *regions;
    size_t nregions;
    tdx_ir_op *parent;      /* enclosing op, NULL at top level */
    int depth;              /* region nesting: 0 top level */
    const char *loc_text;   /* "loc(...)" as written, may be NULL */
    tdx_ir_srcloc loc;      /* resolved after the whole text is read */
};

typedef struct tdx_ir_arg {
    const char *name;   /* "%a_ptr" */
    tdx_ir_type type;
    tdx_ir_attr *attrs; /* {tt.divisibility = 16 : i32} */
    size_t nattrs;
    int divisibility;   /* tt.divisibility, 0 when absent */
} tdx_ir_arg;

typedef struct tdx_ir_func {
    const char *name;   /* without '@' */
    tdx_ir_arg *args;
    size_t nargs;
    tdx_ir_op *op;      /* the tt.func op; its region is the body */
} tdx_ir_func;

typedef struct tdx_ir_module {
    int num_warps, num_ctas, threads_per_warp; /* 0 when absent */
    const char *target;                        /* "cuda:90", may be NULL */
    tdx_ir_attr *attrs;                        /* all module attributes */
    size_t nattrs;
    tdx_ptrvec layouts;  /* tdx_ir_layout* with an alias (#blocked = ...); inline
                          * layouts hang off the types that spell them */
    tdx_ptrvec funcs;    /* tdx_ir_func* */
    tdx_ptrvec ops;      /* every tdx_ir_op*, pre-order */
    tdx_ir_region top;   /* the top-level ops (normally one "module") */
    const char *kernel_file; /* file of the first function's location */
    struct tdx_ir_defmap *defs; /* internal: value name → defining op */
} tdx_ir_module;

/* Parse TTIR or TTGIR text. On TDX_ERR_PARSE *out may still hold what was
 * read before the error. */
tdx_status tdx_ir_mlir_parse(const char *text, size_t len, tdx_arena *arena, tdx_ir_module **out,
                             tdx_diags *diags);

/* Lookups on a parsed module (NULL/0 when absent). */
const tdx_ir_attr *tdx_ir_op_attr(const tdx_ir_op *op, const char *name);
/* Integer value of an attribute ("16 : i32" gives 16); def when absent. */
long long tdx_ir_op_attr_int(const tdx_ir_op *op, const char *name, long long def);
const tdx_ir_layout *tdx_ir_layout_find(const tdx_ir_module *m, const char *alias);
/* The op that defines value name ("%x" or "%x#1") within op's function. */
const tdx_ir_op *tdx_ir_def(const tdx_ir_module *m, const char *value);
/* The type of an op's (first) value: its out type, else its last in type. */
const tdx_ir_type *tdx_ir_op_type(const tdx_ir_op *op);
/* sizePerThread along the fastest dim (order[0]) of a layout seen by a
 * tensor of that rank, through slices: the elements per thread per access
 * the coalescer chose. 0 when unknown. */
int tdx_ir_layout_contig(const tdx_ir_layout *l);

/* Parse one layout attribute text ("#ttg.blocked<{...}>"); NULL when the
 * text is not an attribute. Exposed for tests. */
tdx_ir_layout *tdx_ir_layout_parse(tdx_arena *a, const char *text, size_t len,
                                   const tdx_ir_module *m);
/* Parse one type text; kind OTHER when unknown. Exposed for tests. */
void tdx_ir_type_parse(tdx_arena *a, const char *text, size_t len, tdx_ir_module *m,
                       tdx_ir_type *out);

/* ---- PTX -------------------------------------------------------------------- */

typedef enum tdx_ir_ptx_class {
    TDX_PTX_OTHER = 0,
    TDX_PTX_LD_GLOBAL,
    TDX_PTX_ST_GLOBAL,
    TDX_PTX_LD_SHARED,
    TDX_PTX_ST_SHARED,
    TDX_PTX_LD_LOCAL,
    TDX_PTX_ST_LOCAL,
    TDX_PTX_CP_ASYNC,      /* cp.async.{ca,cg}.shared.global */
    TDX_PTX_CP_ASYNC_BULK, /* cp.async.bulk.tensor (TMA) */
    TDX_PTX_WGMMA,
    TDX_PTX_MMA,
    TDX_PTX_FMA_F32,
    TDX_PTX_BAR,
    TDX_PTX_ATOM,
    TDX_PTX_LDMATRIX,
    TDX_PTX_STMATRIX,
    TDX_PTX_SHFL,          /* shfl.sync: data moved between lanes */
    TDX_PTX_NCLASSES
} tdx_ir_ptx_class;

typedef struct tdx_ir_ptx_insn {
    const char *pred;     /* "%p1", NULL when unpredicated */
    int pred_neg;         /* "@!%p1" */
    const char *opcode;   /* "ld.global.v4.b32" */
    const char *mods;     /* the modifiers after the base, "global.v4.b32" */
    const char *operands; /* as written, trimmed */
    tdx_ir_ptx_class cls;
    int vec;              /* 1, 2, 4, 8 from .vN */
    int bits;             /* element bits from the type suffix (b32 → 32), 0 unknown */
    int bytes;            /* cp.async copy size (0x10 → 16), 0 otherwise */
    int file;             /* .file index, 0 when no .loc yet */
    int line, col;        /* from .loc, 0 when none */
    int site_line, site_col; /* outermost inlined-at frame (`@[ f:l:c ]`), else line/col */
    const char *site_file;   /* file of that frame (a base name in comments), may be NULL */
    int site_file_idx;       /* .file index of an `inlined_at F L C`, 0 when none */
    int ptx_line;         /* 1-based line in the PTX text */
} tdx_ir_ptx_insn;

typedef struct tdx_ir_ptx {
    const char *entry;     /* the .entry name, may be NULL */
    const char *version, *target;
    const char **files;    /* files[i]: path of `.file i`, NULL when unset */
    size_t nfiles;
    tdx_ir_ptx_insn *insns;
    size_t ninsns;
} tdx_ir_ptx;

tdx_status tdx_ir_ptx_parse(const char *text, size_t len, tdx_arena *arena, tdx_ir_ptx **out,
                            tdx_diags *diags);

/* ---- SASS ------------------------------------------------------------------- */

typedef struct tdx_ir_sass_insn {
    const char *pred;     /* "P0", "PT"; NULL when none */
    int pred_neg;
    const char *opcode;   /* "LDG.E.128" */
    const char *base;     /* "LDG" */
    const char *operands;
    unsigned addr;        /* the offset printed in the address comment */
    const char *file;     /* from `//## File "..."`, may be NULL */
    int line;             /* 0 when unknown */
    int width;            /* bits per access of LDG/STG/LDS/STS/LDL/STL (.128 → 128), else 0 */
} tdx_ir_sass_insn;

typedef struct tdx_ir_sass {
    const char *function; /* first function label seen, may be NULL */
    tdx_ir_sass_insn *insns;
    size_t ninsns;
} tdx_ir_sass;

tdx_status tdx_ir_sass_parse(const char *text, size_t len, tdx_arena *arena, tdx_ir_sass **out,
                             tdx_diags *diags);
/* Instructions at source line (0 = all lines) whose base opcode is base, or
 * whose full opcode starts with base followed by '.' or end ("LDG.E.128"). */
size_t tdx_ir_sass_count(const tdx_ir_sass *s, int line, const char *base);

/* ---- ptxas -v ----------------------------------------------------------------- */

typedef struct tdx_ir_ptxas_func {
    const char *name;
    const char *arch;      /* "sm_90a" */
    int registers, barriers;
    int stack, spill_stores, spill_loads; /* bytes */
    int smem, cmem0, cumulative_stack;    /* bytes; smem is static shared memory */
} tdx_ir_ptxas_func;

typedef struct tdx_ir_ptxas {
    tdx_ir_ptxas_func *funcs;
    size_t nfuncs;
    int gmem;
    int nwarnings, nerrors; /* "ptxas warning", "ptxas fatal"/"error" lines */
} tdx_ir_ptxas;

tdx_status tdx_ir_ptxas_parse(const char *text, size_t len, tdx_arena *arena, tdx_ir_ptxas **out,
                              tdx_diags *diags);

/* ---- the joined kernel ---------------------------------------------------------- */

typedef enum tdx_ir_stage {
    TDX_IR_TTIR, TDX_IR_TTGIR, TDX_IR_PTX, TDX_IR_SASS, TDX_IR_PTXAS, TDX_IR_NSTAGES
} tdx_ir_stage;

typedef enum tdx_ir_dot_path {
    TDX_IR_DOT_UNKNOWN = 0, TDX_IR_DOT_WGMMA, TDX_IR_DOT_MMA, TDX_IR_DOT_FMA
} tdx_ir_dot_path;

/* A global memory access: tt.load / tt.store, or an asynchronous copy into
 * shared memory (cp.async, TMA) that the pipeliner made of a load. */
typedef struct tdx_ir_mem {
    const tdx_ir_op *op;
    int is_store, is_async, is_tma;
    tdx_ir_srcloc loc;
    int elem_bits;        /* element of the pointee */
    int contig;           /* TTGIR layout: elements per thread along order[0];
                           * cp.async copies: their contiguity attribute */
    int masked;           /* a mask operand */
    const char *cache, *evict; /* TTGIR attributes, NULL when absent */
    /* PTX at the same source line and column (line only when no column
     * matches): */
    int ptx_count;        /* instructions */
    int ptx_vec;          /* most frequent .vN (1 scalar), 0 none found; elements
                           * per access are ptx_bits / elem_bits */
    int ptx_bits;         /* bits per access: vec * element bits (cp.async: its
                           * copy size; TMA: 0) */
    int ptx_pred;         /* any predicated */
    const char *ptx_mods; /* cache / eviction modifiers seen, "" when none */
    /* SASS at the same source line: */
    int sass_count, sass_width; /* LDG/STG/LDGSTS/UTMALDG count, widest bits */
} tdx_ir_mem;

typedef struct tdx_ir_cvt {
    const tdx_ir_op *op;
    tdx_ir_srcloc loc;
    const tdx_ir_layout *src, *dst;
    int smem;        /* 1 goes through shared memory, 0 not, -1 unknown */
    int smem_by_ptx; /* decided by PTX shared accesses at its location */
    int shuffles;    /* shfl.sync at its location (lanes exchange in registers) */
} tdx_ir_cvt;

typedef struct tdx_ir_dot {
    const tdx_ir_op *op;
    tdx_ir_srcloc loc;
    tdx_ir_dot_path path;     /* from TTGIR */
    int instr[3], ninstr;     /* instrShape of the mma layout */
    const char *a_elem;       /* "f16", "f32" */
    const char *precision;    /* inputPrecision attribute, NULL = default (ieee printed as none) */
    tdx_ir_dot_path ptx_path; /* from PTX at the same line, UNKNOWN when no PTX */
    const char *ptx_shape;    /* "m64n128k16" from the wgmma/mma opcode, NULL otherwise */
    int ptx_count, sass_count; /* wgmma/mma/fma instructions; HGMMA/HMMA/FFMA */
} tdx_ir_dot;

typedef struct tdx_ir_loop {
    const tdx_ir_op *op;
    tdx_ir_srcloc loc;
    int depth;       /* 0 outermost loop */
    int outer;       /* holds another loop */
    int pipelined;   /* async copies / TMA issued in its body and waited on */
    int bufs;        /* leading dim of the multi-buffered local_alloc it indexes, 1 none */
    int loads;       /* plain tt.load left directly in its body */
    int async_copies;
    int dots;
    int waits;       /* ttg.async_wait / ttng.wait_barrier */
} tdx_ir_loop;

/* 64-bit integer arithmetic on tensors (arith.* with an i64 tensor result). */
typedef struct tdx_ir_i64 {
    const tdx_ir_op *op;
    tdx_ir_srcloc loc;
} tdx_ir_i64;

/* Local memory traffic at one source line. */
typedef struct tdx_ir_local {
    int line;
    int ptx_ld, ptx_st; /* ld.local / st.local */
    int sass_ldl, sass_stl;
} tdx_ir_local;

typedef struct tdx_ir_kernel {
    tdx_arena arena;
    const char *name;        /* the kernel function */
    const char *file;        /* its source file as the IR names it */
    tdx_ir_module *ttir, *ttgir;
    tdx_ir_ptx *ptx;
    tdx_ir_sass *sass;
    tdx_ir_ptxas *ptxas;
    double parse_seconds[TDX_IR_NSTAGES];
    /* Records, filled by tdx_ir_kernel_join(): */
    int num_warps, threads_per_warp, num_ctas;
    const tdx_ir_ptxas_func *res; /* the kernel's resource usage, may be NULL */
    tdx_ir_mem *mems;   size_t nmems;
    tdx_ir_cvt *cvts;   size_t ncvts;
    tdx_ir_dot *dots;   size_t ndots;
    tdx_ir_loop *loops; size_t nloops;
    tdx_ir_i64 *i64s;   size_t ni64s;
    tdx_ir_local *locals; size_t nlocals;
    int local_allocs, local_loads; /* register↔shared round trips in TTGIR */
    struct tdx_ir_index *index;    /* internal: PTX/SASS by source line */
} tdx_ir_kernel;

void tdx_ir_kernel_init(tdx_ir_kernel *k);
void tdx_ir_kernel_free(tdx_ir_kernel *k);
/* Parse one stage's text into k (replacing an earlier one of that stage). */
tdx_status tdx_ir_kernel_add(tdx_ir_kernel *k, tdx_ir_stage stage, const char *text, size_t len,
                             tdx_diags *diags);
/* Which stage a text is, from its content (the first 64 KiB): PTX has
 * `.version`/`.entry`, SASS has hexadecimal instruction addresses in
 * comments, a ptxas log says "ptxas", MLIR has `tt.func` (TTGIR when it
 * mentions `ttg.` layouts or attributes). TDX_IR_NSTAGES when none fits. */
tdx_ir_stage tdx_ir_guess_stage(const char *text, size_t len);
/* Read dir/k.ttir, k.ttgir, k.ptx, k.sass, k.ptxas.txt (missing files are
 * skipped; at least TTGIR or PTX must be there) and join them. */
tdx_status tdx_ir_kernel_load_dir(tdx_ir_kernel *k, const char *dir, tdx_diags *diags);
/* Build the per-op records from whatever stages were added. */
tdx_status tdx_ir_kernel_join(tdx_ir_kernel *k, tdx_diags *diags);

/* Queries the rules use. Each returns how many matched and stores up to max
 * pointers in out (out may be NULL to count). */
size_t tdx_ir_kernel_loads_at(const tdx_ir_kernel *k, int line, const tdx_ir_mem **out, size_t max);
size_t tdx_ir_kernel_stores_at(const tdx_ir_kernel *k, int line, const tdx_ir_mem **out,
                               size_t max);
const tdx_ir_dot *tdx_ir_kernel_dot_at(const tdx_ir_kernel *k, int line);
const tdx_ir_loop *tdx_ir_kernel_loop_at(const tdx_ir_kernel *k, int line);
/* SASS instructions at a source line (0 = all) with that base opcode. */
size_t tdx_ir_kernel_sass_count(const tdx_ir_kernel *k, int line, const char *base);

/* The SASS opcodes at a source line as (base opcode, count), most frequent
 * first (ties by name); returns how many distinct bases there are and
 * stores up to max of them. line 0 counts the whole kernel. */
typedef struct tdx_ir_opcount {
    const char *base;
    int count;
} tdx_ir_opcount;
size_t tdx_ir_kernel_sass_hist(const tdx_ir_kernel *k, int line, tdx_ir_opcount *out, size_t max);

/* Render the records, one per line, in the format of tests/data/ir/ * /expected.txt
 * (`load line=19 vec=4 ...`), for reports and tests. */
tdx_status tdx_ir_kernel_dump(const tdx_ir_kernel *k, tdx_buf *b);

/* What changed from kernel a to kernel b (a counterfactual compile): one
 * line per changed record, `load line=18 col=16 name=x: vec 1 -> 4, ...`,
 * `- kind ...` for records only a has, `+ kind ...` for those only b has,
 * and `res: regs 236 -> 206` for resources. Records pair by kind, line,
 * column and order. *nchanges (may be NULL) gets the number of lines. */
tdx_status tdx_ir_kernel_diff(const tdx_ir_kernel *a, const tdx_ir_kernel *b, tdx_buf *out,
                              size_t *nchanges);

/* The same records as JSON (jansson): {"name", "file", "num_warps", ...,
 * "resources": {...}, "records": [{"kind": "load", "loc": {file, line, col,
 * name, frames?}, "ir": "<op text>", ...}]}. The caller owns the result
 * (json_decref); NULL when out of memory. Strings that are not valid UTF-8
 * are left out. */
struct json_t *tdx_ir_kernel_to_json(const tdx_ir_kernel *k);

const char *tdx_ir_dot_path_str(tdx_ir_dot_path p);
const char *tdx_ir_layout_kind_str(tdx_ir_layout_kind k);

#endif
