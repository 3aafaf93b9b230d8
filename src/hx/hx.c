/* Calling the Python harness: argv and environment, the run, and the
 * classification of whatever came back into a reply or a one-line reason. */
#include "hx/hx.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define TDX_HX_DEFAULT_TIMEOUT 600.0
#define TDX_HX_DEFAULT_OUT_CAP ((size_t)64 << 20)
#define TDX_HX_DEFAULT_ERR_CAP ((size_t)1 << 20)
#define TDX_HX_MAX_ARGS 256

// Non-zero when dir/tritondx_harness/__init__.py exists.
static int holds_harness(const char *dir)
{
    char path[PATH_MAX];
    struct stat st;
    if (snprintf(path, sizeof path, "%s/tritondx_harness/__init__.py", dir) >= (int)sizeof path)
        return 0;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

// Canonical copy of dir when it holds the harness (or is the package
// itself: then its parent); NULL otherwise.
static char *accept_dir(const char *dir)
{
    char real[PATH_MAX];
    if (!dir || !dir[0] || !realpath(dir, real))
        return NULL;
    if (holds_harness(real))
        return strdup(real);
    char *slash = strrchr(real, '/');
    if (slash && strcmp(slash + 1, "tritondx_harness") == 0) {
        *slash = '\0';
        if (real[0] && holds_harness(real))
            return strdup(real);
    }
    return NULL;
}

tdx_status tdx_hx_harness_dir(const char *hint, char **dir)
{
    *dir = NULL;
    if (hint)
        return (*dir = accept_dir(hint)) ? TDX_OK : TDX_ERR_NOTFOUND;
    if ((*dir = accept_dir(getenv("TDX_HARNESS_PATH"))))
        return TDX_OK;
    /* Next to the executable: build/tritondx, build/tests/test_x, or an
     * installed bin/tritondx with share/tritondx/python. */
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = '\0';
        char *slash = strrchr(exe, '/');
        if (slash) {
            *slash = '\0';
            static const char *const rel[] = {"/../python", "/../../python",
                                              "/../share/tritondx/python"};
            for (size_t i = 0; i < sizeof rel / sizeof rel[0]; i++) {
                char cand[PATH_MAX];
                if (snprintf(cand, sizeof cand, "%s%s", exe, rel[i]) < (int)sizeof cand &&
                    (*dir = accept_dir(cand)))
                    return TDX_OK;
            }
        }
    }
#ifdef TDX_SOURCE_DIR
    if ((*dir = accept_dir(TDX_SOURCE_DIR "/python")))
        return TDX_OK;
#endif
    return TDX_ERR_NOTFOUND;
}

json_t *tdx_hx_parse_stdout(const char *out, size_t len)
{
    if (!out || !len)
        return NULL;
    json_error_t jerr;
    json_t *j = json_loadb(out, len, JSON_DECODE_ANY, &jerr);
    if (j)
        return j;
    size_t end = len;
    while (end > 0 && (out[end - 1] == '\n' || out[end - 1] == '\r' || out[end - 1] == ' ' ||
                       out[end - 1] == '\t'))
        end--;
    size_t begin = end;
    while (begin > 0 && out[begin - 1] != '\n')
        begin--;
    if (begin == 0 || begin == end)
        return NULL; /* one line only: already tried */
    return json_loadb(out + begin, end - begin, JSON_DECODE_ANY, &jerr);
}

// Set the reason (one line, cut to fit).
static void say(tdx_hx_reply *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(tdx_hx_reply *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->reason, sizeof r->reason, fmt, ap);
    va_end(ap);
    for (char *p = r->reason; *p; p++)
        if ((unsigned char)*p < 0x20)
            *p = ' ';
}

// The first n bytes of text, printable, for a message.
static void excerpt(const char *text, size_t len, size_t n, char *buf, size_t size)
{
    if (len > n)
        len = n;
    if (len > size - 1)
        len = size - 1;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)text[i];
        buf[i] = (c < 0x20 || c == 0x7f) ? ' ' : (char)c;
    }
    while (len > 0 && buf[len - 1] == ' ')
        len--;
    buf[len] = '\0';
}

// Judge a finished child and its stdout; fills r->json or r->reason.
tdx_status tdx_hx_judge(tdx_hx_reply *r, const char *verb, double timeout_s, size_t out_cap,
                         uint64_t cpu_s)
{
    const tdx_proc_result *p = &r->proc;
    char line[200];
    if (p->timed_out) {
        say(r, "timed out after %g s", timeout_s);
        return TDX_ERR_CHILD;
    }
    if (p->signaled && p->term_signal == SIGXCPU && cpu_s) {
        say(r, "over its CPU time limit of %llu s (SIGXCPU)", (unsigned long long)cpu_s);
        return TDX_ERR_CHILD;
    }
    if (p->signaled && !p->stopped_at_cap) {
        say(r, "killed by signal %d (%s)", p->term_signal, tdx_proc_signame(p->term_signal));
        return TDX_ERR_CHILD;
    }
    if (p->out_over_cap) {
        /* stopped at the cap: the count is what was read until then */
        say(r, "output over cap (%s%llu bytes written, cap %zu)",
            p->stopped_at_cap ? "at least " : "",
            (unsigned long long)p->out_total, out_cap);
        return TDX_ERR_CHILD;
    }
    json_t *j = tdx_hx_parse_stdout(p->out, p->out_len);
    json_t *ok = json_is_object(j) ? json_object_get(j, "ok") : NULL;
    if (json_is_false(ok)) {
        /* the harness's own account beats the exit status it chose */
        const char *msg = json_string_value(json_object_get(j, "error"));
        if (!msg || !msg[0])
            msg = "(no message)";
        const char *nl = strchr(msg, '\n');
        say(r, "harness reported error: %.*s", nl ? (int)(nl - msg) : 400, msg);
        r->json = j;
        return TDX_ERR_CHILD;
    }
    if (!p->exited || p->exit_status != 0) {
        json_decref(j);
        tdx_proc_last_line(p->err, p->err_len, line, sizeof line);
        say(r, "exited with status %d%s%s", p->exit_status, line[0] ? ": " : "", line);
        return TDX_ERR_CHILD;
    }
    if (!j) {
        if (p->out_len == 0)
            say(r, "output is not JSON: (empty)");
        else {
            excerpt(p->out, p->out_len, 80, line, sizeof line);
            say(r, "output is not JSON: %s", line);
        }
        return TDX_ERR_CHILD;
    }
    tdx_status st = TDX_ERR_CHILD;
    json_t *proto = json_object_get(j, "protocol");
    const char *rverb = json_string_value(json_object_get(j, "verb"));
    if (!json_is_object(j))
        say(r, "output is not a JSON object");
    else if (!json_is_integer(proto) || json_integer_value(proto) != TDX_HX_PROTOCOL)
        say(r, "protocol mismatch: expected %d, got %s", TDX_HX_PROTOCOL,
            json_is_integer(proto) ? "another version" : "none");
    else if (!json_is_boolean(ok))
        say(r, "reply has no boolean \"ok\"");
    else if (!rverb || strcmp(rverb, verb) != 0)
        say(r, "reply is for verb %.60s, not %.60s", rverb ? rverb : "(none)", verb);
    else
        st = TDX_OK;
    if (st == TDX_OK)
        r->json = j;
    else
        json_decref(j);
    return st;
}

// "PYTHONPATH=dir[:old]" (malloc'd), old from the caller's env_set or ours.
static char *pythonpath_entry(const char *dir, const char *const *env_set)
{
    const char *old = NULL;
    for (size_t i = 0; env_set && env_set[i]; i++)
        if (strncmp(env_set[i], "PYTHONPATH=", 11) == 0)
            old = env_set[i] + 11;
    if (!old)
        old = getenv("PYTHONPATH");
    size_t n = strlen(dir) + (old ? strlen(old) : 0) + 16;
    char *e = malloc(n);
    int more = old && old[0];
    if (e)
        snprintf(e, n, "PYTHONPATH=%s%s%s", dir, more ? ":" : "", more ? old : "");
    return e;
}

tdx_status tdx_hx_call(const tdx_hx_opts *opts, const char *verb, const char *task,
                       const char *const *args, tdx_hx_reply *r, tdx_diags *diags)
{
    memset(r, 0, sizeof *r);
    tdx_hx_opts dflt;
    memset(&dflt, 0, sizeof dflt);
    const tdx_hx_opts *o = opts ? opts : &dflt;
    if (!verb || !verb[0]) {
        say(r, "no verb");
        return TDX_ERR_ARG;
    }
    const char *python = o->python;
    if (!python || !python[0])
        python = getenv("TDX_PYTHON");
    if (!python || !python[0])
        python = "python3";

    tdx_status st;
    char *dir = NULL, *pp = NULL;
    const char **argv = NULL, **env = NULL;
    size_t nargs = 0, nenv = 0;
    while (args && args[nargs])
        nargs++;
    while (o->env_set && o->env_set[nenv])
        nenv++;
    if (nargs > TDX_HX_MAX_ARGS) {
        say(r, "too many arguments");
        st = TDX_ERR_ARG;
        goto out;
    }
    st = tdx_hx_harness_dir(o->harness_dir, &dir);
    if (st) {
        say(r, "harness not found (set TDX_HARNESS_PATH to the folder holding tritondx_harness)");
        goto out;
    }
    pp = pythonpath_entry(dir, o->env_set);
    argv = calloc(nargs + 8, sizeof *argv);
    env = calloc(nenv + 2, sizeof *env);
    if (!pp || !argv || !env) {
        say(r, "out of memory");
        st = TDX_ERR_NOMEM;
        goto out;
    }
    size_t k = 0;
    argv[k++] = python;
    argv[k++] = "-m";
    argv[k++] = "tritondx_harness";
    argv[k++] = verb;
    if (task) {
        argv[k++] = "--task";
        argv[k++] = task;
    }
    for (size_t i = 0; i < nargs; i++)
        argv[k++] = args[i];
    k = 0;
    for (size_t i = 0; i < nenv; i++)
        if (strncmp(o->env_set[i], "PYTHONPATH=", 11) != 0)
            env[k++] = o->env_set[i];
    env[k++] = pp;

    tdx_proc_opts po;
    memset(&po, 0, sizeof po);
    po.argv = argv;
    po.env_set = env;
    po.cwd = o->cwd;
    po.private_tmpdir = o->private_tmpdir;
    po.timeout_s = o->timeout_s > 0 ? o->timeout_s : TDX_HX_DEFAULT_TIMEOUT;
    po.stdout_cap = o->stdout_cap ? o->stdout_cap : TDX_HX_DEFAULT_OUT_CAP;
    po.stderr_cap = o->stderr_cap ? o->stderr_cap : TDX_HX_DEFAULT_ERR_CAP;
    po.stdout_keep = TDX_PROC_KEEP_HEAD;
    po.stderr_keep = TDX_PROC_KEEP_TAIL;
    po.rlimit_as = o->rlimit_as;
    po.rlimit_fsize = o->rlimit_fsize;
    po.rlimit_cpu = o->rlimit_cpu;
    po.net = o->net;
    po.fs = o->fs;
    po.fs_writable = o->fs_writable;
    po.env_unset = o->env_unset;
    po.stop_at_stdout_cap = 1; /* more than the cap fails the call anyway */
    st = tdx_proc_run(&po, &r->proc);
    if (st == TDX_OK)
        st = tdx_hx_judge(r, verb, po.timeout_s, po.stdout_cap, po.rlimit_cpu);
    else if ((st == TDX_ERR_NOTFOUND || st == TDX_ERR_CHILD) && r->proc.failed_step &&
             strcmp(r->proc.failed_step, "exec") != 0)
        say(r, "could not start %.200s (%s): %s", python, r->proc.failed_step,
            strerror(r->proc.exec_errno));
    else if (st == TDX_ERR_NOTFOUND || st == TDX_ERR_CHILD)
        say(r, "could not run %.200s: %s", python,
            r->proc.exec_errno ? strerror(r->proc.exec_errno) : strerror(ENOENT));
    else if (st == TDX_ERR_UNSUPPORTED)
        say(r, "%s isolation is not available here",
            r->proc.failed_step && strcmp(r->proc.failed_step, "landlock") == 0 ? "file system"
                                                                                : "network");
    else
        say(r, "could not start the harness: %s", tdx_status_str(st));
out:
    if (st && diags)
        tdx_diags_add(diags, TDX_SEV_ERROR, task, 0, 0, "harness %s: %s", verb, r->reason);
    free(dir);
    free(pp);
    free(argv);
    free(env);
    return st;
}

void tdx_hx_reply_free(tdx_hx_reply *r)
{
    if (!r)
        return;
    json_decref(r->json);
    r->json = NULL;
    tdx_proc_result_free(&r->proc);
    r->reason[0] = '\0';
}

json_t *tdx_hx_reply_take(tdx_hx_reply *r)
{
    json_t *j = r->json;
    r->json = NULL;
    return j;
}

size_t tdx_hx_validate_problems(json_t *reply, const char *task, tdx_buf *out)
{
    json_t *problems = json_object_get(reply, "problems");
    size_t n = 0;
    for (size_t i = 0; i < json_array_size(problems); i++) {
        json_t *p = json_array_get(problems, i);
        if (!json_is_object(p))
            continue;
        const char *msg = json_string_value(json_object_get(p, "message"));
        json_t *line = json_object_get(p, "line");
        tdx_status st;
        if (json_is_integer(line))
            st = tdx_buf_printf(out, "%s:%lld: error: %s\n", task, (long long)json_integer_value(line),
                                msg ? msg : "(no message)");
        else
            st = tdx_buf_printf(out, "%s: error: %s\n", task, msg ? msg : "(no message)");
        if (st)
            break;
        n++;
    }
    return n;
}
