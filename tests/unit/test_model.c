/* Unit tests for the kernel model (tdx_km_*): parameters, address
 * decomposition, loops, dots, reductions, helpers, launch sites, grids and
 * launch-side passes, read from small sources. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/model.h"

typedef struct fixture {
    tdx_arena arena;
    tdx_diags diags;
    tdx_src_module *mod;
    tdx_km_file *file;
} fixture;

static void build(fixture *fx, const char *src)
{
    tdx_arena_init(&fx->arena, 0);
    tdx_diags_init(&fx->diags);
    assert_int_equal(tdx_src_parse("m.py", src, strlen(src), &fx->arena, &fx->diags, &fx->mod),
                     TDX_OK);
    assert_int_equal(tdx_km_build(fx->mod, &fx->arena, &fx->file), TDX_OK);
}

static void teardown_fx(fixture *fx)
{
    tdx_arena_free(&fx->arena);
    tdx_diags_free(&fx->diags);
}

static tdx_km_kernel *kernel(fixture *fx, const char *name)
{
    for (size_t i = 0; i < fx->file->kernels.len; i++) {
        tdx_km_kernel *k = fx->file->kernels.items[i];
        if (strcmp(k->name, name) == 0)
            return k;
    }
    fail_msg("no kernel %s", name);
    return NULL;
}

static const tdx_km_access *access_at(const tdx_km_kernel *k, int line)
{
    for (size_t i = 0; i < k->accesses.len; i++) {
        const tdx_km_access *a = k->accesses.items[i];
        if (a->call->line == line)
            return a;
    }
    fail_msg("no access on line %d", line);
    return NULL;
}

static const tdx_km_op *op_named(const tdx_km_kernel *k, const char *name)
{
    for (size_t i = 0; i < k->ops.len; i++) {
        const tdx_km_op *op = k->ops.items[i];
        if (strcmp(op->name, name) == 0)
            return op;
    }
    fail_msg("no op %s", name);
    return NULL;
}

static int size_is(const fixture *fx, const tdx_src_node *n, const char *text)
{
    size_t len;
    const char *s = tdx_src_text(fx->mod, n, &len);
    return n && len == strlen(text) && memcmp(s, text, len) == 0;
}

static const char MATMUL[] =
    "import torch\n"                                                               /* 1 */
    "import triton\n"                                                              /* 2 */
    "import triton.language as tl\n"                                               /* 3 */
    "SIZE = 1 << 12\n"                                                             /* 4 */
    "@triton.jit\n"                                                                /* 5 */
    "def _act(x):\n"                                                               /* 6 */
    "    return tl.where(x > 0, x, 0.0)\n"                                         /* 7 */
    "@triton.jit(do_not_specialize=['K'])\n"                                       /* 8 */
    "def mm(A, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn,\n" /* 9 */
    "       BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr = 32):\n"
    "    pid_m = tl.program_id(0)\n"                                               /* 11 */
    "    pid_n = tl.program_id(axis=1)\n"                                          /* 12 */
    "    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)\n"                           /* 13 */
    "    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)\n"                           /* 14 */
    "    rk = tl.arange(0, BLOCK_K)\n"                                             /* 15 */
    "    a_ptrs = A + rm[:, None] * stride_am + rk[None, :] * stride_ak\n"         /* 16 */
    "    b_ptrs = b_ptr + rk[:, None] * stride_bk + rn[None, :]\n"                 /* 17 */
    "    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)\n"                   /* 18 */
    "    for k in tl.range(0, K, BLOCK_K, num_stages=3):\n"                        /* 19 */
    "        a = tl.load(a_ptrs, mask=rk[None, :] < K - k, other=0.0)\n"           /* 20 */
    "        b = tl.load(b_ptrs)\n"                                                /* 21 */
    "        acc = tl.dot(a, b, acc, input_precision=\"tf32\")\n"                  /* 22 */
    "        a_ptrs += BLOCK_K * stride_ak\n"                                      /* 23 */
    "        b_ptrs += BLOCK_K * stride_bk\n"                                      /* 24 */
    "    acc = _act(acc)\n"                                                        /* 25 */
    "    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc.to(tl.float16))\n"    /* 26 */
    "def launch(a, b):\n"                                                          /* 27 */
    "    c = torch.empty((SIZE, SIZE), device=a.device)\n"                         /* 28 */
    "    a = a.contiguous()\n"                                                     /* 29 */
    "    grid = lambda META: (triton.cdiv(SIZE, META['BLOCK_M']),\n"               /* 30 */
    "                         triton.cdiv(SIZE, META['BLOCK_N']))\n"               /* 31 */
    "    mm[grid](a, b, c, SIZE, SIZE, SIZE, a.stride(0), a.stride(1),\n"          /* 32 */
    "             b.stride(0), b.stride(1), BLOCK_M=128, BLOCK_N=256, num_warps=8)\n"
    "    return c.float()\n";                                                      /* 34 */

static void params_and_decorators(void **state)
{
    (void)state;
    fixture fx;
    build(&fx, MATMUL);
    assert_int_equal(fx.file->kernels.len, 2);
    tdx_km_kernel *h = kernel(&fx, "_act");
    assert_true(h->is_helper);
    tdx_km_kernel *k = kernel(&fx, "mm");
    assert_false(k->is_helper);
    assert_int_equal(k->nparams, 13);
    assert_int_equal(tdx_km_param_find(k, "A")->kind, TDX_KM_PARAM_POINTER); /* used as base */
    assert_int_equal(tdx_km_param_find(k, "b_ptr")->kind, TDX_KM_PARAM_POINTER);
    assert_int_equal(tdx_km_param_find(k, "M")->kind, TDX_KM_PARAM_SCALAR);
    const tdx_km_param *bk = tdx_km_param_find(k, "BLOCK_K");
    assert_int_equal(bk->kind, TDX_KM_PARAM_CONSTEXPR);
    assert_true(bk->has_default_value);
    assert_int_equal(bk->default_value, 32);
    assert_true(tdx_km_param_find(k, "K")->no_specialize);
    assert_false(tdx_km_param_find(k, "N")->no_specialize);
    assert_non_null(k->no_specialize_deco);
    assert_int_equal(k->pid_axes, 3);
    assert_int_equal(k->pid_tiled, 3);
    teardown_fx(&fx);
}

static void addresses_are_decomposed(void **state)
{
    (void)state;
    fixture fx;
    build(&fx, MATMUL);
    tdx_km_kernel *k = kernel(&fx, "mm");
    assert_int_equal(k->accesses.len, 3);
    const tdx_km_access *a = access_at(k, 20);
    assert_int_equal(a->kind, TDX_KM_LOAD);
    assert_string_equal(a->addr.base, "A");
    assert_int_equal(a->addr.rank, 2);
    /* axis 0 (last, fastest) is rk * stride_ak, axis 1 is rm * stride_am */
    assert_int_equal(a->addr.axis[0].mult, TDX_KM_MULT_PARAM);
    assert_string_equal(a->addr.axis[0].mult_param, "stride_ak");
    assert_true(size_is(&fx, a->addr.axis[0].size, "BLOCK_K"));
    assert_int_equal(a->addr.axis[1].mult, TDX_KM_MULT_PARAM);
    assert_string_equal(a->addr.axis[1].mult_param, "stride_am");
    assert_true(size_is(&fx, a->addr.axis[1].size, "BLOCK_M"));
    assert_non_null(a->mask);
    assert_non_null(a->other);
    assert_non_null(a->loop);
    const tdx_km_access *b = access_at(k, 21);
    assert_string_equal(b->addr.base, "b_ptr");
    assert_int_equal(b->addr.axis[0].mult, TDX_KM_MULT_UNIT);
    assert_null(b->mask);
    const tdx_km_access *s = access_at(k, 26);
    assert_int_equal(s->kind, TDX_KM_STORE);
    assert_string_equal(s->addr.base, "c_ptr");
    assert_null(s->loop);
    /* the stored value is the dot result after the helper's epilogue */
    assert_true(s->value.flags & TDX_KM_V_DOT);
    assert_true(s->value.flags & TDX_KM_V_EPI);
    assert_true(s->value.flags & TDX_KM_V_HALF);
    teardown_fx(&fx);
}

static void loops_dots_and_helpers(void **state)
{
    (void)state;
    fixture fx;
    build(&fx, MATMUL);
    tdx_km_kernel *k = kernel(&fx, "mm");
    assert_int_equal(k->loops.len, 1);
    const tdx_km_loop *lp = k->loops.items[0];
    assert_int_equal(lp->kind, TDX_KM_LOOP_TL_RANGE);
    assert_string_equal(lp->var, "k");
    assert_int_equal(lp->num_stages, 3);
    assert_false(lp->step_is_one);
    assert_true(lp->runtime_bound);
    assert_int_equal(lp->depth, 1);
    const tdx_km_op *dot = op_named(k, "dot");
    assert_string_equal(dot->input_precision, "tf32");
    assert_int_equal(dot->allow_tf32, -1);
    assert_true(size_is(&fx, dot->dim_m, "BLOCK_M"));
    assert_true(size_is(&fx, dot->dim_n, "BLOCK_N"));
    assert_true(size_is(&fx, dot->dim_k, "BLOCK_K"));
    assert_ptr_equal(dot->loop, lp);
    const tdx_km_op *h = op_named(k, "_act");
    assert_int_equal(h->kind, TDX_KM_OP_HELPER);
    assert_int_equal(k->helpers.len, 1);
    teardown_fx(&fx);
}

static void launch_sites(void **state)
{
    (void)state;
    fixture fx;
    build(&fx, MATMUL);
    tdx_km_kernel *k = kernel(&fx, "mm");
    assert_int_equal(fx.file->launches.len, 1);
    const tdx_km_launch *l = fx.file->launches.items[0];
    assert_ptr_equal(l->kernel, k);
    assert_int_equal(l->call->line, 32);
    assert_int_equal(l->grid_def->kind, TDX_SRC_LAMBDA);
    assert_int_equal(l->grid_size, 32 * 16); /* 4096/128 x 4096/256 */
    assert_non_null(l->num_warps);
    assert_null(l->num_stages);
    long long v;
    const tdx_src_node *where;
    assert_true(tdx_km_launch_constexpr(fx.file, l, "BLOCK_N", &v, &where));
    assert_int_equal(v, 256);
    assert_int_equal(where->line, 33);
    assert_true(tdx_km_launch_constexpr(fx.file, l, "BLOCK_K", &v, &where));
    assert_int_equal(v, 32); /* the signature default */
    assert_true(tdx_km_fold_int(fx.file, l->scope, l->call, NULL, l->args[3], &v));
    assert_int_equal(v, 4096);
    /* launch-side passes: .contiguous() before, .float() after */
    assert_int_equal(fx.file->passes.len, 2);
    assert_string_equal(((tdx_km_pass *)fx.file->passes.items[0])->method, "contiguous");
    assert_string_equal(((tdx_km_pass *)fx.file->passes.items[1])->method, "float");
    teardown_fx(&fx);
}

static const char REDUCE[] =
    "import triton\n"                                                          /* 1 */
    "import triton.language as tl\n"                                           /* 2 */
    "@triton.autotune(configs=[triton.Config({'BLOCK': 64}, num_warps=2),\n"    /* 3 */
    "                          triton.Config({'BLOCK': 256})], key=['n'])\n"   /* 4 */
    "@triton.heuristics({'EVEN': lambda a: a['n'] % 2 == 0})\n"                 /* 5 */
    "@triton.jit\n"                                                            /* 6 */
    "def red(x_ptr, y_ptr, idx_ptr, n, stride_row, BLOCK: tl.constexpr, EVEN: tl.constexpr):\n"
    "    row = tl.program_id(0).to(tl.int64)\n"                                /* 8 */
    "    cols = tl.arange(0, BLOCK)\n"                                         /* 9 */
    "    x = tl.load(x_ptr + row * stride_row + cols, mask=cols < n)\n"        /* 10 */
    "    s = tl.sum(x, axis=0)\n"                                              /* 11 */
    "    c = tl.cumsum(x, 0)\n"                                                /* 12 */
    "    for i in tl.static_range(4):\n"                                       /* 13 */
    "        j = (cols + i).to(tl.int64)\n"                                    /* 14 */
    "        t = tl.load(x_ptr + cols * stride_row + i)\n"                     /* 15 */
    "    idx = tl.load(idx_ptr + cols)\n"                                      /* 16 */
    "    g = tl.load(x_ptr + idx)\n"                                           /* 17 */
    "    tl.store(y_ptr + row * stride_row + cols, tl.exp(x - s) / s + c + g + t)\n";

static void reductions_scans_and_configs(void **state)
{
    (void)state;
    fixture fx;
    build(&fx, REDUCE);
    tdx_km_kernel *k = kernel(&fx, "red");
    const tdx_km_op *sum = op_named(k, "sum");
    assert_int_equal(sum->kind, TDX_KM_OP_REDUCE);
    assert_int_equal(sum->axis, 0);
    assert_int_equal(sum->input.axis[0].mult, TDX_KM_MULT_UNIT);
    assert_int_equal(op_named(k, "cumsum")->kind, TDX_KM_OP_SCAN);
    assert_int_equal(op_named(k, "exp")->kind, TDX_KM_OP_MATH);
    /* two int64 widenings: one outside the loop, one inside */
    int in_loop = 0, outside = 0;
    for (size_t i = 0; i < k->ops.len; i++) {
        const tdx_km_op *op = k->ops.items[i];
        if (op->kind == TDX_KM_OP_INT64)
            op->loop ? in_loop++ : outside++;
    }
    assert_int_equal(in_loop, 1);
    assert_int_equal(outside, 1);
    const tdx_km_loop *lp = k->loops.items[0];
    assert_int_equal(lp->kind, TDX_KM_LOOP_STATIC);
    assert_true(lp->step_is_one);
    assert_false(lp->runtime_bound);
    /* a column walk plus a step-1 loop variable: strided and windowed */
    const tdx_km_access *t = access_at(k, 15);
    assert_int_equal(t->addr.axis[0].mult, TDX_KM_MULT_PARAM);
    assert_true(t->addr.flags & TDX_KM_V_WINDOW);
    /* an index loaded from memory makes the address indirect */
    assert_true(access_at(k, 17)->addr.flags & TDX_KM_V_DATA);
    assert_false(access_at(k, 16)->addr.flags & TDX_KM_V_DATA);
    /* the stored tile mixes data and reduction results */
    const tdx_km_access *st = access_at(k, 18);
    assert_true(st->value.flags & TDX_KM_V_REDUCED);
    assert_true(st->value.flags & TDX_KM_V_DATA);
    /* autotune configs and heuristics */
    assert_non_null(k->autotune_deco);
    assert_true(k->configs_known);
    assert_int_equal(k->nconfigs, 2);
    assert_int_equal(k->configs[0].num_warps, 2);
    assert_int_equal(k->configs[1].num_warps, -1);
    assert_int_equal(k->configs[1].n, 1);
    assert_string_equal(k->configs[1].keys[0], "BLOCK");
    assert_int_equal(k->configs[1].values[0], 256);
    assert_int_equal(k->nheuristic_keys, 1);
    assert_string_equal(k->heuristic_keys[0], "EVEN");
    teardown_fx(&fx);
}

static void folding_integers(void **state)
{
    (void)state;
    fixture fx;
    build(&fx, "import triton\n"
               "A, B = 3, 1 << 10\n"
               "C = triton.cdiv(B, 3) * A\n"
               "D = triton.next_power_of_2(1000) + max(A, 7) - min(2, A) // 1\n"
               "E = unknown_call()\n"
               "F = F + 1\n"
               "H = 100000 * 7433941784912898732\n"
               "I = -(-9223372036854775807 - 1)\n"
               "J = 4 << 61\n"
               "K = triton.cdiv(9223372036854775807, 2)\n"
               "def f(n):\n"
               "    A = 5\n"
               "    G = A * 2\n"
               "    return G + n\n");
    const tdx_src_node *root = fx.mod->root;
    const tdx_src_node *f = tdx_src_find_def(fx.mod, "f");
    long long v;
    struct { const char *name; int known; long long value; } cases[] = {
        {"A", 1, 3}, {"B", 1, 1024}, {"C", 1, 342 * 3}, {"D", 1, 1024 + 7 - 2},
        {"E", 0, 0}, {"F", 0, 0},
        /* out of a long long's range: unknown, not wrapped */
        {"H", 0, 0}, {"I", 0, 0}, {"J", 0, 0}, {"K", 1, 4611686018427387904LL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        /* find the NAME node of the target to fold it */
        const tdx_src_node *target = NULL;
        for (const tdx_src_node *s = tdx_src_next(root, TDX_SRC_R_BODY, NULL); s;
             s = tdx_src_next(root, TDX_SRC_R_BODY, s))
            if (s->kind == TDX_SRC_ASSIGN) {
                const tdx_src_node *t = tdx_src_kid(s, TDX_SRC_R_TARGET);
                if (t->kind == TDX_SRC_NAME && strcmp(t->name, cases[i].name) == 0)
                    target = t;
                for (uint32_t j = 0; t->kind == TDX_SRC_TUPLE && j < t->nkids; j++)
                    if (strcmp(t->kids[j]->name, cases[i].name) == 0)
                        target = t->kids[j];
            }
        assert_non_null(target);
        assert_int_equal(tdx_km_fold_int(fx.file, NULL, NULL, NULL, target, &v), cases[i].known);
        if (cases[i].known)
            assert_int_equal(v, cases[i].value);
    }
    /* inside f, A is the local 5, so G is 10 */
    const tdx_src_node *ret = NULL;
    for (const tdx_src_node *s = tdx_src_next(f, TDX_SRC_R_BODY, NULL); s;
         s = tdx_src_next(f, TDX_SRC_R_BODY, s))
        if (s->kind == TDX_SRC_RETURN)
            ret = s;
    const tdx_src_node *g = tdx_src_kid(tdx_src_kid(ret, TDX_SRC_R_VALUE), TDX_SRC_R_LEFT);
    assert_int_equal(tdx_km_fold_int(fx.file, f, ret, NULL, g, &v), 1);
    assert_int_equal(v, 10);
    /* n is a parameter: unknown */
    const tdx_src_node *n = tdx_src_kid(tdx_src_kid(ret, TDX_SRC_R_VALUE), TDX_SRC_R_RIGHT);
    assert_int_equal(tdx_km_fold_int(fx.file, f, ret, NULL, n, &v), 0);
    teardown_fx(&fx);
}

static void string_annotations_are_constexpr(void **state)
{
    (void)state;
    fixture fx;
    build(&fx, "import triton\n"
               "@triton.jit\n"
               "def k(x_ptr, n, BLOCK: \"tl.constexpr\", FLAG: 'constexpr' = 1):\n"
               "    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"
               "    tl.store(x_ptr + offs, 0, mask=offs < n)\n");
    tdx_km_kernel *k = kernel(&fx, "k");
    assert_int_equal(tdx_km_param_find(k, "BLOCK")->kind, TDX_KM_PARAM_CONSTEXPR);
    assert_int_equal(tdx_km_param_find(k, "FLAG")->kind, TDX_KM_PARAM_CONSTEXPR);
    assert_int_equal(tdx_km_param_find(k, "n")->kind, TDX_KM_PARAM_SCALAR);
    assert_int_equal(tdx_km_param_find(k, "x_ptr")->kind, TDX_KM_PARAM_POINTER);
    teardown_fx(&fx);
}

static void files_without_kernels(void **state)
{
    (void)state;
    fixture fx;
    build(&fx, "def f(x):\n    return x.float()\n");
    assert_int_equal(fx.file->kernels.len, 0);
    assert_int_equal(fx.file->launches.len, 0);
    assert_int_equal(fx.file->passes.len, 0);
    teardown_fx(&fx);
}

/* The bench shape followed through make_inputs and launch: the grid and a
 * launch argument's value there; what it cannot follow is unknown. */
static const char BENCH[] =
    "import torch\nimport triton\nimport triton.language as tl\n\n"
    "@triton.jit\n"
    "def k(x_ptr, y_ptr, n_rows, n_cols, BLOCK: tl.constexpr):\n"
    "    pass\n\n"
    "def launch(x):\n"
    "    n_rows, n_cols = x.shape\n"
    "    y = torch.empty(n_cols, device=x.device)\n"
    "    k[(triton.cdiv(n_cols, 64), 2)](x, y, n_rows, n_cols * 3, BLOCK=64)\n"
    "    return y\n\n"
    "def make_inputs(shape, dtype=torch.float32, device='cuda', seed=0):\n"
    "    return (torch.randn(shape, dtype=dtype, device=device),)\n\n"
    "SHAPES = {'bench': (4096, 1000), 'check': [(3, 5)]}\n";

static void bench_shape_values(void **state)
{
    (void)state;
    fixture fx;
    build(&fx, BENCH);
    const tdx_km_launch *l = fx.file->launches.items[0];
    char shape[96];
    assert_int_equal(tdx_km_bench_grid(fx.file, l, shape, sizeof shape), 16 * 2);
    assert_string_equal(shape, "(4096, 1000)");
    long long v = 0;
    assert_true(tdx_km_bench_int(fx.file, l, l->args[2], &v));
    assert_int_equal(v, 4096);
    assert_true(tdx_km_bench_int(fx.file, l, l->args[3], &v));
    assert_int_equal(v, 3000);
    assert_false(tdx_km_bench_int(fx.file, l, l->args[0], &v)); /* a tensor, not an int */
    assert_false(tdx_km_bench_int(fx.file, l, NULL, &v));
    /* a kernel parameter's value through its launch */
    const tdx_km_kernel *k = fx.file->kernels.items[0];
    assert_true(tdx_km_param_bench_int(fx.file, k, "n_cols", &v));
    assert_int_equal(v, 3000);
    assert_false(tdx_km_param_bench_int(fx.file, k, "x_ptr", &v)); /* a tensor */
    assert_false(tdx_km_param_bench_int(fx.file, k, "nope", &v));
    assert_false(tdx_km_param_bench_int(fx.file, k, NULL, &v));
    teardown_fx(&fx);
    /* no SHAPES: nothing is known */
    char *nosh = strdup(BENCH);
    *strstr(nosh, "SHAPES") = '#';
    build(&fx, nosh);
    l = fx.file->launches.items[0];
    assert_int_equal(tdx_km_bench_grid(fx.file, l, shape, sizeof shape), -1);
    assert_false(tdx_km_bench_int(fx.file, l, l->args[2], &v));
    assert_true(tdx_km_bench_int(fx.file, l, l->args[4], &v)); /* a literal needs no shape */
    assert_int_equal(v, 64);
    teardown_fx(&fx);
    free(nosh);
    /* a shift and a remainder in the shape: (1<<12, 999) and (4096, 2>>1) */
    char *shift = strdup(BENCH);
    char *at = strstr(shift, "(4096, 1000)");
    memcpy(at, "(1<<12, 999)", 12); /* as long as "(4096, 1000)" */
    build(&fx, shift);
    l = fx.file->launches.items[0];
    assert_true(tdx_km_bench_int(fx.file, l, l->args[2], &v));
    assert_int_equal(v, 4096);
    assert_true(tdx_km_bench_int(fx.file, l, l->args[3], &v));
    assert_int_equal(v, 2997);
    teardown_fx(&fx);
    memcpy(at, "(4096, 7%4) ", 12);
    build(&fx, shift);
    l = fx.file->launches.items[0];
    assert_true(tdx_km_bench_int(fx.file, l, l->args[3], &v));
    assert_int_equal(v, 9);
    teardown_fx(&fx);
    free(shift);
}

/* Per-row values gathered through a divided flat offset (row-grid's shape):
 * found with the offsets written at once or through pid / start names, and
 * refused when the row has another use, the grid's axis is read twice, or
 * the extent is not a parameter. */
static const char *row_gather_src(const char *body)
{
    static char buf[1024];
    snprintf(buf, sizeof buf,
             "import triton\nimport triton.language as tl\n\n"
             "@triton.jit\n"
             "def k(x_ptr, m_ptr, w_ptr, y_ptr, n, HW, C, BLOCK: tl.constexpr):\n%s", body);
    return buf;
}

static int row_gather(const char *body, tdx_km_row_gather *g)
{
    fixture fx;
    build(&fx, row_gather_src(body));
    const tdx_km_kernel *k = fx.file->kernels.items[0];
    int found = tdx_km_row_gather_of(fx.mod, k->def, g);
    teardown_fx(&fx); /* g's nodes die with the arena: only counts and found are read */
    return found;
}

static void row_gathers(void **state)
{
    (void)state;
    tdx_km_row_gather g;
    assert_true(row_gather("    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"
                           "    c = (offs // HW) % C\n"
                           "    x = tl.load(x_ptr + offs, mask=offs < n)\n"
                           "    m = tl.load(m_ptr + c, mask=offs < n)\n"
                           "    w = tl.load(c + w_ptr)\n"
                           "    tl.store(y_ptr + offs, (x - m) * w, mask=offs < n)\n",
                           &g));
    assert_int_equal(g.nloads, 2);
    assert_int_equal(g.ndead, 0);
    assert_true(row_gather("    pid = tl.program_id(axis=0)\n"
                           "    start = pid * BLOCK\n"
                           "    offs = start + tl.arange(0, BLOCK)\n"
                           "    c = offs // HW\n"
                           "    tl.store(y_ptr + offs, tl.load(m_ptr + c), mask=offs < n)\n",
                           &g));
    assert_int_equal(g.nloads, 1);
    assert_int_equal(g.ndead, 2);
    /* and the shapes it refuses */
    static const char *const refused[] = {
        /* the row also indexes a store */
        "    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"
        "    c = offs // HW\n"
        "    tl.store(y_ptr + c, tl.load(m_ptr + c), mask=offs < n)\n",
        /* program_id read again: the grid's meaning is not the offsets' alone */
        "    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"
        "    c = offs // HW\n"
        "    tl.store(y_ptr + offs + tl.program_id(0), tl.load(m_ptr + c), mask=offs < n)\n",
        /* pid used beside the offsets */
        "    pid = tl.program_id(0)\n"
        "    offs = pid * BLOCK + tl.arange(0, BLOCK)\n"
        "    c = offs // HW\n"
        "    tl.store(y_ptr + offs, tl.load(m_ptr + c) + pid, mask=offs < n)\n",
        /* the extent a local, not a parameter */
        "    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"
        "    d = HW * 2\n"
        "    c = offs // d\n"
        "    tl.store(y_ptr + offs, tl.load(m_ptr + c), mask=offs < n)\n",
        /* a block that differs between the product and the arange */
        "    offs = tl.program_id(0) * 64 + tl.arange(0, BLOCK)\n"
        "    c = offs // HW\n"
        "    tl.store(y_ptr + offs, tl.load(m_ptr + c), mask=offs < n)\n",
        /* an atomic: the programs' order matters */
        "    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"
        "    c = offs // HW\n"
        "    tl.atomic_max(y_ptr + offs, tl.load(m_ptr + c), mask=offs < n)\n",
    };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++)
        assert_false(row_gather(refused[i], &g));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(params_and_decorators),
        cmocka_unit_test(addresses_are_decomposed),
        cmocka_unit_test(loops_dots_and_helpers),
        cmocka_unit_test(launch_sites),
        cmocka_unit_test(reductions_scans_and_configs),
        cmocka_unit_test(folding_integers),
        cmocka_unit_test(string_annotations_are_constexpr),
        cmocka_unit_test(files_without_kernels),
        cmocka_unit_test(bench_shape_values),
        cmocka_unit_test(row_gathers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
