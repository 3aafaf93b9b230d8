/* The kernel model (tdx_km_*): what a Triton file says about its kernels,
 * read from the syntax tree without running anything.
 *
 * For every @triton.jit kernel: its parameters (pointer / scalar / constexpr,
 * with defaults), the program_id axes it reads, every tl.load / tl.store /
 * atomic with its address decomposed into a base pointer and per-axis
 * offsets (which tl.arange feeds which axis of the tile through [:, None] /
 * [None, :] broadcasting, and what multiplies it: the stride), masks and
 * `other`, loops and their bounds, tl.dot calls with their precision,
 * reductions, scans, math calls, int64 widenings, and the helper @triton.jit
 * functions it calls (whose bodies are folded into the kernel, so a load in a
 * helper is a load of the kernel). Local variables are followed through
 * their assignments (def-use in program order: `offs = ...; ptrs = base +
 * offs; x = tl.load(ptrs)`).
 *
 * For the non-jit code: every launch site `kernel[grid](args, BLOCK=...,
 * num_warps=..., num_stages=...)` with its grid expression (tuples, lambdas,
 * names bound to either), its argument expressions and the constexpr values
 * it passes; the autotune configs and heuristics of each kernel; and the
 * launch-side passes (.float(), .to(...), .contiguous() ...) in every scope
 * that launches a kernel.
 *
 * Integer values are folded where the source makes them knowable: literals,
 * module-level and function-local constants, launch keywords, autotune
 * configs, triton.cdiv / next_power_of_2, min / max and arithmetic.
 *
 * Ownership: everything in a tdx_km_file lives in the arena passed to
 * tdx_km_build and dies with it; nodes point into the caller's syntax tree
 * (tdx_src_module), which must outlive the model. */
#ifndef TDX_MODEL_MODEL_H
#define TDX_MODEL_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "base/arena.h"
#include "base/status.h"
#include "source/ast.h"

enum { TDX_KM_MAXRANK = 4, TDX_KM_MAXLOOPS = 32 };

typedef enum tdx_km_param_kind {
    TDX_KM_PARAM_SCALAR = 0, /* an integer or float argument */
    TDX_KM_PARAM_POINTER,    /* used as the base of a load/store, or named *_ptr */
    TDX_KM_PARAM_CONSTEXPR   /* annotated tl.constexpr */
} tdx_km_param_kind;

typedef struct tdx_km_param {
    const char *name;
    tdx_km_param_kind kind;
    int index;                  /* position in the signature */
    const tdx_src_node *node;   /* the PARAM */
    const tdx_src_node *dflt;   /* default value expression, or NULL */
    int has_default_value;      /* dflt folds to an integer */
    long long default_value;
    int no_specialize;          /* listed in do_not_specialize(_on_alignment) */
} tdx_km_param;

/* What multiplies one axis of an offset. */
typedef enum tdx_km_mult {
    TDX_KM_MULT_NONE = 0, /* no tl.arange feeds this axis */
    TDX_KM_MULT_UNIT,     /* coefficient 1: contiguous */
    TDX_KM_MULT_PARAM,    /* a scalar kernel parameter (a runtime stride) */
    TDX_KM_MULT_CONST,    /* an integer literal or constexpr */
    TDX_KM_MULT_OTHER     /* a product of several, or an index loaded from memory */
} tdx_km_mult;

/* One axis of a tile, counted from the right (axis 0 is the last, fastest
 * one), so that broadcasting lines axes up as Triton does. */
typedef struct tdx_km_axis {
    tdx_km_mult mult;
    const char *mult_param;     /* the parameter, for TDX_KM_MULT_PARAM */
    long long mult_const;       /* the factor, for TDX_KM_MULT_CONST */
    const tdx_src_node *size;   /* the tl.arange end (or block_shape entry), or NULL */
    int moddiv;                 /* the arange went through % or // (broadcast index) */
} tdx_km_axis;

/* Flags of a folded value (tdx_km_val.flags). */
enum {
    TDX_KM_V_ARANGE = 1u << 0,   /* depends on tl.arange */
    TDX_KM_V_DATA = 1u << 1,     /* loaded from memory (element-wise derived) */
    TDX_KM_V_PID = 1u << 2,      /* depends on tl.program_id */
    TDX_KM_V_RUNTIME = 1u << 3,  /* depends on a non-constexpr parameter */
    TDX_KM_V_DOT = 1u << 4,      /* a tl.dot result (or accumulator of one) */
    TDX_KM_V_EPI = 1u << 5,      /* a tl.dot result transformed by an epilogue */
    TDX_KM_V_REDUCED = 1u << 6,  /* derived from a reduction result */
    TDX_KM_V_EXPANDED = 1u << 7, /* a subscript inserted None axes */
    TDX_KM_V_PROD3 = 1u << 8,    /* product of two expanded operands of rank >= 3 */
    TDX_KM_V_INDIRECT = 1u << 9, /* an address that uses loaded data as index */
    TDX_KM_V_WINDOW = 1u << 10,  /* arange plus a step-1 loop variable: a sliding window */
    TDX_KM_V_HALF = 1u << 11,    /* cast to fp16 / bf16 / fp8 */
    TDX_KM_V_ZEROS = 1u << 12,   /* tl.zeros / tl.full */
    TDX_KM_V_BLOCKPTR = 1u << 13,/* tl.make_block_ptr */
    TDX_KM_V_INT64 = 1u << 14,   /* widened to int64 */
    TDX_KM_V_CONST = 1u << 15,   /* a known integer (ival) */
    TDX_KM_V_CONSTEXPR = 1u << 16/* derived from constexpr parameters only */
};

/* The abstract value of an expression inside a kernel. */
typedef struct tdx_km_val {
    uint32_t flags;
    int rank;                          /* 0 scalar, else the tile rank */
    tdx_km_axis axis[TDX_KM_MAXRANK];  /* from the right */
    const char *base;                  /* pointer parameter it is based on, or NULL */
    const char *param;                 /* exactly this scalar parameter, or NULL */
    long long ival;                    /* with TDX_KM_V_CONST */
    uint32_t loops;                    /* bit i: depends on loop i's variable */
    uint32_t pids;                     /* bit a: depends on program_id(a) */
    uint32_t win;                      /* bit i: adds step-1 loop i's variable unscaled by a block */
} tdx_km_val;

typedef enum tdx_km_loop_kind {
    TDX_KM_LOOP_RANGE = 0,   /* range(...) */
    TDX_KM_LOOP_TL_RANGE,    /* tl.range(...) */
    TDX_KM_LOOP_STATIC,      /* tl.static_range(...) */
    TDX_KM_LOOP_WHILE,
    TDX_KM_LOOP_OTHER
} tdx_km_loop_kind;

typedef struct tdx_km_loop {
    int id;                      /* 0-based within the kernel */
    const tdx_src_node *node;    /* FOR / WHILE */
    tdx_km_loop_kind kind;
    const char *var;             /* loop variable, or NULL */
    const tdx_src_node *start, *stop, *step; /* range arguments (NULL when absent) */
    int step_is_one;
    int runtime_bound;           /* the bound depends on a runtime parameter */
    int num_stages;              /* tl.range(num_stages=N), -1 when not given */
    struct tdx_km_loop *parent;  /* enclosing loop or NULL */
    int depth;                   /* 1 for an outermost loop */
} tdx_km_loop;

typedef enum tdx_km_access_kind {
    TDX_KM_LOAD = 0, TDX_KM_STORE, TDX_KM_ATOMIC
} tdx_km_access_kind;

/* A tl.load / tl.store / tl.atomic_* call. */
typedef struct tdx_km_access {
    tdx_km_access_kind kind;
    const char *op;              /* "load", "store", "atomic_add", ... */
    const tdx_src_node *call;
    const tdx_src_node *ptr;     /* the address expression */
    const tdx_src_node *mask, *other; /* or NULL */
    tdx_km_val addr;             /* the folded address: base + per-axis offsets */
    tdx_km_val maskv;            /* the folded mask (rank 0 when there is none) */
    tdx_km_val value;            /* stored value (stores, atomics) */
    tdx_km_loop *loop;           /* innermost enclosing loop, or NULL */
    const tdx_src_node *helper;  /* the helper FUNCDEF it was found in, or NULL */
} tdx_km_access;

typedef enum tdx_km_op_kind {
    TDX_KM_OP_DOT = 0, TDX_KM_OP_REDUCE, TDX_KM_OP_SCAN, TDX_KM_OP_MATH,
    TDX_KM_OP_INT64, TDX_KM_OP_HELPER
} tdx_km_op_kind;

/* A call of interest: tl.dot, a reduction, a scan, a math function, an
 * int64 widening, a helper call. */
typedef struct tdx_km_op {
    tdx_km_op_kind kind;
    const char *name;            /* "dot", "sum", "cumsum", "exp", helper name ... */
    const tdx_src_node *call;
    tdx_km_loop *loop;
    /* dot */
    const char *input_precision; /* "ieee", "tf32", ... or NULL */
    int allow_tf32;              /* 1, 0, or -1 when not given */
    int operands_half;           /* an operand is cast to 16 bits or less */
    const tdx_src_node *dim_m, *dim_n, *dim_k; /* tile size expressions, or NULL */
    /* reduce / scan */
    int axis;                    /* from the left, -1 when all / not given */
    tdx_km_val input;            /* the reduced value */
} tdx_km_op;

/* One triton.Config of an autotune decorator. */
typedef struct tdx_km_config {
    const tdx_src_node *node;    /* the triton.Config call */
    const char **keys;           /* constexpr names */
    long long *values;           /* their values */
    int *known;                  /* whether each value folded */
    size_t n;
    int num_warps, num_stages;   /* -1 when not given */
} tdx_km_config;

typedef struct tdx_km_kernel tdx_km_kernel;

/* A launch site kernel[grid](...). */
typedef struct tdx_km_launch {
    tdx_km_kernel *kernel;
    const tdx_src_node *call;
    const tdx_src_node *grid;    /* the grid expression as written */
    const tdx_src_node *grid_def;/* a LAMBDA / TUPLE the grid name is bound to, or grid */
    const tdx_src_node *scope;   /* enclosing FUNCDEF, or the MODULE */
    const tdx_src_node **args;   /* argument per kernel parameter (positional or keyword), NULL when absent */
    size_t nargs;                /* = kernel->nparams */
    const tdx_src_node *num_warps, *num_stages; /* keyword values or NULL */
    long long grid_size;         /* programs in the grid when known, else -1 */
} tdx_km_launch;

struct tdx_km_kernel {
    const char *name;
    const tdx_src_node *def;     /* FUNCDEF */
    int is_helper;               /* called (or referenced) from another jit function, or
                                    returns a value, and never launched */
    int referenced;              /* named in another jit function's body */
    int returns_value;           /* has `return <value>` (kernels cannot) */
    tdx_km_param *params;
    size_t nparams;
    uint32_t pid_axes;           /* bit a: tl.program_id(a) is read */
    uint32_t pid_tiled;          /* bit a: program_id(a) offsets a tl.arange */
    uint32_t pid_addr;           /* bit a: program_id(a) reaches an address */
    tdx_ptrvec loops;            /* tdx_km_loop* */
    tdx_ptrvec accesses;         /* tdx_km_access* */
    tdx_ptrvec ops;              /* tdx_km_op* */
    tdx_ptrvec helpers;          /* const tdx_src_node* FUNCDEFs folded in */
    /* decorators */
    const tdx_src_node *jit_deco;      /* the @triton.jit decorator */
    const tdx_src_node *autotune_deco; /* @triton.autotune(...) or NULL */
    tdx_km_config *configs;            /* resolved autotune configs */
    size_t nconfigs;
    int configs_known;                 /* the config list could be read */
    const char **heuristic_keys;       /* names set by @triton.heuristics */
    size_t nheuristic_keys;
    const tdx_src_node *no_specialize_deco; /* decorator carrying do_not_specialize */
    tdx_ptrvec launches;               /* tdx_km_launch* of this kernel */
};

/* A launch-side pass: .float(), .half(), .bfloat16(), .double(), .to(...),
 * .contiguous() in a scope that launches a kernel. */
typedef struct tdx_km_pass {
    const char *method;
    const tdx_src_node *call;
    const tdx_src_node *scope;
} tdx_km_pass;

typedef struct tdx_km_file {
    const tdx_src_module *mod;
    tdx_ptrvec kernels;   /* tdx_km_kernel*, helpers included (is_helper), source order */
    tdx_ptrvec launches;  /* tdx_km_launch*, source order */
    tdx_ptrvec passes;    /* tdx_km_pass*, source order */
    /* module-level names bound by assignment: the last value bound to each
     * (NULL when it is not a plain value, e.g. augmented or a loop target) */
    const char **global_names;
    const tdx_src_node **global_values;
    size_t nglobals;
} tdx_km_file;

/* Build the model of a parsed module. Everything is allocated in arena.
 * Returns TDX_ERR_NOMEM when memory runs out; unknown constructs are simply
 * left out of the model, never an error. */
tdx_status tdx_km_build(const tdx_src_module *mod, tdx_arena *arena, tdx_km_file **out);

/* The parameter of k named name, or NULL. */
tdx_km_param *tdx_km_param_find(const tdx_km_kernel *k, const char *name);

/* Non-zero when obj re-lays a tensor out: x.t(), x.transpose(..),
 * x.permute(..), x.movedim(..), x.swapaxes(..), x.swapdims(..), x.T, x.mT.
 * A .contiguous() on it picks the memory order a kernel reads (operand-
 * layout's K-major copy), which is no stray pass. */
int tdx_km_is_relayout(const tdx_src_node *obj);

/* Fold an integer expression of the non-jit code at scope (a FUNCDEF or the
 * module), looking up names among the statements of scope before `before`
 * (NULL: all of them) and the module's constants, and `META["X"]`-style
 * subscripts of lambda parameter meta in the keywords of launch. Returns 1
 * and sets *v when the value is known. launch may be NULL. */
int tdx_km_fold_int(const tdx_km_file *f, const tdx_src_node *scope, const tdx_src_node *before,
                    const tdx_km_launch *launch, const tdx_src_node *expr, long long *v);

/* The value a launch gives to a constexpr parameter: its argument when
 * passed, else the signature default. Returns 1 and sets *v when known;
 * *where gets the node the value comes from (argument or default). */
int tdx_km_launch_constexpr(const tdx_km_file *f, const tdx_km_launch *l, const char *name,
                            long long *v, const tdx_src_node **where);

/* ---- the bench shape (model_bench.c) ---- */
/* Programs in the grid of launch l at the task's bench shape: SHAPES["bench"]
 * bound to make_inputs' first parameter, make_inputs and launch followed
 * up to l, the grid evaluated there; -1 when any step is unknown (or memory
 * ran out). shape receives the bench shape's text. */
long long tdx_km_bench_grid(const tdx_km_file *f, const tdx_km_launch *l, char *shape, size_t shape_len);
/* The same grid axis by axis into dims[0..cap): the number of axes, or -1
 * when the model cannot follow the task or an axis is unknown. */
int tdx_km_bench_grid_dims(const tdx_km_file *f, const tdx_km_launch *l, long long *dims, int cap, char *shape,
                           size_t shape_len);
/* The integer value of expression expr (an argument of launch l, or any
 * expression of launch's scope at l) at the bench shape: 1 with *v set, 0
 * when unknown. */
int tdx_km_bench_int(const tdx_km_file *f, const tdx_km_launch *l, const tdx_src_node *expr, long long *v);
/* The value of k's parameter name at the bench shape, through the first of
 * k's launches whose argument for it is known there: 1 with *v set, 0 when
 * no launch tells (a default is not consulted). */
int tdx_km_param_bench_int(const tdx_km_file *f, const tdx_km_kernel *k, const char *name, long long *v);

/* ---- tl.dot operands and their layout at launch (model_operand.c) ---- */
/* The element size of the task's inputs: make_inputs' `dtype` default
 * (torch.float16 / bfloat16 / half: 2, float32 / float: 4); 0 when unknown. */
int tdx_km_input_bytes(const tdx_km_file *f);

/* A tl.dot operand read from a tensor whose contiguous axis, at a launch, is
 * not the operand's K axis: the launch passes X.stride(k_dim) for the
 * stride of the tile's K axis and X.stride(other_dim) for the other one,
 * with k_dim < other_dim, so that X as make_inputs builds it (contiguous)
 * walks the other axis fastest. */
typedef struct tdx_km_mn_operand {
    const tdx_km_op *dot;
    int which;                   /* 0: the first operand (M x K), 1: the second (K x N) */
    const tdx_km_access *load;   /* the tl.load that feeds it */
    const tdx_km_launch *launch; /* the launch whose arguments show the layout */
    const tdx_src_node *tensor;  /* the NAME that launch passes for the load's base */
    long long k_dim, other_dim;  /* X.stride(k_dim) scales K, X.stride(other_dim) the other axis */
} tdx_km_mn_operand;

/* The operands of k's tl.dots that the tensor cores read as tf32 (fp32
 * inputs by make_inputs, no input_precision="ieee" / allow_tf32=False, no
 * cast to 16 bits) and that come N- or M-contiguous from memory, as above;
 * only tensors the kernel never stores to. Fills out[0, max) and returns
 * how many there are. */
size_t tdx_km_mn_major_operands(const tdx_km_file *f, const tdx_km_kernel *k, tdx_km_mn_operand *out,
                                size_t max);

/* ---- reductions deferred out of their loop (model_defer.c) ---- */
/* What a reduction update statement folds into its accumulator. */
typedef enum tdx_km_update_op {
    TDX_KM_UPDATE_SUM = 1, /* acc += e, acc = acc + e, acc = e + acc */
    TDX_KM_UPDATE_MAX,     /* acc = tl.maximum(acc, e), either order */
    TDX_KM_UPDATE_MIN      /* acc = tl.minimum(acc, e), either order */
} tdx_km_update_op;

/* The accumulator of a reduction update statement (the forms above, one
 * plain name as the only target), with *op and *e (the value folded in)
 * set; NULL when stmt is not one. e may still read the accumulator. */
const char *tdx_km_update_of(const tdx_src_node *stmt, tdx_km_update_op *op, const tdx_src_node **e);

/* A loop statement that reduces its iteration's whole tile into a float
 * scalar (`acc += tl.sum(x, axis=0)`, `m = tl.maximum(m, tl.max(x, axis=0))`,
 * tl.minimum / tl.min), or one axis of a 2-D tile into a float
 * tile accumulator (`acc += tl.sum(x, axis=0)` with acc = tl.zeros((BLOCK_N,),
 * ...)): an elementwise accumulator of the tile's shape can take the tile in
 * the loop and the one reduction can follow the loop. */
typedef struct tdx_km_deferred {
    const tdx_km_op *op;          /* the tl.sum / tl.max / tl.min */
    tdx_km_update_op update;
    const tdx_src_node *stmt;     /* the update, directly in the loop's body */
    const tdx_src_node *loop;     /* the FOR whose body holds stmt */
    const tdx_src_node *value;    /* the reduced tile expression (first argument) */
    const char *acc;              /* the accumulator, a float assigned before the loop */
    int rank;                     /* the tile's rank */
    int axis;                     /* the one axis reduced, from the left, or -1: every axis */
    const tdx_src_node *shape[TDX_KM_MAXRANK]; /* axis sizes, left to right: int literals or
                                                  constexpr parameters of the kernel */
    /* A maximum or minimum whose value is `V.to(tl.float32)`, V bound once in
     * the loop, directly in its body, to a tl.load based on pointer parameter
     * P whose masked lanes take a float (floating-point data): V and P, the
     * lanes the loop could keep in the loaded type; NULL otherwise. */
    const char *widened, *widened_base;
} tdx_km_deferred;

/* The texts of d's axis sizes, left to right, joined by sep, into buf[0,
 * cap) with a NUL: 1, or 0 (buf cut) when they do not fit. */
int tdx_km_deferred_shape(const tdx_src_module *m, const tdx_km_deferred *d, const char *sep, char *buf,
                          size_t cap);
/* Non-zero when a tl.dot of kernel k lies inside loop (a FOR or WHILE node). */
int tdx_km_loop_has_dot(const tdx_km_kernel *k, const tdx_src_node *loop);

/* The statements of kernel k that reduce a tile so (source order): the
 * accumulator is named nowhere else in the loop (target and iterator
 * included), its value before the loop is a float (a float literal, its
 * negation, float("..."), or tl.zeros / tl.full naming tl.float32), the
 * reduction takes every axis (rank 1 with axis 0 / -1 / None, any rank with
 * no axis), or one integer axis of a 2-D tile into an accumulator
 * that starts as tl.zeros / tl.full, of a tile whose sizes are known before
 * the loop, and the loop statement starts its line, has no else and holds
 * no tl.dot. Fills out[0, max) and returns how many there are. */
size_t tdx_km_deferrable(const tdx_km_file *f, const tdx_km_kernel *k, tdx_km_deferred *out, size_t max);

/* A running arg-max over the tiles of a loop, four statements of its body:
 *
 *     M = tl.max(X, axis=0)                the tile's maximum
 *     I = tl.argmax(X, axis=0) + V         its first lane, plus the tile's start
 *     BI = tl.where(M > B, I, BI)          strictly greater: an earlier tile keeps it
 *     B = tl.maximum(M, B)
 *
 * (tl.min, tl.argmin, M < B and tl.minimum for the arg-min). After the loop
 * BI is the first index of the maximum of all the tiles when that exceeds
 * B's value before the loop, else BI's; B is the larger of the two. Kept
 * per lane instead -- the best value, and the index where the lane first
 * reached it -- the loop pays no reduction: the first index among the lanes
 * that hold the maximum is the same one. For inputs without NaN. */
typedef struct tdx_km_argdeferred {
    int is_min;                   /* the arg-min */
    const tdx_km_op *op;          /* the tl.argmax / tl.argmin */
    const tdx_src_node *loop;     /* the FOR whose body holds the four statements */
    const tdx_src_node *red, *arg, *pick, *fold; /* M = ..., I = ..., BI = ..., B = ... */
    const char *x, *best, *best_idx, *var;       /* X, B, BI, V */
    const char *index;            /* a name that holds V + tl.arange(0, S) at pick, or NULL */
    const tdx_src_node *size;     /* S, the tile's lanes: an int literal or a constexpr parameter */
} tdx_km_argdeferred;

/* The running arg-maxes and arg-mins of kernel k (source order) whose
 * deferred form computes what they compute: X is a name bound once in k,
 * by a statement of the loop's body before the two reductions, to a 1-D
 * tile of S lanes (S known before the loop, the reductions over axis 0, -1
 * or None with no other argument); V the loop's variable, bound nowhere
 * in its body, the loop `for V in range(lo, hi, S)` (or tl.range) with no
 * else and no tl.dot, so that tile after tile the indices grow; the pick
 * after both reductions and before the fold, which is tl.maximum(M, B) or
 * tl.maximum(B, M) with no keyword; M and I read nowhere else in k, B and
 * BI nowhere else in the loop; B bound only before the loop, to a float
 * that is no NaN (-float("inf"), a float literal ...), and by the fold; X,
 * M, I, B, BI and V different names; each statement alone on its lines.
 * Fills out[0, max) and returns how many there are. */
size_t tdx_km_argdeferrable(const tdx_km_file *f, const tdx_km_kernel *k, tdx_km_argdeferred *out, size_t max);

/* ---- atomics ordered for nothing (model_atomic.c) ---- */
enum { TDX_KM_ATOMIC_MAX = 16 };
/* The tl.atomic_add / max / min / and / or / xor calls of kernel def that
 * are statements of their own (result unused) and name no sem= or scope=,
 * when the kernel has no atomic_cas / atomic_xchg, no atomic whose result is
 * used, no tl.load through a pointer parameter an atomic writes through,
 * and calls no helper function: their default acq_rel ordering serves
 * nothing. Fills out[0, max) in source order and returns how many; 0 when
 * the kernel does not qualify. */
size_t tdx_km_relaxable(const tdx_src_node *def, const tdx_src_node **out, size_t max);

/* ---- masks only a loop's last blocks need (model_peel.c) ---- */
enum { TDX_KM_PEEL_MAX_BOUNDS = 4, TDX_KM_PEEL_MAX_SITES = 8 };
/* A loop `for V in range(lo, hi, step)` whose masks (tl.load / tl.store
 * mask=, tl.where's condition) are true on every block that ends at or
 * before each bound: the blocks before min(hi, bounds) need none. */
typedef struct tdx_km_peel {
    const tdx_src_node *loop;     /* the FOR */
    const tdx_src_node *lo, *hi, *step;
    const tdx_src_node *bound[TDX_KM_PEEL_MAX_BOUNDS]; /* X of `O < X`, P of `P + tl.arange(...) >= O` */
    size_t nbound;
    const tdx_src_node *site[TDX_KM_PEEL_MAX_SITES];   /* the calls whose mask drops there */
    size_t nsite;
    int diagonal;                 /* a bound comes from a rows-against-columns comparison */
} tdx_km_peel;

/* The loops of kernel def so (source order, nested ones included): the
 * step is the size of an offsets tile `O = V + tl.arange(0, step)` bound
 * once in the body, and each site's mask is a conjunction (&) of O < X,
 * X > O, R >= O, R > O, O <= R, O < R (O bare or indexed with None / :),
 * with R = P + tl.arange(0, K) bound once in the kernel outside the loop,
 * X and P (and lo, hi, step) reading nothing the loop binds; a mask may be
 * a name bound once, in the loop's body, to such a conjunction. Fills
 * out[0, max) and returns how many there are. */
size_t tdx_km_peelable(const tdx_src_module *m, const tdx_src_node *def, tdx_km_peel *out, size_t max);

/* ---- a last pass that reads again what an earlier one read (model_reverse.c) ---- */
/* A top-level loop `for V in range(...)` of a kernel whose range (the
 * arguments' text) and a load base are those of an earlier top-level loop,
 * with no later such loop, whose iterations are independent (every name its
 * body binds is bound in the iteration before it is read and is read
 * nowhere after the loop): walked from its last block down, it computes the
 * same, reading first what the earlier pass read last. */
typedef struct tdx_km_rev {
    const tdx_src_node *loop;            /* the last pass */
    const tdx_src_node *first;           /* the earlier pass over the same range */
    const char *var;                     /* V */
    const char *base;                    /* a base both load through */
    const tdx_src_node *lo, *hi, *step;  /* range's arguments; lo and step NULL when absent */
} tdx_km_rev;

/* Fills out[0, max) with kernel def's such loops; returns how many. */
size_t tdx_km_reversible(const tdx_src_module *m, const tdx_src_node *def, tdx_km_rev *out, size_t max);

/* ---- programs whose work grows with their id (model_heavy.c) ---- */
/* A kernel that binds P = tl.program_id(A) once (and reads tl.program_id(A)
 * nowhere else) and has an outermost loop `for V in range(LO, HI[, STEP])`
 * whose LO and STEP do not depend on P and whose HI does not decrease as P
 * grows and depends on it (through names bound once: the trip count of a
 * causal attention's key loop, (pid_m + 1) * BLOCK_M). CTAs start in
 * program-id order, so the longest programs start last. */
typedef struct tdx_km_heavy {
    const tdx_src_node *pid;   /* the tl.program_id(A) call of P's binding */
    const char *var;           /* P */
    long long axis;            /* A */
    const tdx_src_node *loop;  /* the first such loop */
} tdx_km_heavy;

/* Non-zero when kernel def is such a kernel; fills *out. */
int tdx_km_heavy_last(const tdx_km_file *f, const tdx_km_kernel *k, tdx_km_heavy *out);

/* ---- outer products accumulated over a reduction loop (model_dotacc.c) ---- */
/* `ACC += X * Y` in a loop over a reduction index V, X an [R, 1] column and
 * Y a 1-D tile of BLOCK elements, each loaded with V in its address: the
 * loop's V iterations are the K axis of a matrix product, ACC (R x BLOCK)
 * += W[R, V] @ Z[V, BLOCK], computed one rank-1 update at a time. */
typedef struct tdx_km_dotacc {
    const tdx_src_node *loop;       /* for V in range(B) / range(0, B) */
    const char *var;                /* V */
    const tdx_src_node *bound;      /* B */
    const tdx_src_node *stmt;       /* the update ACC += X * Y (or ACC = ACC + X * Y) */
    const tdx_src_node *prod;       /* X * Y */
    const char *acc;                /* ACC: tl.zeros((R, BLOCK), dtype=tl.float32) before the loop */
    const tdx_km_access *col, *row; /* the loads of the column and of the row */
    long long rows, cols;           /* R and BLOCK at the kernel's first launch */
} tdx_km_dotacc;

/* The loops of kernel k so, outermost first, at most one per update: the
 * task's inputs are fp32 (tdx_km_input_bytes), k has no tl.dot and calls no
 * helper; V is read only in the two loads' addresses (each at least once)
 * and bound nowhere else in k; B reads nothing the loop binds and is no
 * literal under 16; X and Y are names bound once in k, each to a bare
 * tl.load in the update's block, before it, and read only there; the
 * column's address is [R, 1], its mask none, a scalar or [R, 1], the row's
 * address 1-D, its mask none or at most 1-D, `other` absent or zero on
 * both; ACC is read nowhere else in the loop, and its two sizes are the
 * column's and the row's tile sizes (the same text), powers of two of at
 * least 16. Fills out[0, max) and returns how many there are. */
size_t tdx_km_dot_accumulable(const tdx_km_file *f, const tdx_km_kernel *k, tdx_km_dotacc *out, size_t max);

/* ---- dot operands loaded through masked pointers (model_tma.c) ---- */
enum { TDX_KM_TMA_MAX_TERMS = 4 };
/* One axis of an operand tile: rows are the [:, None] one, columns the
 * [None, :] one. Its offset is the sum of the terms (none: 0), the tile
 * spans tl.arange(0, size) from there, and the mask bounds it by `< bound`. */
typedef struct tdx_km_tma_axis {
    const tdx_src_node *term[TDX_KM_TMA_MAX_TERMS];
    size_t nterm;
    const tdx_src_node *size;   /* a constexpr parameter or a literal */
    const tdx_src_node *stride; /* a parameter or a literal; NULL for 1 */
    const tdx_src_node *bound;  /* a parameter or a literal */
} tdx_km_tma_axis;

typedef struct tdx_km_tma_operand {
    const tdx_src_node *stmt;   /* `X = tl.load(...)`, a statement of the loop's body */
    const tdx_src_node *load;   /* the tl.load */
    const char *base;           /* the pointer parameter */
    tdx_km_tma_axis axis[2];    /* rows, columns */
    /* A base moved by I * S (a batch, a head): the index I and the stride S
     * (a parameter or a literal), the tile then a box of a 3-D descriptor
     * at [I, rows, columns]; both NULL when the base does not move. */
    const tdx_src_node *lead_index, *lead_stride;
} tdx_km_tma_operand;

/* A loop statement `ACC += tl.dot(X, Y)` (or `ACC = tl.dot(X, Y, ACC)`)
 * whose operands are both 2-D tiles loaded in the loop through a pointer. */
typedef struct tdx_km_tma {
    const tdx_src_node *loop, *dot;
    tdx_km_tma_operand op[2];
} tdx_km_tma;

/* The dot loops of kernel def whose two operands a tensor descriptor can
 * load: X and Y are names bound once in def, each by a statement of the
 * loop's body `X = tl.load(P + R[:, None] * S0 + C[None, :] * S1, mask=...,
 * other=0)` (other absent or zero, no other keyword; the terms in any order,
 * a stride omitted for 1, the address a name bound once to such a sum), P a
 * pointer parameter def never rebinds, S0 / S1 parameters or literals, R and
 * C each `OFF + tl.arange(0, SIZE)` written out or through names bound once
 * (OFF a sum of terms whose names def binds at most once), SIZE a constexpr
 * parameter or a literal, and the mask a conjunction (&) of exactly
 * `R[:, None] < B0` and `C[None, :] < B1` (the same index expressions; B0,
 * B1 parameters or literals). The base may move by one lead term I * S (S a
 * parameter or a literal, I free of tl.arange, its names bound at most once
 * and only by plain assignments): a fourth term of the address, or P's one
 * rebinding, `P += I * S` (or `P = P + I * S`), a statement of def's body
 * before the loop. Fills out[0, max) and returns how many. */
size_t tdx_km_tma_loads(const tdx_src_module *m, const tdx_src_node *def, tdx_km_tma *out, size_t max);

/* ---- a loop-invariant scale of a tl.dot result (model_scale.c) ---- */
/* `tl.dot(X, Y) * c` (or `c * tl.dot(X, Y)`) in the body of a loop, the dot
 * with two operands and no accumulator, c a literal, a parameter def never
 * rebinds, a name def binds once before the loop to such a value, or a
 * product / quotient / sum / difference of such; and one operand -- X when
 * it can, else Y -- a name def binds once, in a statement of its own body
 * before the loop's (the anchor). Each iteration multiplies the dot's whole
 * result by c; the same product follows from scaling the operand once,
 * before the anchor. */
typedef struct tdx_km_scaled_dot {
    const tdx_src_node *loop;    /* the innermost FOR holding the product */
    const tdx_src_node *anchor;  /* the statement of def's body holding the loop */
    const tdx_src_node *product; /* the BINOP `dot * c` */
    const tdx_src_node *dot;     /* the tl.dot call */
    const tdx_src_node *operand; /* the loop-invariant operand's NAME node in the call */
    const tdx_src_node *scale;   /* c */
} tdx_km_scaled_dot;

/* The scaled dots of kernel def, in source order: fills out[0, max) and
 * returns how many there are. */
size_t tdx_km_scaled_dots(const tdx_src_module *m, const tdx_src_node *def, tdx_km_scaled_dot *out, size_t max);

/* ---- per-row values gathered through a divided flat offset (model_rowgrid.c) ---- */
enum { TDX_KM_ROW_LOADS = 16 };
/* A kernel of one flat 1-D grid axis whose elements find their row by
 * dividing their offset by a runtime extent and gather their row's values:
 *     OFFS = tl.program_id(0) * B + tl.arange(0, B)   (or through names:
 *                                     pid = tl.program_id(0); start = pid * B)
 *     ROW = (OFFS // D) % C          (OFFS // D once, with literals and
 *                                     parameters by + - * // %)
 *     v = tl.load(P + ROW, ...)      (ROW used only so)
 * with tl.program_id read only there. Nodes are def's. */
typedef struct tdx_km_row_gather {
    const tdx_src_node *offs_stmt; /* OFFS = ... */
    const char *offs;
    const tdx_src_node *block;     /* the arange's B */
    const tdx_src_node *row_stmt;  /* ROW = ... */
    const char *row;
    const tdx_src_node *div;       /* the BINOP OFFS // D */
    const char *extent;            /* D, a parameter */
    const tdx_src_node *loads[TDX_KM_ROW_LOADS]; /* the tl.load calls of P + ROW */
    size_t nloads;
    const tdx_src_node *dead[2]; /* `pid = tl.program_id(0)`, `start = pid * B`: the offsets' only uses */
    size_t ndead;
} tdx_km_row_gather;

/* 1 with *g filled when kernel def has that shape, else 0. */
int tdx_km_row_gather_of(const tdx_src_module *m, const tdx_src_node *def, tdx_km_row_gather *g);

#endif
