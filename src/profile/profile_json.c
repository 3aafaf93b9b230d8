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
