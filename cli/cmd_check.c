/* tritondx check: validate a task file (what is missing or wrong), then check
 * its kernel — or a candidate's — against its reference through the harness. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "diagnose/levels.h"
#include "hx/hx.h"

static void usage(FILE *f)
{
    fputs("usage: tritondx check [options] TASK.py\n\n"
          "Validates the task format (launch, reference, make_inputs, SHAPES, ...) and checks\n"
          "launch against reference on every check shape with three seeds: NaN-poisoned\n"
          "outputs, dtype-aware relative error, shape and dtype. With no GPU the kernels run\n"
          "in Triton's interpreter on the CPU.\n\n"
          "options:\n"
          "  --candidate FILE     check this rewritten copy instead (reference and inputs still\n"
          "                       come from TASK.py)\n"
          "  --device cuda|cpu    where to run (default: cuda when a GPU is visible)\n"
          "  --validate-only      only say whether the task is well formed\n"
          "  --json               print the harness's reply as JSON\n",
          f);
}

static void print_cases(json_t *reply)
{
    json_t *cases = json_object_get(reply, "cases");
    for (size_t i = 0; i < json_array_size(cases); i++) {
        json_t *c = json_array_get(cases, i);
        char *shape = json_dumps(json_object_get(c, "shape"), JSON_COMPACT | JSON_ENCODE_ANY);
        json_t *err = json_object_get(c, "rel_err");
        printf("  shape %s seed %lld: %s", shape ? shape : "?",
               (long long)json_integer_value(json_object_get(c, "seed")),
               json_is_true(json_object_get(c, "ok")) ? "ok" : "FAIL");
        if (json_is_number(err))
            printf(" (relative error %.3g, tolerance %.3g)", json_number_value(err),
                   json_number_value(json_object_get(c, "tolerance")));
        const char *msg = json_string_value(json_object_get(c, "message"));
        if (!json_is_true(json_object_get(c, "ok")) && msg)
            printf(": %s", msg);
        putchar('\n');
        free(shape);
    }
}

int tdx_cmd_check(int argc, char **argv)
{
    const char *task = NULL, *cand = NULL, *device = tdx_dx_have_gpu() ? "cuda" : "cpu";
    int validate_only = 0, as_json = 0;
    for (int i = 1; i < argc; i++) {
        const char *v;
        int r;
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            usage(stdout);
            return TDX_EXIT_OK;
        } else if (strcmp(argv[i], "--validate-only") == 0) {
            validate_only = 1;
        } else if (strcmp(argv[i], "--json") == 0) {
            as_json = 1;
        } else if ((r = tdx_cli_opt_value(argc, argv, &i, "--candidate", &v)) != 0) {
            if (r < 0)
                return TDX_EXIT_USAGE;
            cand = v;
        } else if ((r = tdx_cli_opt_value(argc, argv, &i, "--device", &v)) != 0) {
            if (r < 0 || (strcmp(v, "cuda") != 0 && strcmp(v, "cpu") != 0)) {
                tdx_cli_error("--device takes cuda or cpu");
                return TDX_EXIT_USAGE;
            }
            device = v;
        } else if (argv[i][0] == '-') {
            tdx_cli_error("unknown option '%s' (see 'tritondx check --help')", argv[i]);
            return TDX_EXIT_USAGE;
        } else if (task) {
            tdx_cli_error("check takes one task file");
            return TDX_EXIT_USAGE;
        } else {
            task = argv[i];
        }
    }
    if (!task) {
        tdx_cli_error("no task file (see 'tritondx check --help')");
        return TDX_EXIT_USAGE;
    }
    int read_rc = tdx_cli_check_task(task); /* in triage's words, before Python starts */
    if (read_rc)
        return read_rc;
    tdx_hx_opts o = {0};
    o.timeout_s = 600;
    tdx_hx_reply r;
    tdx_status st = tdx_hx_call(&o, "validate", task, NULL, &r, NULL);
    if (st) {
        tdx_buf lines;
        tdx_buf_init(&lines, 1 << 20);
        if (as_json && r.json) {
            json_dumpf(r.json, stdout, JSON_INDENT(2));
            putchar('\n');
        } else if (r.json && tdx_hx_validate_problems(r.json, task, &lines)) {
            fputs(tdx_buf_str(&lines), stderr);
        } else {
            fprintf(stderr, "%s: error: %s\n", task, r.reason);
        }
        tdx_buf_free(&lines);
        int invalid = r.json != NULL; /* the harness answered: the task is what is wrong */
        tdx_hx_reply_free(&r);
        return invalid ? TDX_EXIT_INPUT : TDX_EXIT_FAILED;
    }
    json_t *kernels = json_object_get(r.json, "kernels");
    if (!as_json)
        printf("%s: a well-formed %s with %zu kernel%s\n", task,
               json_is_string(json_object_get(r.json, "kind"))
                   ? json_string_value(json_object_get(r.json, "kind"))
                   : "task",
               json_array_size(kernels),
               json_array_size(kernels) == 1 ? "" : "s");
    tdx_hx_reply_free(&r);
    if (validate_only)
        return TDX_EXIT_OK;
    const char *args[] = {"--device", device, cand ? "--candidate" : NULL, cand, NULL};
    st = tdx_hx_call(&o, "check", task, args, &r, NULL);
    if (as_json && r.json) {
        json_dumpf(r.json, stdout, JSON_INDENT(2));
        putchar('\n');
    } else if (r.json) {
        print_cases(r.json);
    }
    int rc = TDX_EXIT_OK;
    if (st) {
        const char *kind = r.json ? json_string_value(json_object_get(r.json, "error_kind")) : NULL;
        if (!as_json)
            fprintf(stderr, "%s: error: %s\n", cand ? cand : task, r.reason);
        rc = kind && strcmp(kind, "incorrect") == 0 ? TDX_EXIT_FINDINGS : TDX_EXIT_FAILED;
    } else if (!as_json) {
        printf("%s: correct on every check shape (%s)\n", cand ? cand : task, device);
    }
    tdx_hx_reply_free(&r);
    return rc;
}
