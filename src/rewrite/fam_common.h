/* Shared helpers of the built-in families: the parsed task, its kernels and
 * launch sites, and a set of edits that becomes one candidate. Internal to
 * src/rewrite. */
#ifndef TDX_REWRITE_FAM_COMMON_H
#define TDX_REWRITE_FAM_COMMON_H

#include "rewrite/edit.h"
#include "rewrite/families.h"
#include "source/ast.h"

typedef struct fam_task {
    const char *path;
    const char *src;
    size_t len;
    tdx_arena arena;
    tdx_src_module *m;
    tdx_ptrvec kernels;  /* FUNCDEF nodes of @triton.jit kernels */
    tdx_ptrvec launches; /* CALL nodes kernel[grid](...) outside kernels */
    struct tdx_km_file *km; /* the kernel model, built on first use (fam_bench_int) */
    int km_tried;
} fam_task;

/* Parse and index; TDX_ERR_PARSE when the source does not parse. */
tdx_status fam_open(fam_task *t, const char *path, const char *src, size_t len, tdx_diags *diags);
void fam_close(fam_task *t);

/* The kernel model of the task, built on first use; NULL when it could not
 * be built. Owned by t (its arena). */
const struct tdx_km_file *fam_model(fam_task *t);
/* The kernel FUNCDEF a launch calls (by name), or NULL. */
tdx_src_node *fam_launched_kernel(const fam_task *t, const tdx_src_node *launch);
/* 1 when kernel def kdef chooses its own meta-parameters (@triton.autotune
 * or @triton.heuristics): a launch must not pass num_warps, num_stages or
 * the configs' constexprs again (a duplicate keyword at launch). */
int fam_self_tuned(const tdx_src_node *kdef);
/* The integer value of expression e of the launch `launch` (a CALL of
 * t->launches) at the task's bench shape (tdx_km_bench_int): 1 with *v set,
 * 0 when the model cannot follow the task there. */
int fam_bench_int(fam_task *t, const tdx_src_node *launch, const tdx_src_node *e, long long *v);
/* The integer value of a tile size in kernel def: an integer literal, or a
 * constexpr parameter's value at the kernel's first launch that passes it
 * (or its default): 1 with *v set, 0 when unknown. */
int fam_size_value(fam_task *t, const tdx_src_node *def, const tdx_src_node *e, long long *v);
/* The value kernel def's parameter `name` takes at the bench shape, through
 * the first launch of def whose argument for it the model can follow:
 * 1 with *v set, 0 when unknown. */
int fam_bench_param(fam_task *t, const tdx_src_node *def, const char *name, long long *v);
/* The elements of the largest tl.arange of kernel def (its bounds through
 * fam_size_value), or -1 when one is unknown. */
long long fam_widest_arange(fam_task *t, tdx_src_node *def);
/* Rows R (a power of two, 2..256) that make an R x width tile of about
 * elems elements: how many rows a folded or blocked loop takes at once. */
int fam_rows_for(long long width, long long elems);
/* The programs of a launch's grid at the bench shape, or -1. */
long long fam_bench_grid(fam_task *t, const tdx_src_node *launch);
/* Non-zero when n needs no parentheses as an operand of * or +: a name,
 * a number, a call, an attribute or a subscript. */
int fam_atom(const tdx_src_node *n);
/* The text of n as an operand: in parentheses unless fam_atom(n); in
 * t's arena (NULL when it runs out). */
char *fam_operand(fam_task *t, const tdx_src_node *n);
/* The FUNCDEF enclosing n, or NULL. */
tdx_src_node *fam_enclosing_def(const tdx_src_node *n);
/* The offset where the line holding offset off starts. */
size_t fam_line_start(const fam_task *t, size_t off);
/* Every node of the given kind under root, pushed onto out. */
void fam_collect(fam_task *t, tdx_src_node *root, tdx_src_kind kind, tdx_ptrvec *out);

/* An integer literal that a value node stands for: the NUMBER itself, or for
 * a NAME the NUMBER of its single assignment in the enclosing def. */
tdx_src_node *fam_int_literal(const fam_task *t, tdx_src_node *value, long long *v);

/* Edits that make up one candidate. */
typedef struct fam_edits {
    tdx_rw_edit items[64];
    size_t n;
} fam_edits;

void fam_edit(fam_task *t, fam_edits *e, size_t start, size_t end, const char *text);
/* Set keyword `name` of a call to text: replace its value, or add it before
 * the closing parenthesis. */
void fam_set_kwarg(fam_task *t, fam_edits *e, const tdx_src_node *call, const char *name,
                   const char *text);
/* Apply the edits and emit the result as a candidate (no-op edits emit nothing). */
tdx_status fam_emit(fam_task *t, fam_edits *e, tdx_rw_emit_fn emit, void *ud, const char *family,
                    const char *summary);

/* ---- retune and grouped-order (fam_retune.c) ---- */
/* Block sizes, num_warps and num_stages at each launch site. */
tdx_status fam_retune(fam_task *t, tdx_rw_emit_fn emit, void *ud);
/* A 2-D grid of matmul tiles run as a 1-D grid in groups of GROUP_M rows. */
tdx_status fam_grouped(fam_task *t, tdx_rw_emit_fn emit, void *ud);

/* ---- single-pass-reduction (fam_reduce.c) and split-k (fam_splitk.c) ---- */
/* Several loops over one row that load it again each time: the row in one
 * block loaded once, or online statistics in one loop. */
tdx_status fam_single_pass(fam_task *t, tdx_rw_emit_fn emit, void *ud);
/* A tl.dot K loop split over a third grid axis, partial sums added
 * atomically into an fp32 buffer. */
tdx_status fam_split_k(fam_task *t, tdx_rw_emit_fn emit, void *ud);
/* A loop that reduces loaded values into one accumulator (sum, maximum,
 * minimum) split over a third grid axis, partial results combined with
 * tl.atomic_add / atomic_max / atomic_min into an fp32 buffer. */
tdx_status fam_split_reduction(fam_task *t, tdx_rw_emit_fn emit, void *ud);
/* R programs of a 1-D grid folded into one, every tile gaining a leading
 * axis of R rows (fam_fold.c). */
tdx_status fam_fold_programs(fam_task *t, tdx_rw_emit_fn emit, void *ud);
/* Mask tl.load / tl.store call c with _tdx_live: `(mask) & _tdx_live`, or a
 * mask= keyword when it has none (fam_fold.c). */
void fam_mask_live(fam_task *t, fam_edits *e, tdx_src_node *c);
/* R programs along one axis of a multi-axis grid in one program, for a
 * kernel whose other tiles do not depend on that axis (fam_block.c). */
tdx_status fam_block_outputs(fam_task *t, tdx_rw_emit_fn emit, void *ud);
/* ---- end single-pass-reduction and split-k ---- */
/* ---- vectorize-loop, persistent-grid, coalesce, fuse-launches ---- */

/* Non-zero when a NAME node named name occurs under n. */
int fam_mentions(const tdx_src_node *n, const char *name);
/* For a call of tl.load: FAM_IO_LOAD, of tl.store: FAM_IO_STORE, with *ptr
 * its pointer argument (positional or `pointer=`, NULL when it has none);
 * FAM_IO_NONE (and *ptr NULL) for any other call. The node is c's. */
enum { FAM_IO_NONE = 0, FAM_IO_LOAD = 1, FAM_IO_STORE = 2 };
int fam_io_call(tdx_src_node *c, tdx_src_node **ptr);
/* Non-zero when n contains a call of one of the dotted names (NULL-ended). */
int fam_calls_any(const tdx_src_node *n, const char *const *names);
/* The @triton.jit function of the module that a call under n calls by name
 * (a helper the kernel inlines), or NULL; with what != NULL only a helper
 * whose body calls one of those names (NULL-ended). */
tdx_src_node *fam_calls_helper(fam_task *t, tdx_src_node *n, const char *const *what);

/* The grid expression of a launch: the index of kernel[grid], or, when that
 * is a name, the value of its single assignment in the enclosing def. */
tdx_src_node *fam_grid_of(fam_task *t, tdx_src_node *launch);
/* The kernel parameter bound by the launch argument whose text is x[0, xl)
 * (positional, or a keyword naming a parameter), or NULL. */
const char *fam_param_of_arg(fam_task *t, tdx_src_node *launch, tdx_src_node *def, const char *x,
                             size_t xl);
/* Append host expression e (a grid entry) written in the kernel's terms to
 * b; 0 when some part of it has no kernel equivalent. */
int fam_host_to_kernel(fam_task *t, tdx_src_node *launch, tdx_src_node *def, tdx_src_node *e,
                       tdx_buf *b);
/* The argument a launch passes for kernel def's parameter `name`: by
 * position, or by keyword (*kw set to 1 when kw != NULL), or NULL when it is
 * not passed. */
tdx_src_node *fam_launch_arg(const tdx_src_node *launch, const tdx_src_node *def, const char *name, int *kw);
/* The LAMBDA enclosing n, or NULL. */
tdx_src_node *fam_enclosing_lambda(const tdx_src_node *n);

tdx_status fam_vectorize_loop(fam_task *t, tdx_rw_emit_fn emit, void *ud);
tdx_status fam_persistent_grid(fam_task *t, tdx_rw_emit_fn emit, void *ud);
tdx_status fam_coalesce(fam_task *t, tdx_rw_emit_fn emit, void *ud);
tdx_status fam_fuse_launches(fam_task *t, tdx_rw_emit_fn emit, void *ud);

/* ---- autotune (fam_autotune.c) ---- */
/* A launch's block sizes, num_warps and num_stages as a @triton.autotune
 * config list over the kernel, keyed on the launch's size arguments. */
tdx_status fam_autotune(fam_task *t, tdx_rw_emit_fn emit, void *ud);
/* ---- end autotune ---- */

/* ---- defer-reduction (fam_defer.c) ---- */
/* A loop statement that reduces each iteration's tile into a float scalar
 * (tdx_km_deferrable) keeps an elementwise fp32 accumulator of the tile's
 * shape instead, reduced once after the loop; a running arg-max
 * (tdx_km_argdeferrable) keeps the best value and its first index per
 * lane. */
tdx_status fam_defer_reduction(fam_task *t, tdx_rw_emit_fn emit, void *ud);

/* ---- relax-atomics (fam_atomic.c) ---- */
/* sem="relaxed" on atomics whose result is unused in a kernel that reads
 * nothing they order (tdx_km_relaxable). */
tdx_status fam_relax_atomics(fam_task *t, tdx_rw_emit_fn emit, void *ud);

/* ---- peel-masks (fam_peel.c) ---- */
/* A loop whose masks only its last blocks need (tdx_km_peelable) runs the
 * blocks before them in a loop of their own without the masks. */
tdx_status fam_peel_masks(fam_task *t, tdx_rw_emit_fn emit, void *ud);

/* ---- operand-layout (fam_layout.c) ---- */
/* An fp32 tl.dot operand passed K-major: the launch copies the tensor so
 * that its K axis is the contiguous one (the tf32 wgmma reads it so). */
tdx_status fam_operand_layout(fam_task *t, tdx_rw_emit_fn emit, void *ud);

/* Set block constexpr `name`, passed to the launch as an integer literal,
 * to nv, with the grid's literals that divide by it (retune's rule,
 * families.c): 1 when done, 0 when the launch does not pass it so (or
 * passes it through a variable). With e NULL only says whether it could. */
int fam_launch_block(fam_task *t, fam_edits *e, tdx_src_node *launch, const char *name, long long nv);

/* ---- erf-polynomial (fam_erf.c) ---- */
/* tl.math.erf through a short polynomial helper (A&S 7.1.26). */
tdx_status fam_erf_polynomial(fam_task *t, tdx_rw_emit_fn emit, void *ud);

/* ---- reverse-pass (fam_reverse.c) ---- */
/* The last pass over a range an earlier pass read (tdx_km_reversible)
 * walked from its last block down. */
tdx_status fam_reverse_pass(fam_task *t, tdx_rw_emit_fn emit, void *ud);
tdx_status fam_heavy_first(fam_task *t, tdx_rw_emit_fn emit, void *ud);

/* ---- dot-accumulate (fam_dotacc.c) ---- */
/* Outer products of a column and a row added once per value of a reduction
 * index (tdx_km_dot_accumulable) taken 16 values at a time through tl.dot. */
tdx_status fam_dot_accumulate(fam_task *t, tdx_rw_emit_fn emit, void *ud);

/* ---- tensor-descriptors (fam_tma.c) ---- */
/* A tl.dot loop's operand loads (tdx_km_tma_loads) through TMA tensor
 * descriptors, in a copy of the kernel the launch uses when TMA can read
 * the inputs. */
tdx_status fam_tensor_descriptors(fam_task *t, tdx_rw_emit_fn emit, void *ud);
/* 1 when launch L is the pointer kernel's launch beside a descriptor copy
 * (the module defines NAME_tma for its kernel NAME): on inputs TMA can read
 * it does not run, so tuning it changes nothing the timing sees. */
int fam_tma_fallback(fam_task *t, const tdx_src_node *L);
/* 1 when launch L passes tensor descriptors (`_tdx_desc0=` ...): its tiles
 * are also the descriptors' blocks. */
int fam_passes_descriptors(const tdx_src_node *L);

/* ---- hoist-scale (fam_scale.c) ---- */
/* A loop-invariant scale of a tl.dot result (tdx_km_scaled_dots) applied
 * once to the dot's loop-invariant operand before the loop. */
tdx_status fam_hoist_scale(fam_task *t, tdx_rw_emit_fn emit, void *ud);

/* ---- row-grid (fam_rowgrid.c) ---- */
/* A flat kernel whose elements divide their offset to find their row and
 * gather per-row values (tdx_km_row_gather_of) on a 2-D grid of rows and
 * blocks of a row, the per-row values loaded once a program. */
tdx_status fam_row_grid(fam_task *t, tdx_rw_emit_fn emit, void *ud);

#endif
