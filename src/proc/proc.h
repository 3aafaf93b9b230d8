/* tdx_proc: run one child process under control (tdx_proc_*).
 *
 * tritondx runs the Python harness and, later, untrusted candidate code as
 * children. Whatever the child does -- crash, hang, fork a grandchild that
 * ignores SIGTERM, flood stdout or stderr, eat memory, write a huge file --
 * tdx_proc_run() returns with a result that says what happened; it never
 * blocks forever, never buffers unbounded output and never prints.
 *
 * How: fork + exec; the child leads a process group of its own (setpgid), so
 * a timeout or the end of the run kills the whole group (SIGTERM, then
 * SIGKILL after a grace period); the child is reaped here, so the caller
 * must not set SIGCHLD to SIG_IGN (the kernel would reap it first and its
 * exit status would be lost); stdout and stderr come back through pipes
 * that are drained with poll() -- bytes past a stream's cap are read and
 * discarded, so the child never blocks on a full pipe; stdin is an anonymous
 * in-memory file (no SIGPIPE, no deadlock when the child does not read it).
 * The child gets rlimits (core files are always 0), a clean set of file
 * descriptors (0, 1, 2 only), PR_SET_PDEATHSIG (it dies with tritondx --
 * strictly, with the thread that called tdx_proc_run, so call it from a
 * thread that outlives the child) and, on request, no network, a private
 * temporary directory and a file system it can only write inside that
 * directory (Landlock, see tdx_proc_fs).
 *
 * Ownership: opts and everything it points to belong to the caller and need
 * only live for the call. The result owns its out/err/tmpdir strings; release
 * them with tdx_proc_result_free(). Not thread-safe with respect to other
 * threads that fork (the usual fork caveats); no signal handlers are
 * installed. */
#ifndef TDX_PROC_PROC_H
#define TDX_PROC_PROC_H

#include <stddef.h>
#include <stdint.h>

#include "base/status.h"

/* Network isolation for the child. Isolation is
 * unshare(CLONE_NEWUSER | CLONE_NEWNET) in the child before exec: a new
 * network namespace with no interfaces up (not even loopback), so every
 * connect() fails. Where the system forbids it (a container's seccomp
 * profile, kernel.unprivileged_userns_clone=0, an AppArmor restriction) the
 * fallback is: TRY runs the child with the network available and says so in
 * result.net_isolated == 0; REQUIRE does not run it at all (the call returns
 * TDX_ERR_UNSUPPORTED). */
typedef enum tdx_proc_net {
    TDX_PROC_NET_INHERIT = 0, /* the child shares tritondx's network */
    TDX_PROC_NET_TRY,         /* isolate where the system allows it */
    TDX_PROC_NET_REQUIRE      /* isolate, or do not run */
} tdx_proc_net;

/* Write isolation for the child, with Landlock (Linux 5.13+, no privilege
 * needed; landlock(7)): the child may create, change, rename or remove files
 * only inside its private temporary directory and the opts->fs_writable
 * folders, and may open existing files under /dev for writing (/dev/null,
 * a GPU's device nodes). Reading is not restricted. Landlock also keeps the
 * child from ptrace-ing processes outside its domain and, where the kernel
 * has ABI 6 (Linux 6.12+), from signalling them (it cannot kill tritondx)
 * or reaching their abstract UNIX sockets; with net isolation asked for and
 * ABI 4 (Linux 6.7+), TCP connect and bind are denied as a second layer
 * under the network namespace (the only layer where unshare is refused).
 * Where Landlock is missing (an old kernel, a seccomp profile, not in the
 * LSM list): TRY runs the child without it and says so in
 * result.fs_isolated == 0; REQUIRE does not run it (TDX_ERR_UNSUPPORTED,
 * failed_step "landlock"). Needs private_tmpdir (else only fs_writable and
 * /dev are writable). */
typedef enum tdx_proc_fs {
    TDX_PROC_FS_INHERIT = 0, /* the child may write wherever tritondx may */
    TDX_PROC_FS_TRY,         /* isolate where the system allows it */
    TDX_PROC_FS_REQUIRE      /* isolate, or do not run */
} tdx_proc_fs;

/* Which bytes a capped stream keeps once it is over its cap. */
typedef enum tdx_proc_keep {
    TDX_PROC_KEEP_HEAD = 0, /* the first cap bytes (JSON on stdout) */
    TDX_PROC_KEEP_TAIL      /* the last cap bytes (a traceback on stderr) */
} tdx_proc_keep;

typedef struct tdx_proc_opts {
    /* argv[0] is the program: a path when it contains '/', otherwise looked
     * up in PATH (the child's PATH when env_set overrides it). NULL-ended. */
    const char *const *argv;
    /* Environment: tritondx's own (or none when env_clear), minus the names
     * in env_unset, with "NAME=VALUE" entries of env_set added or replacing.
     * Both lists are NULL-ended and may be NULL. */
    const char *const *env_set;
    const char *const *env_unset;
    int env_clear;
    /* Working directory of the child; NULL keeps tritondx's. */
    const char *cwd;
    /* Non-zero: create a fresh private directory (mode 0700) under $TMPDIR
     * or /tmp, make it the child's working directory (unless cwd is given)
     * and its TMPDIR, and remove it with all its contents after the run. */
    int private_tmpdir;
    /* Bytes for the child's stdin; NULL gives it /dev/null. */
    const void *stdin_data;
    size_t stdin_len;
    /* Wall-clock limit in seconds (0: none). When it passes, the whole
     * process group gets SIGTERM, and SIGKILL kill_grace_s later (0: 2 s). */
    double timeout_s;
    double kill_grace_s;
    /* Caps on captured bytes per stream (0: 16 MiB) and what to keep. */
    size_t stdout_cap, stderr_cap;
    tdx_proc_keep stdout_keep, stderr_keep;
    /* rlimits of the child, soft and hard (0: inherited). RLIMIT_CORE is
     * always 0. Note: under valgrind the tool fakes RLIMIT_NOFILE for the
     * process it runs, so that one limit does not reach the child there. */
    uint64_t rlimit_as;     /* address space, bytes */
    uint64_t rlimit_cpu;    /* CPU time, seconds (SIGXCPU past it; hard +1 s) */
    uint64_t rlimit_nofile; /* open files */
    uint64_t rlimit_fsize;  /* largest file written, bytes (SIGXFSZ) */
    tdx_proc_net net;
    tdx_proc_fs fs;
    /* Extra folders the child may write in under fs isolation; NULL-ended,
     * may be NULL. A folder that does not exist is skipped. */
    const char *const *fs_writable;
    /* Non-zero: kill the group as soon as stdout goes over its cap, instead
     * of draining a flood until the child ends or times out (for callers to
     * whom more output than the cap is a failure anyway). */
    int stop_at_stdout_cap;
} tdx_proc_opts;

typedef struct tdx_proc_result {
    int exited;      /* the child called exit(): exit_status is valid */
    int exit_status; /* 0..255 */
    int signaled;    /* the child was killed by a signal: term_signal */
    int term_signal;
    int timed_out;     /* the wall-clock limit passed and the group was killed */
    int net_isolated;  /* the child ran in a network namespace of its own */
    int fs_isolated;   /* the child ran under Landlock (see tdx_proc_fs) */
    int landlock_abi;  /* the kernel's Landlock ABI version, 0 when none */
    double wall_s;     /* from fork to the child's end */
    double cpu_s;      /* user + system time of the child (and its reaped children) */
    long maxrss_kb;    /* peak resident set size */
    /* Captured output, NUL-terminated, malloc'd (never NULL after a run). */
    char *out, *err;
    size_t out_len, err_len;     /* bytes kept */
    uint64_t out_total, err_total; /* bytes the child wrote */
    int out_over_cap, err_over_cap; /* total > cap: some bytes were dropped */
    /* The private directory the child ran in (already removed), or NULL. */
    char *tmpdir;
    int tmpdir_removed; /* 0 when some of it could not be removed */
    int stopped_at_cap; /* stop_at_stdout_cap killed the group */
    /* When the program could not be started: the step that failed ("exec",
     * "chdir", "setrlimit", "unshare", "landlock"; a static string) and its
     * errno. */
    const char *failed_step;
    int exec_errno;
} tdx_proc_result;

/* Run the child described by opts to its end and fill *res (which is
 * overwritten; free it with tdx_proc_result_free() in every case).
 * Returns TDX_OK when the child ran -- whatever its fate: look at res --,
 * TDX_ERR_NOTFOUND when the program does not exist or is not executable,
 * TDX_ERR_CHILD when exec failed for another reason (res->exec_errno),
 * TDX_ERR_UNSUPPORTED when net or fs is REQUIRE and that isolation is not
 * possible (failed_step "unshare" or "landlock"),
 * TDX_ERR_ARG for bad opts, TDX_ERR_IO when pipes, fork or the private
 * directory fail, TDX_ERR_NOMEM. */
tdx_status tdx_proc_run(const tdx_proc_opts *opts, tdx_proc_result *res);

/* Release what a result owns; the result can be reused afterwards. */
void tdx_proc_result_free(tdx_proc_result *res);

/* Non-zero when the child ran to a normal exit with status 0, within its
 * time, and stdout stayed under its cap (a flood on stderr is only noise). */
int tdx_proc_ok(const tdx_proc_result *res);

/* One line, lower-case, saying how a child that is not ok ended:
 * "timed out after 30 s", "killed by signal 11 (SIGSEGV)",
 * "output over cap" (stdout over its cap; first when that stopped the
 * child), "exited with status 3: <last line of stderr>",
 * "could not start (chdir): No such file or directory",
 * or "exited with status 0" when it is ok.
 * Written into buf (always NUL-terminated, cut to size); returns buf. */
char *tdx_proc_describe(const tdx_proc_result *res, double timeout_s, char *buf, size_t size);

/* The name of a signal, "SIGSEGV"; "SIG?" when unknown. */
const char *tdx_proc_signame(int sig);

/* The last non-empty line of text[0..len), without its newline, cut to at
 * most max bytes; stored in buf (size > max). Returns buf ("" when none). */
char *tdx_proc_last_line(const char *text, size_t len, char *buf, size_t size);

/* A fresh private directory (mode 0700) under $TMPDIR or /tmp, for callers
 * that stage files before a run. *path is malloc'd (caller frees). */
tdx_status tdx_proc_tmpdir_create(char **path);
/* Remove a directory tree without following symlinks, making unreadable
 * directories readable first. TDX_ERR_IO when something is left behind. */
tdx_status tdx_proc_tmpdir_remove(const char *path);

#endif
