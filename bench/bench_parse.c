/* Benchmark of the Python tokenizer and parser: generates kernel files in
 * memory (an autotuned matmul, a row softmax and their launch code, varied
 * per file), tokenizes and parses each one in a fresh arena, and prints
 * files/s and MB/s per core (thread CPU time spent in tdx_src_parse) and the
 * peak RSS after each tenth of the run, which must stay
 * flat as the number of files grows.
 *
 *   bench_parse [NFILES]      (default 20000) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "base/buf.h"
#include "source/ast.h"

// Seconds of CPU time of this thread: rates per core that stay honest on
// a loaded machine, where wall time also counts other processes.
static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

// Peak resident set size in KiB.
static long peak_rss_kib(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss;
}

// Write kernel file number i into b.
static void gen_file(tdx_buf *b, unsigned i)
{
    unsigned bm = 32u << (i % 3), bn = 64u << (i % 2), bk = 32u << (i % 2);
    tdx_buf_reset(b);
    tdx_buf_printf(b,
        "\"\"\"Generated kernel file %u.\"\"\"\n"
        "import torch\nimport triton\nimport triton.language as tl\n\n\n"
        "@triton.autotune(\n"
        "    configs=[\n"
        "        triton.Config({'BLOCK_M': %u, 'BLOCK_N': %u, 'BLOCK_K': %u}, num_stages=3, num_warps=4),\n"
        "        triton.Config({'BLOCK_M': %u, 'BLOCK_N': %u, 'BLOCK_K': %u}, num_stages=4, num_warps=8),\n"
        "    ],\n"
        "    key=['M', 'N', 'K'],\n"
        ")\n"
        "@triton.jit\n"
        "def matmul_kernel_%u(a_ptr, b_ptr, c_ptr, M, N, K,\n"
        "                  stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,\n"
        "                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,\n"
        "                  GROUP_M: tl.constexpr = 8):\n"
        "    pid = tl.program_id(axis=0)\n"
        "    num_pid_m = tl.cdiv(M, BLOCK_M)\n"
        "    num_pid_n = tl.cdiv(N, BLOCK_N)\n"
        "    group_id = pid // (GROUP_M * num_pid_n)\n"
        "    first_pid_m = group_id * GROUP_M\n"
        "    group_size_m = min(num_pid_m - first_pid_m, GROUP_M)\n"
        "    pid_m = first_pid_m + ((pid %% (GROUP_M * num_pid_n)) %% group_size_m)\n"
        "    pid_n = (pid %% (GROUP_M * num_pid_n)) // group_size_m\n"
        "    offs_am = (pid_m * BLOCK_M + tl.arange(0, BLOCK_M)) %% M\n"
        "    offs_bn = (pid_n * BLOCK_N + tl.arange(0, BLOCK_N)) %% N\n"
        "    offs_k = tl.arange(0, BLOCK_K)\n"
        "    a_ptrs = a_ptr + (offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak)\n"
        "    b_ptrs = b_ptr + (offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn)\n"
        "    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)\n"
        "    for k in range(0, tl.cdiv(K, BLOCK_K)):\n"
        "        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_K, other=0.0)\n"
        "        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_K, other=0.0)\n"
        "        acc += tl.dot(a, b)\n"
        "        a_ptrs += BLOCK_K * stride_ak\n"
        "        b_ptrs += BLOCK_K * stride_bk\n"
        "    c = acc.to(tl.float16)\n"
        "    offs_cm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)\n"
        "    offs_cn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)\n"
        "    c_ptrs = c_ptr + stride_cm * offs_cm[:, None] + stride_cn * offs_cn[None, :]\n"
        "    c_mask = (offs_cm[:, None] < M) & (offs_cn[None, :] < N)\n"
        "    tl.store(c_ptrs, c, mask=c_mask)\n\n\n",
        i, bm, bn, bk, bm * 2, bn, bk, i);
    tdx_buf_printf(b,
        "@triton.jit\n"
        "def softmax_kernel_%u(x_ptr, y_ptr, n_cols, stride, BLOCK: tl.constexpr):\n"
        "    row = tl.program_id(0)\n"
        "    offs = tl.arange(0, BLOCK)\n"
        "    mask = offs < n_cols\n"
        "    x = tl.load(x_ptr + row * stride + offs, mask=mask, other=-float('inf'))\n"
        "    x = x - tl.max(x, axis=0)\n"
        "    num = tl.exp(x)\n"
        "    den = tl.sum(num, axis=0)\n",
        i);
    for (unsigned k = 0; k < i % 5; k++)
        tdx_buf_printf(b, "    num = num * %u.0 if n_cols > %u else num  # variant\n", k + 1, k);
    tdx_buf_printf(b,
        "    tl.store(y_ptr + row * stride + offs, num / den, mask=mask)\n\n\n"
        "def launch(a, b):\n"
        "    M, K = a.shape\n"
        "    K, N = b.shape\n"
        "    c = torch.empty((M, N), device=a.device, dtype=torch.float16)\n"
        "    grid = lambda META: (triton.cdiv(M, META['BLOCK_M']) * triton.cdiv(N, META['BLOCK_N']),)\n"
        "    matmul_kernel_%u[grid](a, b, c, M, N, K, a.stride(0), a.stride(1),\n"
        "                          b.stride(0), b.stride(1), c.stride(0), c.stride(1))\n"
        "    y = torch.empty_like(c)\n"
        "    softmax_kernel_%u[(M,)](c, y, N, c.stride(0), BLOCK=triton.next_power_of_2(N))\n"
        "    return y\n\n\n"
        "SHAPES = {\"bench\": (%u, %u, %u), \"check\": [(7, 33, 65), (128, 256, 64)]}\n",
        i, i, 1024 + i % 7, 2048, 512);
}

int main(int argc, char **argv)
{
    unsigned n = argc > 1 ? (unsigned)strtoul(argv[1], NULL, 10) : 20000;
    if (n == 0)
        n = 1;
    tdx_buf b;
    tdx_buf_init(&b, 0);
    double parse_s = 0, bytes = 0;
    size_t nodes_total = 0, failures = 0;
    printf("%10s %12s %10s %12s\n", "files", "files/s", "MB/s", "peak RSS KiB");
    for (unsigned i = 0; i < n; i++) {
        gen_file(&b, i);
        tdx_arena arena;
        tdx_arena_init(&arena, 0);
        tdx_diags diags;
        tdx_diags_init(&diags);
        tdx_src_module *m = NULL;
        double t0 = now();
        tdx_status st = tdx_src_parse("bench.py", b.data, b.len, &arena, &diags, &m);
        parse_s += now() - t0;
        bytes += (double)b.len;
        if (st != TDX_OK || m->nopaque)
            failures++;
        else
            nodes_total += m->toks.len;
        tdx_diags_free(&diags);
        tdx_arena_free(&arena);
        if ((i + 1) % (n / 10 ? n / 10 : 1) == 0 || i + 1 == n)
            printf("%10u %12.0f %10.1f %12ld\n", i + 1, (i + 1) / parse_s,
                   bytes / parse_s / 1e6, peak_rss_kib());
    }
    printf("parsed %u files (%.1f MB, %zu tokens) in %.3f s of CPU time; %zu failed\n", n,
           bytes / 1e6, nodes_total, parse_s, failures);
    tdx_buf_free(&b);
    return failures ? 1 : 0;
}
