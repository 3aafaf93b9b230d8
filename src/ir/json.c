/* The joined kernel as JSON (jansson), for reports and `--format json`:
 * the same records as tdx_ir_kernel_dump, with source locations and the IR
 * text of each op as evidence. */
#include <jansson.h>
#include <string.h>

#include "ir/ir_int.h"

#define EVIDENCE_MAX 400 /* characters of IR text kept per record */

// A resolved location: the kernel-file site, the name, and the frames when they add anything.
static json_t *loc_json(const tdx_ir_srcloc *l, const char *file)
{
    json_t *o = json_object();
    json_object_set_new(o, "file", l->site.file   ? json_string(l->site.file)
                                   : file         ? json_string(file)
                                                  : json_null());
    json_object_set_new(o, "line", json_integer(l->site.line));
    json_object_set_new(o, "col", json_integer(l->site.col));
    if (l->name)
        json_object_set_new(o, "name", json_string(l->name));
    if (l->nframes > 1 || (l->nframes == 1 && l->frames[0].line != l->site.line)) {
        json_t *fr = json_array();
        for (int i = 0; i < l->nframes; i++) {
            json_t *f = json_object();
            json_object_set_new(f, "file", l->frames[i].file ? json_string(l->frames[i].file)
                                                             : json_null());
            json_object_set_new(f, "line", json_integer(l->frames[i].line));
            json_object_set_new(f, "col", json_integer(l->frames[i].col));
            json_array_append_new(fr, f);
        }
        json_object_set_new(o, "frames", fr);
    }
    return o;
}

// A record object with its kind, location and IR evidence.
static json_t *rec(const char *kind, const tdx_ir_op *op, const tdx_ir_srcloc *l, const char *file)
{
    json_t *o = json_object();
    json_object_set_new(o, "kind", json_string(kind));
    json_object_set_new(o, "loc", loc_json(l, file));
    if (op && op->text) {
        size_t n = strlen(op->text);
        json_object_set_new(o, "ir", json_stringn(op->text, n > EVIDENCE_MAX ? EVIDENCE_MAX : n));
        json_object_set_new(o, "ir_line", json_integer(op->ir_line));
    }
    return o;
}

// Shorthands for setting members.
static void set_int(json_t *o, const char *k, long long v)
{
    json_object_set_new(o, k, json_integer(v));
}

// A string member, or null.
static void set_str(json_t *o, const char *k, const char *v)
{
    json_object_set_new(o, k, v ? json_string(v) : json_null());
}

// The kernel summary, resources and every record.
json_t *tdx_ir_kernel_to_json(const tdx_ir_kernel *k)
{
    json_t *root = json_object();
    if (!root)
        return NULL;
    set_str(root, "name", k->name);
    set_str(root, "file", k->file);
    set_int(root, "num_warps", k->num_warps);
    set_int(root, "num_ctas", k->num_ctas);
    set_int(root, "threads_per_warp", k->threads_per_warp);
    if (k->res) {
        json_t *r = json_object();
        set_int(r, "registers", k->res->registers);
        set_int(r, "spill_stores", k->res->spill_stores);
        set_int(r, "spill_loads", k->res->spill_loads);
        set_int(r, "stack", k->res->stack);
        set_int(r, "smem", k->res->smem);
        json_object_set_new(root, "resources", r);
    }
    json_t *recs = json_array();
    for (size_t i = 0; i < k->nmems; i++) {
        const tdx_ir_mem *m = &k->mems[i];
        const char *kind = m->is_async ? "copy" : m->is_store ? "store" : "load";
        json_t *o = rec(kind, m->op, &m->loc, k->file);
        set_int(o, "elem_bits", m->elem_bits);
        set_int(o, "contig", m->contig);
        set_int(o, "masked", m->masked);
        if (m->is_async)
            set_int(o, "tma", m->is_tma);
        set_str(o, "cache", m->cache);
        set_str(o, "evict", m->evict);
        set_int(o, "ptx_count", m->ptx_count);
        set_int(o, "ptx_vec", m->ptx_vec);
        set_int(o, "ptx_bits", m->ptx_bits);
        set_int(o, "ptx_pred", m->ptx_pred);
        set_str(o, "ptx_mods", m->ptx_mods);
        set_int(o, "sass_count", m->sass_count);
        set_int(o, "sass_width", m->sass_width);
        json_array_append_new(recs, o);
    }
    for (size_t i = 0; i < k->ncvts; i++) {
        const tdx_ir_cvt *c = &k->cvts[i];
        json_t *o = rec("cvt", c->op, &c->loc, k->file);
        set_str(o, "src", c->src ? c->src->text : NULL);
        set_str(o, "dst", c->dst ? c->dst->text : NULL);
        set_int(o, "smem", c->smem);
        set_int(o, "shuffles", c->shuffles);
        set_str(o, "decided_by", c->smem_by_ptx ? "ptx" : "layout");
        json_array_append_new(recs, o);
    }
    for (size_t i = 0; i < k->ndots; i++) {
        const tdx_ir_dot *d = &k->dots[i];
        json_t *o = rec("dot", d->op, &d->loc, k->file);
        set_str(o, "path", tdx_ir_dot_path_str(d->path));
        json_t *is = json_array();
        for (int j = 0; j < d->ninstr; j++)
            json_array_append_new(is, json_integer(d->instr[j]));
        json_object_set_new(o, "instr_shape", is);
        set_str(o, "a_elem", d->a_elem);
        set_str(o, "input_precision", d->precision);
        set_str(o, "ptx_path", tdx_ir_dot_path_str(d->ptx_path));
        set_str(o, "ptx_shape", d->ptx_shape);
        set_int(o, "ptx_count", d->ptx_count);
        set_int(o, "sass_count", d->sass_count);
        json_array_append_new(recs, o);
    }
    for (size_t i = 0; i < k->nloops; i++) {
        const tdx_ir_loop *l = &k->loops[i];
        json_t *o = rec("loop", l->op, &l->loc, k->file);
        set_int(o, "depth", l->depth);
        set_int(o, "outer", l->outer);
        set_int(o, "pipelined", l->pipelined);
        set_int(o, "buffers", l->bufs);
        set_int(o, "plain_loads", l->loads);
        set_int(o, "async_copies", l->async_copies);
        set_int(o, "dots", l->dots);
        set_int(o, "waits", l->waits);
        json_array_append_new(recs, o);
    }
    for (size_t i = 0; i < k->ni64s; i++)
        json_array_append_new(recs, rec("i64", k->i64s[i].op, &k->i64s[i].loc, k->file));
    for (size_t i = 0; i < k->nlocals; i++) {
        const tdx_ir_local *l = &k->locals[i];
        json_t *o = json_object();
        json_object_set_new(o, "kind", json_string("local"));
        set_int(o, "line", l->line);
        set_int(o, "ptx_ld", l->ptx_ld);
        set_int(o, "ptx_st", l->ptx_st);
        set_int(o, "sass_ldl", l->sass_ldl);
        set_int(o, "sass_stl", l->sass_stl);
        json_array_append_new(recs, o);
    }
    json_object_set_new(root, "records", recs);
    return root;
}
