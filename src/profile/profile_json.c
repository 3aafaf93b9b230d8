/* Reading the harness's measured ceilings. */
#include <jansson.h>
#include <string.h>

#include "profile/profile.h"

static double num(json_t *o, const char *k, double def)
{
    json_t *v = json_object_get(o, k);
    return json_is_number(v) ? json_number_value(v) : def;
}

void tdx_prof_ceilings_from_json(json_t *j, tdx_prof_ceilings *c)
{
    memset(c, 0, sizeof *c);
    json_t *dev = json_object_get(j, "device");
    c->device = json_string_value(json_object_get(dev, "name"));
    c->sms = (int)num(dev, "sms", 132);
    c->l2_bytes = num(dev, "l2_bytes", 0);
    c->copy_bw = num(j, "copy_bytes_per_s", 0);
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
            l->grid[d] = (long)json_number_value(json_array_get(g, d));
        l->num_warps = (int)num(o, "num_warps", 0);
        l->num_stages = (int)num(o, "num_stages", 0);
        l->regs = (int)num(res, "registers", 0);
        l->spill_bytes = (int)(num(res, "spill_stores", 0) + num(res, "spill_loads", 0));
        l->shared_bytes = (int)num(json_object_get(o, "metadata"), "shared", 0);
        *launches += (int)num(o, "launch_count", 1);
    }
    return n;
}
