/* tritondx ceilings: the device's measured ceilings (copy bandwidth, matmul
 * rate per dtype, launch overhead), cached per device name by the harness. */
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "diagnose/levels.h"
#include "hx/hx.h"
#include "profile/profile.h"

int tdx_cmd_ceilings(int argc, char **argv)
{
    int refresh = 0, json = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            fputs("usage: tritondx ceilings [--refresh] [--json]\n\n"
                  "Shows the ceilings measured on this GPU, measuring them the first time (about\n"
                  "half a minute) and caching them per device name; --refresh measures again.\n",
                  stdout);
            return TDX_EXIT_OK;
        } else if (strcmp(argv[i], "--refresh") == 0) {
            refresh = 1;
        } else if (strcmp(argv[i], "--json") == 0) {
            json = 1;
        } else {
            tdx_cli_error("unknown argument '%s' (see 'tritondx ceilings --help')", argv[i]);
            return TDX_EXIT_USAGE;
        }
    }
    if (!tdx_dx_have_gpu()) {
        tdx_cli_error("no GPU visible: ceilings are measured on one");
        return TDX_EXIT_FAILED;
    }
    tdx_hx_opts o = {0};
    o.timeout_s = 600;
    const char *args[] = {refresh ? "--refresh" : NULL, NULL};
    tdx_hx_reply r;
    if (tdx_hx_call(&o, "ceilings", NULL, args, &r, NULL) != TDX_OK) {
        tdx_cli_error("%s", r.reason);
        tdx_hx_reply_free(&r);
        return TDX_EXIT_FAILED;
    }
    if (json) {
        json_dumpf(r.json, stdout, JSON_INDENT(2));
        putchar('\n');
    } else {
        tdx_prof_ceilings c;
        tdx_prof_ceilings_from_json(r.json, &c);
        char a[32];
        printf("device          %s (%d SMs, L2 %.0f MiB)%s\n", c.device ? c.device : "?", c.sms,
               c.l2_bytes / 1048576.0, json_is_true(json_object_get(r.json, "cached")) ? ", cached" : "");
        tdx_prof_fmt_rate(a, sizeof a, c.copy_bw, "B/s");
        printf("copy bandwidth  %s\n", a);
        if (c.read_bw > 0) {
            tdx_prof_fmt_rate(a, sizeof a, c.read_bw, "B/s");
            printf("read bandwidth  %s\n", a);
        }
        const char *names[] = {"fp16", "bf16", "tf32", "fp32"};
        double v[] = {c.mm_fp16, c.mm_bf16, c.mm_tf32, c.mm_fp32};
        for (int i = 0; i < 4; i++) {
            tdx_prof_fmt_rate(a, sizeof a, v[i], "FLOP/s");
            printf("matmul %-8s %s\n", names[i], a);
        }
        printf("launch          %.2f us\n", c.launch_s * 1e6);
    }
    tdx_hx_reply_free(&r);
    return TDX_EXIT_OK;
}
