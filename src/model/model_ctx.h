/* Internal to the model module: the state of folding one kernel body,
 * shared by model_value.c (the value algebra), model_call.c (triton.language
 * calls and helpers) and model_eval.c (statements and expressions). */
#ifndef TDX_MODEL_MODEL_CTX_H
#define TDX_MODEL_MODEL_CTX_H

#include "model/model_int.h"

/* Helpers are folded in at most 4 calls deep, and at most MAX_STMTS helper
 * statements per kernel in all, so that helpers calling helpers many times
 * cannot make the walk explode. */
enum { MAX_INLINE_DEPTH = 4, MAX_ENV = 4096, MAX_STMTS = 50000 };

typedef struct tdx_km_binding {
    const char *name;
    tdx_km_val val;
} tdx_km_binding;

typedef struct tdx_km_env {
    tdx_km_binding *items;
    size_t len, cap;
} tdx_km_env;

typedef struct tdx_km_ctx {
    tdx_km_file *f;
    tdx_km_kernel *k;
    tdx_arena *arena;
    tdx_km_env *env;
    tdx_km_loop *loop;          /* innermost loop being walked */
    const tdx_src_node *helper; /* helper FUNCDEF being folded, or NULL */
    int depth;                  /* helper inlining depth */
    tdx_km_val ret;             /* value of the last `return` in a helper */
    int has_ret;
    long *budget;               /* statements left to fold, shared with helpers */
    tdx_status st;
} tdx_km_ctx;

/* ---- values (model_value.c) ---- */
tdx_km_val tdx_km_v_none(void);
tdx_km_val tdx_km_v_const(long long x);
/* Element-wise merge of two values: broadcast ranks, union of dependencies. */
tdx_km_val tdx_km_merge(const tdx_km_val *a, const tdx_km_val *b);
int tdx_km_has_axes(const tdx_km_val *v);
/* Mark r as an epilogue when a tl.dot result meets anything but another
 * product or the zero accumulator. */
void tdx_km_mark_epilogue(tdx_km_val *r, const tdx_km_val *a, const tdx_km_val *b);
/* Fold the binary operator op (a tdx_src_op). */
tdx_km_val tdx_km_binop(tdx_km_ctx *c, int op, const tdx_km_val *l, const tdx_km_val *r);
/* Non-zero when n is the constant None / ... (what names it). */
int tdx_km_is_const_named(const tdx_src_node *n, const char *what);
/* x[:, None] and friends: reshape the axes. */
tdx_km_val tdx_km_subscript(tdx_km_ctx *c, const tdx_src_node *n);

/* ---- calls (model_call.c) ---- */
tdx_km_val tdx_km_call(tdx_km_ctx *c, const tdx_src_node *n);
tdx_km_op *tdx_km_new_op(tdx_km_ctx *c, tdx_km_op_kind kind, const char *name, const tdx_src_node *call);
const tdx_src_node *tdx_km_arg_or_kw(const tdx_src_node *call, size_t i, const char *kw);
tdx_km_val tdx_km_merge_args(tdx_km_ctx *c, const tdx_src_node *call);
int tdx_km_fold_small(tdx_km_ctx *c, const tdx_src_node *n, long long *out);
tdx_km_val tdx_km_inline_helper(tdx_km_ctx *c, tdx_km_kernel *h, const tdx_src_node *n);

/* ---- statements and expressions (model_eval.c) ---- */
tdx_km_val tdx_km_eval_expr(tdx_km_ctx *c, const tdx_src_node *n);
void tdx_km_walk_block(tdx_km_ctx *c, const tdx_src_node *parent, tdx_src_role role);
/* Bind name to v (later bindings shadow earlier ones). */
void tdx_km_bind(tdx_km_ctx *c, const char *name, tdx_km_val v);

#endif
