/* Level 0: pattern triage of Triton source (tdx_tri_*).
 *
 * Reads Python source only: no GPU, no Python interpreter. For every
 * @triton.jit kernel it records the pattern class (ledger->kernels) and the
 * source-level anti-patterns as findings with stable rule ids (rules_l0.def).
 *
 * Pattern classes (tdx_kernel_info.pattern): elementwise, broadcast,
 * row-reduction, column-reduction, softmax-norm, matmul, matmul-epilogue,
 * batched-matmul, attention, convolution, scan, gather-scatter,
 * atomic-reduction, and unknown (no load or store found). Helper jit
 * functions (called from other jit functions, or returning a value) are
 * folded into the kernels that call them and get no entry of their own.
 * Findings carry the kernel name, a one-line message, a hypothesis, a
 * confidence, the rewrite family (a rule's default, or a better one for the
 * case, e.g. split-k for a small matmul grid) and, for some rules, facts.
 *
 * Ownership: the caller owns src (it must outlive the call only), the ledger
 * and the diags; everything added to them is copied into them. */
#ifndef TDX_TRIAGE_TRIAGE_H
#define TDX_TRIAGE_TRIAGE_H

#include <stddef.h>

#include "base/diag.h"
#include "base/status.h"
#include "finding/finding.h"

/* Triage one file's contents. path is used for locations only.
 * Returns TDX_ERR_PARSE (with a diag at file:line:col) when the source cannot
 * be parsed; a file with no kernels is TDX_OK with nothing added. */
tdx_status tdx_tri_source(const char *path, const char *src, size_t len, tdx_ledger *ledger,
                          tdx_diags *diags);

/* Triage a file already parsed and modelled (for callers that keep the tree
 * and the model, e.g. to rewrite the source afterwards). path is used for
 * locations only; km must have been built from the module it points to. */
struct tdx_km_file;
tdx_status tdx_tri_model(const char *path, const struct tdx_km_file *file, tdx_ledger *ledger);

#endif
