/* libFuzzer target: the level 1 readers of the harness's replies --
 * measured ceilings, the launches of a capture, the Nsight Compute metrics
 * converted from ncu's CSV -- and level 1 judging what they read, as
 * src/diagnose/level1.c does. The input is one JSON value: an object with
 * "ceilings", "time", "capture" and "ncu" replies, or one reply read as all
 * four. Any input must give a status, never a crash, a leak or undefined
 * behaviour (huge, negative and fractional numbers included). */
#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "finding/finding.h"
#include "profile/profile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static json_t *part(json_t *j, const char *key)
{
    json_t *v = json_object_get(j, key);
    return v ? v : j;
}

static double num(json_t *o, const char *k)
{
    json_t *v = json_object_get(o, k);
    return json_is_number(v) ? json_number_value(v) : 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    json_error_t err;
    json_t *j = json_loadb((const char *)data, size, JSON_DECODE_ANY, &err);
    if (!j)
        return 0;
    tdx_prof_ceilings c;
    tdx_prof_ceilings_from_json(part(j, "ceilings"), &c);
    tdx_prof_launch kernels[16];
    int launches = 0;
    size_t nk = tdx_prof_launches_from_capture(part(j, "capture"), kernels, 16, &launches);
    if (nk > 16)
        __builtin_trap();
    tdx_prof_ncu ncu;
    tdx_status nst = tdx_prof_ncu_from_json(part(j, "ncu"), &ncu);

    json_t *t = part(j, "time");
    json_t *base = json_object_get(json_object_get(t, "variants"), "baseline");
    tdx_prof_measure m;
    memset(&m, 0, sizeof m);
    m.task_file = "task.py";
    m.median_s = num(base, "median_ms") / 1e3;
    m.iqr_s = num(base, "iqr_ms") / 1e3;
    m.bytes = num(t, "bytes");
    m.flops = num(t, "flops");
    m.dtype = json_string_value(json_object_get(t, "dtype"));
    m.kernels = kernels;
    m.nkernels = nk;
    m.launches = launches;
    m.ncu = nst == TDX_OK ? &ncu : NULL;

    for (size_t i = 0; i < nk; i++) {
        tdx_prof_occupancy occ;
        tdx_prof_occupancy_of(&kernels[i], c.sms, &occ);
    }
    tdx_prof_roofline rl;
    tdx_prof_roofline_of(&m, &c, &rl);
    tdx_ledger l;
    tdx_ledger_init(&l);
    int dominant = -1;
    tdx_prof_diagnose(&m, &c, &l, &dominant);
    if (dominant < 0 || (dominant > 0 && tdx_ledger_count(&l) == 0))
        __builtin_trap();
    tdx_ledger_free(&l);
    json_decref(j);
    return 0;
}
