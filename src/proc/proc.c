/* Running a child: pipes, the poll loop that drains them under caps, the
 * timeout that kills the process group, and reaping. */
#define _GNU_SOURCE 1
#include "proc/proc.h"
#include "proc/proc_int.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define TDX_PROC_DEFAULT_CAP ((size_t)16 << 20)
#define TDX_PROC_DEFAULT_GRACE 2.0
/* How long output is still read after the child ended and its group was
 * killed: only a process that left the group can hold the pipes longer. */
#define TDX_PROC_DRAIN_S 0.5
/* Poll tick when the kernel cannot tell us about the child's end (no pidfd). */
#define TDX_PROC_TICK_MS 10

// Seconds on the monotonic clock.
static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ---- capped capture of one stream ---- */

typedef struct capture {
    char *data;
    size_t len, alloc;
    size_t cap;
    tdx_proc_keep keep;
    uint64_t total;
    int nomem;
} capture;

// Make room for len + n bytes (+ NUL) without going past limit + 1.
static int cap_reserve(capture *c, size_t need, size_t limit)
{
    if (need + 1 <= c->alloc)
        return 0;
    size_t a = c->alloc ? c->alloc : 4096;
    while (a < need + 1)
        a *= 2;
    if (a > limit + 1)
        a = limit + 1;
    char *p = realloc(c->data, a);
    if (!p)
        return -1;
    c->data = p;
    c->alloc = a;
    return 0;
}

// Keep bytes of a chunk per the stream's policy; the rest is only counted.
static void cap_add(capture *c, const char *p, size_t n)
{
    c->total += n;
    if (c->nomem || c->cap == 0)
        return;
    if (c->keep == TDX_PROC_KEEP_HEAD) {
        size_t room = c->cap - c->len;
        if (n > room)
            n = room;
        if (!n)
            return;
        if (cap_reserve(c, c->len + n, c->cap)) {
            c->nomem = 1;
            return;
        }
        memcpy(c->data + c->len, p, n);
        c->len += n;
        return;
    }
    /* Tail: fill up to twice the cap, then slide the last cap bytes to the
     * front, so that each byte is moved at most once per cap bytes read. */
    if (n >= c->cap) {
        p += n - c->cap;
        n = c->cap;
        c->len = 0;
    }
    if (c->len + n > 2 * c->cap) {
        size_t retain = c->cap - n;
        memmove(c->data, c->data + c->len - retain, retain);
        c->len = retain;
    }
    if (cap_reserve(c, c->len + n, 2 * c->cap)) {
        c->nomem = 1;
        return;
    }
    memcpy(c->data + c->len, p, n);
    c->len += n;
}

// Hand the kept bytes over as a NUL-terminated string.
static char *cap_finish(capture *c, size_t *len)
{
    if (c->keep == TDX_PROC_KEEP_TAIL && c->len > c->cap) {
        memmove(c->data, c->data + c->len - c->cap, c->cap);
        c->len = c->cap;
    }
    if (cap_reserve(c, c->len, c->len)) {
        free(c->data);
        c->data = NULL;
        c->len = 0;
    }
    if (!c->data)
        c->data = calloc(1, 1);
    if (c->data)
        c->data[c->len] = '\0';
    *len = c->data ? c->len : 0;
    char *d = c->data;
    c->data = NULL;
    return d;
}

/* ---- descriptors ---- */

// Move fd to 3 or above (a caller with 0/1/2 closed must not see its pipes
// clobbered by the child's dup2) and make it close-on-exec.
static int fd_high(int fd)
{
    if (fd < 0 || fd > 2)
        return fd;
    int n = fcntl(fd, F_DUPFD_CLOEXEC, 3);
    close(fd);
    return n;
}

// A pipe whose both ends are >= 3 and close-on-exec.
static int make_pipe(int fds[2])
{
    if (pipe2(fds, O_CLOEXEC) != 0)
        return -1;
    fds[0] = fd_high(fds[0]);
    fds[1] = fd_high(fds[1]);
    if (fds[0] < 0 || fds[1] < 0) {
        if (fds[0] >= 0)
            close(fds[0]);
        if (fds[1] >= 0)
            close(fds[1]);
        return -1;
    }
    return 0;
}

static void close_fd(int *fd)
{
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
}

// The child's stdin: the bytes in an anonymous file, or /dev/null.
static int make_stdin(const tdx_proc_opts *o)
{
    if (!o->stdin_data)
        return fd_high(open("/dev/null", O_RDONLY | O_CLOEXEC));
    int fd = memfd_create("tdx-stdin", MFD_CLOEXEC);
    if (fd < 0) {
        FILE *f = tmpfile();
        if (!f)
            return -1;
        fd = fcntl(fileno(f), F_DUPFD_CLOEXEC, 3);
        fclose(f);
        if (fd < 0)
            return -1;
    }
    fd = fd_high(fd);
    const char *p = o->stdin_data;
    size_t left = o->stdin_len;
    while (left) {
        ssize_t w = write(fd, p, left);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            close(fd);
            return -1;
        }
        p += w;
        left -= (size_t)w;
    }
    if (lseek(fd, 0, SEEK_SET) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

// A descriptor that polls readable when the child ends, or -1 (kernels
// before 5.3, and valgrind, which does not know the call: then we tick).
static int open_pidfd(pid_t pid)
{
#ifdef SYS_pidfd_open
    static int unsupported; /* only ever set to 1: a benign race */
    if (!unsupported) {
        long fd = syscall(SYS_pidfd_open, pid, 0);
        if (fd >= 0)
            return fd_high((int)fd);
        if (errno == ENOSYS)
            unsupported = 1;
    }
#endif
    (void)pid;
    return -1;
}

// Read what is there now; 0 at end of file (fd closed), 1 otherwise.
static int drain(int *fd, capture *c)
{
    char chunk[65536];
    for (int i = 0; i < 64; i++) {
        ssize_t n = read(*fd, chunk, sizeof chunk);
        if (n > 0) {
            cap_add(c, chunk, (size_t)n);
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return 1;
        close_fd(fd);
        return 0;
    }
    return 1;
}

/* ---- the run ---- */

typedef struct run_state {
    pid_t pid;
    int out_fd, err_fd, pidfd;
    capture out, err;
    double start, end;
    int leader_done, killed;
} run_state;

// Has the child (the group leader) ended? Peek without reaping it: while the
// zombie stays, its process group id cannot be reused, so killing the group
// afterwards cannot hit a stranger.
static int leader_ended(pid_t pid)
{
    siginfo_t si;
    memset(&si, 0, sizeof si);
    if (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) != 0)
        return errno == ECHILD;
    return si.si_pid == pid;
}

// The poll loop: drain both pipes until the child's end (plus a short
// drain), enforcing the wall-clock limit on the whole group.
static void supervise(run_state *s, const tdx_proc_opts *o, tdx_proc_result *res)
{
    const double inf = 1e300;
    double deadline = o->timeout_s > 0 ? s->start + o->timeout_s : inf;
    double grace = o->kill_grace_s > 0 ? o->kill_grace_s : TDX_PROC_DEFAULT_GRACE;
    double kill_at = inf, drain_until = inf;
    for (;;) {
        double t = now_s();
        if (!s->leader_done && leader_ended(s->pid)) {
            s->leader_done = 1;
            s->end = t;
            /* whatever it left running in its group goes with it */
            kill(-s->pid, SIGKILL);
            drain_until = t + TDX_PROC_DRAIN_S;
        }
        if (s->leader_done && ((s->out_fd < 0 && s->err_fd < 0) || t >= drain_until))
            break;
        if (!s->leader_done && !res->timed_out && t >= deadline) {
            res->timed_out = 1;
            kill(-s->pid, SIGTERM);
            kill_at = t + grace;
        }
        if (!s->leader_done && !s->killed && t >= kill_at) {
            kill(-s->pid, SIGKILL);
            s->killed = 1;
        }
        double next = deadline;
        if (s->leader_done)
            next = drain_until;
        else if (res->timed_out)
            next = s->killed ? inf : kill_at;
        int wait_ms = -1;
        if (next < inf) {
            double ms = (next - t) * 1000.0 + 1.0;
            wait_ms = ms < 0 ? 0 : ms > INT_MAX ? INT_MAX : (int)ms;
        }
        if (!s->leader_done && s->pidfd < 0 && (wait_ms < 0 || wait_ms > TDX_PROC_TICK_MS))
            wait_ms = TDX_PROC_TICK_MS;
        struct pollfd pf[3];
        int n = 0, io = -1, ie = -1;
        if (s->out_fd >= 0) {
            io = n;
            pf[n++] = (struct pollfd){.fd = s->out_fd, .events = POLLIN};
        }
        if (s->err_fd >= 0) {
            ie = n;
            pf[n++] = (struct pollfd){.fd = s->err_fd, .events = POLLIN};
        }
        if (s->pidfd >= 0 && !s->leader_done)
            pf[n++] = (struct pollfd){.fd = s->pidfd, .events = POLLIN};
        if (n == 0) {
            /* both pipes closed but no way to wait on the child: tick */
            struct timespec ts = {0, TDX_PROC_TICK_MS * 1000000L};
            nanosleep(&ts, NULL);
            continue;
        }
        int r = poll(pf, (nfds_t)n, wait_ms);
        if (r < 0 && errno != EINTR)
            break; /* cannot happen with valid descriptors; the reap kills */
        if (r <= 0)
            continue;
        if (io >= 0 && pf[io].revents)
            drain(&s->out_fd, &s->out);
        if (o->stop_at_stdout_cap && !s->leader_done && !s->killed && s->out.total > s->out.cap) {
            kill(-s->pid, SIGKILL);
            s->killed = 1;
            res->stopped_at_cap = 1;
        }
        if (ie >= 0 && pf[ie].revents)
            drain(&s->err_fd, &s->err);
    }
}

// Reap the child and record how it ended.
static void reap(run_state *s, tdx_proc_result *res)
{
    if (!s->leader_done) {
        kill(-s->pid, SIGKILL);
        s->end = now_s();
    }
    int status = 0;
    struct rusage ru;
    memset(&ru, 0, sizeof ru);
    while (wait4(s->pid, &status, 0, &ru) < 0 && errno == EINTR)
        ;
    res->wall_s = s->end - s->start;
    res->cpu_s = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 +
                 (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec * 1e-6;
    res->maxrss_kb = ru.ru_maxrss;
    if (WIFEXITED(status)) {
        res->exited = 1;
        res->exit_status = WEXITSTATUS(status);
    } else if (WIFSIGNALED(status)) {
        res->signaled = 1;
        res->term_signal = WTERMSIG(status);
    }
}

// Read the child's pre-exec reports; returns the status of the start.
static tdx_status read_reports(int fd, const tdx_proc_opts *o, tdx_proc_result *res)
{
    tdx_status st = TDX_OK;
    tdx_proc_msg m;
    for (;;) {
        ssize_t n = read(fd, &m, sizeof m);
        if (n < 0 && errno == EINTR)
            continue;
        if (n != (ssize_t)sizeof m)
            break;
        switch (m.kind) {
        case TDX_PROC_MSG_NET_OK:
            res->net_isolated = 1;
            break;
        case TDX_PROC_MSG_NET_FAIL:
            if (o->net == TDX_PROC_NET_REQUIRE) {
                res->failed_step = "unshare";
                res->exec_errno = m.err;
                st = TDX_ERR_UNSUPPORTED;
            }
            break;
        case TDX_PROC_MSG_FS_OK:
            res->fs_isolated = 1;
            res->landlock_abi = m.err;
            break;
        case TDX_PROC_MSG_FS_FAIL:
            if (o->fs == TDX_PROC_FS_REQUIRE) {
                res->failed_step = "landlock";
                res->exec_errno = m.err;
                st = TDX_ERR_UNSUPPORTED;
            }
            break;
        case TDX_PROC_MSG_EXEC:
            res->failed_step = "exec";
            res->exec_errno = m.err;
            st = (m.err == ENOENT || m.err == EACCES || m.err == ENOEXEC) ? TDX_ERR_NOTFOUND
                                                                         : TDX_ERR_CHILD;
            break;
        default: /* chdir, rlimit */
            res->failed_step = m.kind == TDX_PROC_MSG_CHDIR ? "chdir" : "setrlimit";
            res->exec_errno = m.err;
            st = m.kind == TDX_PROC_MSG_CHDIR && m.err == ENOENT ? TDX_ERR_NOTFOUND : TDX_ERR_CHILD;
            break;
        }
    }
    return st;
}

// Fork, hand the child its plan, supervise it, reap it.
static tdx_status spawn_and_wait(const tdx_proc_plan *plan, const tdx_proc_opts *o,
                                 tdx_proc_result *res)
{
    int outp[2], errp[2], statp[2];
    int in_fd = make_stdin(o);
    if (in_fd < 0)
        return TDX_ERR_IO;
    if (make_pipe(outp)) {
        close(in_fd);
        return TDX_ERR_IO;
    }
    if (make_pipe(errp)) {
        close(in_fd);
        close(outp[0]), close(outp[1]);
        return TDX_ERR_IO;
    }
    if (make_pipe(statp)) {
        close(in_fd);
        close(outp[0]), close(outp[1]), close(errp[0]), close(errp[1]);
        return TDX_ERR_IO;
    }
    /* Bigger pipes mean fewer wake-ups when a child floods (best effort). */
    fcntl(outp[0], F_SETPIPE_SZ, 1 << 20);
    fcntl(errp[0], F_SETPIPE_SZ, 1 << 20);

    run_state s;
    memset(&s, 0, sizeof s);
    s.out = (capture){.cap = o->stdout_cap ? o->stdout_cap : TDX_PROC_DEFAULT_CAP,
                      .keep = o->stdout_keep};
    s.err = (capture){.cap = o->stderr_cap ? o->stderr_cap : TDX_PROC_DEFAULT_CAP,
                      .keep = o->stderr_keep};
    s.start = now_s();
    s.pid = fork();
    if (s.pid < 0) {
        close(in_fd);
        close(outp[0]), close(outp[1]), close(errp[0]), close(errp[1]);
        close(statp[0]), close(statp[1]);
        return TDX_ERR_IO;
    }
    if (s.pid == 0) {
        close(outp[0]), close(errp[0]), close(statp[0]);
        tdx_proc_child_exec(plan, in_fd, outp[1], errp[1], statp[1]);
    }
    setpgid(s.pid, s.pid); /* also in the child: whichever runs first */
    close(in_fd);
    close(outp[1]), close(errp[1]), close(statp[1]);
    s.out_fd = outp[0];
    s.err_fd = errp[0];
    fcntl(s.out_fd, F_SETFL, O_NONBLOCK);
    fcntl(s.err_fd, F_SETFL, O_NONBLOCK);
    s.pidfd = open_pidfd(s.pid);

    /* Blocks only until exec (or the child's failure before it). */
    tdx_status st = read_reports(statp[0], o, res);
    close(statp[0]);
    if (st == TDX_OK)
        supervise(&s, o, res);
    reap(&s, res);
    close_fd(&s.out_fd);
    close_fd(&s.err_fd);
    close_fd(&s.pidfd);
    res->out = cap_finish(&s.out, &res->out_len);
    res->err = cap_finish(&s.err, &res->err_len);
    res->out_total = s.out.total;
    res->err_total = s.err.total;
    res->out_over_cap = s.out.total > s.out.cap;
    res->err_over_cap = s.err.total > s.err.cap;
    if (st == TDX_OK && (!res->out || !res->err || s.out.nomem || s.err.nomem))
        st = TDX_ERR_NOMEM;
    return st;
}

tdx_status tdx_proc_run(const tdx_proc_opts *o, tdx_proc_result *res)
{
    memset(res, 0, sizeof *res);
    if (!o || !o->argv || !o->argv[0] || !o->argv[0][0] || o->timeout_s < 0 ||
        o->kill_grace_s < 0)
        return TDX_ERR_ARG;
    tdx_status st = TDX_OK;
    if (o->private_tmpdir) {
        st = tdx_proc_tmpdir_create(&res->tmpdir);
        if (st)
            return st;
    }
    tdx_proc_plan plan;
    st = tdx_proc_plan_build(&plan, o, res->tmpdir);
    if (st == TDX_OK)
        st = spawn_and_wait(&plan, o, res);
    tdx_proc_plan_free(&plan);
    if (res->tmpdir)
        res->tmpdir_removed = tdx_proc_tmpdir_remove(res->tmpdir) == TDX_OK;
    return st;
}

void tdx_proc_result_free(tdx_proc_result *res)
{
    if (!res)
        return;
    free(res->out);
    free(res->err);
    free(res->tmpdir);
    memset(res, 0, sizeof *res);
}

int tdx_proc_ok(const tdx_proc_result *res)
{
    return res->exited && res->exit_status == 0 && !res->timed_out && !res->out_over_cap;
}

const char *tdx_proc_signame(int sig)
{
    static const struct {
        int sig;
        const char *name;
    } names[] = {
        {SIGHUP, "SIGHUP"},   {SIGINT, "SIGINT"},   {SIGQUIT, "SIGQUIT"}, {SIGILL, "SIGILL"},
        {SIGTRAP, "SIGTRAP"}, {SIGABRT, "SIGABRT"}, {SIGBUS, "SIGBUS"},   {SIGFPE, "SIGFPE"},
        {SIGKILL, "SIGKILL"}, {SIGUSR1, "SIGUSR1"}, {SIGSEGV, "SIGSEGV"}, {SIGUSR2, "SIGUSR2"},
        {SIGPIPE, "SIGPIPE"}, {SIGALRM, "SIGALRM"}, {SIGTERM, "SIGTERM"}, {SIGCHLD, "SIGCHLD"},
        {SIGXCPU, "SIGXCPU"}, {SIGXFSZ, "SIGXFSZ"}, {SIGSYS, "SIGSYS"},
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (names[i].sig == sig)
            return names[i].name;
    return "SIG?";
}

char *tdx_proc_last_line(const char *text, size_t len, char *buf, size_t size)
{
    if (!size)
        return buf;
    buf[0] = '\0';
    if (!text)
        return buf;
    size_t end = len;
    while (end > 0 && (text[end - 1] == '\n' || text[end - 1] == '\r' || text[end - 1] == ' ' ||
                       text[end - 1] == '\t'))
        end--;
    size_t begin = end;
    while (begin > 0 && text[begin - 1] != '\n')
        begin--;
    size_t n = end - begin;
    if (n > size - 1)
        n = size - 1;
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)text[begin + i];
        buf[i] = (ch < 0x20 || ch == 0x7f) ? '?' : (char)ch;
    }
    buf[n] = '\0';
    return buf;
}

char *tdx_proc_describe(const tdx_proc_result *res, double timeout_s, char *buf, size_t size)
{
    if (!size)
        return buf;
    char line[160];
    if (res->timed_out)
        snprintf(buf, size, "timed out after %g s", timeout_s);
    else if (res->stopped_at_cap)
        snprintf(buf, size, "output over cap"); // NOLINT(bugprone-branch-clone): repeated below at a lower precedence
    else if (res->signaled)
        snprintf(buf, size, "killed by signal %d (%s)", res->term_signal,
                 tdx_proc_signame(res->term_signal));
    else if (res->exec_errno)
        snprintf(buf, size, "could not start (%s): %s",
                 res->failed_step ? res->failed_step : "exec", strerror(res->exec_errno));
    else if (res->exited && res->exit_status != 0) {
        tdx_proc_last_line(res->err, res->err_len, line, sizeof line);
        snprintf(buf, size, "exited with status %d%s%s", res->exit_status, line[0] ? ": " : "",
                 line);
    } else if (res->out_over_cap)
        snprintf(buf, size, "output over cap");
    else
        snprintf(buf, size, "exited with status %d", res->exit_status);
    return buf;
}
