/* Internals of tdx_proc shared by its files; not part of the interface.
 *
 * A run is planned before fork (everything that allocates: the program's
 * path, the environment, the uid/gid maps), so that the child between fork
 * and exec only makes async-signal-safe system calls. */
#ifndef TDX_PROC_PROC_INT_H
#define TDX_PROC_PROC_INT_H

#include "proc/proc.h"

/* What the child reports back through its status pipe before exec; the pipe
 * is close-on-exec, so a successful exec reads as end of file. */
enum {
    TDX_PROC_MSG_NET_OK = 1, /* network isolation applied */
    TDX_PROC_MSG_NET_FAIL,   /* unshare refused (value: errno) */
    TDX_PROC_MSG_CHDIR,      /* chdir failed */
    TDX_PROC_MSG_RLIMIT,     /* setrlimit failed */
    TDX_PROC_MSG_EXEC,       /* execve failed */
    TDX_PROC_MSG_FS_OK,      /* Landlock applied (value: ABI version) */
    TDX_PROC_MSG_FS_FAIL     /* Landlock not available (value: errno) */
};

typedef struct tdx_proc_msg {
    int kind;
    int err; /* errno */
} tdx_proc_msg;

typedef struct tdx_proc_plan {
    char *path;         /* the program to execve (malloc'd) */
    char *const *argv;  /* the caller's argv */
    char **envp;        /* NULL-ended; the array is malloc'd, strings borrowed */
    char *tmpdir_env;   /* "TMPDIR=..." when a private directory is used */
    const char *cwd;    /* borrowed */
    char uid_map[64], gid_map[64];
    const tdx_proc_opts *opts;
    int parent_pid;
    /* The Landlock ruleset, built before fork (-1: none); fs_errno says why
     * there is none when fs isolation was asked for. */
    int landlock_fd;
    int landlock_abi;
    int fs_errno;
} tdx_proc_plan;

/* Build the Landlock ruleset for a run into p (see tdx_proc_fs in proc.h);
 * sets p->landlock_fd, or -1 and p->fs_errno. Never fails otherwise. */
void tdx_proc_landlock_plan(tdx_proc_plan *p, const tdx_proc_opts *o, const char *tmpdir);

/* In the child: restrict itself with the planned ruleset; 0 on success. */
int tdx_proc_landlock_apply(const tdx_proc_plan *p);

/* Resolve the program and build the environment. tmpdir may be NULL. */
tdx_status tdx_proc_plan_build(tdx_proc_plan *p, const tdx_proc_opts *o, const char *tmpdir);
void tdx_proc_plan_free(tdx_proc_plan *p);

/* In the child after fork: set everything up and exec; never returns.
 * stdin_fd, out_fd, err_fd become 0, 1, 2; status_fd carries messages. */
_Noreturn void tdx_proc_child_exec(const tdx_proc_plan *p, int stdin_fd, int out_fd, int err_fd,
                                   int status_fd);

#endif
