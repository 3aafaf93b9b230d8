/* tritondx attribute (level 2) and, through the same runner, tritondx
 * analyze (level 3): capture the task's kernels, attach the symptom to the
 * IR, and with analyze prove the compiler causes with counterfactual
 * compiles. The work is in the library (analyze/, report/). */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyze/analyze.h"
#include "base/file.h"
#include "cli.h"
#include "diagnose/diagnose.h"
#include "diagnose/levels.h"
#include "report/report.h"

/* Shared with cmd_analyze.c. */
int tdx_cli_an_main(int argc, char **argv, int level);

static void usage(FILE *f, int level)
{
    if (level == 2)
        fputs("usage: tritondx attribute [options] TASK.py\n\n"
              "Level 2: compiles each kernel of the task as its launch specializes it (ahead of time\n"
              "for sm_90 when no GPU is visible), parses TTIR, TTGIR, PTX and ptxas -v, and attaches\n"
              "the level 1 symptom (with a GPU) or a static estimate to the ops and source lines\n"
              "responsible.\n\n",
              f);
    else
        fputs("usage: tritondx analyze [options] TASK.py\n\n"
              "Level 3: for each level 2 finding, names the compiler condition behind it and proves\n"
              "it with a counterfactual compile that changes exactly one thing (a divisibility\n"
              "attribute, num_warps, num_stages, a block size, the input precision); a hypothesis\n"
              "whose compile does not change the IR as predicted is reported as not confirmed.\n\n",
              f);
    fputs("options:\n"
          "  --mode aot|jit             how to capture (default: jit with a GPU, else aot)\n"
          "  --keep DIR                 keep the captured artifacts under DIR\n",
          f);
    if (level == 3)
        fputs("  --max-compiles N           counterfactual compiles at most (default 8)\n", f);
    fputs("  --format text|json|sarif   output format (default text)\n"
          "  --color auto|always|never  colour text output (default auto)\n"
          "  -h, --help                 show this help\n",
          f);
}

typedef struct an_tail {
    int level, compiles;
} an_tail;

/* The closing line of the text output: what the level cost. */
static tdx_status text_tail(void *ud, tdx_buf *out)
{
    const an_tail *t = ud;
    return tdx_buf_printf(out, "level %d: %d compile%s\n", t->level, t->compiles, t->compiles == 1 ? "" : "s");
}

int tdx_cli_an_main(int argc, char **argv, int level)
{
    int fmt = TDX_FMT_TEXT;
    tdx_color_mode color = TDX_COLOR_AUTO;
    const char *task = NULL;
    tdx_an_session s = {0};
    s.env.mode = tdx_dx_have_gpu() ? "jit" : "aot";
    const char *cmd = level == 2 ? "attribute" : "analyze";
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v;
        int r;
        if (a[0] != '-') {
            if (task) {
                tdx_cli_error("%s takes one task file", cmd);
                return TDX_EXIT_USAGE;
            }
            task = a;
        } else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            usage(stdout, level);
            return TDX_EXIT_OK;
        } else if ((r = tdx_cli_opt_value(argc, argv, &i, "--mode", &v)) != 0) {
            if (r < 0 || (strcmp(v, "aot") != 0 && strcmp(v, "jit") != 0)) {
                tdx_cli_error("--mode takes aot or jit");
                return TDX_EXIT_USAGE;
            }
            s.env.mode = v;
        } else if ((r = tdx_cli_opt_value(argc, argv, &i, "--keep", &v)) != 0) {
            if (r < 0)
                return TDX_EXIT_USAGE;
            s.env.keep_dir = v;
        } else if (level == 3 && (r = tdx_cli_opt_value(argc, argv, &i, "--max-compiles", &v)) != 0) {
            char *end = NULL;
            long n = r > 0 ? strtol(v, &end, 10) : -1;
            if (r < 0 || !end || *end || n < 1 || n > 64) {
                tdx_cli_error("--max-compiles takes a number from 1 to 64");
                return TDX_EXIT_USAGE;
            }
            s.env.max_compiles = (int)n;
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
            tdx_cli_error("unknown option '%s' (see 'tritondx %s --help')", a, cmd);
            return TDX_EXIT_USAGE;
        }
    }
    if (!task) {
        tdx_cli_error("no task file (see 'tritondx %s --help')", cmd);
        return TDX_EXIT_USAGE;
    }
    char *src;
    size_t len;
    int rc = tdx_cli_read_runnable_task(task,
                                        strcmp(cmd, "analyze") == 0 ? "analyze compiles the kernel"
                                                                    : "attribute compiles the kernel",
                                        &src, &len);
    if (rc)
        return rc;
    tdx_ledger led;
    tdx_ledger_init(&led);
    tdx_diags d;
    tdx_diags_init(&d);
    tdx_dx_cost cost = {0};
    char why[512] = "";
    /* Level 1 first when a GPU can measure the symptom level 2 attaches. */
    if (tdx_dx_have_gpu()) {
        tdx_dx_cost c1 = {0};
        char w1[256] = "";
        if (tdx_dx_level1(NULL, task, src, len, &led, &c1, w1, sizeof w1, &d))
            fprintf(stderr, "%s: note: no level 1 profile: %s\n", task, w1);
    }
    tdx_status st = tdx_an_level2(&s, task, src, len, &led, &cost, why, sizeof why, &d);
    if (!st && level == 3)
        st = tdx_an_level3(&s, task, src, len, &led, &cost, why, sizeof why, &d);
    tdx_an_session_free(&s);
    if (st && why[0] && d.len == 0)
        fprintf(stderr, "%s: error: %s\n", task, why);
    an_tail tail = {level, cost.compiles};
    tdx_cli_render r = {fmt, color, task, src, len, st, &led, &d, text_tail, NULL, &tail};
    tdx_status rs = tdx_cli_render_task(&r);
    int code = tdx_cli_task_exit(rs, st, &led);
    tdx_diags_free(&d);
    tdx_ledger_free(&led);
    free(src);
    return code;
}

int tdx_cmd_attribute(int argc, char **argv)
{
    return tdx_cli_an_main(argc, argv, 2);
}
