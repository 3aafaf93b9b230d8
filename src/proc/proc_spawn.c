/* Planning a child before fork, and setting it up between fork and exec. */
#define _GNU_SOURCE 1
#include "proc/proc_int.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

// Length of the NAME part of a "NAME=VALUE" entry.
static size_t name_len(const char *entry)
{
    const char *eq = strchr(entry, '=');
    return eq ? (size_t)(eq - entry) : strlen(entry);
}

// Non-zero when entry's name is one of names (entries "NAME" or "NAME=...").
static int name_in(const char *entry, const char *const *names)
{
    if (!names)
        return 0;
    size_t n = name_len(entry);
    for (size_t i = 0; names[i]; i++)
        if (name_len(names[i]) == n && strncmp(entry, names[i], n) == 0)
            return 1;
    return 0;
}

// The value of NAME in a NULL-ended environment, or NULL.
static const char *env_get(char *const *envp, const char *name)
{
    size_t n = strlen(name);
    for (size_t i = 0; envp[i]; i++)
        if (strncmp(envp[i], name, n) == 0 && envp[i][n] == '=')
            return envp[i] + n + 1;
    return NULL;
}

// inherited - unset - overridden + set (+ TMPDIR), as one NULL-ended array.
static tdx_status build_env(tdx_proc_plan *p, const tdx_proc_opts *o)
{
    size_t n = 0, nset = 0;
    if (!o->env_clear)
        while (environ && environ[n])
            n++;
    while (o->env_set && o->env_set[nset])
        nset++;
    p->envp = calloc(n + nset + 2, sizeof *p->envp);
    if (!p->envp)
        return TDX_ERR_NOMEM;
    const char *tmpdir_name[] = {"TMPDIR", NULL};
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        const char *e = environ[i];
        if (!strchr(e, '=') || name_in(e, o->env_unset) || name_in(e, o->env_set))
            continue;
        if (p->tmpdir_env && name_in(e, tmpdir_name))
            continue;
        p->envp[k++] = (char *)e;
    }
    for (size_t i = 0; i < nset; i++) {
        if (!strchr(o->env_set[i], '='))
            return TDX_ERR_ARG;
        if (p->tmpdir_env && name_in(o->env_set[i], tmpdir_name))
            continue;
        p->envp[k++] = (char *)o->env_set[i];
    }
    if (p->tmpdir_env)
        p->envp[k++] = p->tmpdir_env;
    p->envp[k] = NULL;
    return TDX_OK;
}

// Non-zero when path names an executable regular file.
static int is_exec_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

// Take a found program's path, made absolute: the child changes directory
// before it calls execve.
static tdx_status take_path(tdx_proc_plan *p, char *path)
{
    if (path[0] == '/') {
        p->path = path;
        return TDX_OK;
    }
    char cwd[4096];
    if (!getcwd(cwd, sizeof cwd)) {
        free(path);
        return TDX_ERR_IO;
    }
    size_t n = strlen(cwd) + strlen(path) + 2;
    p->path = malloc(n);
    if (p->path)
        snprintf(p->path, n, "%s/%s", cwd, path);
    free(path);
    return p->path ? TDX_OK : TDX_ERR_NOMEM;
}

// Find the program like execvp would, but before fork (it allocates).
static tdx_status resolve_program(tdx_proc_plan *p, const char *prog)
{
    if (strchr(prog, '/')) {
        if (!is_exec_file(prog))
            return TDX_ERR_NOTFOUND;
        char *copy = strdup(prog);
        return copy ? take_path(p, copy) : TDX_ERR_NOMEM;
    }
    const char *path = env_get(p->envp, "PATH");
    if (!path)
        path = "/usr/local/bin:/usr/bin:/bin";
    size_t plen = strlen(prog);
    for (const char *s = path;;) {
        const char *colon = strchr(s, ':');
        size_t dlen = colon ? (size_t)(colon - s) : strlen(s);
        char *cand = malloc(dlen + plen + 3);
        if (!cand)
            return TDX_ERR_NOMEM;
        if (dlen == 0) /* an empty PATH element is the current directory */
            snprintf(cand, dlen + plen + 3, "./%s", prog);
        else
            snprintf(cand, dlen + plen + 3, "%.*s/%s", (int)dlen, s, prog);
        if (is_exec_file(cand))
            return take_path(p, cand);
        free(cand);
        if (!colon)
            break;
        s = colon + 1;
    }
    return TDX_ERR_NOTFOUND;
}

tdx_status tdx_proc_plan_build(tdx_proc_plan *p, const tdx_proc_opts *o, const char *tmpdir)
{
    memset(p, 0, sizeof *p);
    p->landlock_fd = -1;
    p->opts = o;
    p->argv = (char *const *)o->argv;
    p->parent_pid = (int)getpid();
    p->cwd = o->cwd ? o->cwd : tmpdir;
    if (tmpdir) {
        p->tmpdir_env = malloc(strlen(tmpdir) + 8);
        if (!p->tmpdir_env)
            return TDX_ERR_NOMEM;
        snprintf(p->tmpdir_env, strlen(tmpdir) + 8, "TMPDIR=%s", tmpdir);
    }
    tdx_status st = build_env(p, o);
    if (st)
        return st;
    if (o->fs != TDX_PROC_FS_INHERIT)
        tdx_proc_landlock_plan(p, o, tmpdir);
    /* Map our own ids into the new user namespace so that the child keeps
     * seeing its real uid/gid (Python looks up $HOME by uid). */
    snprintf(p->uid_map, sizeof p->uid_map, "%u %u 1\n", (unsigned)getuid(), (unsigned)getuid());
    snprintf(p->gid_map, sizeof p->gid_map, "%u %u 1\n", (unsigned)getgid(), (unsigned)getgid());
    return resolve_program(p, o->argv[0]);
}

void tdx_proc_plan_free(tdx_proc_plan *p)
{
    free(p->path);
    free(p->envp);
    free(p->tmpdir_env);
    if (p->landlock_fd >= 0)
        close(p->landlock_fd);
    memset(p, 0, sizeof *p);
    p->landlock_fd = -1;
}

/* ---- in the child: async-signal-safe calls only from here on ---- */

// Tell the parent about a step; a failed write changes nothing.
static void report(int fd, int kind, int err)
{
    tdx_proc_msg m = {kind, err};
    ssize_t w = write(fd, &m, sizeof m);
    (void)w;
}

// Write a whole small string to a /proc file; 0 on success.
static int write_file(const char *path, const char *text)
{
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    size_t n = strlen(text);
    ssize_t w = write(fd, text, n);
    close(fd);
    return w == (ssize_t)n ? 0 : -1;
}

// A new user + network namespace: no interface is up, so nothing connects.
static int isolate_network(const tdx_proc_plan *p)
{
    if (unshare(CLONE_NEWUSER | CLONE_NEWNET) != 0)
        return -1;
    /* Without setgroups denied an unprivileged process may not write its
     * gid_map (user_namespaces(7)); a failed map leaves the overflow ids,
     * which is harmless. */
    write_file("/proc/self/setgroups", "deny");
    write_file("/proc/self/uid_map", p->uid_map);
    write_file("/proc/self/gid_map", p->gid_map);
    return 0;
}

// Set one limit, soft and hard (hard = soft + slack); 0 leaves it alone.
static int limit(int resource, uint64_t value, uint64_t slack)
{
    if (!value)
        return 0;
    struct rlimit rl = {(rlim_t)value, (rlim_t)(value + slack)};
    return setrlimit(resource, &rl);
}

// Make every descriptor from 3 up close on exec (the status pipe included).
static void cloexec_from_3(void)
{
#if defined(SYS_close_range) && defined(CLOSE_RANGE_CLOEXEC)
    if (syscall(SYS_close_range, 3u, ~0u, CLOSE_RANGE_CLOEXEC) == 0)
        return;
#endif
    long max = sysconf(_SC_OPEN_MAX);
    if (max < 0 || max > 65536)
        max = 65536;
    for (int fd = 3; fd < max; fd++)
        fcntl(fd, F_SETFD, FD_CLOEXEC);
}

_Noreturn void tdx_proc_child_exec(const tdx_proc_plan *p, int stdin_fd, int out_fd, int err_fd,
                                   int status_fd)
{
    const tdx_proc_opts *o = p->opts;
    setpgid(0, 0);
    /* Die with tritondx; the check closes the race with a parent that died
     * before the prctl. */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if ((int)getppid() != p->parent_pid)
        _exit(127);
    /* Ignored signals survive exec; give the child default dispositions and
     * an empty mask whatever tritondx itself uses. */
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    for (int s = 1; s < NSIG; s++)
        sigaction(s, &dfl, NULL);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);

    if (o->net != TDX_PROC_NET_INHERIT) {
        if (isolate_network(p) == 0) {
            report(status_fd, TDX_PROC_MSG_NET_OK, 0);
        } else {
            report(status_fd, TDX_PROC_MSG_NET_FAIL, errno);
            if (o->net == TDX_PROC_NET_REQUIRE)
                _exit(127);
        }
    }
    if (p->cwd && chdir(p->cwd) != 0) {
        report(status_fd, TDX_PROC_MSG_CHDIR, errno);
        _exit(127);
    }
    /* No core files ever: a crashing candidate must not fill the disk. */
    struct rlimit nocore = {0, 0};
    /* The CPU hard limit is a second above the soft one: at the soft limit
     * the kernel sends SIGXCPU (a named reason), at the hard one SIGKILL,
     * and with both equal SIGKILL wins (setrlimit(2)). */
    if (setrlimit(RLIMIT_CORE, &nocore) || limit(RLIMIT_AS, o->rlimit_as, 0) ||
        limit(RLIMIT_CPU, o->rlimit_cpu, 1) || limit(RLIMIT_NOFILE, o->rlimit_nofile, 0) ||
        limit(RLIMIT_FSIZE, o->rlimit_fsize, 0)) {
        report(status_fd, TDX_PROC_MSG_RLIMIT, errno);
        _exit(127);
    }
    /* Last before exec: from here on the child writes only where the
     * ruleset lets it (its private directory, device nodes). */
    if (o->fs != TDX_PROC_FS_INHERIT) {
        if (tdx_proc_landlock_apply(p) == 0) {
            report(status_fd, TDX_PROC_MSG_FS_OK, p->landlock_abi);
        } else {
            report(status_fd, TDX_PROC_MSG_FS_FAIL, errno);
            if (o->fs == TDX_PROC_FS_REQUIRE)
                _exit(127);
        }
    }

    if (dup2(stdin_fd, 0) < 0 || dup2(out_fd, 1) < 0 || dup2(err_fd, 2) < 0) {
        report(status_fd, TDX_PROC_MSG_EXEC, errno);
        _exit(127);
    }
    cloexec_from_3();
    execve(p->path, p->argv, p->envp);
    report(status_fd, TDX_PROC_MSG_EXEC, errno);
    _exit(127);
}
