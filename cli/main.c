/* tritondx: entry point and command dispatch. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "diagnose/diagnose.h"
#include "input/input.h"

static const tdx_cli_cmd commands[] = {
    {"triage", tdx_cmd_triage, "level 0: pattern class and source anti-patterns (no GPU, no Python)"},
    {"check", tdx_cmd_check, "validate a task file and check its kernel against the reference"},
    {"profile", tdx_cmd_profile, "level 1: time the task on the GPU and name its symptom"},
    {"attribute", tdx_cmd_attribute, "level 2: attach the symptom to IR ops and source lines"},
    {"analyze", tdx_cmd_analyze, "level 3: why the compiler did not do it, proven by a what-if compile"},
    {"diagnose", tdx_cmd_diagnose, "all levels the machine allows, escalating only when needed"},
    {"optimize", tdx_cmd_optimize, "diagnose, rewrite, verify, time, keep; writes TASK.opt.py"},
    {"bench", tdx_cmd_bench, "run optimize over a task suite and print the results table"},
    {"rewrite", tdx_cmd_rewrite, "apply one built-in rewrite family and write its candidates"},
    {"report", tdx_cmd_report, "render a run directory as Markdown or HTML"},
    {"ceilings", tdx_cmd_ceilings, "show or measure the device's bandwidth and matmul ceilings"},
    {"rules", tdx_cmd_rules, "list every rule id, or explain one"},
};

static void usage(FILE *f)
{
    fprintf(f, "usage: tritondx <command> [options] [args]\n\n"
               "tritondx tells why a Triton kernel is slow, with evidence from the compiler,\n"
               "and makes it faster with rewrites that are verified and timed.\n\ncommands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].summary);
    fprintf(f, "\n'tritondx <command> --help' shows a command's options.\n");
}

int tdx_cli_read_task(const char *path, char **src, size_t *len)
{
    tdx_diags d;
    tdx_diags_init(&d);
    tdx_status st = tdx_in_read_task(path, 16u << 20, src, len, &d);
    for (size_t i = 0; i < d.len; i++)
        fprintf(stderr, "%s: %s: %s\n", d.items[i].file ? d.items[i].file : "tritondx",
                tdx_severity_str(d.items[i].sev), d.items[i].msg);
    tdx_diags_free(&d);
    return st ? TDX_EXIT_INPUT : 0;
}

int tdx_cli_read_runnable_task(const char *path, const char *what, char **src, size_t *len)
{
    int rc = tdx_cli_read_task(path, src, len);
    if (rc || tdx_dx_task_like(path, *src, *len))
        return rc;
    fprintf(stderr, "%s: error: %s, and %s through them (README, \"Task format\")\n", path, TDX_DX_NOT_A_TASK,
            what);
    free(*src);
    *src = NULL;
    return TDX_EXIT_INPUT;
}

int tdx_cli_check_task(const char *path)
{
    char *text = NULL;
    size_t len = 0;
    int rc = tdx_cli_read_task(path, &text, &len);
    free(text);
    return rc;
}

void tdx_cli_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("tritondx: error: ", stderr);
    vfprintf(stderr, fmt, ap); // NOLINT(clang-analyzer-valist.Uninitialized): va_start above
    fputc('\n', stderr);
    va_end(ap);
}

int tdx_cli_opt_value(int argc, char **argv, int *i, const char *name, const char **val)
{
    const char *a = argv[*i];
    size_t n = strlen(name);
    if (strncmp(a, name, n) != 0)
        return 0;
    if (a[n] == '=') {
        *val = a + n + 1;
        return 1;
    }
    if (a[n] != '\0')
        return 0;
    if (*i + 1 >= argc) {
        tdx_cli_error("option '%s' needs a value", name);
        return -1;
    }
    *val = argv[++*i];
    return 1;
}

int tdx_cli_parse_color(const char *s, tdx_color_mode *out)
{
    if (strcmp(s, "auto") == 0)
        *out = TDX_COLOR_AUTO;
    else if (strcmp(s, "always") == 0)
        *out = TDX_COLOR_ALWAYS;
    else if (strcmp(s, "never") == 0)
        *out = TDX_COLOR_NEVER;
    else
        return -1;
    return 0;
}

int tdx_cli_parse_format(const char *s, int *out)
{
    if (strcmp(s, "text") == 0)
        *out = TDX_FMT_TEXT;
    else if (strcmp(s, "json") == 0)
        *out = TDX_FMT_JSON;
    else if (strcmp(s, "sarif") == 0)
        *out = TDX_FMT_SARIF;
    else
        return -1;
    return 0;
}

int tdx_cli_parse_int(const char *opt, const char *s, int lo, int hi, int *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi) {
        tdx_cli_error("%s takes a whole number from %d to %d, not '%s'", opt, lo, hi, s);
        return -1;
    }
    *out = (int)v;
    return 0;
}

int tdx_cli_parse_double(const char *opt, const char *s, double lo, double hi, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end || !(v >= lo && v <= hi)) {
        tdx_cli_error("%s takes a number from %g to %g, not '%s'", opt, lo, hi, s);
        return -1;
    }
    *out = v;
    return 0;
}

int tdx_cli_use_color(tdx_color_mode mode, FILE *f)
{
    if (mode == TDX_COLOR_ALWAYS)
        return 1;
    if (mode == TDX_COLOR_NEVER)
        return 0;
    const char *nc = getenv("NO_COLOR");
    if (nc && *nc)
        return 0;
    const char *term = getenv("TERM");
    if (term && strcmp(term, "dumb") == 0)
        return 0;
    return isatty(fileno(f));
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return TDX_EXIT_USAGE;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
        usage(stdout);
        return TDX_EXIT_OK;
    }
    if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "version") == 0) {
        printf("tritondx %s\n", TDX_VERSION);
        return TDX_EXIT_OK;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (strcmp(commands[i].name, cmd) == 0)
            return commands[i].run(argc - 1, argv + 1);
    tdx_cli_error("unknown command '%s' (see 'tritondx --help')", cmd);
    return TDX_EXIT_USAGE;
}
