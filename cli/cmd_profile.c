/* tritondx profile: level 1 alone — time the task on the GPU against the
 * device's measured ceilings and name its symptom. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/file.h"
#include "cli.h"
#include "diagnose/diagnose.h"
#include "diagnose/levels.h"

int tdx_cmd_profile(int argc, char **argv)
{
    const char *task = NULL;
    int fmt = TDX_FMT_TEXT;
    tdx_color_mode color = TDX_COLOR_AUTO;
    tdx_dx_l1_opts l1 = {0};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v;
        int r;
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            fputs("usage: tritondx profile [options] TASK.py\n\n"
                  "Level 1: the median time of launch() against the device's measured copy\n"
                  "bandwidth and matmul rate (tritondx ceilings), its place on the roofline, and\n"
                  "the symptom: memory- or compute-bound and how far below, launch-bound,\n"
                  "grid or occupancy limits. Needs a GPU.\n\n"
                  "options:\n"
                  "  --ncu                      add Nsight Compute's DRAM bytes, sectors per request\n"
                  "                             and bank conflicts (slower)\n"
                  "  --format text|json|sarif   output format (default text)\n"
                  "  --color auto|always|never  colour text output (default auto)\n"
                  "  -h, --help                 show this help\n",
                  stdout);
            return TDX_EXIT_OK;
        } else if (strcmp(a, "--ncu") == 0) {
            l1.ncu = 1;
        } else if ((r = tdx_cli_opt_value(argc, argv, &i, "--format", &v)) != 0) {
            if (r < 0 || tdx_cli_parse_format(v, &fmt) != 0) {
                tdx_cli_error("--format takes text, json or sarif");
                return TDX_EXIT_USAGE;
            }
        } else if ((r = tdx_cli_opt_value(argc, argv, &i, "--color", &v)) != 0) {
            if (r < 0 || tdx_cli_parse_color(v, &color) != 0) {
                tdx_cli_error("--color takes auto, always or never");
                return TDX_EXIT_USAGE;
            }
        } else if (a[0] == '-' || task) {
            tdx_cli_error("bad argument '%s' (see 'tritondx profile --help')", a);
            return TDX_EXIT_USAGE;
        } else {
            task = a;
        }
    }
    if (!task) {
        tdx_cli_error("no task file (see 'tritondx profile --help')");
        return TDX_EXIT_USAGE;
    }
    char *src;
    size_t len;
    int rc = tdx_cli_read_runnable_task(task, "profile times the kernel", &src, &len);
    if (rc)
        return rc;
    if (!tdx_dx_have_gpu()) {
        fprintf(stderr, "%s: error: no GPU visible: profiling times the task on one\n", task);
        free(src);
        return TDX_EXIT_FAILED;
    }
    tdx_ledger led;
    tdx_ledger_init(&led);
    tdx_diags d;
    tdx_diags_init(&d);
    tdx_dx_cost cost = {0};
    char why[256] = "";
    tdx_status st = tdx_dx_level1(&l1, task, src, len, &led, &cost, why, sizeof why, &d);
    tdx_cli_render r = {fmt, color, task, src, len, st, &led, &d, NULL, NULL, NULL};
    tdx_status rs = tdx_cli_render_task(&r);
    if (st)
        fprintf(stderr, "%s: error: %s\n", task, why[0] ? why : tdx_status_str(st));
    int code = tdx_cli_task_exit(rs, st, &led);
    tdx_diags_free(&d);
    tdx_ledger_free(&led);
    free(src);
    return code;
}
