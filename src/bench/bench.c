/* Bench results: rows, summary statistics, Markdown. */
#include "bench/bench.h"

#include <stdio.h>

#include "base/file.h"
#include "journal/journal.h"
#include "loop/loop.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

static char *dupstr(const char *s) { return strdup(s ? s : ""); }

/* Free the strings of one row. */
static void row_free(tdx_bench_row *w)
{
    free(w->task);
    free(w->status);
    free(w->levels);
    free(w->families);
    free(w->torch_baseline);
    free(w->torch_note);
}

void tdx_bench_free(tdx_bench_results *r)
{
    for (size_t i = 0; i < r->len; i++)
        row_free(&r->rows[i]);
    free(r->rows);
    memset(r, 0, sizeof *r);
}

static double num(json_t *o, const char *k)
{
    json_t *v = json_object_get(o, k);
    return json_is_number(v) ? json_number_value(v) : -1;
}

/* A time in seconds from its milliseconds key, else from an older row's seconds key. */
static double ms_or_s(json_t *o, const char *ms_key, const char *s_key)
{
    double ms = num(o, ms_key);
    return ms > 0 ? ms / 1e3 : num(o, s_key);
}

/* A count: clamped to [-1, hi] before the conversion, since a double out of
 * the integer's range makes the cast undefined. */
static long count(json_t *o, const char *k, long hi)
{
    double v = num(o, k);
    return v >= (double)hi ? hi : v > -1 ? (long)v : -1;
}

tdx_status tdx_bench_add_json(tdx_bench_results *r, json_t *o)
{
    if (!json_is_object(o) || !json_is_string(json_object_get(o, "task")))
        return TDX_ERR_INPUT;
    if (r->len == r->cap) {
        size_t cap = r->cap ? r->cap * 2 : 16;
        tdx_bench_row *p = realloc(r->rows, cap * sizeof *p);
        if (!p)
            return TDX_ERR_NOMEM;
        r->rows = p;
        r->cap = cap;
    }
    tdx_bench_row *w = &r->rows[r->len];
    memset(w, 0, sizeof *w);
    w->task = dupstr(json_string_value(json_object_get(o, "task")));
    w->status = dupstr(json_is_string(json_object_get(o, "status"))
                           ? json_string_value(json_object_get(o, "status"))
                           : "ok");
    w->levels = dupstr(json_string_value(json_object_get(o, "levels")));
    w->families = dupstr(json_string_value(json_object_get(o, "families")));
    w->initial_s = num(o, "initial_s");
    w->final_s = num(o, "final_s");
    w->fraction_before = num(o, "fraction_before");
    w->fraction_after = num(o, "fraction_after");
    w->eager_s = ms_or_s(o, "eager_ms", "eager_s");
    w->compile_s = ms_or_s(o, "compile_ms", "compile_s");
    w->compile_build_s = num(o, "compile_build_s");
    w->torch_baseline = dupstr(json_string_value(json_object_get(o, "torch_baseline")));
    w->torch_note = dupstr(json_string_value(json_object_get(o, "torch_note")));
    w->torch_cached = json_is_true(json_object_get(o, "torch_cached"));
    w->eager_beside_s = ms_or_s(o, "eager_beside_ms", "eager_beside_s");
    w->compile_beside_s = ms_or_s(o, "compile_beside_ms", "compile_beside_s");
    w->compile_beside_build_s = num(o, "compile_beside_build_s");
    w->rounds = (int)count(o, "rounds", INT_MAX);
    w->kept = (int)count(o, "kept", INT_MAX);
    w->seconds = num(o, "seconds");
    w->gpu_runs = count(o, "gpu_runs", LONG_MAX);
    w->compiles = count(o, "compiles", LONG_MAX);
    w->tokens = count(o, "tokens", LONG_MAX);
    w->tolerance_before = num(o, "tolerance_before");
    w->tolerance_after = num(o, "tolerance_after");
    if (!w->task || !w->status || !w->levels || !w->families || !w->torch_baseline || !w->torch_note) {
        row_free(w);
        return TDX_ERR_NOMEM;
    }
    /* One row per task: merged slices of the suite may each name a task (run
     * in one, "not run" in another). A run row beats one that did not run;
     * otherwise the later row, the newer measurement, wins. */
    for (size_t i = 0; i < r->len; i++) {
        tdx_bench_row *old = &r->rows[i];
        if (strcmp(old->task, w->task) != 0)
            continue;
        if (strcmp(old->status, "ok") == 0 && strcmp(w->status, "ok") != 0) {
            row_free(w);
        } else {
            row_free(old);
            *old = *w;
        }
        memset(w, 0, sizeof *w);
        return TDX_OK;
    }
    r->len++;
    return TDX_OK;
}

tdx_status tdx_bench_load(tdx_bench_results *r, const char *path)
{
    json_error_t err;
    json_t *j = json_load_file(path, 0, &err);
    if (!j)
        return TDX_ERR_PARSE;
    json_t *rows = json_is_array(j) ? j : json_object_get(j, "rows");
    tdx_status st = json_is_array(rows) ? TDX_OK : TDX_ERR_INPUT;
    for (size_t i = 0; !st && i < json_array_size(rows); i++)
        st = tdx_bench_add_json(r, json_array_get(rows, i));
    json_decref(j);
    return st;
}

json_t *tdx_bench_row_json(const tdx_bench_row *w)
{
    json_t *o = json_pack("{s:s, s:s, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:s, s:s, s:i, s:i, s:s, s:s, s:f, s:I, "
                     "s:I, s:I}",
                     "task", w->task, "status", w->status, "initial_s", w->initial_s, "final_s",
                     w->final_s, "fraction_before", w->fraction_before, "fraction_after",
                     w->fraction_after, "eager_ms", w->eager_s > 0 ? w->eager_s * 1e3 : -1.0,
                     "compile_ms", w->compile_s > 0 ? w->compile_s * 1e3 : -1.0, "compile_build_s",
                     w->compile_build_s, "torch_baseline", w->torch_baseline ? w->torch_baseline : "",
                     "torch_note", w->torch_note ? w->torch_note : "", "rounds", w->rounds, "kept",
                     w->kept, "levels", w->levels, "families", w->families, "seconds", w->seconds,
                     "gpu_runs", (json_int_t)w->gpu_runs, "compiles", (json_int_t)w->compiles, "tokens",
                     (json_int_t)w->tokens);
    if (o && w->torch_cached)
        json_object_set_new(o, "torch_cached", json_true());
    if (o && w->eager_beside_s > 0)
        json_object_set_new(o, "eager_beside_ms", json_real(w->eager_beside_s * 1e3));
    if (o && w->compile_beside_s > 0)
        json_object_set_new(o, "compile_beside_ms", json_real(w->compile_beside_s * 1e3));
    if (o && w->compile_beside_build_s > 0)
        json_object_set_new(o, "compile_beside_build_s", json_real(w->compile_beside_build_s));
    if (o && w->tolerance_before > 0)
        json_object_set_new(o, "tolerance_before", json_real(w->tolerance_before));
    if (o && w->tolerance_after > 0)
        json_object_set_new(o, "tolerance_after", json_real(w->tolerance_after));
    return o;
}

/* Replace *dst by a copy of s (kept as is when out of memory). */
static void set_str(char **dst, const char *s)
{
    char *d = strdup(s ? s : "");
    if (d) {
        free(*dst);
        *dst = d;
    }
}

/* Append "what: why" to the row's torch note. */
static void add_note(tdx_bench_row *w, const char *what, const char *why)
{
    char buf[600];
    snprintf(buf, sizeof buf, "%s%s%s: %.400s", w->torch_note && w->torch_note[0] ? w->torch_note : "",
             w->torch_note && w->torch_note[0] ? "; " : "", what, why ? why : "not timed");
    set_str(&w->torch_note, buf);
}

/* One torch column of a reply: its median in seconds, or -1 with the reason noted. */
static double torch_column(tdx_bench_row *w, json_t *reply, const char *key, const char *what)
{
    json_t *c = json_object_get(reply, key);
    double ms = num(c, "median_ms");
    if (ms > 0)
        return ms / 1e3;
    json_t *err = json_object_get(c, "error");
    add_note(w, what, json_is_string(err) ? json_string_value(err) : "not in the timing reply");
    return -1;
}

void tdx_bench_torch_from_json(tdx_bench_row *w, json_t *reply)
{
    w->eager_s = w->compile_s = w->compile_build_s = -1;
    set_str(&w->torch_note, "");
    json_t *which = json_object_get(reply, "torch_baseline");
    set_str(&w->torch_baseline, json_is_string(which) ? json_string_value(which) : "");
    if (!json_is_string(which)) {
        add_note(w, "torch", "the task has neither torch_impl nor reference");
        return;
    }
    w->eager_s = torch_column(w, reply, "torch_eager", "eager");
    w->compile_s = torch_column(w, reply, "torch_compile", "torch.compile");
    json_t *tc = json_object_get(reply, "torch_compile");
    if (w->compile_s > 0)
        w->compile_build_s = num(tc, "compile_s");
    /* a stand-in backend (the test seam) ran the whole path, but its time is
     * no torch.compile time: the column is n/a, the note keeps what it measured */
    const char *backend = json_string_value(json_object_get(tc, "backend"));
    if (w->compile_s > 0 && backend && strcmp(backend, "inductor") != 0) {
        char why[160];
        snprintf(why, sizeof why, "backend %.64s, not inductor (%.4g ms, compiled in %.3g s)", backend,
                 w->compile_s * 1e3, w->compile_build_s);
        add_note(w, "torch.compile", why);
        w->compile_s = w->compile_build_s = -1;
    }
}

tdx_status tdx_bench_torch(tdx_bench_row *w, const char *task_path, const char *device, double timeout_s)
{
    tdx_hx_opts o = {0};
    o.timeout_s = timeout_s > 0 ? timeout_s : 300;
    const char *args[] = {"--torch-only", "--torch-compile", "--device", device ? device : "cuda", NULL};
    tdx_hx_reply r;
    tdx_status st = tdx_hx_call(&o, "time", task_path, args, &r, NULL);
    if (st) {
        w->eager_s = w->compile_s = w->compile_build_s = -1;
        set_str(&w->torch_note, "");
        add_note(w, "torch baselines", r.reason);
    } else {
        tdx_bench_torch_from_json(w, r.json);
    }
    tdx_hx_reply_free(&r);
    return st;
}

/* The cache key of a task file on a device: "SHA:DEVICE"; -1 when unreadable. */
static int cache_key(const char *task_path, const char *device, char *key, size_t n)
{
    char *src;
    size_t len;
    if (tdx_file_read(task_path, 64u << 20, &src, &len))
        return -1;
    char hash[17];
    tdx_loop_hash(src, len, hash);
    free(src);
    snprintf(key, n, "%s:%s", hash, device ? device : "cuda");
    return 0;
}

/* The cache file as a JSON object (a new one when the file does not exist);
 * NULL when it exists but is not one. */
static json_t *cache_load(const char *cache_path)
{
    if (access(cache_path, F_OK) != 0)
        return json_object();
    json_error_t err;
    json_t *cache = json_load_file(cache_path, 0, &err);
    if (!json_is_object(cache)) {
        json_decref(cache);
        return NULL;
    }
    return cache;
}

/* Add a measured row's torch columns under key; 0 when nothing usable. */
static int cache_put(json_t *cache, const char *key, const char *task_path, const tdx_bench_row *w)
{
    if (!(w->eager_s > 0 || w->compile_s > 0))
        return 0;
    const char *slash = strrchr(task_path, '/');
    json_t *ne = json_pack("{s:s, s:f, s:f, s:f, s:s, s:s}", "task", slash ? slash + 1 : task_path, "eager_ms",
                           w->eager_s > 0 ? w->eager_s * 1e3 : -1.0, "compile_ms",
                           w->compile_s > 0 ? w->compile_s * 1e3 : -1.0, "compile_build_s", w->compile_build_s,
                           "torch_baseline", w->torch_baseline ? w->torch_baseline : "", "torch_note",
                           w->torch_note ? w->torch_note : "");
    return ne && json_object_set_new(cache, key, ne) == 0;
}

/* Add the new entries to the cache file as it is now and rename the whole
 * into place, under an flock of CACHE.lock: processes that measure at the
 * same time (the bench's parallel tasks) keep each other's entries, and a
 * run that dies leaves the old file. */
static tdx_status cache_save(json_t *entries, const char *cache_path)
{
    char tmp[4096], lock[4096];
    snprintf(tmp, sizeof tmp, "%.4000s.tmp", cache_path);
    snprintf(lock, sizeof lock, "%.4000s.lock", cache_path);
    int fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
    if (fd < 0)
        return TDX_ERR_IO;
    while (flock(fd, LOCK_EX) != 0)
        if (errno != EINTR) {
            close(fd);
            return TDX_ERR_IO;
        }
    tdx_status st = TDX_OK;
    json_t *now = cache_load(cache_path);
    if (!now)
        st = TDX_ERR_PARSE;
    else if (json_object_update(now, entries) != 0)
        st = TDX_ERR_NOMEM;
    else if (json_dump_file(now, tmp, JSON_INDENT(1) | JSON_SORT_KEYS) != 0 || rename(tmp, cache_path) != 0)
        st = TDX_ERR_IO;
    json_decref(now);
    flock(fd, LOCK_UN);
    close(fd);
    return st;
}

int tdx_bench_torch_cache_usable(const char *cache_path)
{
    json_t *cache = cache_load(cache_path);
    json_decref(cache);
    return cache != NULL;
}

tdx_status tdx_bench_torch_cached(tdx_bench_row *w, const char *task_path, const char *device, double timeout_s,
                                  const char *cache_path)
{
    char key[64];
    if (!cache_path || cache_key(task_path, device, key, sizeof key))
        return tdx_bench_torch(w, task_path, device, timeout_s);
    json_t *cache = cache_load(cache_path);
    if (!cache)
        return TDX_ERR_PARSE;
    json_t *e = json_object_get(cache, key);
    if (json_is_object(e)) {
        w->eager_s = ms_or_s(e, "eager_ms", "eager_s");
        w->compile_s = ms_or_s(e, "compile_ms", "compile_s");
        w->compile_build_s = num(e, "compile_build_s");
        set_str(&w->torch_baseline, json_string_value(json_object_get(e, "torch_baseline")));
        set_str(&w->torch_note, json_string_value(json_object_get(e, "torch_note")));
        w->torch_cached = 1;
        json_decref(cache);
        return TDX_OK;
    }
    json_decref(cache);
    tdx_status st = tdx_bench_torch(w, task_path, device, timeout_s);
    json_t *entries = json_object();
    if (!entries)
        return st ? st : TDX_ERR_NOMEM;
    if (!st && cache_put(entries, key, task_path, w))
        st = cache_save(entries, cache_path);
    json_decref(entries);
    return st;
}

tdx_status tdx_bench_torch_fill(const char *const *task_paths, size_t n, const char *device, double timeout_s,
                                const char *cache_path, size_t *measured, int *fresh)
{
    *measured = 0;
    for (size_t i = 0; fresh && i < n; i++)
        fresh[i] = 0;
    json_t *cache = cache_load(cache_path);
    if (!cache)
        return TDX_ERR_PARSE;
    /* the tasks the cache lacks, and their keys */
    const char **args = calloc(2 * n + 5, sizeof *args);
    char (*keys)[64] = calloc(n ? n : 1, sizeof *keys);
    size_t *which = calloc(n ? n : 1, sizeof *which);
    json_t *entries = json_object();
    size_t na = 0, nm = 0;
    tdx_status st = args && keys && which && entries ? TDX_OK : TDX_ERR_NOMEM;
    for (size_t i = 0; !st && i < n; i++) {
        if (cache_key(task_paths[i], device, keys[nm], sizeof keys[nm]) || json_object_get(cache, keys[nm]))
            continue;
        which[nm++] = i;
    }
    if (!st && nm) {
        /* one interpreter for all of them: the first --task is the call's own */
        for (size_t j = 1; j < nm; j++) {
            args[na++] = "--task";
            args[na++] = task_paths[which[j]];
        }
        args[na++] = "--device";
        args[na++] = device ? device : "cuda";
        args[na++] = "--torch-compile";
        args[na] = NULL;
        tdx_hx_opts o = {0};
        o.timeout_s = (timeout_s > 0 ? timeout_s : 300) * (double)nm;
        tdx_hx_reply r;
        st = tdx_hx_call(&o, "baselines", task_paths[which[0]], args, &r, NULL);
        json_t *replies = st ? NULL : json_object_get(r.json, "tasks");
        for (size_t j = 0; j < nm && j < json_array_size(replies); j++) {
            json_t *one = json_array_get(replies, j);
            tdx_bench_row w = {0};
            w.torch_baseline = dupstr("");
            w.torch_note = dupstr("");
            if (json_is_true(json_object_get(one, "ok"))) {
                tdx_bench_torch_from_json(&w, one);
                int put = cache_put(entries, keys[j], task_paths[which[j]], &w);
                *measured += (size_t)put;
                if (fresh && put)
                    fresh[which[j]] = 1;
            }
            free(w.torch_baseline);
            free(w.torch_note);
        }
        tdx_hx_reply_free(&r);
        if (*measured) {
            tdx_status sst = cache_save(entries, cache_path);
            if (!st)
                st = sst;
        }
    }
    free(args);
    free(keys);
    free(which);
    json_decref(entries);
    json_decref(cache);
    return st;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, size_t n)
{
    if (n == 0)
        return -1;
    qsort(v, n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static int ran(const tdx_bench_row *w)
{
    return strcmp(w->status, "ok") == 0 && w->initial_s > 0 && w->final_s > 0;
}

int tdx_bench_looser(const tdx_bench_row *w)
{
    return w->tolerance_before > 0 && w->tolerance_after > w->tolerance_before * (1 + 1e-9);
}

void tdx_bench_summarize(const tdx_bench_results *r, tdx_bench_summary *s)
{
    memset(s, 0, sizeof *s);
    s->tasks = r->len;
    double *sp = calloc(r->len ? r->len : 1, sizeof *sp);
    double *fr = calloc(r->len ? r->len : 1, sizeof *fr);
    double *bd = calloc(r->len ? r->len : 1, sizeof *bd);
    double *cb = calloc(r->len ? r->len : 1, sizeof *cb);
    size_t nfr = 0, nbound = 0, ncb = 0;
    double logsum = 0, boundsum = 0;
    for (size_t i = 0; i < r->len; i++) {
        const tdx_bench_row *w = &r->rows[i];
        if (w->seconds > 0)
            s->seconds += w->seconds;
        if (w->compile_beside_build_s > 0 && cb) {
            cb[ncb++] = w->compile_beside_build_s;
            s->beside_build_max_s = fmax(s->beside_build_max_s, w->compile_beside_build_s);
        }
        if (!ran(w))
            continue;
        double x = w->initial_s / w->final_s;
        double bx = w->fraction_before > 0 && 1 / w->fraction_before > x ? 1 / w->fraction_before : x;
        nbound += w->fraction_before > 0;
        if (sp)
            sp[s->ok] = x;
        if (bd)
            bd[s->ok] = bx;
        boundsum += log(bx);
        s->ok++;
        logsum += log(x);
        s->above2 += x > 2.0;
        s->above5 += x > 5.0;
        if (w->fraction_after >= 0 && fr)
            fr[nfr++] = w->fraction_after;
        /* a torch column that is n/a counts neither way */
        if (w->eager_s > 0) {
            s->with_eager++;
            s->faster_eager += w->final_s < w->eager_s;
            s->tie_eager += fabs(w->final_s - w->eager_s) <= TDX_BENCH_TIE * w->eager_s;
        }
        s->looser += tdx_bench_looser(w) != 0;
        if (w->compile_s > 0) {
            s->with_compile++;
            s->faster_compile += w->final_s < w->compile_s;
            s->looser_faster_compile += tdx_bench_looser(w) && w->final_s < w->compile_s;
            s->tie_compile += fabs(w->final_s - w->compile_s) <= TDX_BENCH_TIE * w->compile_s;
        }
        if (w->eager_beside_s > 0) {
            s->with_eager_beside++;
            s->faster_eager_beside += w->final_s < w->eager_beside_s;
            s->tie_eager_beside += fabs(w->final_s - w->eager_beside_s) <= TDX_BENCH_TIE * w->eager_beside_s;
        }
        if (w->compile_beside_s > 0) {
            s->with_compile_beside++;
            s->faster_compile_beside += w->final_s < w->compile_beside_s;
            s->tie_compile_beside += fabs(w->final_s - w->compile_beside_s) <= TDX_BENCH_TIE * w->compile_beside_s;
        }
        int tried = w->torch_note && w->torch_note[0];
        s->na_eager += tried && w->eager_s <= 0;
        s->na_compile += tried && w->compile_s <= 0;
        if ((w->eager_s > 0 || w->compile_s > 0) && w->torch_baseline &&
            strcmp(w->torch_baseline, "reference") == 0)
            s->ref_baseline++;
        s->torch_cached += w->torch_cached != 0;
    }
    s->geomean = s->ok ? exp(logsum / (double)s->ok) : -1;
    s->median = sp ? median(sp, s->ok) : -1;
    s->median_fraction = fr ? median(fr, nfr) : -1;
    s->bound_geomean = nbound ? exp(boundsum / (double)s->ok) : -1;
    s->bound_median = nbound && bd ? median(bd, s->ok) : -1;
    s->beside_build_median_s = cb ? median(cb, ncb) : -1;
    if (!ncb)
        s->beside_build_max_s = -1;
    free(sp);
    free(fr);
    free(bd);
    free(cb);
}

/* A time as the table shows it: "1.234 ms" or "56.7 µs". */
static void fmt_time(double s, char *out, size_t n)
{
    if (s >= 1e-3)
        snprintf(out, n, "%.3f ms", s * 1e3);
    else
        snprintf(out, n, "%.1f µs", s * 1e6);
}

static tdx_status cell_time_marked(tdx_buf *b, double s, const char *mark)
{
    if (s <= 0)
        return tdx_buf_adds(b, " – |");
    char t[64];
    fmt_time(s, t, sizeof t);
    return tdx_buf_printf(b, " %s%s |", t, mark);
}

static tdx_status cell_time(tdx_buf *b, double s)
{
    return cell_time_marked(b, s, "");
}

/* A torch column: the time ("(ref)" when it timed the float64-prone
 * reference, not torch_impl), "n/a" when it failed, "–" when not timed. */
static tdx_status cell_torch(tdx_buf *b, const tdx_bench_row *w, double s)
{
    if (s <= 0)
        return tdx_buf_adds(b, w->torch_note && w->torch_note[0] ? " n/a |" : " – |");
    char t[64];
    fmt_time(s, t, sizeof t);
    return tdx_buf_printf(b, " %s%s |", t,
                          w->torch_baseline && strcmp(w->torch_baseline, "reference") == 0 ? " (ref)" : "");
}

static tdx_status cell_pct(tdx_buf *b, double f)
{
    return f < 0 ? tdx_buf_adds(b, " – |") : tdx_buf_printf(b, " %.0f%% |", 100 * f);
}

tdx_status tdx_bench_markdown(const tdx_bench_results *r, const tdx_bench_summary *s, tdx_buf *out)
{
    tdx_status st = tdx_buf_adds(
        out, "| task | initial | final | speedup | roofline before | roofline after | torch eager | "
             "torch.compile | rounds | kept (level) | status |\n"
             "|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (size_t i = 0; i < r->len && !st; i++) {
        const tdx_bench_row *w = &r->rows[i];
        st = tdx_buf_printf(out, "| %s |", w->task);
        if (!st) st = cell_time(out, w->initial_s);
        if (!st) st = cell_time_marked(out, w->final_s, tdx_bench_looser(w) ? " †" : "");
        if (!st)
            st = ran(w) ? tdx_buf_printf(out, " %.2fx |", w->initial_s / w->final_s) : tdx_buf_adds(out, " – |");
        if (!st) st = cell_pct(out, w->fraction_before);
        if (!st) st = cell_pct(out, w->fraction_after);
        if (!st) st = cell_torch(out, w, w->eager_s);
        if (!st) st = cell_torch(out, w, w->compile_s);
        if (!st)
            st = tdx_buf_printf(out, " %d | %s%s%s%s | %s |\n", w->rounds > 0 ? w->rounds : 0,
                                w->families[0] ? w->families : "–", w->levels[0] ? " (" : "",
                                w->levels, w->levels[0] ? ")" : "", w->status);
    }
    if (st)
        return st;
    st = tdx_buf_printf(out, "\n| summary | value |\n|---|---|\n| tasks run / total | %zu / %zu |\n",
                        s->ok, s->tasks);
    if (!st && s->ok)
        st = tdx_buf_printf(out,
                            "| geomean speedup | %.2fx |\n| median speedup | %.2fx |\n"
                            "| > 2x | %zu / %zu |\n| > 5x | %zu / %zu |\n",
                            s->geomean, s->median, s->above2, s->ok, s->above5, s->ok);
    if (!st && s->median_fraction >= 0)
        st = tdx_buf_printf(out, "| median final roofline | %.0f%% |\n", 100 * s->median_fraction);
    if (!st && s->bound_geomean > 0)
        st = tdx_buf_printf(out, "| geomean / median at every roofline floor (the most the suite allows) | %.2fx / %.2fx |\n",
                            s->bound_geomean, s->bound_median);
    if (!st && s->with_eager)
        st = tdx_buf_printf(out, "| faster than torch eager | %zu / %zu (%.0f%%) |\n", s->faster_eager,
                            s->with_eager, 100.0 * (double)s->faster_eager / (double)s->with_eager);
    if (!st && s->na_eager)
        st = tdx_buf_printf(out, "| torch eager n/a | %zu / %zu |\n", s->na_eager, s->ok);
    if (!st && s->with_compile)
        st = tdx_buf_printf(out, "| faster than torch.compile | %zu / %zu (%.0f%%) |\n", s->faster_compile,
                            s->with_compile, 100.0 * (double)s->faster_compile / (double)s->with_compile);
    if (!st && s->na_compile)
        st = tdx_buf_printf(out, "| torch.compile n/a | %zu / %zu |\n", s->na_compile, s->ok);
    if (!st && (s->with_eager_beside || s->with_compile_beside))
        st = tdx_buf_printf(out,
                            "| timed beside torch at the end of each run: faster than torch eager / torch.compile "
                            "| %zu / %zu, %zu / %zu |\n",
                            s->faster_eager_beside, s->with_eager_beside, s->faster_compile_beside,
                            s->with_compile_beside);
    if (!st && (s->with_eager_beside || s->with_compile_beside))
        st = tdx_buf_printf(out,
                            "| timed beside torch: within %.0f%% of torch eager / torch.compile (a tie either way) "
                            "| %zu / %zu |\n",
                            100 * TDX_BENCH_TIE, s->tie_eager_beside, s->tie_compile_beside);
    if (!st && s->beside_build_median_s > 0)
        st = tdx_buf_printf(out, "| timed beside torch: torch.compile's compile there, median / most | %.1f s / %.1f s |\n",
                            s->beside_build_median_s, s->beside_build_max_s);
    if (!st && (s->with_eager || s->with_compile))
        st = tdx_buf_printf(out, "| within %.0f%% of torch eager / torch.compile (a tie either way) | %zu / %zu |\n",
                            100 * TDX_BENCH_TIE, s->tie_eager, s->tie_compile);
    if (!st && s->looser)
        st = tdx_buf_printf(out,
                            "| † judged at a looser tolerance than the task as given (a tf32 dot on fp32 data) | %zu"
                            " (faster than torch.compile: %zu) |\n",
                            s->looser, s->looser_faster_compile);
    if (!st && s->ref_baseline)
        st = tdx_buf_printf(out, "| torch columns on `reference` (no torch_impl) | %zu |\n", s->ref_baseline);
    if (!st && s->torch_cached)
        st = tdx_buf_printf(out, "| torch columns from the cache (measured before) | %zu |\n", s->torch_cached);
    if (!st)
        st = tdx_buf_printf(out, "| wall time of all runs | %.0f s |\n", s->seconds);
    return st;
}

/* The journal-derived parts of a row, from the journal's entries. */
void tdx_bench_row_from_entries(tdx_bench_row *w, json_t *entries)
{
    json_t *all = entries;
    if (json_is_array(all)) {
        tdx_buf lv, fam;
        tdx_buf_init(&lv, 0);
        tdx_buf_init(&fam, 0);
        for (size_t i = 0; i < json_array_size(all); i++) {
            json_t *e = json_array_get(all, i);
            const char *t = json_string_value(json_object_get(e, "type"));
            if (!t)
                continue;
            if (strcmp(t, "baseline") == 0) {
                w->fraction_before = json_number_value(json_object_get(e, "fraction"));
                w->tolerance_before = json_number_value(json_object_get(e, "tolerance"));
            }
            if (strcmp(t, "confirm") == 0 && json_is_number(json_object_get(e, "initial_fraction")))
                /* the task beside its result at the end: the row's times are that timing's */
                w->fraction_before = json_number_value(json_object_get(e, "initial_fraction"));
            if (strcmp(t, "confirm") == 0 || strcmp(t, "torch_beside") == 0) {
                /* torch timed beside the result at the end, at the row's time basis */
                json_t *te = json_object_get(e, "torch_eager_s"), *tc = json_object_get(e, "torch_compile_s");
                json_t *tb = json_object_get(e, "torch_compile_build_s");
                w->eager_beside_s = json_is_number(te) ? json_number_value(te) : -1;
                w->compile_beside_s = json_is_number(tc) ? json_number_value(tc) : -1;
                w->compile_beside_build_s = json_is_number(tb) ? json_number_value(tb) : -1;
            }
            if (strcmp(t, "confirm") == 0 && json_is_true(json_object_get(e, "reverted"))) {
                /* side by side at the end, what was kept was slower: nothing is */
                tdx_buf_reset(&lv);
                tdx_buf_reset(&fam);
                w->kept = 0;
                w->tolerance_after = 0;
            }
            if (strcmp(t, "round") == 0) {
                json_t *levels = json_object_get(json_object_get(e, "diagnosis"), "levels");
                for (size_t k = 0; k < json_array_size(levels); k++) {
                    json_int_t c = json_integer_value(json_object_get(json_array_get(levels, k), "compiles"));
                    long sum = w->compiles > 0 ? w->compiles : 0;
                    if (c > 0) /* saturate: a damaged journal must not overflow the sum */
                        w->compiles = c > LONG_MAX - sum ? LONG_MAX : sum + (long)c;
                }
            }
            if (strcmp(t, "keep") == 0) {
                json_int_t round = json_integer_value(json_object_get(e, "round"));
                long decided = -1;
                for (size_t k = 0; k < json_array_size(all); k++) {
                    json_t *r = json_array_get(all, k);
                    const char *rt = json_string_value(json_object_get(r, "type"));
                    if (rt && strcmp(rt, "round_end") == 0 &&
                        json_integer_value(json_object_get(r, "round")) == round)
                        decided = (long)json_integer_value(json_object_get(r, "decided_level"));
                }
                w->tolerance_after = json_number_value(json_object_get(e, "tolerance"));
                const char *family = json_string_value(json_object_get(e, "family"));
                tdx_buf_printf(&fam, "%s%s", fam.len ? "," : "", family ? family : "?");
                if (decided >= 0)
                    tdx_buf_printf(&lv, "%s%ld", lv.len ? "," : "", decided);
                else
                    tdx_buf_printf(&lv, "%s-", lv.len ? "," : "");
            }
        }
        free(w->levels);
        free(w->families);
        w->levels = strdup(tdx_buf_str(&lv));
        w->families = strdup(tdx_buf_str(&fam));
        tdx_buf_free(&lv);
        tdx_buf_free(&fam);
    }
}

/* The journal-derived parts of a row. */
void tdx_bench_row_from_journal(tdx_bench_row *w, const char *run_dir)
{
    char path[4200];
    snprintf(path, sizeof path, "%.4000s/journal.jsonl", run_dir);
    tdx_diags d;
    tdx_diags_init(&d);
    json_t *all = NULL;
    if (tdx_jnl_read(path, &all, &d) == TDX_OK)
        tdx_bench_row_from_entries(w, all);
    json_decref(all);
    tdx_diags_free(&d);
}
