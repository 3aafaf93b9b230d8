/* Level 0 triage throughput: triage a large generated corpus of kernel
 * files (in memory, so the disk is not measured) and print files per
 * second (of CPU time on one core: the process is single-threaded, and CPU
 * time does not count other load on the machine), kernels per second, and
 * the peak resident memory at several
 * points of the run, which must stay flat as the file count grows.
 *
 *   bench_triage [NFILES] [DIR]
 *
 * NFILES defaults to 20000. With DIR, the .py files in DIR are read once and
 * cycled through instead of the generated ones. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "base/buf.h"
#include "base/file.h"
#include "source/ast.h"
#include "finding/finding.h"
#include "triage/triage.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static long peak_rss_kib(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss;
}

// One generated file: an elementwise kernel, a multi-pass softmax, a
// matmul with an epilogue helper, and the launches, with sizes and names
// varied by seed.
static void generate(tdx_buf *b, unsigned seed)
{
    static const int blocks[] = {32, 64, 128, 256, 1024, 4096, 8192};
    static const int tiles[] = {16, 32, 64, 128, 256};
    int blk = blocks[seed % 7], tm = tiles[(seed / 7) % 5], tn = tiles[(seed / 35) % 5];
    unsigned id = seed;
    tdx_buf_reset(b);
    tdx_buf_printf(b,
        "\"\"\"generated kernel file %u\"\"\"\n"
        "import torch\nimport triton\nimport triton.language as tl\n\nN_ROWS = %u\n\n\n"
        "@triton.jit\n"
        "def _act_%u(x):\n"
        "    return tl.where(x > 0, x, 0.01 * x)\n\n\n"
        "@triton.jit\n"
        "def scale_%u(x_ptr, y_ptr, n, alpha, BLOCK: tl.constexpr):\n"
        "    pid = tl.program_id(0)\n"
        "    offs = pid * BLOCK + tl.arange(0, BLOCK)\n"
        "    mask = offs < n\n"
        "    x = tl.load(x_ptr + offs, mask=mask)\n"
        "    tl.store(y_ptr + offs, x * alpha, mask=mask)\n\n\n"
        "@triton.jit\n"
        "def softmax_%u(x_ptr, y_ptr, n_cols, stride_row, BLOCK: tl.constexpr):\n"
        "    row = tl.program_id(0)\n"
        "    m = -float(\"inf\")\n"
        "    for start in range(0, n_cols, BLOCK):\n"
        "        cols = start + tl.arange(0, BLOCK)\n"
        "        x = tl.load(x_ptr + row * stride_row + cols, mask=cols < n_cols, other=-float(\"inf\"))\n"
        "        m = tl.maximum(m, tl.max(x, axis=0))\n"
        "    s = 0.0\n"
        "    for start in range(0, n_cols, BLOCK):\n"
        "        cols = start + tl.arange(0, BLOCK)\n"
        "        x = tl.load(x_ptr + row * stride_row + cols, mask=cols < n_cols, other=-float(\"inf\"))\n"
        "        s += tl.sum(tl.exp(x - m), axis=0)\n"
        "        tl.store(y_ptr + row * stride_row + cols, tl.exp(x - m) / s, mask=cols < n_cols)\n\n\n"
        "@triton.jit\n"
        "def matmul_%u(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn,\n"
        "              stride_cm, stride_cn, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,\n"
        "              BLOCK_K: tl.constexpr):\n"
        "    pid_m = tl.program_id(0)\n"
        "    pid_n = tl.program_id(1)\n"
        "    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)\n"
        "    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)\n"
        "    rk = tl.arange(0, BLOCK_K)\n"
        "    a_ptrs = a_ptr + rm[:, None] * stride_am + rk[None, :] * stride_ak\n"
        "    b_ptrs = b_ptr + rk[:, None] * stride_bk + rn[None, :] * stride_bn\n"
        "    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)\n"
        "    for k in range(0, tl.cdiv(K, BLOCK_K)):\n"
        "        a = tl.load(a_ptrs, mask=rk[None, :] < K - k * BLOCK_K, other=0.0)\n"
        "        b = tl.load(b_ptrs, mask=rk[:, None] < K - k * BLOCK_K, other=0.0)\n"
        "        acc = tl.dot(a, b, acc)\n"
        "        a_ptrs += BLOCK_K * stride_ak\n"
        "        b_ptrs += BLOCK_K * stride_bk\n"
        "    acc = _act_%u(acc)\n"
        "    c_ptrs = c_ptr + rm[:, None] * stride_cm + rn[None, :] * stride_cn\n"
        "    tl.store(c_ptrs, acc.to(tl.float16), mask=(rm[:, None] < M) & (rn[None, :] < N))\n\n\n"
        "def launch(x, a, b):\n"
        "    y = torch.empty_like(x)\n"
        "    n = x.numel()\n"
        "    grid = lambda meta: (triton.cdiv(n, meta[\"BLOCK\"]),)\n"
        "    scale_%u[grid](x, y, n, 2.0, BLOCK=%d)\n"
        "    z = torch.empty_like(y)\n"
        "    softmax_%u[(N_ROWS,)](y, z, y.shape[1], y.stride(0), BLOCK=%d)\n"
        "    M, K = a.shape\n"
        "    _, N = b.shape\n"
        "    c = torch.empty((M, N), device=a.device, dtype=torch.float16)\n"
        "    matmul_%u[(triton.cdiv(M, %d), triton.cdiv(N, %d))](\n"
        "        a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1),\n"
        "        c.stride(0), c.stride(1), BLOCK_M=%d, BLOCK_N=%d, BLOCK_K=32)\n"
        "    return z.float(), c\n",
        id, 64 + seed % 512, id, id, id, id, id, id, blk, id, blk, id, tm, tn, tm, tn);
}

typedef struct corpus {
    char **data;
    size_t *len;
    size_t n;
} corpus;

static void read_dir(const char *dir, corpus *c)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *de;
    while ((de = readdir(d))) {
        size_t l = strlen(de->d_name);
        if (l < 4 || strcmp(de->d_name + l - 3, ".py") != 0)
            continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        char *data;
        size_t len;
        if (tdx_file_read(path, 1 << 24, &data, &len) != TDX_OK)
            continue;
        c->data = realloc(c->data, (c->n + 1) * sizeof *c->data);
        c->len = realloc(c->len, (c->n + 1) * sizeof *c->len);
        c->data[c->n] = data;
        c->len[c->n++] = len;
    }
    closedir(d);
}

int main(int argc, char **argv)
{
    long nfiles = argc > 1 ? atol(argv[1]) : 20000;
    if (nfiles <= 0)
        nfiles = 20000;
    corpus c = {0};
    if (argc > 2) {
        read_dir(argv[2], &c);
        if (!c.n) {
            fprintf(stderr, "bench_triage: no .py files in %s\n", argv[2]);
            return 2;
        }
    }
    tdx_buf b;
    tdx_buf_init(&b, 0);
    size_t bytes = 0, kernels = 0, findings = 0, failed = 0;
    double gen_time = 0, t0 = now();
    long rss_at[4] = {0};
    for (long i = 0; i < nfiles; i++) {
        const char *src;
        size_t len;
        if (c.n) {
            src = c.data[i % (long)c.n];
            len = c.len[i % (long)c.n];
        } else {
            double g = now();
            generate(&b, (unsigned)i);
            gen_time += now() - g;
            src = tdx_buf_str(&b);
            len = b.len;
        }
        tdx_ledger l;
        tdx_diags d;
        tdx_ledger_init(&l);
        tdx_diags_init(&d);
        if (tdx_tri_source("gen.py", src, len, &l, &d) != TDX_OK)
            failed++;
        kernels += l.kernels.len;
        findings += tdx_ledger_count(&l);
        bytes += len;
        tdx_ledger_free(&l);
        tdx_diags_free(&d);
        if (i + 1 == nfiles / 10)
            rss_at[0] = peak_rss_kib();
        if (i + 1 == nfiles / 2)
            rss_at[1] = peak_rss_kib();
    }
    double secs = now() - t0 - gen_time;
    rss_at[2] = peak_rss_kib();
    /* the same inputs through the parser alone, to split the cost */
    double parse_secs = 0;
    for (long i = 0; i < nfiles; i++) {
        const char *src;
        size_t len;
        if (c.n) {
            src = c.data[i % (long)c.n];
            len = c.len[i % (long)c.n];
        } else {
            generate(&b, (unsigned)i);
            src = tdx_buf_str(&b);
            len = b.len;
        }
        double p0 = now();
        tdx_arena a;
        tdx_diags d;
        tdx_arena_init(&a, 64 * 1024);
        tdx_diags_init(&d);
        tdx_src_module *m;
        (void)tdx_src_parse("gen.py", src, len, &a, &d, &m);
        tdx_arena_free(&a);
        tdx_diags_free(&d);
        parse_secs += now() - p0;
    }
    printf("files:           %ld (%s)\n", nfiles, c.n ? argv[2] : "generated");
    printf("bytes:           %zu (%.1f KiB per file)\n", bytes, (double)bytes / 1024.0 / (double)nfiles);
    printf("kernels:         %zu\n", kernels);
    printf("findings:        %zu\n", findings);
    printf("failed:          %zu\n", failed);
    printf("triage time:     %.3f s (generation excluded: %.3f s)\n", secs, gen_time);
    printf("files/s:         %.0f\n", (double)nfiles / secs);
    printf("kernels/s:       %.0f\n", (double)kernels / secs);
    printf("MB/s:            %.1f\n", (double)bytes / secs / 1e6);
    printf("parse alone:     %.3f s = %.0f files/s (%.0f%% of triage time)\n", parse_secs,
           (double)nfiles / parse_secs, 100.0 * parse_secs / secs);
    printf("model + rules:   %.3f s = %.0f files/s\n", secs - parse_secs,
           (double)nfiles / (secs - parse_secs));
    printf("peak RSS (KiB):  %ld after 10%%, %ld after 50%%, %ld after 100%%\n", rss_at[0],
           rss_at[1], rss_at[2]);
    tdx_buf_free(&b);
    for (size_t i = 0; i < c.n; i++)
        free(c.data[i]);
    free(c.data);
    free(c.len);
    return failed ? 1 : 0;
}
