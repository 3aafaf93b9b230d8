/* tritondx profile: level 1 alone — time the task on the GPU against the
 * device's measured ceilings and name its symptom. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/file.h"
#include "cli.h"
#include "diagnose/diagnose.h"
#include "diagnose/levels.h"
#include "report/report.h"

int tdx_cmd_profile(int argc, char **argv)
{
    const char *task = NULL;
    int json = 0;
    tdx_dx_l1_opts l1 = {0};
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            fputs("usage: tritondx profile [--ncu] [--format text|json] TASK.py\n\n"
                  "Level 1: the median time of launch() against the device's measured copy\n"
                  "bandwidth and matmul rate (tritondx ceilings), its place on the roofline, and\n"
                  "the symptom: memory- or compute-bound and how far below, launch-bound,\n"
                  "grid or occupancy limits. Needs a GPU. --ncu adds Nsight Compute's DRAM\n"
                  "bytes, sectors per request and bank conflicts (slower).\n",
                  stdout);
            return TDX_EXIT_OK;
        } else if (strcmp(argv[i], "--ncu") == 0) {
            l1.ncu = 1;
        } else if (strcmp(argv[i], "--format") == 0 && i + 1 < argc &&
                   (strcmp(argv[i + 1], "json") == 0 || strcmp(argv[i + 1], "text") == 0)) {
            json = strcmp(argv[++i], "json") == 0;
        } else if (argv[i][0] == '-' || task) {
            tdx_cli_error("bad argument '%s' (see 'tritondx profile --help')", argv[i]);
            return TDX_EXIT_USAGE;
        } else {
            task = argv[i];
        }
    }
    if (!task) {
        tdx_cli_error("no task file (see 'tritondx profile --help')");
        return TDX_EXIT_USAGE;
    }
    if (!tdx_dx_have_gpu()) {
        fprintf(stderr, "%s: error: no GPU visible: profiling times the task on one\n", task);
        return TDX_EXIT_FAILED;
    }
    char *src;
    size_t len;
    if (tdx_file_read(task, 16u << 20, &src, &len) != TDX_OK) {
        fprintf(stderr, "%s: error: cannot read\n", task);
        return TDX_EXIT_INPUT;
    }
    tdx_ledger led;
    tdx_ledger_init(&led);
    tdx_diags d;
    tdx_diags_init(&d);
    tdx_dx_cost cost = {0};
    char why[256] = "";
    tdx_status st = tdx_dx_level1(&l1, task, src, len, &led, &cost, why, sizeof why, &d);
    tdx_buf out;
    tdx_buf_init(&out, 0);
    tdx_rep_opts ro = {0};
    ro.caret = !json && isatty(fileno(stdout));
    tdx_rep_file f = {task, src, len, st};
    tdx_rep_run run = {&led, &f, 1, &d};
    if (json)
        tdx_rep_json(&run, &ro, &out);
    else
        tdx_rep_text(&run, &ro, &out);
    fputs(tdx_buf_str(&out), stdout);
    if (st)
        fprintf(stderr, "%s: error: %s\n", task, why[0] ? why : tdx_status_str(st));
    int warnings = 0;
    for (size_t i = 0; i < tdx_ledger_count(&led); i++)
        warnings += tdx_ledger_at(&led, i)->sev >= TDX_SEV_WARNING;
    tdx_buf_free(&out);
    tdx_diags_free(&d);
    tdx_ledger_free(&led);
    free(src);
    return st ? TDX_EXIT_FAILED : warnings ? TDX_EXIT_FINDINGS : TDX_EXIT_OK;
}
