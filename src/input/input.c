/* Expanding command-line inputs into source files, and loading them. */
#include "input/input.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/file.h"

/* Walks deeper than this are almost surely a mistake (or a crafted tree). */
#define TDX_IN_MAX_DEPTH 64

// An empty list.
void tdx_in_list_init(tdx_in_list *l)
{
    tdx_arena_init(&l->arena, 16 * 1024);
    l->files = NULL;
    l->len = l->cap = l->nbad = 0;
    l->seen = NULL;
    l->seen_cap = 0;
}

// Release every path, text and the list itself.
void tdx_in_list_free(tdx_in_list *l)
{
    for (size_t i = 0; i < l->len; i++)
        free(l->files[i].text);
    free(l->files);
    free(l->seen);
    l->seen = NULL;
    l->seen_cap = 0;
    tdx_arena_free(&l->arena);
    l->files = NULL;
    l->len = l->cap = l->nbad = 0;
}

// A lower-case, message-style description of an errno value.
static const char *errno_msg(int e, char *tmp, size_t n)
{
    switch (e) {
    case ENOENT: return "no such file or directory";
    case EACCES: return "permission denied";
    case ENOTDIR: return "a component of the path is not a directory";
    case ELOOP: return "too many levels of symbolic links";
    case ENAMETOOLONG: return "file name too long";
    case EISDIR: return "is a directory";
    default: break;
    }
    const char *s = strerror(e);
    size_t k = strlen(s);
    if (k >= n)
        k = n - 1;
    memcpy(tmp, s, k);
    tmp[k] = '\0';
    if (tmp[0] >= 'A' && tmp[0] <= 'Z')
        tmp[0] = (char)(tmp[0] - 'A' + 'a');
    return tmp;
}

// djb2 over a path, for the seen-set.
static size_t hash_path(const char *s)
{
    size_t h = 5381;
    for (; *s; s++)
        h = h * 33 + (unsigned char)*s;
    return h;
}

// Slot of path in the seen-set: where it is, or the empty slot it would go.
static size_t seen_slot(const tdx_in_list *l, const char *path)
{
    size_t m = l->seen_cap - 1, i = hash_path(path) & m;
    while (l->seen[i] && strcmp(l->files[l->seen[i] - 1].path, path) != 0)
        i = (i + 1) & m;
    return i;
}

// Make room in the seen-set for one more path (kept at most half full).
static tdx_status seen_grow(tdx_in_list *l)
{
    if (l->seen_cap && (l->len + 1) * 2 <= l->seen_cap)
        return TDX_OK;
    size_t cap = l->seen_cap ? l->seen_cap * 2 : 64;
    size_t *old = l->seen, oldcap = l->seen_cap;
    l->seen = calloc(cap, sizeof *l->seen);
    if (!l->seen) {
        l->seen = old;
        return TDX_ERR_NOMEM;
    }
    l->seen_cap = cap;
    for (size_t i = 0; i < oldcap; i++)
        if (old[i])
            l->seen[seen_slot(l, l->files[old[i] - 1].path)] = old[i];
    free(old);
    return TDX_OK;
}

// Append one file to the list (the path is copied into the list's arena),
// unless the same path is already in it.
static tdx_status push_file(tdx_in_list *l, const char *path, const char *arg, int explicit_)
{
    if (seen_grow(l) != TDX_OK)
        return TDX_ERR_NOMEM;
    size_t slot = seen_slot(l, path);
    if (l->seen[slot])
        return TDX_OK;
    if (l->len == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 16;
        tdx_in_file *p = realloc(l->files, cap * sizeof *p);
        if (!p)
            return TDX_ERR_NOMEM;
        l->files = p;
        l->cap = cap;
    }
    tdx_in_file *f = &l->files[l->len];
    memset(f, 0, sizeof *f);
    f->path = tdx_arena_strdup(&l->arena, path);
    f->arg = tdx_arena_strdup(&l->arena, arg);
    if (!f->path || !f->arg)
        return TDX_ERR_NOMEM;
    f->explicit_ = explicit_;
    l->len++;
    l->seen[slot] = l->len;
    return TDX_OK;
}

// Directory entries in byte order (locale-independent, reproducible).
static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

// Is this directory entry one a walk must not enter or take?
static int skipped_name(const char *name)
{
    return name[0] == '.' || strcmp(name, "__pycache__") == 0;
}

// Does the name end in ".py" (with something before it)?
static int is_py(const char *name)
{
    size_t n = strlen(name);
    return n > 3 && strcmp(name + n - 3, ".py") == 0;
}

// "dir" + "/" + "name", without doubling a trailing slash.
static char *join(const char *dir, const char *name)
{
    size_t a = strlen(dir), b = strlen(name);
    int slash = a > 0 && dir[a - 1] != '/';
    char *p = malloc(a + (size_t)slash + b + 1);
    if (!p)
        return NULL;
    memcpy(p, dir, a); // NOLINT(bugprone-not-null-terminated-result): the name copied below ends it
    if (slash)
        p[a] = '/';
    memcpy(p + a + slash, name, b + 1);
    return p;
}

// Collect the sorted entry names of dir (malloc'd array of malloc'd names).
static tdx_status list_dir(const char *dir, char ***out, size_t *n, int *err)
{
    *out = NULL;
    *n = 0;
    DIR *dp = opendir(dir);
    if (!dp) {
        *err = errno;
        return TDX_ERR_IO;
    }
    char **names = NULL;
    size_t len = 0, cap = 0;
    tdx_status st = TDX_OK;
    struct dirent *e;
    while ((e = readdir(dp)) != NULL) {
        if (skipped_name(e->d_name))
            continue;
        if (len == cap) {
            size_t c = cap ? cap * 2 : 32;
            char **p = realloc(names, c * sizeof *p);
            if (!p) {
                st = TDX_ERR_NOMEM;
                break;
            }
            names = p;
            cap = c;
        }
        names[len] = strdup(e->d_name);
        if (!names[len]) {
            st = TDX_ERR_NOMEM;
            break;
        }
        len++;
    }
    closedir(dp);
    if (st != TDX_OK) {
        for (size_t i = 0; i < len; i++)
            free(names[i]);
        free(names);
        return st;
    }
    if (len > 1)
        qsort(names, len, sizeof *names, cmp_names);
    *out = names;
    *n = len;
    return TDX_OK;
}

// Walk dir recursively, adding every *.py regular file in name order.
static tdx_status walk(tdx_in_list *l, const char *dir, const char *arg, int depth, tdx_diags *d)
{
    if (depth > TDX_IN_MAX_DEPTH) {
        tdx_diags_add(d, TDX_SEV_WARNING, dir, 0, 0,
                      "directory nested deeper than %d levels, not walked", TDX_IN_MAX_DEPTH);
        return TDX_OK;
    }
    char **names;
    size_t n;
    int err = 0;
    tdx_status st = list_dir(dir, &names, &n, &err);
    if (st == TDX_ERR_IO) {
        char tmp[128];
        tdx_diags_add(d, TDX_SEV_ERROR, dir, 0, 0, "cannot list directory: %s",
                      errno_msg(err, tmp, sizeof tmp));
        l->nbad++;
        return TDX_OK; /* the rest of the walk goes on */
    }
    if (st != TDX_OK)
        return st;
    for (size_t i = 0; i < n && st == TDX_OK; i++) {
        char *path = join(dir, names[i]);
        if (!path) {
            st = TDX_ERR_NOMEM;
            break;
        }
        struct stat sb;
        if (lstat(path, &sb) == 0) {
            if (S_ISDIR(sb.st_mode))
                st = walk(l, path, arg, depth + 1, d);
            else if (is_py(names[i])) {
                /* A link to a file counts; a link to a directory is not
                 * followed (loops). */
                struct stat tb;
                if (S_ISREG(sb.st_mode) || (S_ISLNK(sb.st_mode) && stat(path, &tb) == 0 &&
                                            S_ISREG(tb.st_mode)))
                    st = push_file(l, path, arg, 0);
            }
        }
        free(path);
    }
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
    return st;
}

// Expand one command-line argument into files.
tdx_status tdx_in_add(tdx_in_list *l, const char *arg, tdx_diags *d)
{
    char tmp[128];
    if (!arg || !*arg) {
        tdx_diags_add(d, TDX_SEV_ERROR, NULL, 0, 0, "empty path");
        l->nbad++;
        return TDX_ERR_IO;
    }
    if (strcmp(arg, "-") == 0) {
        size_t before = l->len;
        tdx_status st = push_file(l, TDX_IN_STDIN_NAME, arg, 1);
        if (st == TDX_OK && l->len > before)
            l->files[l->len - 1].stdin_ = 1;
        return st;
    }
    struct stat sb;
    if (stat(arg, &sb) != 0) {
        tdx_diags_add(d, TDX_SEV_ERROR, arg, 0, 0, "%s", errno_msg(errno, tmp, sizeof tmp));
        l->nbad++;
        return TDX_ERR_IO;
    }
    if (S_ISREG(sb.st_mode))
        return push_file(l, arg, arg, 1);
    if (!S_ISDIR(sb.st_mode)) {
        tdx_diags_add(d, TDX_SEV_ERROR, arg, 0, 0, "not a regular file or directory");
        l->nbad++;
        return TDX_ERR_IO;
    }
    size_t before = l->len, bad = l->nbad;
    tdx_status st = walk(l, arg, arg, 0, d);
    if (st == TDX_OK && l->len == before && l->nbad == bad)
        tdx_diags_add(d, TDX_SEV_NOTE, arg, 0, 0, "no Python files (*.py) in this directory");
    return st;
}

// Read one file with the cap and the binary check.
tdx_status tdx_in_read_task(const char *path, size_t max, char **text, size_t *len, tdx_diags *d)
{
    *text = NULL;
    *len = 0;
    if (path && strcmp(path, "-") == 0) {
        tdx_diags_add(d, TDX_SEV_ERROR, TDX_IN_STDIN_NAME, 0, 0,
                      "a task is run from its file: name the file, not the standard input");
        return TDX_ERR_INPUT;
    }
    struct stat sb;
    size_t n = path ? strlen(path) : 0;
    int exists = n > 0 && stat(path, &sb) == 0;
    if (exists && S_ISDIR(sb.st_mode)) {
        tdx_diags_add(d, TDX_SEV_ERROR, path, 0, 0, "is a directory, not a task file");
        return TDX_ERR_INPUT;
    }
    /* the harness imports the task as a module: a .py file, as it says too */
    if (exists && (n < 3 || strcmp(path + n - 3, ".py") != 0)) {
        tdx_diags_add(d, TDX_SEV_ERROR, path, 0, 0, "not a Python file (expected a .py source file)");
        return TDX_ERR_INPUT;
    }
    tdx_in_list l;
    tdx_in_list_init(&l);
    tdx_status st = tdx_in_add(&l, path, d);
    if (st == TDX_OK && l.len == 1)
        st = tdx_in_load(&l, 0, max, d);
    if (st == TDX_OK && l.len == 1) {
        *text = l.files[0].text;
        *len = l.files[0].len;
        l.files[0].text = NULL;
    }
    tdx_in_list_free(&l);
    return st;
}

tdx_status tdx_in_load(tdx_in_list *l, size_t i, size_t max, tdx_diags *d)
{
    tdx_in_file *f = &l->files[i];
    if (f->text)
        return TDX_OK;
    if (max == 0)
        max = TDX_IN_MAX_FILE;
    char tmp[128];
    char *text;
    size_t len;
    errno = 0;
    tdx_status st = tdx_file_read(f->stdin_ ? "/dev/stdin" : f->path, max, &text, &len);
    int err = errno;
    switch (st) {
    case TDX_OK: break;
    case TDX_ERR_TOOBIG:
        if (max >= ((size_t)1 << 20) && max % ((size_t)1 << 20) == 0)
            tdx_diags_add(d, TDX_SEV_ERROR, f->path, 0, 0, "file larger than %zu MiB, not read",
                          max >> 20);
        else
            tdx_diags_add(d, TDX_SEV_ERROR, f->path, 0, 0, "file larger than %zu bytes, not read",
                          max);
        break;
    case TDX_ERR_IO:
        tdx_diags_add(d, TDX_SEV_ERROR, f->path, 0, 0, "cannot read: %s",
                      err ? errno_msg(err, tmp, sizeof tmp) : "i/o error");
        break;
    default:
        tdx_diags_add(d, TDX_SEV_ERROR, f->path, 0, 0, "cannot read: %s", tdx_status_str(st));
        break;
    }
    if (st != TDX_OK) {
        tdx_in_mark_bad(l, i, st);
        return st;
    }
    if (tdx_file_is_binary(text, len)) {
        free(text);
        tdx_diags_add(d, TDX_SEV_ERROR, f->path, 0, 0,
                      "binary file (a NUL byte or invalid UTF-8), not Python source");
        tdx_in_mark_bad(l, i, TDX_ERR_INPUT);
        return TDX_ERR_INPUT;
    }
    f->text = text;
    f->len = len;
    return TDX_OK;
}

// Free one file's text.
void tdx_in_unload(tdx_in_list *l, size_t i)
{
    free(l->files[i].text);
    l->files[i].text = NULL;
    l->files[i].len = 0;
}

// Record a file's failure, counting each file once.
void tdx_in_mark_bad(tdx_in_list *l, size_t i, tdx_status st)
{
    if (l->files[i].status == TDX_OK && st != TDX_OK)
        l->nbad++;
    l->files[i].status = st;
}
