/* Level 1 through the harness: measured ceilings and timing, judged by the
 * profile module. The JSON shapes are those of docs/harness-protocol.md. */
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "diagnose/diagnose.h"
#include "hx/hx.h"
#include "profile/profile.h"

static double num(json_t *o, const char *k, double def)
{
    json_t *v = json_object_get(o, k);
    return json_is_number(v) ? json_number_value(v) : def;
}

/* Kernel launches recorded by `time` (or capture): grid, warps, resources. */
static size_t read_kernels(json_t *j, tdx_prof_launch *k, size_t max)
{
    json_t *arr = json_object_get(j, "kernels");
    size_t n = 0;
    for (size_t i = 0; i < json_array_size(arr) && n < max; i++) {
        json_t *o = json_array_get(arr, i);
        tdx_prof_launch *l = &k[n++];
        memset(l, 0, sizeof *l);
        l->kernel = json_string_value(json_object_get(o, "name"));
        json_t *g = json_object_get(o, "grid");
        for (size_t d = 0; d < 3 && d < json_array_size(g); d++)
            l->grid[d] = (long)json_number_value(json_array_get(g, d));
        l->num_warps = (int)num(o, "num_warps", 0);
        l->num_stages = (int)num(o, "num_stages", 0);
        l->regs = (int)num(o, "regs", 0);
        l->spill_bytes = (int)num(o, "spill_bytes", 0);
        l->shared_bytes = (int)num(o, "shared", 0);
    }
    return n;
}

tdx_status tdx_dx_level1(void *ud, const char *task_path, const char *src, size_t len,
                         tdx_ledger *ledger, tdx_dx_cost *cost, char *why, size_t why_len,
                         tdx_diags *diags)
{
    (void)ud, (void)src, (void)len;
    tdx_hx_opts o = {0};
    o.timeout_s = 600;
    tdx_hx_reply rc, rt;
    tdx_status st = tdx_hx_call(&o, "ceilings", NULL, NULL, &rc, diags);
    cost->gpu_runs++;
    if (st) {
        snprintf(why, why_len, "ceilings: %s", rc.reason);
        tdx_hx_reply_free(&rc);
        return st;
    }
    st = tdx_hx_call(&o, "time", task_path, NULL, &rt, diags);
    cost->gpu_runs++;
    if (st) {
        snprintf(why, why_len, "time: %s", rt.reason);
        tdx_hx_reply_free(&rc);
        tdx_hx_reply_free(&rt);
        return st;
    }
    tdx_prof_ceilings c;
    tdx_prof_ceilings_from_json(rc.json, &c);
    tdx_prof_launch kernels[16];
    tdx_prof_measure m = {0};
    m.task_file = task_path;
    json_t *base = json_object_get(json_object_get(rt.json, "variants"), "baseline");
    m.median_s = num(base, "median_ms", 0) / 1e3;
    m.iqr_s = num(base, "iqr_ms", 0) / 1e3;
    m.bytes = num(rt.json, "bytes", 0);
    m.flops = num(rt.json, "flops", 0);
    m.dtype = json_string_value(json_object_get(rt.json, "dtype"));
    m.launches = (int)num(rt.json, "launches", 0);
    m.kernels = kernels;
    m.nkernels = read_kernels(rt.json, kernels, 16);
    int dominant = 0;
    st = tdx_prof_diagnose(&m, &c, ledger, &dominant);
    if (st)
        snprintf(why, why_len, "the timing reply lacks a median time");
    tdx_hx_reply_free(&rc);
    tdx_hx_reply_free(&rt);
    return st;
}
