/* Append-only JSON-lines journal with crash-tolerant reading. */
#include "journal/journal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/file.h"

#define TDX_JNL_MAX_BYTES ((size_t)256 << 20)

/* Parse the complete lines of data; *good_len is the length of the valid prefix. */
static tdx_status parse_lines(const char *path, const char *data, size_t len, json_t *out,
                              size_t *good_len, tdx_diags *diags)
{
    size_t pos = 0;
    int lineno = 0;
    *good_len = 0;
    while (pos < len) {
        lineno++;
        const char *nl = memchr(data + pos, '\n', len - pos);
        if (!nl) {
            tdx_diags_add(diags, TDX_SEV_WARNING, path, lineno, 1,
                          "journal ends in a partial line (%zu bytes), ignored", len - pos);
            return TDX_OK;
        }
        size_t n = (size_t)(nl - (data + pos));
        if (n > 0) {
            json_error_t err;
            json_t *v = json_loadb(data + pos, n, 0, &err);
            if (!v || !json_is_object(v)) {
                json_decref(v);
                tdx_diags_add(diags, TDX_SEV_ERROR, path, lineno, err.column > 0 ? err.column : 1,
                              "journal line is not a JSON object: %s", v ? "not an object" : err.text);
                return TDX_ERR_PARSE;
            }
            json_array_append_new(out, v);
        }
        pos += n + 1;
        *good_len = pos;
    }
    return TDX_OK;
}

tdx_status tdx_jnl_parse(const char *path, const char *data, size_t len, json_t **entries,
                         size_t *good_len, tdx_diags *diags)
{
    *entries = NULL;
    size_t good = 0;
    json_t *arr = json_array();
    tdx_status st = arr ? parse_lines(path, data, len, arr, &good, diags) : TDX_ERR_NOMEM;
    if (good_len)
        *good_len = good;
    if (st) {
        json_decref(arr);
        return st;
    }
    *entries = arr;
    return TDX_OK;
}

tdx_status tdx_jnl_read(const char *path, json_t **entries, tdx_diags *diags)
{
    *entries = NULL;
    char *data;
    size_t len;
    tdx_status st = tdx_file_read(path, TDX_JNL_MAX_BYTES, &data, &len);
    if (st) {
        tdx_diags_add(diags, TDX_SEV_ERROR, path, 0, 0, "cannot read journal: %s",
                      st == TDX_ERR_IO ? strerror(errno) : tdx_status_str(st));
        return st;
    }
    st = tdx_jnl_parse(path, data, len, entries, NULL, diags);
    free(data);
    return st;
}

tdx_status tdx_jnl_open(tdx_jnl *j, const char *path, tdx_diags *diags)
{
    memset(j, 0, sizeof *j);
    j->fd = -1;
    j->path = strdup(path);
    if (!j->path)
        return TDX_ERR_NOMEM;
    j->fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (j->fd < 0) {
        tdx_diags_add(diags, TDX_SEV_ERROR, path, 0, 0, "cannot open journal: %s", strerror(errno));
        tdx_jnl_close(j);
        return TDX_ERR_IO;
    }
    char *data;
    size_t len;
    tdx_status st = tdx_file_read(path, TDX_JNL_MAX_BYTES, &data, &len);
    if (st) {
        tdx_jnl_close(j);
        return st;
    }
    json_t *arr = NULL;
    size_t good = 0;
    st = tdx_jnl_parse(path, data, len, &arr, &good, diags);
    free(data);
    if (!st) {
        j->next_seq = (long)json_array_size(arr) + 1;
        /* cut a partial last line so that the next entry starts cleanly */
        if (good < len && ftruncate(j->fd, (off_t)good) != 0)
            st = TDX_ERR_IO;
    }
    json_decref(arr);
    if (!st && lseek(j->fd, 0, SEEK_END) < 0)
        st = TDX_ERR_IO;
    if (st)
        tdx_jnl_close(j);
    return st;
}

void tdx_jnl_close(tdx_jnl *j)
{
    if (j->fd >= 0)
        close(j->fd);
    j->fd = -1;
    free(j->path);
    j->path = NULL;
}

tdx_status tdx_jnl_append(tdx_jnl *j, json_t *entry)
{
    if (j->fd < 0 || !json_is_object(entry))
        return TDX_ERR_ARG;
    if (json_object_set_new(entry, "seq", json_integer(j->next_seq)) != 0)
        return TDX_ERR_NOMEM;
    char *line = json_dumps(entry, JSON_COMPACT | JSON_ENSURE_ASCII);
    if (!line)
        return TDX_ERR_NOMEM;
    size_t n = strlen(line);
    line[n] = '\n'; /* replaces the NUL: write n + 1 bytes */
    size_t off = 0;
    tdx_status st = TDX_OK;
    while (off < n + 1) {
        ssize_t w = write(j->fd, line + off, n + 1 - off);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            st = TDX_ERR_IO;
            break;
        }
        off += (size_t)w;
    }
    free(line);
    if (!st && fsync(j->fd) != 0)
        st = TDX_ERR_IO;
    if (!st)
        j->next_seq++;
    return st;
}

json_t *tdx_jnl_last(json_t *entries, const char *type)
{
    for (size_t i = json_array_size(entries); i > 0; i--) {
        json_t *e = json_array_get(entries, i - 1);
        const char *t = json_string_value(json_object_get(e, "type"));
        if (t && strcmp(t, type) == 0)
            return e;
    }
    return NULL;
}
