/* Internal to the model module: shared between model.c (file level:
 * kernels, decorators, launches) and model_eval.c (kernel bodies). */
#ifndef TDX_MODEL_MODEL_INT_H
#define TDX_MODEL_MODEL_INT_H

#include "model/model.h"

/* Walk the body of kernel k, folding its expressions and filling its loops,
 * accesses and ops. Helper calls are folded in (bounded depth). */
tdx_status tdx_km_eval_kernel(tdx_km_file *f, tdx_km_kernel *k, tdx_arena *arena);

/* The jit FUNCDEF named name in f, or NULL. */
tdx_km_kernel *tdx_km_kernel_named(const tdx_km_file *f, const char *name);

/* Last component of a dotted callee ("load" for tl.load) when the chain
 * starts with tl / triton.language / triton / libdevice / math, else NULL. */
const char *tdx_km_tl_name(const tdx_src_node *callee);

/* Non-zero when a NAME/ATTRIBUTE chain names an int64 dtype. */
int tdx_km_is_int64_dtype(const tdx_src_node *n);
/* Non-zero when a NAME/ATTRIBUTE chain names a dtype of 16 bits or less. */
int tdx_km_is_half_dtype(const tdx_src_node *n);

/* The last name of a NAME/ATTRIBUTE chain ("Config" for triton.Config), or NULL. */
const char *tdx_km_last_name(const tdx_src_node *n);

/* The expression name is bound to by the last assignment in scope (a
 * FUNCDEF or the MODULE, through if/for/with/try blocks but not nested
 * functions) that starts before `before` (NULL: anywhere). *found says
 * whether there is one; the result is NULL when it is not a plain value. */
const tdx_src_node *tdx_km_binding_of(const tdx_src_node *scope, const char *name,
                                      const tdx_src_node *before, int *found);

/* A small set of names (pointers into the source's nodes). Past its
 * capacity it is full: it then answers every name as a member, the safe
 * side for the passes that ask whether a loop binds or reads a name. */
typedef struct tdx_km_names {
    const char *v[64];
    size_t n;
    int full;
} tdx_km_names;

/* Non-zero when nm is in s (or s is full). */
int tdx_km_names_has(const tdx_km_names *s, const char *nm);
/* Add nm to s unless it is there. */
void tdx_km_names_add(tdx_km_names *s, const char *nm);
/* tdx_src_walk visitors into a tdx_km_names (ud): every NAME bound where
 * it stands; every NAME that is read (not bound); every NAME. */
int tdx_km_bound_visit(tdx_src_node *n, void *ud);
int tdx_km_read_visit(tdx_src_node *n, void *ud);
int tdx_km_name_visit(tdx_src_node *n, void *ud);

/* Number of programs of a launch's grid when the source makes it knowable,
 * else -1. */
long long tdx_km_grid_size(const tdx_km_file *f, const tdx_km_launch *l);

#endif
