/* Write isolation of a child with Landlock: the ruleset is built in the
 * parent before fork (it allocates nothing, but opens descriptors), and the
 * child only has to call prctl + landlock_restrict_self before exec.
 *
 * The constants are the kernel's UAPI (include/uapi/linux/landlock.h),
 * written out here because the system's header may predate the ABI versions
 * used: the ruleset's handled rights are cut to what the running kernel
 * knows, or it refuses the whole ruleset (EINVAL). */
#define _GNU_SOURCE 1
#include "proc/proc_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#define LL_CREATE_RULESET_VERSION 1u
#define LL_RULE_PATH_BENEATH 1

/* file system rights, by the ABI version that introduced them */
#define LL_FS_WRITE_FILE (1ull << 1)
#define LL_FS_REMOVE_DIR (1ull << 4)
#define LL_FS_REMOVE_FILE (1ull << 5)
#define LL_FS_MAKE_CHAR (1ull << 6)
#define LL_FS_MAKE_DIR (1ull << 7)
#define LL_FS_MAKE_REG (1ull << 8)
#define LL_FS_MAKE_SOCK (1ull << 9)
#define LL_FS_MAKE_FIFO (1ull << 10)
#define LL_FS_MAKE_BLOCK (1ull << 11)
#define LL_FS_MAKE_SYM (1ull << 12)
#define LL_FS_REFER (1ull << 13)    /* ABI 2 */
#define LL_FS_TRUNCATE (1ull << 14) /* ABI 3 */
/* network rights (ABI 4) and scopes (ABI 6) */
#define LL_NET_BIND_TCP (1ull << 0)
#define LL_NET_CONNECT_TCP (1ull << 1)
#define LL_SCOPE_ABSTRACT_UNIX (1ull << 0)
#define LL_SCOPE_SIGNAL (1ull << 1)

struct ll_ruleset_attr {
    uint64_t handled_access_fs;
    uint64_t handled_access_net; /* ABI 4 */
    uint64_t scoped;             /* ABI 6 */
};

struct ll_path_beneath_attr {
    uint64_t allowed_access;
    int32_t parent_fd;
} __attribute__((packed));

// Allow `rights` beneath path in the ruleset; a missing path is skipped.
static void allow_beneath(int ruleset, const char *path, uint64_t rights)
{
    int fd = open(path, O_PATH | O_CLOEXEC);
    if (fd < 0)
        return;
    struct ll_path_beneath_attr pb = {rights, fd};
    syscall(SYS_landlock_add_rule, ruleset, LL_RULE_PATH_BENEATH, &pb, 0);
    close(fd);
}

void tdx_proc_landlock_plan(tdx_proc_plan *p, const tdx_proc_opts *o, const char *tmpdir)
{
    p->landlock_fd = -1;
    p->landlock_abi = 0;
    p->fs_errno = 0;
#ifdef SYS_landlock_create_ruleset
    long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, LL_CREATE_RULESET_VERSION);
    if (abi < 1) {
        p->fs_errno = errno ? errno : ENOSYS;
        return;
    }
    p->landlock_abi = (int)abi;
    if (o->fs == TDX_PROC_FS_INHERIT)
        return;
    /* Every right that creates, changes or removes a file is handled (so
     * denied unless a rule grants it); reading and executing are not. */
    uint64_t write = LL_FS_WRITE_FILE | LL_FS_REMOVE_DIR | LL_FS_REMOVE_FILE | LL_FS_MAKE_CHAR |
                     LL_FS_MAKE_DIR | LL_FS_MAKE_REG | LL_FS_MAKE_SOCK | LL_FS_MAKE_FIFO |
                     LL_FS_MAKE_BLOCK | LL_FS_MAKE_SYM;
    if (abi >= 2)
        write |= LL_FS_REFER;
    if (abi >= 3)
        write |= LL_FS_TRUNCATE;
    struct ll_ruleset_attr attr = {write, 0, 0};
    size_t size = sizeof attr.handled_access_fs;
    if (abi >= 4 && o->net != TDX_PROC_NET_INHERIT) {
        /* no rule grants any port: every TCP connect and bind is refused */
        attr.handled_access_net = LL_NET_BIND_TCP | LL_NET_CONNECT_TCP;
        size = offsetof(struct ll_ruleset_attr, scoped);
    }
    if (abi >= 6) {
        attr.scoped = LL_SCOPE_SIGNAL | LL_SCOPE_ABSTRACT_UNIX;
        size = sizeof attr;
    }
    int fd = (int)syscall(SYS_landlock_create_ruleset, &attr, size, 0);
    if (fd < 0) {
        p->fs_errno = errno;
        return;
    }
    if (tmpdir)
        allow_beneath(fd, tmpdir, write);
    for (size_t i = 0; o->fs_writable && o->fs_writable[i]; i++)
        allow_beneath(fd, o->fs_writable[i], write);
    /* device nodes open for writing (/dev/null, /dev/nvidia*), but nothing
     * is created, removed or renamed there (not even in /dev/shm) */
    allow_beneath(fd, "/dev", LL_FS_WRITE_FILE | (abi >= 3 ? LL_FS_TRUNCATE : 0));
    p->landlock_fd = fd;
#else
    (void)o;
    (void)tmpdir;
    p->fs_errno = ENOSYS;
#endif
}

int tdx_proc_landlock_apply(const tdx_proc_plan *p)
{
#ifdef SYS_landlock_restrict_self
    if (p->landlock_fd < 0) {
        errno = p->fs_errno ? p->fs_errno : ENOSYS;
        return -1;
    }
    /* Landlock needs no_new_privs (or CAP_SYS_ADMIN): no set-uid program
     * started by the child can shed the restriction. */
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
        return -1;
    return syscall(SYS_landlock_restrict_self, p->landlock_fd, 0) == 0 ? 0 : -1;
#else
    (void)p;
    errno = ENOSYS;
    return -1;
#endif
}
