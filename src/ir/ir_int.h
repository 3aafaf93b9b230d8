/* Internal helpers shared by the ir parsers: bracket-aware scanning of
 * MLIR-like text, small string utilities, location trees. Not part of the
 * public interface. */
#ifndef TDX_IR_IR_INT_H
#define TDX_IR_IR_INT_H

#include <stddef.h>

#include "ir/ir.h"

/* Index of the bracket closing the opener at s[i] (one of "([{<"), skipping
 * strings and "->"; n when unbalanced or nested past TDX_IR_MAX_DEPTH. */
size_t tdx_ir__match(const char *s, size_t i, size_t n);
/* First index of needle in s[0..n) outside brackets and strings, or n. */
size_t tdx_ir__find_top(const char *s, size_t n, const char *needle);
/* Split s[0..n) at top-level sep; calls fn(part, len, ctx) for each trimmed,
 * non-empty part; returns the number of parts. */
size_t tdx_ir__split_top(const char *s, size_t n, const char *sep,
                         void (*fn)(const char *, size_t, void *), void *ctx);
/* Trim spaces, tabs, CR and LF at both ends. */
void tdx_ir__trim(const char **s, size_t *n);
/* Parse a decimal (optionally signed) integer; returns chars used, 0 if none. */
size_t tdx_ir__int(const char *s, size_t n, long long *out);
/* Bits of a scalar MLIR type name ("f16" → 16, "i1" → 1, "bf16" → 16), 0 unknown. */
int tdx_ir__type_bits(const char *s, size_t n);
/* Parse an attribute dict body "a = 1 : i32, b" (without braces) and append
 * to *attrs / *n. */
void tdx_ir__parse_attrs(tdx_arena *a, const char *s, size_t n, tdx_ir_attr **attrs,
                         size_t *nattrs);
/* Instructions end with ';': their count bounds the instruction count (at
 * least 16). */
size_t tdx_ir__count_semis(const char *s, size_t n);
/* Base name of a path (after the last '/'). */
const char *tdx_ir__basename(const char *path);
/* 1 when two paths name the same file: equal, or one is a suffix of the
 * other at a '/' boundary ("kernels/x.py" and "/a/kernels/x.py"). */
int tdx_ir__same_file(const char *a, const char *b);

/* ---- locations ---- */
typedef struct tdx_ir_locnode tdx_ir_locnode;
typedef struct tdx_ir_loctab {
    const char **keys;      /* open addressing: alias name without '#' */
    tdx_ir_locnode **vals;
    size_t cap, len;        /* cap is 0 or a power of two */
} tdx_ir_loctab;

/* Parse a location expression ("loc(...)", "#loc3", or a bare body). NULL
 * when malformed. */
tdx_ir_locnode *tdx_ir__loc_parse(tdx_arena *a, const char *s, size_t n);
/* Record `#alias = loc(...)`. */
void tdx_ir__loc_define(tdx_arena *a, tdx_ir_loctab *t, const char *alias, size_t alen,
                        tdx_ir_locnode *nd);
/* Resolve a parsed location into frames; kernel_file picks the site. */
void tdx_ir__loc_resolve(const tdx_ir_loctab *t, const tdx_ir_locnode *nd,
                         const char *kernel_file, tdx_ir_srcloc *out);

#endif
