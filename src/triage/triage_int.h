/* Internal to the triage module: the pattern classifier and the rules,
 * both reading the kernel model (model/model.h). */
#ifndef TDX_TRIAGE_TRIAGE_INT_H
#define TDX_TRIAGE_TRIAGE_INT_H

#include "finding/finding.h"
#include "model/model.h"

/* One triage run over one file. */
typedef struct tdx_tri {
    const char *path;
    const tdx_km_file *file;
    tdx_ledger *ledger;
    tdx_status st;
    size_t first_finding; /* index of this file's first finding in the ledger */
} tdx_tri;

/* The pattern class of a kernel. */
typedef struct tdx_tri_class {
    const char *pattern;  /* "elementwise", "matmul", ... */
    double confidence;
    const char *why;      /* short reason */
} tdx_tri_class;

tdx_tri_class tdx_tri_classify(const tdx_km_kernel *k);

/* How many axes of v a tl.arange feeds. */
int tdx_tri_naxes(const tdx_km_val *v);

/* Non-zero when the kernel has a tl.dot (matmul-like tiles). */
int tdx_tri_has_dot(const tdx_km_kernel *k);

/* Run every level-0 rule on kernel k (and its launches). */
void tdx_tri_rules_kernel(tdx_tri *t, const tdx_km_kernel *k, const tdx_tri_class *cls);
/* TDX015 (rules_tiles.c): a tl.dot kernel with fewer output tiles than SMs
 * at the task's bench shape. */
void tdx_tri_tiles_rule(tdx_tri *t, const tdx_km_kernel *k);
/* TDX028 (rules_tiles.c): a tl.dot kernel on a 2-D grid of two cdivs whose
 * waves of programs, axis 0 first, read many more operand tiles than waves
 * in groups of 8 rows would at the bench shape. */
void tdx_tri_tile_order_rule(tdx_tri *t, const tdx_km_kernel *k);
/* TDX031: a whole-tensor sum adding one atomic per program of a large grid. */
void tdx_tri_atomic_tile_rule(tdx_tri *t, const tdx_km_kernel *k);
/* TDX016 (rules_tiles.c): a kernel whose programs each walk one whole
 * reduction loop, on a grid of fewer than 4 programs per SM at the bench shape. */
void tdx_tri_serial_rule(tdx_tri *t, const tdx_km_kernel *k);
/* The one outermost loop of a kernel without tl.dot that loads under a
 * runtime bound while every store lies outside loops (a reduction each
 * program walks end to end), or NULL. */
const tdx_km_loop *tdx_tri_serial_loop(const tdx_km_kernel *k);
/* TDX017 (rules_tiles.c): straight-line kernels of tiles of at most 256
 * elements on a grid of at least 32 programs per SM. */
void tdx_tri_tiny_rule(tdx_tri *t, const tdx_km_kernel *k);
/* TDX018 (rules_tiles.c): a loop that steps one row at a time through 1-D
 * tiles of at most 256 elements at the bench shape. */
void tdx_tri_thin_loop_rule(tdx_tri *t, const tdx_km_kernel *k);
/* TDX019 (rules_tiles.c): an fp32 tl.dot operand read from a tensor that is
 * contiguous along M or N (the tf32 wgmma needs it K-major). */
void tdx_tri_operand_layout_rule(tdx_tri *t, const tdx_km_kernel *k);
/* TDX020 (rules_tiles.c): programs along grid axis 1 or 2 that reload the
 * same loop tiles, each for one output (block-outputs). */
void tdx_tri_shared_tile_rule(tdx_tri *t, const tdx_km_kernel *k);
/* TDX021 (rules_tiles.c): a loop without tl.dot that reduces each
 * iteration's whole tile into a float scalar (tdx_km_deferrable), or keeps
 * a running arg-max of the tiles (tdx_km_argdeferrable). */
void tdx_tri_defer_rule(tdx_tri *t, const tdx_km_kernel *k);
void tdx_tri_peel_rule(tdx_tri *t, const tdx_km_kernel *k);
/* TDX025 (rules_tiles.c): a tl.dot loop whose operands a tensor descriptor
 * can load (tdx_km_tma_loads). */
void tdx_tri_tma_rule(tdx_tri *t, const tdx_km_kernel *k);
/* TDX026 (rules_tiles.c): a loop-invariant scale of a tl.dot result inside
 * a loop (tdx_km_scaled_dots). */
void tdx_tri_scaled_dot_rule(tdx_tri *t, const tdx_km_kernel *k);
/* TDX027 (rules_tiles.c): a flat kernel that divides every offset to find
 * its row and gathers the row's values (tdx_km_row_gather_of). */
void tdx_tri_row_division_rule(tdx_tri *t, const tdx_km_kernel *k);
/* TDX029 (rules_tiles.c): a last pass reading an earlier pass's range in
 * the same order, its iterations independent (tdx_km_reversible). */
void tdx_tri_reverse_rule(tdx_tri *t, const tdx_km_kernel *k);
/* TDX032 (rules_tiles.c): programs whose loop runs longer the larger their
 * id along one grid axis (tdx_km_heavy_last). */
void tdx_tri_heavy_rule(tdx_tri *t, const tdx_km_kernel *k);
/* TDX024 (rules_tiles.c): a loop adding one outer product of a column and a
 * row per value of a reduction index (tdx_km_dot_accumulable). */
void tdx_tri_dotacc_rule(tdx_tri *t, const tdx_km_kernel *k);
void tdx_tri_atomic_rule(tdx_tri *t, const tdx_km_kernel *k);
/* Run the rules that look at the launching code of the whole file. */
void tdx_tri_rules_launches(tdx_tri *t);

/* Add a finding at node n (deduplicated by rule and position within the
 * file). Returns NULL when it is a duplicate or memory ran out (t->st). */
tdx_finding *tdx_tri_add(tdx_tri *t, const char *rule, const tdx_src_node *n, int line, int col,
                         const char *kernel, double confidence, const char *fmt, ...)
    __attribute__((format(printf, 8, 9)));

#endif
