/* tritondx diagnose: every level the machine allows, escalating only while
 * no finding decides. The work is in the library (diagnose/, report/). */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/file.h"
#include "cli.h"
#include "diagnose/diagnose.h"
#include "diagnose/levels.h"
#include "report/report.h"

static void usage(FILE *f)
{
    fputs("usage: tritondx diagnose [options] TASK.py\n\n"
          "Runs the levels in order — 0 source triage, 1 profiling (GPU), 2 IR attribution,\n"
          "3 compiler analysis with counterfactual compiles — and stops at the first level\n"
          "whose finding names the dominant cause, one rewrite family, and why it helps.\n"
          "With no GPU, level 1 is skipped and levels 0, 2 and 3 run.\n\n"
          "options:\n"
          "  --max-level N              deepest level to run, 0..3 (default 3)\n"
          "  --all-levels               run every allowed level, even after one decided\n"
          "  --ncu                      level 1 also runs Nsight Compute (slower)\n"
          "  --format text|json|sarif   output format (default text)\n"
          "  --color auto|always|never  colour text output (default auto)\n"
          "  -h, --help                 show this help\n",
          f);
}

typedef struct dx_out {
    const tdx_dx_report *rep;
    const tdx_ledger *led;
} dx_out;

/* Text: the levels run, their costs and the level that decided. */
static tdx_status summary_tail(void *ud, tdx_buf *out)
{
    const dx_out *o = ud;
    return tdx_dx_summary_text(o->rep, o->led, out);
}

/* JSON: the same as a "diagnosis" member of the findings document. */
static void add_diagnosis(void *ud, json_t *doc)
{
    const dx_out *o = ud;
    json_object_set_new(doc, "diagnosis", tdx_dx_report_json(o->rep));
}

int tdx_cmd_diagnose(int argc, char **argv)
{
    int fmt = TDX_FMT_TEXT;
    tdx_color_mode color = TDX_COLOR_AUTO;
    tdx_dx_opts o = {0};
    tdx_dx_l1_opts l1 = {0};
    o.max_level = 3;
    const char *task = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v;
        int r;
        if (a[0] != '-') {
            if (task) {
                tdx_cli_error("diagnose takes one task file");
                return TDX_EXIT_USAGE;
            }
            task = a;
        } else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            usage(stdout);
            return TDX_EXIT_OK;
        } else if (strcmp(a, "--ncu") == 0) {
            l1.ncu = 1;
        } else if (strcmp(a, "--all-levels") == 0) {
            o.all_levels = 1;
        } else if ((r = tdx_cli_opt_value(argc, argv, &i, "--max-level", &v)) != 0) {
            if (r < 0 || strlen(v) != 1 || v[0] < '0' || v[0] > '3') {
                tdx_cli_error("--max-level takes 0, 1, 2 or 3");
                return TDX_EXIT_USAGE;
            }
            o.max_level = v[0] - '0';
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
        } else {
            tdx_cli_error("unknown option '%s' (see 'tritondx diagnose --help')", a);
            return TDX_EXIT_USAGE;
        }
    }
    if (!task) {
        tdx_cli_error("no task file (see 'tritondx diagnose --help')");
        return TDX_EXIT_USAGE;
    }
    char *src;
    size_t len;
    int rc = tdx_cli_read_task(task, &src, &len);
    if (rc)
        return rc;
    tdx_dx_levels_default(&o);
    if (o.levels[1].run == tdx_dx_level1)
        o.levels[1].ud = &l1;
    tdx_ledger led;
    tdx_ledger_init(&led);
    tdx_diags d;
    tdx_diags_init(&d);
    tdx_dx_report rep;
    tdx_status st = tdx_dx_run(&o, task, src, len, &led, &rep, &d);
    dx_out dout = {&rep, &led};
    tdx_cli_render r = {fmt, color, task, src, len, st, &led, &d, summary_tail, add_diagnosis, &dout};
    tdx_status rs = tdx_cli_render_task(&r);
    int code = tdx_cli_task_exit(rs, st, &led);
    tdx_diags_free(&d);
    tdx_ledger_free(&led);
    free(src);
    return code;
}
