/* The tritondx command line: one cmd_<name>.c per command, dispatched by
 * main.c. Commands parse their own options, call the core library, print,
 * and return an exit code; only main() exits. */
#ifndef TDX_CLI_H
#define TDX_CLI_H

#include <jansson.h>
#include <stdio.h>

#include "base/buf.h"
#include "base/diag.h"
#include "base/status.h"
#include "finding/finding.h"

/* Exit codes (documented in README.md). */
enum {
    TDX_EXIT_OK = 0,       /* ran; nothing to report at warning level or above */
    TDX_EXIT_FINDINGS = 1, /* ran; findings at warning level or above were reported */
    TDX_EXIT_USAGE = 2,    /* bad command line */
    TDX_EXIT_INPUT = 3,    /* an input could not be read or parsed (others were still processed) */
    TDX_EXIT_FAILED = 4,   /* a step failed: child process, compile, GPU, internal error */
};

typedef struct tdx_cli_cmd {
    const char *name;
    int (*run)(int argc, char **argv); /* argv[0] is the command name */
    const char *summary;
} tdx_cli_cmd;

/* Colour: decided once from --color and the terminal. */
typedef enum { TDX_COLOR_AUTO, TDX_COLOR_ALWAYS, TDX_COLOR_NEVER } tdx_color_mode;
/* Non-zero when output to f should be coloured under mode (NO_COLOR honoured). */
int tdx_cli_use_color(tdx_color_mode mode, FILE *f);
/* Parse "auto|always|never"; returns -1 when invalid. */
int tdx_cli_parse_color(const char *s, tdx_color_mode *out);

/* Match option `name` at argv[*i], as "--name VALUE" or "--name=VALUE".
 * Returns 1 with *val set (and *i advanced past a separate value), 0 when
 * argv[*i] is another option, -1 when the value is missing (an error has
 * been printed). */
int tdx_cli_opt_value(int argc, char **argv, int *i, const char *name, const char **val);

/* Output formats of the commands that print findings. */
enum { TDX_FMT_TEXT, TDX_FMT_JSON, TDX_FMT_SARIF };
/* Parse "text|json|sarif" into *out; returns -1 when invalid. */
int tdx_cli_parse_format(const char *s, int *out);

/* One task's findings, as diagnose/profile/attribute/analyze print them
 * (cli/render.c). Everything is borrowed. */
typedef struct tdx_cli_render {
    int fmt;                     /* TDX_FMT_* */
    tdx_color_mode color;
    const char *task;            /* the task file and its text, for locations and carets */
    const char *src;
    size_t len;
    tdx_status status;           /* how the command's run ended */
    const tdx_ledger *ledger;
    const tdx_diags *diags;      /* printed on stderr; may be NULL */
    /* text: lines after the findings when the run succeeded (may be NULL) */
    tdx_status (*text_tail)(void *ud, tdx_buf *out);
    /* json: members added to the findings document (may be NULL) */
    void (*json_extra)(void *ud, json_t *doc);
    void *ud;
} tdx_cli_render;

/* Print diags on stderr and the findings on stdout; returns the renderer's status. */
tdx_status tdx_cli_render_task(const tdx_cli_render *r);
/* The exit code of a per-task command: FAILED when rendering or the run
 * failed (INPUT when the task could not be read or parsed), else FINDINGS
 * when anything is at warning level or above, else OK. */
int tdx_cli_task_exit(tdx_status render, tdx_status run, const tdx_ledger *led);

/* A whole number in [lo, hi], or a finite number in [lo, hi], as the value
 * of option opt; otherwise an error naming the option is printed and -1
 * returned (*out untouched). */
int tdx_cli_parse_int(const char *opt, const char *s, int lo, int hi, int *out);
int tdx_cli_parse_double(const char *opt, const char *s, double lo, double hi, double *out);

/* Read the task file a command names (tdx_in_read_task: the same messages
 * as triage's for a missing, unreadable, binary or too large file, or a
 * directory); 0 with *src (the caller frees it) and *len set, else the
 * error is printed on stderr and TDX_EXIT_INPUT returned. */
int tdx_cli_read_task(const char *path, char **src, size_t *len);
/* tdx_cli_read_task for a command that runs the task (what: "profile times
 * the kernel"): a file that is no task, a kernel file alone
 * (tdx_dx_task_like), is refused too, in one line that says what the
 * command needs and why. */
int tdx_cli_read_runnable_task(const char *path, const char *what, char **src, size_t *len);
/* The same for a command that hands the path on and reads nothing itself:
 * 0 when the file is fit to be a task, else TDX_EXIT_INPUT (printed). */
int tdx_cli_check_task(const char *path);

/* Print "tritondx: error: <msg>" to stderr. */
void tdx_cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

int tdx_cmd_triage(int argc, char **argv);
int tdx_cmd_check(int argc, char **argv);
int tdx_cmd_profile(int argc, char **argv);
int tdx_cmd_attribute(int argc, char **argv);
int tdx_cmd_analyze(int argc, char **argv);
int tdx_cmd_diagnose(int argc, char **argv);
int tdx_cmd_optimize(int argc, char **argv);
int tdx_cmd_bench(int argc, char **argv);
int tdx_cmd_report(int argc, char **argv);
int tdx_cmd_ceilings(int argc, char **argv);
int tdx_cmd_rules(int argc, char **argv);
int tdx_cmd_rewrite(int argc, char **argv);

#endif
