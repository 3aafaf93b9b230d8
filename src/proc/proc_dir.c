/* Private temporary directories: created 0700, removed with everything a
 * child left in them (without following its symlinks out of the tree). */
#include "proc/proc.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Deeper trees than this are left behind (and reported): recursion holds one
 * descriptor per level. */
#define TDX_PROC_RM_DEPTH 128

tdx_status tdx_proc_tmpdir_create(char **path)
{
    *path = NULL;
    const char *base = getenv("TMPDIR");
    if (!base || base[0] != '/')
        base = "/tmp";
    size_t n = strlen(base) + sizeof "/tdx-XXXXXX";
    char *tmpl = malloc(n);
    if (!tmpl)
        return TDX_ERR_NOMEM;
    snprintf(tmpl, n, "%s/tdx-XXXXXX", base);
    if (!mkdtemp(tmpl)) {
        free(tmpl);
        return TDX_ERR_IO;
    }
    *path = tmpl;
    return TDX_OK;
}

static int remove_at(int dirfd, const char *name, int depth);

// Remove every entry of the open directory fd; 0 when all went.
static int empty_dir(int fd, int depth)
{
    DIR *d = fdopendir(fd);
    if (!d) {
        close(fd);
        return -1;
    }
    int rc = 0;
    /* Entries removed while reading may make readdir skip others, so read
     * again until a pass finds nothing left (or nothing more goes). */
    for (int pass = 0; pass < 4; pass++) {
        int seen = 0, failed = 0;
        struct dirent *e;
        while ((e = readdir(d))) {
            if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
                continue;
            seen++;
            if (remove_at(dirfd(d), e->d_name, depth + 1) != 0)
                failed++;
        }
        rc = failed ? -1 : 0;
        if (!seen || failed == seen)
            break;
        rewinddir(d);
    }
    closedir(d);
    return rc;
}

// Remove name (a file or a whole tree) relative to dirfd; 0 on success.
static int remove_at(int dirfd, const char *name, int depth)
{
    if (unlinkat(dirfd, name, 0) == 0 || errno == ENOENT)
        return 0;
    if (errno != EISDIR && errno != EPERM)
        return -1;
    if (depth > TDX_PROC_RM_DEPTH)
        return -1;
    int fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0 && errno == EACCES) {
        /* a child may have made its directories unreadable */
        fchmodat(dirfd, name, 0700, 0);
        fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    }
    if (fd < 0)
        return -1;
    fchmod(fd, 0700); /* entries can only be unlinked from a writable dir */
    if (empty_dir(fd, depth) != 0)
        return -1;
    return unlinkat(dirfd, name, AT_REMOVEDIR) == 0 || errno == ENOENT ? 0 : -1;
}

tdx_status tdx_proc_tmpdir_remove(const char *path)
{
    if (!path || !path[0])
        return TDX_ERR_ARG;
    return remove_at(AT_FDCWD, path, 0) == 0 ? TDX_OK : TDX_ERR_IO;
}
