/* Reading the harness's measured ceilings. */
#include <jansson.h>
#include <limits.h>
#include <string.h>

#include "profile/profile.h"

static double num(json_t *o, const char *k, double def)
{
    json_t *v = json_object_get(o, k);
    return json_is_number(v) ? json_number_value(v) : def;
}

/* A count read as a double, clamped to [lo, hi] before the conversion: a
 * double outside the integer's range makes the cast undefined. */
static long clamp_long(double v, long lo, long hi)
{
    if (!(v >= (double)lo)) /* also NaN */
        return lo;
    if (v >= (double)hi)
        return hi;
    return (long)v;
}

static int inum(json_t *o, const char *k, double def)
{
    return (int)clamp_long(num(o, k, def), 0, INT_MAX);
}

void tdx_prof_ceilings_from_json(json_t *j, tdx_prof_ceilings *c)
{
    memset(c, 0, sizeof *c);
    json_t *dev = json_object_get(j, "device");
    c->device = json_string_value(json_object_get(dev, "name"));
    c->sms = inum(dev, "sms", 132);
    c->l2_bytes = num(dev, "l2_bytes", 0);
    c->copy_bw = num(j, "copy_bytes_per_s", 0);
    c->read_bw = num(j, "read_bytes_per_s", 0);
    c->launch_s = num(json_object_get(j, "launch"), "wall_us_per_launch", 0) / 1e6;
    json_t *mm = json_object_get(j, "matmul");
    c->mm_fp16 = num(json_object_get(mm, "float16"), "flops_per_s", 0);
    c->mm_bf16 = num(json_object_get(mm, "bfloat16"), "flops_per_s", 0);
    c->mm_tf32 = num(json_object_get(mm, "tf32"), "flops_per_s", 0);
    c->mm_fp32 = num(json_object_get(mm, "float32"), "flops_per_s", 0);
}

/* The kernels of a `capture` reply: grid, warps, stages, registers, spills,
 * shared memory (docs/harness-protocol.md); *launches gets the launch count. */
size_t tdx_prof_launches_from_capture(json_t *j, tdx_prof_launch *k, size_t max, int *launches)
{
    json_t *arr = json_object_get(j, "kernels");
    size_t n = 0;
    *launches = 0;
    for (size_t i = 0; i < json_array_size(arr) && n < max; i++) {
        json_t *o = json_array_get(arr, i);
        json_t *res = json_object_get(o, "resources");
        tdx_prof_launch *l = &k[n++];
        memset(l, 0, sizeof *l);
        l->kernel = json_string_value(json_object_get(o, "name"));
        json_t *g = json_object_get(o, "grid");
        for (size_t d = 0; d < 3 && d < json_array_size(g); d++)
            l->grid[d] = clamp_long(json_number_value(json_array_get(g, d)), 0, LONG_MAX);
        l->num_warps = inum(o, "num_warps", 0);
        l->num_stages = inum(o, "num_stages", 0);
        l->regs = inum(res, "registers", 0);
        l->spill_bytes = (int)clamp_long(num(res, "spill_stores", 0) + num(res, "spill_loads", 0), 0, INT_MAX);
        l->shared_bytes = inum(json_object_get(o, "metadata"), "shared", 0);
        long count = clamp_long(num(o, "launch_count", 1), 0, INT_MAX);
        *launches = count > INT_MAX - *launches ? INT_MAX : *launches + (int)count;
    }
    return n;
}

tdx_status tdx_prof_ncu_from_json(json_t *j, tdx_prof_ncu *n)
{
    n->dram_bytes = n->dram_pct = n->sectors_per_request = n->bank_conflict_ratio = -1;
    n->achieved_occupancy = n->tensor_pipe_pct = -1;
    json_t *ks = json_object_get(j, "kernels");
    if (!json_array_size(ks))
        return TDX_ERR_INPUT;
    double dram = 0;
    int have_dram = 0;
    for (size_t i = 0; i < json_array_size(ks); i++) {
        json_t *k = json_array_get(ks, i);
        const char *name = json_string_value(json_object_get(k, "name"));
        int seen = 0; /* only the first launch of each kernel counts */
        for (size_t p = 0; p < i && name; p++) {
            const char *other = json_string_value(json_object_get(json_array_get(ks, p), "name"));
            seen |= other && strcmp(other, name) == 0;
        }
        if (seen)
            continue;
        json_t *m = json_object_get(k, "metrics");
        double r = num(m, "dram_bytes_read", -1), w = num(m, "dram_bytes_write", -1);
        if (r >= 0 && w >= 0) {
            dram += r + w;
            have_dram = 1;
        }
    }
    if (have_dram)
        n->dram_bytes = dram;
    json_t *m = json_object_get(json_array_get(ks, 0), "metrics");
    n->dram_pct = num(m, "dram_throughput_pct", -1);
    n->sectors_per_request = num(m, "global_load_sectors_per_request", -1);
    n->achieved_occupancy = num(m, "achieved_occupancy_pct", -1);
    double c = num(m, "shared_load_bank_conflicts", -1) + num(m, "shared_store_bank_conflicts", -1);
    double insts = num(m, "shared_load_insts", -1) + num(m, "shared_store_insts", -1);
    if (c >= 0 && insts > 0)
        n->bank_conflict_ratio = c / insts;
    return TDX_OK;
}
