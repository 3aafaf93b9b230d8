#include "base/file.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

tdx_status tdx_file_read(const char *path, size_t max, char **out, size_t *len)
{
    *out = NULL;
    if (len)
        *len = 0;
    FILE *f = fopen(path, "rb");
    if (!f)
        return TDX_ERR_IO;
    size_t cap = 4096, n = 0;
    char *p = malloc(cap);
    if (!p) {
        fclose(f);
        return TDX_ERR_NOMEM;
    }
    for (;;) {
        if (cap - n < 2) {
            if (cap > max + 1) {
                free(p);
                fclose(f);
                return TDX_ERR_TOOBIG;
            }
            char *q = realloc(p, cap * 2);
            if (!q) {
                free(p);
                fclose(f);
                return TDX_ERR_NOMEM;
            }
            p = q;
            cap *= 2;
        }
        size_t got = fread(p + n, 1, cap - n - 1, f);
        n += got;
        if (got == 0)
            break;
    }
    int err = ferror(f);
    fclose(f);
    if (err) {
        free(p);
        return TDX_ERR_IO;
    }
    if (n > max) {
        free(p);
        return TDX_ERR_TOOBIG;
    }
    p[n] = '\0';
    *out = p;
    if (len)
        *len = n;
    return TDX_OK;
}

int tdx_file_is_binary(const char *data, size_t len)
{
    const unsigned char *s = (const unsigned char *)data;
    size_t n = len < 8192 ? len : 8192;
    for (size_t i = 0; i < n;) {
        unsigned c = s[i];
        if (c == 0)
            return 1;
        size_t k = c < 0x80 ? 0 : (c & 0xE0) == 0xC0 ? 1 : (c & 0xF0) == 0xE0 ? 2 : (c & 0xF8) == 0xF0 ? 3 : 9;
        if (k == 9)
            return 1;
        if (i + k >= n) /* a sequence cut by the window is fine */
            return 0;
        for (size_t j = 1; j <= k; j++)
            if ((s[i + j] & 0xC0) != 0x80)
                return 1;
        i += k + 1;
    }
    return 0;
}

tdx_status tdx_file_write(const char *path, const char *data, size_t len)
{
    size_t n = strlen(path);
    char *tmp = malloc(n + 16);
    if (!tmp)
        return TDX_ERR_NOMEM;
    snprintf(tmp, n + 16, "%s.tmp%ld", path, (long)getpid());
    FILE *f = fopen(tmp, "wb");
    if (!f) {
        free(tmp);
        return TDX_ERR_IO;
    }
    int ok = fwrite(data, 1, len, f) == len;
    ok = (fclose(f) == 0) && ok;
    if (!ok || rename(tmp, path) != 0) {
        remove(tmp);
        free(tmp);
        return TDX_ERR_IO;
    }
    free(tmp);
    return TDX_OK;
}

tdx_status tdx_file_mkdirs(const char *path)
{
    char buf[4096];
    size_t n = path ? strlen(path) : 0;
    if (n == 0 || n >= sizeof buf) {
        errno = n ? ENAMETOOLONG : ENOENT;
        return TDX_ERR_IO;
    }
    memcpy(buf, path, n + 1);
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        int bad = mkdir(buf, 0755) != 0 && errno != EEXIST;
        *p = '/';
        if (bad)
            return TDX_ERR_IO;
    }
    if (mkdir(buf, 0755) != 0 && errno != EEXIST)
        return TDX_ERR_IO;
    struct stat st;
    if (stat(buf, &st) != 0)
        return TDX_ERR_IO;
    if (!S_ISDIR(st.st_mode)) {
        errno = ENOTDIR;
        return TDX_ERR_IO;
    }
    return TDX_OK;
}
