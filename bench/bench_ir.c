/* bench_ir: parsing speed of the ir module.
 *
 * Parses every fixture under tests/data/ir (or the folder given as argv[1])
 * and a synthetic kernel ten times the size of the largest one, and prints
 * MB/s per format and the time to parse and join all stages of one kernel.
 * Times are thread CPU time. A program, not a test: its numbers depend on
 * the machine. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "base/file.h"
#include "ir/ir.h"

static const char *const files[TDX_IR_NSTAGES] = {"k.ttir", "k.ttgir", "k.ptx", "k.sass",
                                                  "k.ptxas.txt"};
static const char *const names[TDX_IR_NSTAGES] = {"ttir", "ttgir", "ptx", "sass", "ptxas"};

typedef struct stages {
    char *text[TDX_IR_NSTAGES];
    size_t len[TDX_IR_NSTAGES];
} stages;

/* CPU time of this thread: the machine may be shared, and wall time would
 * count other processes' turns. */
static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

// Read the five stage files of one fixture folder.
static int load(const char *dir, stages *s)
{
    memset(s, 0, sizeof *s);
    for (int i = 0; i < TDX_IR_NSTAGES; i++) {
        char p[4200];
        if (snprintf(p, sizeof p, "%s/%s", dir, files[i]) >= (int)sizeof p)
            return -1;
        if (tdx_file_read(p, TDX_IR_MAX_INPUT, &s->text[i], &s->len[i]) != TDX_OK)
            return -1;
    }
    return 0;
}

// Free the texts of one fixture.
static void unload(stages *s)
{
    for (int i = 0; i < TDX_IR_NSTAGES; i++)
        free(s->text[i]);
}

static double join_total;
static double *join_sec = &join_total;

// Parse and join all stages once; per-stage seconds go into sec[].
static double run_kernel(const stages *s, double *sec)
{
    double t0 = now();
    tdx_ir_kernel k;
    tdx_ir_kernel_init(&k);
    for (int i = 0; i < TDX_IR_NSTAGES; i++) {
        double ts = now();
        if (tdx_ir_kernel_add(&k, (tdx_ir_stage)i, s->text[i], s->len[i], NULL) != TDX_OK)
            fprintf(stderr, "bench_ir: %s did not parse cleanly\n", names[i]);
        if (sec)
            sec[i] += now() - ts;
    }
    double tj = now();
    tdx_ir_kernel_join(&k, NULL);
    if (join_sec)
        *join_sec += now() - tj;
    double t = now() - t0;
    tdx_ir_kernel_free(&k);
    return t;
}

// Repeat the lines [from, to) of text n times in place of one copy.
static char *repeat_lines(const char *text, size_t len, const char *from, const char *to, int n,
                          size_t *out_len)
{
    const char *a = *from ? strstr(text, from) : NULL;
    const char *b = a ? strstr(a, to) : NULL;
    if (a && b) {
        a = strchr(a, '\n');
        a = a ? a + 1 : text;
        while (b > a && b[-1] != '\n')
            b--;
    }
    if (!a || !b || b < a) {
        /* No markers: repeat the whole text. */
        a = text;
        b = text + len;
    }
    size_t head = (size_t)(a - text), mid = (size_t)(b - a), tail = len - head - mid;
    char *r = malloc(head + mid * (size_t)n + tail + 1);
    if (!r)
        return NULL;
    memcpy(r, text, head);
    for (int i = 0; i < n; i++)
        memcpy(r + head + mid * (size_t)i, a, mid);
    memcpy(r + head + mid * (size_t)n, b, tail);
    *out_len = head + mid * (size_t)n + tail;
    r[*out_len] = 0;
    return r;
}

// Ascending doubles, for the median.
static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

// Median parse+join time over reps runs.
static double median_kernel(const stages *s, int reps)
{
    double t[64];
    if (reps > 64)
        reps = 64;
    for (int r = 0; r < reps; r++)
        t[r] = run_kernel(s, NULL);
    qsort(t, (size_t)reps, sizeof t[0], cmp_double);
    return t[reps / 2];
}

// Fixtures, then the synthetic kernel, then per-kernel times.
int main(int argc, char **argv)
{
    const char *root = argc > 1 ? argv[1] : TDX_SOURCE_DIR "/tests/data/ir";
    DIR *dp = opendir(root);
    if (!dp) {
        fprintf(stderr, "bench_ir: cannot open %s\n", root);
        return 1;
    }
    stages all[128];
    char *dirs[128];
    int n = 0;
    struct dirent *e;
    while ((e = readdir(dp)) && n < 128) {
        char p[4096];
        struct stat sb;
        snprintf(p, sizeof p, "%s/%s", root, e->d_name);
        if (e->d_name[0] == '.' || stat(p, &sb) || !S_ISDIR(sb.st_mode))
            continue;
        if (load(p, &all[n]) == 0)
            dirs[n++] = strdup(p);
        else
            unload(&all[n]);
    }
    closedir(dp);
    if (!n) {
        fprintf(stderr, "bench_ir: no fixtures under %s\n", root);
        return 1;
    }
    const int reps = 20;
    double sec[TDX_IR_NSTAGES] = {0};
    size_t bytes[TDX_IR_NSTAGES] = {0};
    int largest = 0;
    size_t largest_size = 0;
    for (int i = 0; i < n; i++) {
        for (int s = 0; s < TDX_IR_NSTAGES; s++)
            bytes[s] += all[i].len[s] * (size_t)reps;
        /* The kernel with the most TTGIR is the richest one to scale up. */
        if (all[i].len[TDX_IR_TTGIR] > largest_size) {
            largest_size = all[i].len[TDX_IR_TTGIR];
            largest = i;
        }
        for (int r = 0; r < reps; r++)
            run_kernel(&all[i], sec);
    }
    printf("fixtures: %d kernels from %s, %d passes each\n", n, root, reps);
    for (int s = 0; s < TDX_IR_NSTAGES; s++)
        printf("  %-6s %8.1f KB  %8.1f MB/s\n", names[s], (double)bytes[s] / reps / 1024.0,
               sec[s] > 0 ? (double)bytes[s] / sec[s] / 1e6 : 0.0);
    printf("  join   %8.3f ms per kernel\n", join_total / (n * reps) * 1e3);
    join_total = 0;

    /* A synthetic kernel ten times the largest fixture: the function body,
     * the PTX entry body and the SASS listing repeated. */
    stages big;
    const stages *L = &all[largest];
    static const char *const from[TDX_IR_NSTAGES] = {"tt.func", "tt.func", "$L__func_begin0",
                                                      ".text.", ""};
    static const char *const to[TDX_IR_NSTAGES] = {"\n  } loc(", "\n  } loc(", "\tret;", "EXIT",
                                                    ""};
    for (int s = 0; s < TDX_IR_NSTAGES; s++)
        big.text[s] = repeat_lines(L->text[s], L->len[s], from[s], to[s],
                                   s == TDX_IR_PTXAS ? 1 : 10, &big.len[s]);
    double bsec[TDX_IR_NSTAGES] = {0};
    size_t btotal = 0;
    for (int s = 0; s < TDX_IR_NSTAGES; s++)
        btotal += big.len[s];
    for (int r = 0; r < 5; r++)
        run_kernel(&big, bsec);
    printf("synthetic 10x of %s (%.1f KB in all stages):\n", strrchr(dirs[largest], '/') + 1,
           (double)btotal / 1024.0);
    for (int s = 0; s < TDX_IR_NSTAGES; s++)
        printf("  %-6s %8.1f KB  %8.1f MB/s\n", names[s], (double)big.len[s] / 1024.0,
               bsec[s] > 0 ? (double)big.len[s] * 5 / bsec[s] / 1e6 : 0.0);
    size_t ltotal = 0;
    for (int s = 0; s < TDX_IR_NSTAGES; s++)
        ltotal += L->len[s];
    printf("  join   %8.3f ms\n", join_total / 5 * 1e3);
    join_sec = NULL;
    printf("parse + join, all stages, median of %d:\n", reps);
    printf("  %s (%.1f KB): %.3f ms\n", strrchr(dirs[largest], '/') + 1, (double)ltotal / 1024.0,
           median_kernel(L, reps) * 1e3);
    printf("  synthetic 10x   (%.1f KB): %.3f ms\n", (double)btotal / 1024.0,
           median_kernel(&big, 9) * 1e3);
    unload(&big);
    for (int i = 0; i < n; i++) {
        unload(&all[i]);
        free(dirs[i]);
    }
    return 0;
}
