/* libFuzzer target: the harness's `capture` reply as the analyzer reads it
 * (kernels, their specialization -- signature, constexprs, divisibility,
 * per-argument values --, launch facts, the inline ptxas log, remarks), then
 * levels 2 and 3 on what was read: attribution, the counterfactual plans
 * and the check of each plan against the kernel itself.
 *
 * Artifact paths in the reply are not followed (no file is read and no
 * disassembler is run here); instead a kernel whose name is that of a
 * fixture in tests/data/ir/ gets the fixture's parsed IR, loaded once at
 * start-up, so the specialization read from the input meets real IR. Any
 * input must give a status, never a crash, a leak or undefined behaviour. */
#include <dirent.h>
#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/analyze.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_FIXTURES 64

static tdx_an_capture fixtures[MAX_FIXTURES];
static size_t nfixtures;

static const char task_src[] =
    "import triton\nimport triton.language as tl\n\n@triton.jit\n"
    "def k(x_ptr, y_ptr, n, stride, BLOCK: tl.constexpr):\n"
    "    pid = tl.program_id(0)\n    offs = pid * BLOCK + tl.arange(0, BLOCK)\n"
    "    x = tl.load(x_ptr + offs * stride, mask=offs < n)\n"
    "    tl.store(y_ptr + offs, tl.dot(x, x, input_precision=\"ieee\"), mask=offs < n)\n";

// Load every fixture folder of tests/data/ir/ (run from the source tree).
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    DIR *d = opendir("tests/data/ir");
    if (!d)
        return 0;
    struct dirent *e;
    while ((e = readdir(d)) && nfixtures < MAX_FIXTURES) {
        char dir[512];
        if (e->d_name[0] == '.')
            continue;
        snprintf(dir, sizeof dir, "tests/data/ir/%s", e->d_name);
        tdx_an_capture *c = &fixtures[nfixtures];
        tdx_an_capture_init(c);
        if (tdx_an_capture_add_dir(c, dir, NULL) == TDX_OK && c->nkernels == 1 && c->kernels[0].name)
            nfixtures++;
        else
            tdx_an_capture_free(c);
    }
    closedir(d);
    return 0;
}

static tdx_ir_kernel *fixture_ir(const char *name)
{
    for (size_t i = 0; name && i < nfixtures; i++)
        if (strcmp(fixtures[i].kernels[0].name, name) == 0)
            return fixtures[i].kernels[0].ir;
    return NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    json_error_t err;
    json_t *j = json_loadb((const char *)data, size, JSON_DECODE_ANY, &err);
    if (!j)
        return 0;
    json_t *ks = json_object_get(j, "kernels");
    for (size_t i = 0; i < json_array_size(ks); i++)
        json_object_del(json_array_get(ks, i), "artifacts");
    tdx_an_capture c;
    tdx_an_capture_init(&c);
    tdx_diags d;
    tdx_diags_init(&d);
    tdx_an_capture_from_json(&c, j, &d);
    /* borrow the fixtures' IR for the kernels named like them */
    tdx_ir_kernel **own = calloc(c.nkernels ? c.nkernels : 1, sizeof *own);
    if (!own)
        abort();
    for (size_t i = 0; i < c.nkernels; i++) {
        tdx_ir_kernel *fx = fixture_ir(c.kernels[i].name);
        if (fx) {
            own[i] = c.kernels[i].ir;
            c.kernels[i].ir = fx;
        }
    }
    tdx_ledger l;
    tdx_ledger_init(&l);
    for (size_t i = 0; i < c.nkernels; i++) {
        const tdx_an_kernel *k = &c.kernels[i];
        if (tdx_an_capture_find(&c, k->name) == NULL && k->name)
            __builtin_trap();
        for (size_t a = 0; a < k->nargs; a++)
            tdx_an_kernel_arg(k, k->args[a].name);
        tdx_an_l2opts o = {0};
        o.file = "task.py";
        o.symptom = i % 2 ? "memory-bound at 31% of 4.25 TB/s" : NULL;
        tdx_an_attribute(k, &o, &l);
    }
    tdx_an_plan plans[16];
    size_t np = tdx_an_plan_all(&l, &c, task_src, sizeof task_src - 1, plans, 16);
    if (np > 16)
        __builtin_trap();
    for (size_t p = 0; p < np; p++) {
        const tdx_an_kernel *k = tdx_an_capture_find(&c, plans[p].kernel);
        char result[256] = "";
        tdx_buf ev;
        tdx_buf_init(&ev, 1 << 20);
        int ok = k ? tdx_an_check(&plans[p], k, k, &ev, result, sizeof result) : -1;
        tdx_an_record(&l, &plans[p], ok, result[0] ? result : "not tested", tdx_buf_str(&ev));
        tdx_buf_free(&ev);
    }
    tdx_ledger_free(&l);
    for (size_t i = 0; i < c.nkernels; i++)
        if (own[i])
            c.kernels[i].ir = own[i];
    free(own);
    tdx_an_capture_free(&c);
    tdx_diags_free(&d);
    json_decref(j);
    return 0;
}
