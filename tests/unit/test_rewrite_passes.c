/* The structural recognisers of the single-pass-reduction and split-k
 * families on small kernels: what they take, what they leave alone, and
 * the level 1 finding that points a matmul's under-filled grid to split-k;
 * tensor-cores' two precisions in the order the task's tolerance allows. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "finding/finding.h"
#include "profile/profile.h"
#include "rewrite/families.h"
#include "triage/triage.h"

typedef struct got {
    int n;
    char summary[8][256];
    char *src[8];
} got;

static tdx_status collect(void *ud, char *src, size_t len, const char *family, const char *summary)
{
    got *g = ud;
    (void)len, (void)family;
    if (g->n < 8) {
        snprintf(g->summary[g->n], sizeof g->summary[0], "%s", summary);
        g->src[g->n++] = src;
    } else {
        free(src);
    }
    return TDX_OK;
}

static void release(got *g)
{
    for (int i = 0; i < g->n; i++)
        free(g->src[i]);
}

static got run(const char *family, const char *src)
{
    got g = {0};
    tdx_diags d;
    tdx_diags_init(&d);
    assert_int_equal(tdx_rw_apply_family(family, "k.py", src, strlen(src), collect, &g, &d), TDX_OK);
    tdx_diags_free(&d);
    return g;
}

#define HEAD "import torch\nimport triton\nimport triton.language as tl\n\n\n@triton.jit\n"

/* max pass, sum pass, write pass over one row */
static const char softmax3[] = HEAD
    "def k(x_ptr, y_ptr, n, B: tl.constexpr):\n"
    "    r = tl.program_id(0)\n"
    "    m = -float('inf')\n"
    "    for i in range(0, n, B):\n"
    "        o = i + tl.arange(0, B)\n"
    "        x = tl.load(x_ptr + r * n + o, mask=o < n, other=-float('inf'))\n"
    "        m = tl.maximum(m, tl.max(x, axis=0))\n"
    "    s = 0.0\n"
    "    for i in range(0, n, B):\n"
    "        o = i + tl.arange(0, B)\n"
    "        s += tl.sum(tl.exp2((tl.load(x_ptr + r * n + o, mask=o < n, other=-float('inf')) - m) * 1.44), axis=0)\n"
    "    for i in range(0, n, B):\n"
    "        o = i + tl.arange(0, B)\n"
    "        x = tl.load(x_ptr + r * n + o, mask=o < n, other=0.0)\n"
    "        tl.store(y_ptr + r * n + o, tl.exp2((x - m) * 1.44) / s, mask=o < n)\n"
    "\n\ndef launch(x):\n"
    "    y = torch.empty_like(x)\n"
    "    k[(x.shape[0],)](x, y, x.shape[1], B=256)\n"
    "    return y\n";

static void softmax_passes_give_block_and_online(void **state)
{
    (void)state;
    got g = run("single-pass-reduction", softmax3);
    assert_int_equal(g.n, 3);
    assert_non_null(strstr(g.summary[0], "loaded once for 3 passes"));
    assert_non_null(strstr(g.src[0], "B=triton.next_power_of_2(x.shape[1])"));
    /* the write pass loads with another `other`: tl.where keeps it */
    assert_non_null(strstr(g.src[0], "x = tl.where(o < n, _tdx_row, 0.0)"));
    assert_null(strstr(g.src[0], "for i in"));
    /* the two approaches come first (a round of two candidates tries both) */
    assert_non_null(strstr(g.summary[1], "online m and rescaled s"));
    /* exp2 of a scaled difference rescales in the same base */
    assert_non_null(strstr(g.src[1], "s = s * tl.exp2(((m - _tdx_mn)) * 1.44) + "));
    assert_non_null(strstr(g.src[1], "        m = _tdx_mn\n    for i in range(0, n, B):"));
    assert_non_null(strstr(g.summary[2], "up to 32 warps"));
    release(&g);
}

static void different_pointers_or_ranges_are_not_passes(void **state)
{
    (void)state;
    /* the second loop reads another tensor */
    char *src = strdup(softmax3);
    char *p = strstr(src, "s += tl.sum(tl.exp2((tl.load(x_ptr");
    memcpy(strstr(p, "x_ptr"), "y_ptr", 5);
    got g = run("single-pass-reduction", src);
    /* the first and the last loop share x, but passes are consecutive loops */
    assert_int_equal(g.n, 0);
    free(src);
    /* loops over different ranges */
    src = strdup(softmax3);
    p = strstr(src, "    for i in range(0, n, B):\n        o = i + tl.arange(0, B)\n        s +=");
    memcpy(strstr(p, "range(0"), "range(1", 7);
    p = strstr(src, "    for i in range(0, n, B):\n        o = i + tl.arange(0, B)\n        x = tl.load(x_ptr + r * n + o, mask=o < n, other=0.0)");
    memcpy(strstr(p, "range(0"), "range(2", 7);
    g = run("single-pass-reduction", src);
    assert_int_equal(g.n, 0);
    free(src);
}

static void online_needs_the_max_only_in_its_update(void **state)
{
    (void)state;
    /* the sum pass reads m outside the exponential: not rescalable */
    char *src = strdup(softmax3);
    char *p = strstr(src, "* 1.44), axis=0)\n");
    const char *repl = "* m   ), axis=0)\n";
    memcpy(p, repl, strlen(repl));
    got g = run("single-pass-reduction", src);
    for (int i = 0; i < g.n; i++)
        assert_null(strstr(g.summary[i], "online"));
    assert_true(g.n >= 1);
    release(&g);
    free(src);
}

static const char moments[] = HEAD
    "def k(x_ptr, y_ptr, n, eps, B: tl.constexpr):\n"
    "    r = tl.program_id(0)\n"
    "    a = 0.0\n"
    "    for i in range(0, n, B):\n"
    "        o = i + tl.arange(0, B)\n"
    "        a += tl.sum(tl.load(x_ptr + r * n + o, mask=o < n, other=0.0), axis=0)\n"
    "    mean = a / n\n"
    "    v = 0.0\n"
    "    for i in range(0, n, B):\n"
    "        o = i + tl.arange(0, B)\n"
    "        x = tl.load(x_ptr + r * n + o, mask=o < n, other=0.0)\n"
    "        d = DEV\n"
    "        v += tl.sum(d * d, axis=0)\n"
    "    tl.store(y_ptr + r, v / n)\n";

static got run_moments(const char *dev)
{
    char src[2048];
    const char *p = strstr(moments, "DEV");
    snprintf(src, sizeof src, "%.*s%s%s", (int)(p - moments), moments, dev, p + 3);
    return run("single-pass-reduction", src);
}

static void moments_need_masked_deviations(void **state)
{
    (void)state;
    got g = run_moments("tl.where(o < n, x - mean, 0.0)");
    assert_int_equal(g.n, 1); /* no launch: no one-block form */
    assert_non_null(strstr(g.summary[0], "sum of squares"));
    assert_non_null(strstr(g.src[0], "    v += _tdx_sq - mean * _tdx_s1\n"));
    release(&g);
    /* masked-off lanes would each add mean^2 */
    g = run_moments("x - mean");
    assert_int_equal(g.n, 0);
    /* another mask than the load's */
    g = run_moments("tl.where(o < n - 1, x - mean, 0.0)");
    assert_int_equal(g.n, 0);
    /* not the deviation from the mean of the first pass */
    g = run_moments("tl.where(o < n, x - eps, 0.0)");
    assert_int_equal(g.n, 0);
}

static const char matmul[] = HEAD
    "def mm(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):\n"
    "    pm = tl.program_id(0)\n"
    "    pn = tl.program_id(1)\n"
    "    rm = pm * BM + tl.arange(0, BM)\n"
    "    rn = pn * BN + tl.arange(0, BN)\n"
    "    rk = tl.arange(0, BK)\n"
    "    acc = tl.zeros((BM, BN), dtype=tl.float32)\n"
    "    for k in range(0, K, BK):\n"
    "        a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :])\n"
    "        b = tl.load(b_ptr + (k + rk)[:, None] * N + rn[None, :])\n"
    "        acc += tl.dot(a, b)\n"
    "    EPI\n"
    "    tl.store(c_ptr + rm[:, None] * N + rn[None, :], OUT)\n"
    "\n\ndef launch(a, b):\n"
    "    c = torch.empty((a.shape[0], b.shape[1]), device=a.device, dtype=a.dtype)\n"
    "    mm[(triton.cdiv(a.shape[0], 16), triton.cdiv(b.shape[1], 64))](a, b, c, a.shape[0], b.shape[1], "
    "a.shape[1], BM=16, BN=64, BK=64)\n"
    "    return c\n";

static got run_matmul(const char *epi, const char *out)
{
    char src[4096];
    const char *p = strstr(matmul, "EPI"), *q = strstr(matmul, "OUT");
    snprintf(src, sizeof src, "%.*s%s%.*s%s%s", (int)(p - matmul), matmul, epi, (int)(q - p - 3), p + 3, out,
             q + 3);
    return run("split-k", src);
}

static void splitk_takes_plain_results_only(void **state)
{
    (void)state;
    got g = run_matmul("c = acc.to(tl.float16)", "c");
    assert_int_equal(g.n, 6); /* each split as one kernel first, then with atomics */
    assert_non_null(strstr(g.src[0], "for k in range(_tdx_pid_k * BK, K, BK * _tdx_split_k):"));
    /* one kernel: no mask on the store, none on the slabs */
    assert_non_null(strstr(g.src[0], "    _tdx_part = (_tdx_ws_ptr + _tdx_pid_k * _tdx_ws_span) + rm[:, None] * N + "
                                     "rn[None, :]\n    tl.store(_tdx_part, acc)\n"));
    assert_non_null(strstr(g.src[0], "_tdx_red = tl.load(_tdx_slab, cache_modifier=\".cg\")\n"));
    assert_non_null(strstr(g.src[0], "tl.store(c_ptr + rm[:, None] * N + rn[None, :], "
                                     "_tdx_red.to(c_ptr.dtype.element_ty))\n"));
    assert_null(strstr(g.src[0], "_tdx_acc"));
    assert_non_null(strstr(g.src[3], "for k in range(_tdx_pid_k * BK, K, BK * _tdx_split_k):"));
    assert_non_null(strstr(g.src[3], "tl.atomic_add(c_ptr + rm[:, None] * N + rn[None, :], acc, sem=\"relaxed\")"));
    assert_non_null(strstr(g.src[3], "triton.cdiv(b.shape[1], 64), 4)](a, b, _tdx_acc,"));
    /* c is torch.empty's: an fp32 c is its own accumulator, anything else is copied back */
    assert_non_null(strstr(g.src[3], "_tdx_acc = c.zero_() if c.dtype == torch.float32 else "
                                     "torch.zeros_like(c, dtype=torch.float32)\n"));
    assert_non_null(strstr(g.src[3], "\n    if _tdx_acc is not c:\n        c.copy_(_tdx_acc)\n    return c\n"));
    release(&g);
    /* an epilogue is not linear in the partial sums */
    g = run_matmul("c = tl.maximum(acc, 0.0).to(tl.float16)", "c");
    assert_int_equal(g.n, 0);
    g = run_matmul("acc = acc * 2.0", "acc");
    assert_int_equal(g.n, 0);
    g = run_matmul("pass", "acc + 1.0");
    assert_int_equal(g.n, 0);
}

static const char advancing[] = HEAD
    "def mm(a_ptr, b_ptr, c_ptr, K, sa, sb, BK: tl.constexpr):\n"
    "    rk = tl.arange(0, BK)\n"
    "    a_ptrs = a_ptr + rk[None, :] + tl.arange(0, 16)[:, None] * K\n"
    "    b_ptrs = b_ptr + rk[:, None] * 16 + tl.arange(0, 16)[None, :]\n"
    "    acc = tl.zeros((16, 16), dtype=tl.float32)\n"
    "    for k in range(tl.cdiv(K, BK)):\n"
    "        acc = tl.dot(tl.load(a_ptrs), tl.load(b_ptrs), acc=acc)\n"
    "        a_ptrs += BK * sa\n"
    "        b_ptrs += STEP\n"
    "    tl.store(c_ptr + tl.arange(0, 16)[:, None] * 16 + tl.arange(0, 16)[None, :], acc)\n"
    "\n\ndef launch(a, b):\n"
    "    c = torch.empty((16, 16), device=a.device, dtype=torch.float32)\n"
    "    mm[(1,)](a, b, c, a.shape[1], 1, 16, BK=32)\n"
    "    return c\n";

static void splitk_moves_advancing_pointers(void **state)
{
    (void)state;
    char src[4096];
    const char *p = strstr(advancing, "STEP");
    snprintf(src, sizeof src, "%.*s%s%s", (int)(p - advancing), advancing, "BK * sb", p + 4);
    got g = run("split-k", src);
    assert_int_equal(g.n, 6);
    for (size_t i = 0; i < 6; i += 3) {
        assert_non_null(strstr(g.src[i], "    a_ptrs += _tdx_pid_k * (BK * sa)\n    b_ptrs += _tdx_pid_k * (BK * sb)\n"
                                         "    for k in range(_tdx_pid_k, tl.cdiv(K, BK), _tdx_split_k):\n"));
        assert_non_null(strstr(g.src[i], "        a_ptrs += (BK * sa) * _tdx_split_k\n"));
    }
    /* the inline grid gets a name: the counters are counted from it */
    assert_non_null(strstr(g.src[0], "    _tdx_grid = (1, 1, 4)\n"));
    assert_non_null(strstr(g.src[0], "mm[_tdx_grid](a, b, c, _tdx_ws, _tdx_span, _tdx_cnt, a.shape[1], "));
    assert_non_null(strstr(g.src[0], "def mm(a_ptr, b_ptr, c_ptr, _tdx_ws_ptr, _tdx_ws_span, _tdx_cnt_ptr, K, "));
    assert_non_null(strstr(g.src[3], "mm[(1, 1, 4)](a, b, _tdx_acc, "));
    release(&g);
    /* a step that changes from one iteration to the next cannot be moved */
    snprintf(src, sizeof src, "%.*s%s%s", (int)(p - advancing), advancing, "k * sb", p + 4);
    g = run("split-k", src);
    assert_int_equal(g.n, 0);
}

/* TDX015 at the bench shape: the tiles its evaluator finds, or -1 when the
 * rule stays silent. */
static long long tiles_at_bench(const char *inputs, const char *launch_body, const char *bench)
{
    char src[4096];
    snprintf(src, sizeof src,
             "import torch\nimport triton\nimport triton.language as tl\n\n\n@triton.jit\n"
             "def mm(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):\n"
             "    rm = tl.program_id(0) * BM + tl.arange(0, BM)\n"
             "    rn = tl.program_id(1) * BN + tl.arange(0, BN)\n"
             "    rk = tl.arange(0, BK)\n"
             "    acc = tl.zeros((BM, BN), dtype=tl.float32)\n"
             "    for k in range(0, K, BK):\n"
             "        acc += tl.dot(tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :]),\n"
             "                      tl.load(b_ptr + (k + rk)[:, None] * N + rn[None, :]))\n"
             "    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc)\n"
             "\n\ndef launch(a, b):\n%s\n    return c\n"
             "\n\ndef make_inputs(shape, dtype=torch.float16, device=\"cuda\", seed=0):\n%s\n"
             "\n\nSHAPES = {\"bench\": %s, \"check\": [(1, 2, 3)]}\n",
             launch_body, inputs, bench);
    tdx_ledger l;
    tdx_ledger_init(&l);
    tdx_diags d;
    tdx_diags_init(&d);
    assert_int_equal(tdx_tri_source("t.py", src, strlen(src), &l, &d), TDX_OK);
    long long tiles = -1;
    for (size_t i = 0; i < tdx_ledger_count(&l); i++) {
        const tdx_finding *f = tdx_ledger_at(&l, i);
        if (strcmp(f->rule->id, "TDX015") == 0) {
            assert_string_equal(f->family, "split-k");
            tiles = atoll(tdx_finding_get_fact(f, "tiles"));
        }
    }
    tdx_ledger_free(&l);
    tdx_diags_free(&d);
    return tiles;
}

static void few_tiles_follow_the_bench_shape(void **state)
{
    (void)state;
    const char *in = "    M, N, K = shape\n"
                     "    return torch.randn(M, K, dtype=dtype), torch.randn((K, N), dtype=dtype)";
    const char *run = "    M, K = a.shape\n    N = b.size(1)\n"
                      "    c = torch.empty((M, N), device=a.device, dtype=torch.float32)\n"
                      "    mm[(triton.cdiv(M, 64), triton.cdiv(N, 128))](a, b, c, M, N, K, BM=64, BN=128, BK=32)";
    assert_int_equal(tiles_at_bench(in, run, "(16, 8192, 16384)"), 64);
    assert_int_equal(tiles_at_bench(in, run, "(128, 8192, 16384)"), 128);
    assert_int_equal(tiles_at_bench(in, run, "(129, 8192, 16384)"), -1); /* 192 tiles */
    /* a transposed operand, a grid bound to a name, sizes through a helper */
    const char *in2 = "    m, n, k = _dims(shape)\n"
                      "    a = torch.randn((k, m)).to(dtype).t()\n"
                      "    return (a, torch.empty(k, n))";
    const char *run2 = "    c = torch.empty((a.shape[0], b.shape[1]), device=a.device)\n"
                       "    grid = (triton.cdiv(a.shape[0], 32), triton.cdiv(b.shape[-1], 32), 1)\n"
                       "    mm[grid](a, b, c, a.shape[0], b.shape[1], a.shape[1], BM=32, BN=32, BK=32)\n"
                       "\n\ndef _dims(shape):\n"
                       "    return tuple(int(d) for d in shape if d != \"misaligned\")";
    assert_int_equal(tiles_at_bench(in2, run2, "(32, 64, 4096, \"misaligned\")"), 2);
    /* what the evaluator cannot follow leaves the rule silent */
    assert_int_equal(tiles_at_bench("    return make(shape)", run, "(16, 8192, 16384)"), -1);
    assert_int_equal(tiles_at_bench(in, run, "(16, 4611686018427387904 * 4, 99)"), -1);
}

/* Level 1: an under-filled grid points a matmul (level 0's class) to split-k
 * and any other kernel to retuning. */
static void grid_underfill_family(void **state)
{
    (void)state;
    for (int mm = 0; mm < 2; mm++) {
        tdx_ledger l;
        tdx_ledger_init(&l);
        tdx_ledger_add_kernel(&l, "k", "k.py", 1, 1, mm ? "matmul" : "row-reduction", 0.9);
        tdx_prof_launch k = {.kernel = "k", .grid = {128, 1, 1}, .num_warps = 4, .regs = 64};
        tdx_prof_ceilings c = {.copy_bw = 4e12, .mm_fp16 = 8e14, .launch_s = 2e-6, .sms = 132};
        tdx_prof_measure m = {.kernel = "k", .median_s = 2e-3, .bytes = 2e9, .dtype = "fp16",
                              .kernels = &k, .nkernels = 1};
        int dominant;
        assert_int_equal(tdx_prof_diagnose(&m, &c, &l, &dominant), TDX_OK);
        const tdx_finding *f = NULL;
        for (size_t i = 0; i < tdx_ledger_count(&l); i++)
            if (strcmp(tdx_ledger_at(&l, i)->rule->id, "TDX107") == 0)
                f = tdx_ledger_at(&l, i);
        assert_non_null(f);
        assert_string_equal(f->family, mm ? "split-k" : "retune");
        tdx_ledger_free(&l);
    }
}

/* IEEE dots, one by input_precision and one by allow_tf32=False: tf32
 * first, each changed dot's operands rounded to the nearest tf32 through one
 * _tdx_tf32 helper above the kernel (the matrix units would truncate them);
 * then tf32x3 (about fp32's accuracy; the whole allow_tf32 keyword gives
 * way, the two keywords exclude each other). A task whose TOLERANCE allows
 * 2e-3 or more gets plain tf32, nothing rounded; one that asks for less
 * than 1e-3 gets tf32x3 first. */
static void tensor_cores_orders_by_tolerance(void **state)
{
    (void)state;
    static const char src[] = HEAD
        "def k(a, b, c):\n"
        "    x = tl.dot(a, b, input_precision='ieee')\n"
        "    y = tl.dot(a + 1, other=c.T, allow_tf32=False, out_dtype=tl.float32)\n"
        "    z = tl.dot(a, b)\n";
    got g = run("tensor-cores", src);
    assert_int_equal(g.n, 2);
    assert_non_null(strstr(g.src[0], "x = tl.dot(_tdx_tf32(a), _tdx_tf32(b), input_precision=\"tf32\")\n"));
    assert_non_null(strstr(g.src[0], "tl.dot(_tdx_tf32(a + 1), other=_tdx_tf32(c.T), allow_tf32=True, out_dtype=tl.float32)"));
    assert_non_null(strstr(g.src[0], "z = tl.dot(a, b)\n")); /* tf32 already: left alone */
    const char *h = strstr(g.src[0], "def _tdx_tf32(x):");
    assert_non_null(h);
    assert_null(strstr(h + 1, "def _tdx_tf32(x):"));
    assert_true(h < strstr(g.src[0], "def k("));
    assert_non_null(strstr(g.summary[0], "rounded"));
    assert_non_null(strstr(g.src[1], "tl.dot(a, b, input_precision=\"tf32x3\")\n"));
    assert_non_null(strstr(g.src[1], "tl.dot(a + 1, other=c.T, input_precision=\"tf32x3\", out_dtype=tl.float32)"));
    assert_null(strstr(g.src[1], "_tdx_tf32"));
    assert_non_null(strstr(g.summary[1], "tf32x3"));
    release(&g);
    static const char loose[] = "TOLERANCE = 2e-3\n" HEAD
        "def k(a, b):\n"
        "    return tl.dot(a, b, input_precision='ieee')\n";
    g = run("tensor-cores", loose);
    assert_int_equal(g.n, 2);
    assert_non_null(strstr(g.src[0], "tl.dot(a, b, input_precision=\"tf32\")"));
    assert_null(strstr(g.src[0], "_tdx_tf32"));
    assert_non_null(strstr(g.src[1], "input_precision=\"tf32x3\")"));
    release(&g);
    static const char tight[] = "TOLERANCE = 1e-4\n" HEAD
        "def k(a, b):\n"
        "    return tl.dot(a, b, input_precision='ieee')\n";
    g = run("tensor-cores", tight);
    assert_int_equal(g.n, 2);
    assert_non_null(strstr(g.src[0], "input_precision=\"tf32x3\")"));
    assert_non_null(strstr(g.src[1], "tl.dot(_tdx_tf32(a), _tdx_tf32(b), input_precision=\"tf32\")"));
    release(&g);
    /* nothing forced to IEEE: nothing to offer */
    g = run("tensor-cores", HEAD "def k(a, b):\n    return tl.dot(a, b)\n");
    assert_int_equal(g.n, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(softmax_passes_give_block_and_online),
        cmocka_unit_test(different_pointers_or_ranges_are_not_passes),
        cmocka_unit_test(online_needs_the_max_only_in_its_update),
        cmocka_unit_test(moments_need_masked_deviations),
        cmocka_unit_test(splitk_takes_plain_results_only),
        cmocka_unit_test(splitk_moves_advancing_pointers),
        cmocka_unit_test(few_tiles_follow_the_bench_shape),
        cmocka_unit_test(grid_underfill_family),
        cmocka_unit_test(tensor_cores_orders_by_tolerance),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
