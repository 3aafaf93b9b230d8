/* Captures: the kernels a task launches, compiled as launched (or with one
 * counterfactual change) by the harness's `capture` verb, parsed and joined
 * by the ir module. Fixture folders (tests/data/ir/<case>/) load the same
 * way from their meta.json. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/analyze.h"
#include "base/file.h"
#include "proc/proc.h"

void tdx_an_capture_init(tdx_an_capture *c)
{
    memset(c, 0, sizeof *c);
    tdx_arena_init(&c->arena, 0);
}

void tdx_an_capture_free(tdx_an_capture *c)
{
    for (size_t i = 0; i < c->nkernels; i++) {
        if (c->kernels[i].ir) {
            tdx_ir_kernel_free(c->kernels[i].ir);
            free(c->kernels[i].ir);
        }
    }
    free(c->kernels);
    tdx_arena_free(&c->arena);
    memset(c, 0, sizeof *c);
}

const tdx_an_kernel *tdx_an_capture_find(const tdx_an_capture *c, const char *name)
{
    for (size_t i = 0; i < c->nkernels; i++)
        if (name && c->kernels[i].name && strcmp(c->kernels[i].name, name) == 0)
            return &c->kernels[i];
    return NULL;
}

const tdx_an_arg *tdx_an_kernel_arg(const tdx_an_kernel *k, const char *name)
{
    for (size_t i = 0; i < k->nargs; i++)
        if (strcmp(k->args[i].name, name) == 0)
            return &k->args[i];
    return NULL;
}

// A new kernel slot with a fresh tdx_ir_kernel.
static tdx_an_kernel *add_kernel(tdx_an_capture *c)
{
    if (c->nkernels == c->cap) {
        size_t ncap = c->cap ? c->cap * 2 : 4;
        tdx_an_kernel *nk = realloc(c->kernels, ncap * sizeof *nk);
        if (!nk)
            return NULL;
        c->kernels = nk;
        c->cap = ncap;
    }
    tdx_an_kernel *k = &c->kernels[c->nkernels];
    memset(k, 0, sizeof *k);
    k->ir = malloc(sizeof *k->ir);
    if (!k->ir)
        return NULL;
    tdx_ir_kernel_init(k->ir);
    c->nkernels++;
    return k;
}

static const char *jstr(tdx_arena *a, json_t *o, const char *key)
{
    const char *s = json_string_value(json_object_get(o, key));
    return s ? tdx_arena_strdup(a, s) : NULL;
}

// Arguments from a signature object, the constexpr values, the list of
// arguments given divisibility 16, and (capture replies) the per-argument
// detail with do_not_specialize and values.
static tdx_status read_args(tdx_an_capture *c, tdx_an_kernel *k, json_t *entry)
{
    json_t *sig = json_object_get(entry, "signature");
    json_t *cx = json_object_get(entry, "constexprs");
    json_t *div = json_object_get(entry, "divisibility_16");
    json_t *per = json_object_get(entry, "args");
    size_t n = json_object_size(sig) + json_object_size(cx);
    k->args = tdx_arena_alloc(&c->arena, (n ? n : 1) * sizeof *k->args);
    if (!k->args)
        return TDX_ERR_NOMEM;
    const char *key;
    json_t *val;
    /* Fixture metadata lists constexprs apart from the signature. */
    json_t *all = sig ? json_deep_copy(sig) : json_object();
    if (!all)
        return TDX_ERR_NOMEM;
    json_object_foreach(cx, key, val) {
        if (!json_object_get(all, key))
            json_object_set_new(all, key, json_string("constexpr"));
    }
    json_object_foreach(all, key, val) {
        tdx_an_arg *a = &k->args[k->nargs++];
        a->name = tdx_arena_strdup(&c->arena, key);
        a->type = json_is_string(val) ? tdx_arena_strdup(&c->arena, json_string_value(val)) : NULL;
        json_t *v = json_object_get(cx, key);
        if (json_is_integer(v) || json_is_boolean(v)) {
            a->has_value = 1;
            a->value = json_is_integer(v) ? json_integer_value(v) : json_is_true(v);
        } else if (json_is_string(v)) {
            a->str = tdx_arena_strdup(&c->arena, json_string_value(v));
        }
        for (size_t i = 0; i < json_array_size(div); i++)
            if (json_is_string(json_array_get(div, i)) &&
                strcmp(json_string_value(json_array_get(div, i)), key) == 0)
                a->div16 = 1;
        for (size_t i = 0; i < json_array_size(per); i++) {
            json_t *p = json_array_get(per, i);
            const char *pn = json_string_value(json_object_get(p, "name"));
            if (!pn || strcmp(pn, key) != 0)
                continue;
            a->dns = json_is_true(json_object_get(p, "do_not_specialize"));
            json_t *pv = json_object_get(p, "value");
            json_t *iv = json_object_get(pv, "value");
            const char *kind = json_string_value(json_object_get(pv, "kind"));
            if (kind && strcmp(kind, "int") == 0 && json_is_integer(iv)) {
                a->has_value = 1;
                a->value = json_integer_value(iv);
            }
        }
    }
    json_decref(all);
    return TDX_OK;
}

static int jint(json_t *o, const char *key, int def)
{
    json_t *v = json_object_get(o, key);
    return json_is_integer(v) ? (int)json_integer_value(v) : def;
}

// Read one artifact file into the kernel as a stage.
static tdx_status add_stage_file(tdx_ir_kernel *ir, tdx_ir_stage stage, const char *path,
                                 tdx_diags *diags)
{
    if (!path)
        return TDX_OK;
    char *text = NULL;
    size_t len = 0;
    tdx_status st = tdx_file_read(path, TDX_IR_MAX_INPUT, &text, &len);
    if (st == TDX_OK)
        st = tdx_ir_kernel_add(ir, stage, text, len, diags);
    free(text);
    return st;
}

// The kernel's definition line and file from its tt.func location when the
// capture did not say.
static void def_site(tdx_an_kernel *k)
{
    const tdx_ir_module *m = k->ir->ttir ? k->ir->ttir : k->ir->ttgir;
    if (!m || !m->funcs.len)
        return;
    const tdx_ir_func *fn = m->funcs.items[0];
    if (!k->line && fn->op)
        k->line = fn->op->loc.site.line;
    if (!k->file && fn->op)
        k->file = fn->op->loc.site.file;
}

// SASS of the cubin through `nvdisasm -g -c` (instructions under their
// source lines), when one is at hand: $TDX_NVDISASM, else nvdisasm on PATH.
// Without it the kernel has no SASS stage and spills have no source line.
static void add_sass(tdx_ir_kernel *ir, const char *cubin, tdx_diags *diags)
{
    if (!cubin)
        return;
    const char *exe = getenv("TDX_NVDISASM");
    const char *argv[] = {exe && *exe ? exe : "nvdisasm", "-g", "-c", cubin, NULL};
    tdx_proc_opts o;
    memset(&o, 0, sizeof o);
    o.argv = argv;
    o.timeout_s = 60;
    o.stdout_cap = TDX_IR_MAX_INPUT;
    o.stop_at_stdout_cap = 1;
    tdx_proc_result r;
    memset(&r, 0, sizeof r);
    if (tdx_proc_run(&o, &r) == TDX_OK && r.exited && r.exit_status == 0 && r.out_len && !r.out_over_cap)
        tdx_ir_kernel_add(ir, TDX_IR_SASS, r.out, r.out_len, diags);
    tdx_proc_result_free(&r);
}

// The compile's remarks, those in the kernel's own file.
static tdx_status read_remarks(tdx_an_capture *c, tdx_an_kernel *k, json_t *arr)
{
    size_t n = json_array_size(arr);
    if (!n)
        return TDX_OK;
    k->remarks = tdx_arena_alloc(&c->arena, n * sizeof *k->remarks);
    if (!k->remarks)
        return TDX_ERR_NOMEM;
    for (size_t i = 0; i < n; i++) {
        json_t *r = json_array_get(arr, i);
        const char *file = json_string_value(json_object_get(r, "file"));
        const char *msg = json_string_value(json_object_get(r, "message"));
        if (!msg || (file && k->file && strcmp(file, k->file) != 0))
            continue;
        tdx_an_remark *m = &k->remarks[k->nremarks++];
        m->line = jint(r, "line", 0);
        m->col = jint(r, "col", 0);
        m->kind = jstr(&c->arena, r, "kind");
        m->message = tdx_arena_strdup(&c->arena, msg);
    }
    return TDX_OK;
}

tdx_status tdx_an_capture_from_json(tdx_an_capture *c, json_t *reply, tdx_diags *diags)
{
    json_t *ks = json_object_get(reply, "kernels");
    tdx_status first = TDX_OK;
    for (size_t i = 0; i < json_array_size(ks); i++) {
        json_t *e = json_array_get(ks, i);
        if (json_is_string(json_object_get(e, "error")))
            continue; /* a kernel that did not compile has no IR */
        tdx_an_kernel *k = add_kernel(c);
        if (!k)
            return TDX_ERR_NOMEM;
        k->name = jstr(&c->arena, e, "name");
        k->file = jstr(&c->arena, e, "file");
        k->line = jint(e, "line", 0);
        k->num_warps = jint(e, "num_warps", 0);
        k->num_stages = jint(e, "num_stages", 0);
        k->shared = jint(json_object_get(e, "metadata"), "shared", -1);
        tdx_status st = read_args(c, k, e);
        if (!st)
            st = read_remarks(c, k, json_object_get(e, "remarks"));
        if (st)
            return st;
        json_t *art = json_object_get(e, "artifacts");
        static const struct { const char *key; tdx_ir_stage stage; } stages[] = {
            {"ttir", TDX_IR_TTIR}, {"ttgir", TDX_IR_TTGIR}, {"ptx", TDX_IR_PTX}};
        for (size_t s = 0; s < sizeof stages / sizeof stages[0]; s++) {
            st = add_stage_file(k->ir, stages[s].stage,
                                json_string_value(json_object_get(art, stages[s].key)), diags);
            if (st && !first)
                first = st;
        }
        add_sass(k->ir, json_string_value(json_object_get(art, "cubin")), diags);
        const char *log = json_string_value(json_object_get(json_object_get(e, "resources"), "ptxas_log"));
        if (log)
            tdx_ir_kernel_add(k->ir, TDX_IR_PTXAS, log, strlen(log), diags);
        st = tdx_ir_kernel_join(k->ir, diags);
        def_site(k);
        if (st && !first)
            first = st;
    }
    return first;
}

tdx_status tdx_an_capture_add_dir(tdx_an_capture *c, const char *dir, tdx_diags *diags)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/meta.json", dir);
    json_error_t err;
    json_t *meta = json_load_file(path, 0, &err);
    if (!meta) {
        if (diags)
            tdx_diags_add(diags, TDX_SEV_ERROR, path, err.line, err.column, "%s", err.text);
        return TDX_ERR_PARSE;
    }
    tdx_an_kernel *k = add_kernel(c);
    tdx_status st = k ? TDX_OK : TDX_ERR_NOMEM;
    if (!st) {
        k->name = jstr(&c->arena, meta, "kernel");
        k->file = jstr(&c->arena, meta, "file");
        k->num_warps = jint(meta, "num_warps", 0);
        k->num_stages = jint(meta, "num_stages", 0);
        k->shared = jint(meta, "shared", -1);
        st = read_args(c, k, meta);
    }
    json_decref(meta);
    if (!st)
        st = tdx_ir_kernel_load_dir(k->ir, dir, diags);
    if (!st)
        def_site(k);
    return st;
}

tdx_status tdx_an_capture_run(const tdx_an_env *env, const char *task, const char *const *args,
                              tdx_an_capture *c, char *why, size_t why_len, tdx_diags *diags)
{
    char *tmp = NULL;
    const char *out = env ? env->keep_dir : NULL;
    if (!out) {
        tdx_status st = tdx_proc_tmpdir_create(&tmp);
        if (st) {
            snprintf(why, why_len, "cannot create a temporary folder: %s", tdx_status_str(st));
            return st;
        }
        out = tmp;
    }
    const char *argv[32];
    size_t n = 0;
    argv[n++] = "--mode";
    argv[n++] = env && env->mode ? env->mode : "aot";
    argv[n++] = "--out";
    argv[n++] = out;
    argv[n++] = "--remarks"; /* one compile either way; remarks are evidence */
    for (size_t i = 0; args && args[i] && n < 31; i++)
        argv[n++] = args[i];
    argv[n] = NULL;
    tdx_hx_opts o = {0};
    if (env)
        o = env->hx;
    if (o.timeout_s <= 0)
        o.timeout_s = 300;
    tdx_hx_reply r;
    tdx_status st = tdx_hx_call(&o, "capture", task, argv, &r, NULL);
    c->seconds += r.proc.wall_s;
    if (st) {
        /* a kernel of the task that does not compile is the user's error, said in its own words;
         * anything else is the harness's */
        const char *kind = r.json ? json_string_value(json_object_get(r.json, "error_kind")) : NULL;
        const char *msg = r.json ? json_string_value(json_object_get(r.json, "error")) : NULL;
        int user = kind && msg && strcmp(kind, "compile") == 0;
        if (diags)
            tdx_diags_add(diags, TDX_SEV_ERROR, task, 0, 0, "%s%s", user ? "" : "harness capture: ",
                          user ? msg : r.reason);
        snprintf(why, why_len, "%s%s", user ? "" : "capture: ", user ? msg : r.reason);
    } else {
        st = tdx_an_capture_from_json(c, r.json, diags);
        if (st)
            snprintf(why, why_len, "capture: the artifacts could not be read: %s", tdx_status_str(st));
        else if (c->nkernels == 0) {
            snprintf(why, why_len, "capture: no kernel compiled");
            st = TDX_ERR_CHILD;
        }
    }
    tdx_hx_reply_free(&r);
    if (tmp) {
        tdx_proc_tmpdir_remove(tmp);
        free(tmp);
    }
    return st;
}
