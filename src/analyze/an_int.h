/* Internal helpers of the analyze module (tdx_an__*); not for other modules. */
#ifndef TDX_ANALYZE_AN_INT_H
#define TDX_ANALYZE_AN_INT_H

#include "analyze/analyze.h"

/* The last path component ("?" for NULL). */
const char *tdx_an__base(const char *path);
/* The file to report a location in: `alias` when it names the kernel's own
 * file, else the file as compiled. */
const char *tdx_an__file(const tdx_an_kernel *k, const tdx_ir_srcloc *loc, const char *alias);
/* The innermost scf.for / scf.while around op, NULL when none. */
const tdx_ir_op *tdx_an__loop_of(const tdx_ir_op *op);
/* Non-zero when anc encloses op. */
int tdx_an__is_inside(const tdx_ir_op *op, const tdx_ir_op *anc);
/* The first PTX instruction of a class at a kernel source line. */
const tdx_ir_ptx_insn *tdx_an__ptx_at(const tdx_ir_kernel *k, int line, tdx_ir_ptx_class cls);
size_t tdx_an__ptx_count(const tdx_ir_kernel *k, tdx_ir_ptx_class cls);
/* Evidence lines: "  ttgir:12: <op text>", "  ptx:80: <instruction>". */
void tdx_an__ev_op(tdx_buf *b, const char *stage, const tdx_ir_op *op);
void tdx_an__ev_ptx(tdx_buf *b, const tdx_ir_ptx_insn *in);
/* Evidence lines for the compile's remarks at a source line. */
void tdx_an__ev_remarks(tdx_buf *b, const tdx_an_kernel *k, int line);
#define TDX_AN_MAX_ARGS 64
/* OR `bit` into via[i] for every argument i of the module's first function
 * that operand `operand` of op is computed from (through defining ops). */
void tdx_an__args_of(const tdx_ir_module *m, const tdx_ir_op *op, size_t operand, int *via, int bit);
/* Whether operand `operand` of op is computed through an op whose name is
 * one of names (NULL-terminated), following defining ops; 0 when unknown. */
int tdx_an__through(const tdx_ir_module *m, const tdx_ir_op *op, size_t operand, const char *const *names);
/* Spill bytes (stores + loads) from ptxas -v, 0 when unknown. */
int tdx_an__spills(const tdx_ir_kernel *k);

#endif
