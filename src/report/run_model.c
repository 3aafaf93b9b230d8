/* Reading a run directory into the report model: an optimize journal, or
 * the results files of a bench run (with an ablation over --max-level). */
#include "report/run.h"

#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "journal/journal.h"
#include "profile/profile.h"

const char *const tdx_rep_mm_names[4] = {"fp16", "bf16", "tf32", "fp32"};

// A number member, or def.
static double num(json_t *o, const char *k, double def)
{
    json_t *v = json_object_get(o, k);
    return json_is_number(v) ? json_number_value(v) : def;
}

// An integral number member, or def.
static long inum(json_t *o, const char *k, long def)
{
    json_t *v = json_object_get(o, k);
    return json_is_number(v) ? (long)json_number_value(v) : def;
}

// A string member, or NULL.
static const char *str(json_t *o, const char *k)
{
    return json_string_value(json_object_get(o, k));
}

// One journal entry's checking and timing seconds into v.
static void add_verify(json_t *e, tdx_rep_verify *v)
{
    double c = num(e, "check_s", -1), t = num(e, "time_s", -1);
    if (c >= 0) {
        v->checks++;
        v->check_s += c;
    }
    if (t >= 0) {
        v->timings++;
        v->time_s += t;
    }
    json_t *w = json_object_get(e, "lock_wait_s");
    v->wait_s += (num(w, "check", 0) > 0 ? num(w, "check", 0) : 0) + (num(w, "time", 0) > 0 ? num(w, "time", 0) : 0);
    json_t *p = json_object_get(e, "check_parts_s");
    if (json_is_object(p)) {
        v->have_parts = 1;
        v->start_s += num(p, "start", 0);
        v->precompile_s += num(p, "precompile", 0);
        v->child_s += num(p, "child", 0);
        v->judge_s += num(p, "judge", 0);
    }
}

// A regular file at path.
static int is_file(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0 && S_ISREG(sb.st_mode);
}

// Add a line to what the report says is missing or partial.
static void note(tdx_rep_model *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(tdx_rep_model *m, const char *fmt, ...)
{
    char line[600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap); // NOLINT(clang-analyzer-valist.Uninitialized): va_start above
    va_end(ap);
    const char **p = tdx_arena_alloc(&m->arena, (m->nnotes + 1) * sizeof *p);
    char *s = tdx_arena_strdup(&m->arena, line);
    if (!p || !s)
        return;
    if (m->nnotes)
        memcpy(p, m->notes, m->nnotes * sizeof *p);
    p[m->nnotes++] = s;
    m->notes = p;
}

/* Keep a parsed document alive for as long as the model (its strings are borrowed). */
static void keep_json(tdx_rep_model *m, json_t *doc)
{
    json_array_append_new((json_t *)m->json, doc);
}

/* ---- optimize runs -------------------------------------------------------- */

// A finding of a round entry.
static void read_finding(tdx_rep_model *m, json_t *j, tdx_rep_finding *f)
{
    f->id = (int)inum(j, "id", 0);
    f->level = (int)inum(j, "level", -1);
    f->line = (int)inum(j, "line", 0);
    f->rule = str(j, "rule");
    f->file = str(j, "file");
    f->message = str(j, "message");
    f->family = str(j, "family");
    f->hypothesis = str(j, "hypothesis");
    f->kernel = str(j, "kernel");
    f->evidence = str(j, "evidence");
    f->confidence = num(j, "confidence", -1);
    json_t *facts = json_object_get(j, "facts");
    size_t n = json_object_size(facts);
    if (!n)
        return;
    f->facts = tdx_arena_alloc(&m->arena, n * sizeof *f->facts);
    if (!f->facts)
        return;
    const char *k;
    json_t *v;
    json_object_foreach(facts, k, v) {
        f->facts[f->nfacts].key = k;
        f->facts[f->nfacts].value = json_is_string(v) ? json_string_value(v) : "";
        f->nfacts++;
    }
}

// A round entry: its findings and what each level did.
static void read_round(tdx_rep_model *m, json_t *e, tdx_rep_round *r)
{
    json_t *fs = json_object_get(e, "findings");
    r->nfindings = 0;
    r->findings = json_array_size(fs) ? tdx_arena_alloc(&m->arena, json_array_size(fs) * sizeof *r->findings)
                                      : NULL;
    for (size_t i = 0; r->findings && i < json_array_size(fs); i++)
        read_finding(m, json_array_get(fs, i), &r->findings[r->nfindings++]);
    json_t *dx = json_object_get(e, "diagnosis");
    r->have_diagnosis = json_is_object(dx);
    r->decided_level = (int)inum(dx, "decided_level", -1);
    r->deciding_finding = (int)inum(dx, "deciding_finding", 0);
    json_t *lv = json_object_get(dx, "levels");
    for (size_t i = 0; i < json_array_size(lv); i++) {
        json_t *l = json_array_get(lv, i);
        long k = inum(l, "level", -1);
        if (k < 0 || k > 3)
            continue;
        tdx_rep_cost *c = &r->levels[k];
        c->state = str(l, "state");
        c->why = str(l, "why");
        c->seconds = num(l, "seconds", 0);
        c->compiles = inum(l, "compiles", 0);
        c->gpu_runs = inum(l, "gpu_runs", 0);
        c->tokens = inum(l, "tokens", 0);
    }
}

// A candidate entry.
static void read_cand(json_t *e, tdx_rep_cand *c)
{
    memset(c, 0, sizeof *c);
    c->index = (int)inum(e, "index", 0);
    c->family = str(e, "family");
    c->origin = str(e, "origin");
    c->summary = str(e, "summary");
    c->verdict = str(e, "verdict");
    c->reason = str(e, "reason");
    c->diff = str(e, "diff");
    c->tokens = inum(e, "tokens", 0);
    c->against = (int)inum(e, "against", 0);
    json_t *cites = json_object_get(e, "cites");
    for (size_t i = 0; i < json_array_size(cites) && c->ncites < 8; i++)
        c->cites[c->ncites++] = (int)json_integer_value(json_array_get(cites, i));
    json_t *t = json_object_get(e, "timing");
    if (json_is_object(t)) {
        c->have_timing = 1;
        c->base_median_s = num(t, "base_median_s", 0);
        c->base_iqr_s = num(t, "base_iqr_s", 0);
        c->cand_median_s = num(t, "cand_median_s", 0);
        c->cand_iqr_s = num(t, "cand_iqr_s", 0);
    }
}

/* A fact's text as a number, or -1 when it is missing or not one. */
static double fact_num(const char *s)
{
    char *end = NULL;
    double v = s ? strtod(s, &end) : -1;
    return s && end != s && *end == '\0' ? v : -1;
}

/* "... of the fp16 matmul rate ..." in a level-1 message names the dtype. */
static const char *dtype_from_message(const char *msg)
{
    for (int i = 0; msg && i < 4; i++) {
        char pat[48];
        snprintf(pat, sizeof pat, "the %s matmul rate", tdx_rep_mm_names[i]);
        if (strstr(msg, pat))
            return tdx_rep_mm_names[i];
    }
    return NULL;
}

// The value of a finding's fact, or NULL.
static const char *fact(const tdx_rep_finding *f, const char *key)
{
    for (size_t i = 0; i < f->nfacts; i++)
        if (strcmp(f->facts[i].key, key) == 0)
            return f->facts[i].value;
    return NULL;
}

// The ceilings from a `ceilings` reply (copy bandwidth is required).
static void read_ceilings(tdx_rep_roof *roof, json_t *doc)
{
    tdx_prof_ceilings c;
    tdx_prof_ceilings_from_json(doc, &c);
    if (!(c.copy_bw > 0))
        return;
    roof->have_ceilings = 1;
    roof->device = c.device;
    roof->copy_bw = c.copy_bw;
    roof->mm[0] = c.mm_fp16;
    roof->mm[1] = c.mm_bf16;
    roof->mm[2] = c.mm_tf32;
    roof->mm[3] = c.mm_fp32;
}

/* The ceilings (a file, or the start entry) and the task's bytes and FLOPs
 * (the baseline entry, or the roofline facts of a level-1 finding). */
static tdx_status find_roof(tdx_rep_model *m, const tdx_rep_load_opts *o, json_t *start,
                            json_t *base, tdx_diags *diags)
{
    tdx_rep_roof *roof = &m->opt.roof;
    char path[4200];
    const char *cpath = o ? o->ceilings_path : NULL;
    if (!cpath) {
        snprintf(path, sizeof path, "%.4000s/ceilings.json", m->dir);
        if (is_file(path))
            cpath = path;
    }
    if (cpath) {
        json_error_t err;
        json_t *doc = json_load_file(cpath, 0, &err);
        if (!doc) {
            tdx_diags_add(diags, TDX_SEV_ERROR, cpath, err.line, err.column,
                          "cannot read the ceilings: %s", err.text);
            return TDX_ERR_PARSE;
        }
        keep_json(m, doc);
        read_ceilings(roof, doc);
        if (!roof->have_ceilings) {
            tdx_diags_add(diags, TDX_SEV_ERROR, cpath, 0, 0,
                          "no copy_bytes_per_s: not the output of `tritondx ceilings --json`");
            return TDX_ERR_INPUT;
        }
    } else if (json_is_object(json_object_get(start, "ceilings"))) {
        read_ceilings(roof, json_object_get(start, "ceilings"));
    }
    if (num(base, "bytes", 0) > 0) {
        roof->have_work = 1;
        roof->bytes = num(base, "bytes", 0);
        roof->flops = num(base, "flops", 0);
        roof->dtype = str(base, "dtype");
    }
    for (size_t i = 0; i < m->opt.nrounds && !roof->have_work; i++) {
        const tdx_rep_round *r = &m->opt.rounds[i];
        for (size_t k = 0; k < r->nfindings && !roof->have_work; k++) {
            const tdx_rep_finding *f = &r->findings[k];
            double nb = fact_num(fact(f, "bytes")), nf = fact_num(fact(f, "flops"));
            if (f->level != 1 || !(nb > 0))
                continue;
            roof->have_work = 1;
            roof->bytes = nb;
            roof->flops = nf > 0 ? nf : 0;
            roof->dtype = fact(f, "dtype") ? fact(f, "dtype") : dtype_from_message(f->message);
        }
    }
    if (!roof->have_ceilings)
        roof->why = "the run records no ceilings: save the output of tritondx ceilings --json as "
                    "ceilings.json in the run directory, or pass --ceilings FILE";
    else if (!roof->have_work)
        roof->why = "the run records no bytes and FLOPs of the task (level 1 measures them on a GPU)";
    else if (!(roof->flops > 0))
        roof->why = "the task counts no FLOPs (it defines no flops(inputs)), so it has no place on "
                    "the FLOP/s axis";
    else if (!(m->opt.initial_s > 0))
        roof->why = "the run has no baseline time";
    else if (!isfinite(roof->flops / roof->bytes) || !isfinite(roof->flops / m->opt.initial_s) ||
             !(roof->flops / roof->bytes > 0))
        roof->why = "the run's bytes, FLOPs and times do not fit a log scale";
    return TDX_OK;
}

/* The highest round number any entry mentions. */
static int max_round(json_t *entries)
{
    int mx = 0;
    for (size_t i = 0; i < json_array_size(entries); i++) {
        int r = (int)inum(json_array_get(entries, i), "round", 0);
        const char *t = str(json_array_get(entries, i), "type");
        if (t && strcmp(t, "stop") != 0 && strcmp(t, "resume") != 0 && r > mx && r < 100000)
            mx = r;
    }
    return mx;
}

// The journal of an optimize run, entry by entry.
/* torch timed beside the result (a confirm or a torch_beside entry e). */
static void torch_beside(tdx_rep_opt *op, json_t *e)
{
    op->torch_eager_s = num(e, "torch_eager_s", 0);
    op->torch_compile_s = num(e, "torch_compile_s", 0);
    op->torch_compile_build_s = num(e, "torch_compile_build_s", 0);
}

static tdx_status load_optimize(tdx_rep_model *m, const char *jpath, const tdx_rep_load_opts *o,
                                tdx_diags *diags)
{
    tdx_diags local;
    tdx_diags_init(&local);
    json_t *entries = NULL;
    tdx_status st = tdx_jnl_read(jpath, &entries, &local);
    for (size_t i = 0; i < local.len; i++) {
        const tdx_diag *d = &local.items[i];
        if (d->sev == TDX_SEV_ERROR)
            tdx_diags_add(diags, d->sev, d->file, d->line, d->col, "%s", d->msg);
        else
            note(m, "%s: the journal was cut short while an entry was written (line %d); the report "
                    "shows the complete entries before it", "journal.jsonl", d->line);
    }
    tdx_diags_free(&local);
    if (st)
        return st;
    keep_json(m, entries);
    tdx_rep_opt *op = &m->opt;
    op->final_fraction = -1;
    op->base_fraction = -1;
    int nr = max_round(entries);
    if (nr > 0) {
        op->rounds = tdx_arena_alloc(&m->arena, (size_t)nr * sizeof *op->rounds);
        if (!op->rounds)
            return TDX_ERR_NOMEM;
        op->nrounds = (size_t)nr;
        for (int i = 0; i < nr; i++) {
            op->rounds[i].round = i + 1;
            op->rounds[i].decided_level = -1;
            op->rounds[i].keep_fraction = -1;
        }
    }
    /* room for every candidate entry of a round (a resumed round repeats some) */
    size_t *cap = calloc((size_t)nr + 1, sizeof *cap);
    if (!cap)
        return TDX_ERR_NOMEM;
    json_t *start = NULL, *base = NULL;
    size_t n = json_array_size(entries);
    for (size_t i = 0; i < n; i++) {
        json_t *e = json_array_get(entries, i);
        const char *t = str(e, "type");
        int r = (int)inum(e, "round", 0);
        if (t && strcmp(t, "candidate") == 0 && r >= 1 && r <= nr)
            cap[r]++;
    }
    for (int r = 1; r <= nr; r++)
        if (cap[r]) {
            op->rounds[r - 1].cands = tdx_arena_alloc(&m->arena, cap[r] * sizeof(tdx_rep_cand));
            if (!op->rounds[r - 1].cands) {
                free(cap);
                return TDX_ERR_NOMEM;
            }
        }
    free(cap);
    for (size_t i = 0; i < n; i++) {
        json_t *e = json_array_get(entries, i);
        const char *t = str(e, "type");
        int rn = (int)inum(e, "round", 0);
        tdx_rep_round *r = rn >= 1 && rn <= nr ? &op->rounds[rn - 1] : NULL;
        if (!t)
            continue;
        if (strcmp(t, "baseline") == 0 || strcmp(t, "candidate") == 0 || strcmp(t, "confirm") == 0)
            add_verify(e, &op->verify);
        if (strcmp(t, "start") == 0 && !start) {
            start = e;
            op->task = str(e, "task");
            op->task_hash = str(e, "task_hash");
            op->max_rounds = (int)inum(e, "max_rounds", 0);
            op->max_level = (int)inum(e, "max_level", 3);
            op->target_fraction = num(e, "target_fraction", -1);
        } else if (strcmp(t, "baseline") == 0) {
            base = e;
            op->have_baseline = 1;
            op->base_median_s = num(e, "median_s", 0);
            op->base_iqr_s = num(e, "iqr_s", 0);
            op->base_fraction = num(e, "fraction", -1);
            op->initial_s = op->final_s = op->base_median_s;
            op->final_fraction = op->base_fraction;
        } else if (strcmp(t, "round") == 0 && r) {
            if (r->have_diagnosis || r->ncands)
                note(m, "round %d was interrupted and run again after --resume; the report shows "
                        "the second attempt", rn);
            r->ncands = 0;
            r->kept_index = 0;
            read_round(m, e, r);
        } else if (strcmp(t, "candidate") == 0 && r && r->cands) {
            read_cand(e, &r->cands[r->ncands++]);
        } else if (strcmp(t, "keep") == 0 && r) {
            r->kept_index = (int)inum(e, "index", 0);
            r->keep_median_s = num(e, "median_s", 0);
            r->keep_speedup = num(e, "speedup", 0);
            r->keep_fraction = num(e, "fraction", -1);
            op->kept++;
            op->final_s = r->keep_median_s;
            op->final_fraction = r->keep_fraction;
        } else if (strcmp(t, "round_end") == 0 && r) {
            r->ended = 1;
            r->elapsed_s = num(e, "elapsed_s", 0);
            if (r->decided_level < 0)
                r->decided_level = (int)inum(e, "decided_level", -1);
        } else if (strcmp(t, "confirm") == 0) {
            /* the result timed side by side with the task at the end: this is its time */
            double fs = num(e, "final_s", 0), is = num(e, "initial_s", 0), ifr = num(e, "initial_fraction", -1);
            if (fs > 0)
                op->final_s = fs;
            if (is > 0)
                op->initial_s = is;
            if (ifr >= 0)
                op->base_fraction = ifr;
            double fr = num(e, "fraction", -1);
            if (fr >= 0)
                op->final_fraction = fr;
            op->confirm_outcome = str(e, "outcome");
            if (!op->confirm_outcome)
                op->confirm_outcome = "";
            op->chained_s = num(e, "chained_final_s", 0);
            torch_beside(op, e);
            if (json_is_true(json_object_get(e, "reverted")))
                note(m, "timed side by side with the task at the end, the kept source was not faster: "
                        "the result is the task as given");
        } else if (strcmp(t, "torch_beside") == 0) {
            torch_beside(op, e);
        } else if (strcmp(t, "resume") == 0) {
            op->resumes++;
        } else if (strcmp(t, "stop") == 0) {
            op->stopped = 1;
            op->stop_reason = str(e, "reason");
            op->elapsed_s = num(e, "elapsed_s", 0);
        }
    }
    for (size_t i = 0; i < op->nrounds; i++) {
        tdx_rep_round *r = &op->rounds[i];
        op->tried += (int)r->ncands;
        for (size_t k = 0; k < r->ncands; k++)
            r->cands[k].kept = r->kept_index > 0 && r->cands[k].index == r->kept_index;
    }
    if (!start)
        note(m, "the journal has no start entry: the task and the run's limits are unknown");
    if (!op->have_baseline)
        note(m, "the journal has no baseline: the task's own kernel was never timed");
    if (!op->stopped)
        note(m, "the run has not finished (the journal has no stop entry): the report shows it as "
                "far as it got; continue it with `tritondx optimize --resume`");
    return find_roof(m, o, start, base, diags);
}

/* ---- bench runs ------------------------------------------------------------ */

// One results file of a bench run, with its summary and totals.
static tdx_status load_results(tdx_rep_model *m, const char *path, const char *name,
                               tdx_rep_results *set, tdx_diags *diags)
{
    memset(set, 0, sizeof *set);
    set->name = tdx_arena_strdup(&m->arena, name);
    json_error_t err;
    json_t *doc = json_load_file(path, 0, &err);
    if (!doc) {
        tdx_diags_add(diags, TDX_SEV_ERROR, path, err.line, err.column, "not a results file: %s",
                      err.text);
        return TDX_ERR_PARSE;
    }
    keep_json(m, doc);
    set->device = str(doc, "device");
    set->max_level = (int)inum(doc, "max_level", -1);
    if (tdx_bench_load(&set->rows, path) != TDX_OK) {
        tdx_diags_add(diags, TDX_SEV_ERROR, path, 0, 0, "not a results file: no rows with a task");
        return TDX_ERR_INPUT;
    }
    tdx_bench_summarize(&set->rows, &set->sum);
    set->run_dirs = set->rows.len ? tdx_arena_alloc(&m->arena, set->rows.len * sizeof *set->run_dirs) : NULL;
    for (size_t i = 0; set->run_dirs && i < set->rows.len; i++) {
        /* bench keeps each task's optimize run in a folder named after the task
         * file; a name that could leave the folder is not followed */
        const char *t = set->rows.rows[i].task;
        size_t n = strlen(t);
        if (n < 4 || n > 256 || strcmp(t + n - 3, ".py") != 0 || strchr(t, '/') || t[0] == '.')
            continue;
        char rel[600], jpath[4800];
        if (strcmp(name, ".") == 0)
            snprintf(rel, sizeof rel, "%.*s", (int)(n - 3), t);
        else
            snprintf(rel, sizeof rel, "%.256s/%.*s", name, (int)(n - 3), t);
        snprintf(jpath, sizeof jpath, "%.4000s/%s/journal.jsonl", m->dir, rel);
        if (is_file(jpath))
            set->run_dirs[i] = tdx_arena_strdup(&m->arena, rel);
    }
    for (size_t i = 0; i < set->rows.len; i++) {
        const tdx_bench_row *w = &set->rows.rows[i];
        set->gpu_runs += w->gpu_runs > 0 ? w->gpu_runs : 0;
        set->compiles += w->compiles > 0 ? w->compiles : 0;
        set->tokens += w->tokens > 0 ? w->tokens : 0;
    }
    return TDX_OK;
}

// qsort: names in byte order.
static int cmp_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

// qsort: results by max level, then folder name.
static int cmp_set(const void *a, const void *b)
{
    const tdx_rep_results *x = a, *y = b;
    if (x->max_level != y->max_level)
        return x->max_level < y->max_level ? -1 : 1;
    return strcmp(x->name, y->name);
}

/* The sub-folders of dir that hold a results.json, sorted. */
static size_t results_dirs(const char *dir, char ***names)
{
    *names = NULL;
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char path[4400];
        snprintf(path, sizeof path, "%.4000s/%.256s/results.json", dir, e->d_name);
        if (!is_file(path))
            continue;
        char **p = realloc(*names, (n + 1) * sizeof *p);
        if (!p)
            break;
        *names = p;
        if (((*names)[n] = strdup(e->d_name)))
            n++;
    }
    closedir(d);
    if (n)
        qsort(*names, n, sizeof **names, cmp_name);
    return n;
}

// Every results file of a bench run; pick the one the table shows.
static tdx_status load_bench(tdx_rep_model *m, int have_top, char **subs, size_t nsubs,
                             tdx_diags *diags)
{
    tdx_rep_bench *b = &m->bench;
    size_t n = (size_t)have_top + nsubs;
    b->sets = tdx_arena_alloc(&m->arena, n * sizeof *b->sets);
    if (!b->sets)
        return TDX_ERR_NOMEM;
    tdx_status st = TDX_OK;
    char path[4400];
    if (have_top) {
        snprintf(path, sizeof path, "%.4000s/results.json", m->dir);
        st = load_results(m, path, ".", &b->sets[b->nsets++], diags);
    }
    for (size_t i = 0; i < nsubs && !st; i++) {
        snprintf(path, sizeof path, "%.4000s/%.256s/results.json", m->dir, subs[i]);
        st = load_results(m, path, subs[i], &b->sets[b->nsets++], diags);
    }
    if (st)
        return st;
    qsort(b->sets, b->nsets, sizeof *b->sets, cmp_set);
    /* the table shows the top-level results, else the deepest diagnosis */
    b->main = b->nsets - 1;
    for (size_t i = 0; i < b->nsets; i++)
        if (strcmp(b->sets[i].name, ".") == 0)
            b->main = i;
    return TDX_OK;
}

/* ---- entry points ---------------------------------------------------------- */

// Decide the kind of run from what the directory holds, and read it.
tdx_status tdx_rep_run_load(const char *dir, const tdx_rep_load_opts *o, tdx_rep_model **out,
                            tdx_diags *diags)
{
    *out = NULL;
    struct stat sb;
    if (stat(dir, &sb) != 0 || !S_ISDIR(sb.st_mode)) {
        tdx_diags_add(diags, TDX_SEV_ERROR, dir, 0, 0, "not a run directory: %s",
                      stat(dir, &sb) != 0 ? strerror(errno) : "not a directory");
        return TDX_ERR_INPUT;
    }
    tdx_rep_model *m = calloc(1, sizeof *m);
    if (!m)
        return TDX_ERR_NOMEM;
    tdx_arena_init(&m->arena, 0);
    m->json = json_array();
    m->dir = tdx_arena_strdup(&m->arena, dir);
    if (!m->json || !m->dir) {
        tdx_rep_run_free(m);
        return TDX_ERR_NOMEM;
    }
    char jpath[4200], rpath[4200];
    snprintf(jpath, sizeof jpath, "%.4000s/journal.jsonl", dir);
    snprintf(rpath, sizeof rpath, "%.4000s/results.json", dir);
    tdx_status st;
    char **subs = NULL;
    size_t nsubs = 0;
    if (is_file(jpath)) {
        m->kind = TDX_REP_OPTIMIZE;
        st = load_optimize(m, jpath, o, diags);
    } else if (is_file(rpath) || (nsubs = results_dirs(dir, &subs)) > 0) {
        m->kind = TDX_REP_BENCH;
        if (is_file(rpath) && !nsubs)
            nsubs = results_dirs(dir, &subs);
        st = load_bench(m, is_file(rpath), subs, nsubs, diags);
    } else {
        tdx_diags_add(diags, TDX_SEV_ERROR, dir, 0, 0,
                      "not a run directory: no journal.jsonl (optimize) or results.json (bench)");
        st = TDX_ERR_NOTFOUND;
    }
    for (size_t i = 0; i < nsubs; i++)
        free(subs[i]);
    free(subs);
    if (st) {
        tdx_rep_run_free(m);
        return st;
    }
    *out = m;
    return TDX_OK;
}

// Release the model and everything it borrowed strings from.
void tdx_rep_run_free(tdx_rep_model *m)
{
    if (!m)
        return;
    for (size_t i = 0; i < m->bench.nsets; i++)
        tdx_bench_free(&m->bench.sets[i].rows);
    json_decref((json_t *)m->json);
    tdx_arena_free(&m->arena);
    free(m);
}
