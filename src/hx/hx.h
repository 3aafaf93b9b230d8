/* tdx_hx: calling the Python harness (tdx_hx_*).
 *
 * One call runs `PYTHON -m tritondx_harness VERB --task FILE [args...]` as a
 * child (tdx_proc: timeout, rlimits, capped output) and reads back ONE JSON
 * object from its stdout -- the whole of stdout, or else its last non-empty
 * line, so that stray prints before the reply do no harm. The protocol: the
 * object has at least {"ok": bool, "verb": "VERB", "protocol": 1}; with
 * "ok": false it carries "error": "message".
 *
 * Anything else is a failed step with a one-line reason that says what
 * happened, in this order of precedence:
 *   "could not run python3: No such file or directory"
 *   "could not start python3 (chdir): No such file or directory"
 *   "timed out after 30 s"
 *   "killed by signal 11 (SIGSEGV)"
 *   "over its CPU time limit of 20 s (SIGXCPU)"
 *   "output over cap (N bytes written, cap M)"  (the child is killed at once
 *                                                 when stdout passes the cap)
 *   "harness reported error: <msg>"        (a reply with "ok": false)
 *   "exited with status 3: <last line of stderr>"
 *   "output is not JSON: <first 80 bytes>"
 *   "output is not a JSON object", "protocol mismatch: ...",
 *   "reply has no boolean \"ok\"", "reply is for verb X, not Y"
 *
 * The python executable is opts->python, else $TDX_PYTHON, else "python3".
 * The directory holding the tritondx_harness package goes first on
 * PYTHONPATH: opts->harness_dir, else $TDX_HARNESS_PATH, else python/ found
 * next to the executable (build/tritondx -> python/), else the source tree
 * tritondx was built from (TDX_SOURCE_DIR/python).
 *
 * Ownership: opts and its strings are the caller's. A reply owns its JSON
 * object and its proc result; release both with tdx_hx_reply_free(), or take
 * the object with tdx_hx_reply_take() (then the caller json_decref()s it). */
#ifndef TDX_HX_HX_H
#define TDX_HX_HX_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "base/diag.h"
#include "base/status.h"
#include "proc/proc.h"

#define TDX_HX_PROTOCOL 1

typedef struct tdx_hx_opts {
    const char *python;      /* NULL: $TDX_PYTHON or "python3" */
    const char *harness_dir; /* NULL: found as described above */
    double timeout_s;        /* 0: 600 s */
    size_t stdout_cap;       /* 0: 64 MiB; over it the call fails */
    size_t stderr_cap;       /* 0: 1 MiB, the tail is kept */
    const char *const *env_set; /* extra "NAME=VALUE" entries, NULL-ended */
    const char *cwd;         /* NULL: tritondx's */
    int private_tmpdir;      /* run in a private directory (see proc.h) */
    uint64_t rlimit_as;      /* bytes, 0: none (CUDA reserves a lot of it) */
    uint64_t rlimit_fsize;   /* bytes, 0: none */
    uint64_t rlimit_cpu;     /* CPU seconds of each process, 0: none */
    tdx_proc_net net;
    tdx_proc_fs fs;          /* write isolation (see proc.h) */
    const char *const *fs_writable; /* extra writable folders, NULL-ended */
    const char *const *env_unset;   /* names not passed on, NULL-ended */
} tdx_hx_opts;

typedef struct tdx_hx_reply {
    /* The reply object: set on success and also when the harness reported an
     * error ("ok": false), for callers that want its details. */
    json_t *json;
    /* One line saying why the call failed; "" on success. */
    char reason[512];
    /* How the child ran: exit status, wall time, stdout, stderr tail. */
    tdx_proc_result proc;
} tdx_hx_reply;

/* Run one verb. task may be NULL (no --task); args is NULL-ended or NULL.
 * Returns TDX_OK with r->json an object whose "ok" is true; otherwise
 * r->reason says why and the status is TDX_ERR_CHILD (the harness failed),
 * TDX_ERR_NOTFOUND (no python or no harness), TDX_ERR_ARG or TDX_ERR_NOMEM.
 * On failure the reason is also added to diags (when not NULL) as an error
 * at the task file. *r is overwritten; free it in every case. */
tdx_status tdx_hx_call(const tdx_hx_opts *opts, const char *verb, const char *task,
                       const char *const *args, tdx_hx_reply *r, tdx_diags *diags);

/* Judge a child that ran (r->proc filled, r->json NULL) as tdx_hx_call
 * does: sets r->json or r->reason and returns TDX_OK or TDX_ERR_CHILD.
 * timeout_s, out_cap and cpu_s (the CPU-time limit, 0 none) only go into
 * the reason. */
tdx_status tdx_hx_judge(tdx_hx_reply *r, const char *verb, double timeout_s, size_t out_cap,
                        uint64_t cpu_s);

/* The problems of a `validate` reply ("problems": [{"message", "line"}]) as
 * lines "TASK:LINE: error: MESSAGE" (or "TASK: error: MESSAGE" with no
 * line) appended to out; entries that are not objects are skipped and a
 * missing message reads "(no message)". Returns how many lines were added. */
size_t tdx_hx_validate_problems(json_t *reply, const char *task, tdx_buf *out);

/* Release what a reply owns. */
void tdx_hx_reply_free(tdx_hx_reply *r);

/* Take the reply's JSON object (the caller json_decref()s it); NULL if none. */
json_t *tdx_hx_reply_take(tdx_hx_reply *r);

/* The directory to put on PYTHONPATH (see above); *dir is malloc'd.
 * TDX_ERR_NOTFOUND when no candidate holds tritondx_harness/__init__.py. */
tdx_status tdx_hx_harness_dir(const char *hint, char **dir);

/* Parse one reply from stdout text: the whole text, else its last non-empty
 * line. NULL when neither is JSON. The caller json_decref()s the result. */
json_t *tdx_hx_parse_stdout(const char *out, size_t len);

#endif
