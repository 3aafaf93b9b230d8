/* Level 0 triage: parse, build the kernel model, classify each kernel and
 * run the source rules. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "source/ast.h"
#include "model/model.h"
#include "triage/triage.h"
#include "triage/triage_int.h"

tdx_finding *tdx_tri_add(tdx_tri *t, const char *rule, const tdx_src_node *n, int line, int col,
                         const char *kernel, double confidence, const char *fmt, ...)
{
    if (t->st)
        return NULL;
    if (n) {
        if (!line)
            line = n->line, col = n->col;
    }
    for (size_t i = t->first_finding; i < tdx_ledger_count(t->ledger); i++) {
        const tdx_finding *o = tdx_ledger_at(t->ledger, i);
        if (o->line == line && o->col == col && strcmp(o->rule->id, rule) == 0)
            return NULL;
    }
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    tdx_finding *f = tdx_ledger_add(t->ledger, rule, t->path, line, col, "%s", msg);
    if (!f) {
        t->st = TDX_ERR_NOMEM;
        return NULL;
    }
    if (n && n->line == line && n->col == col) {
        f->end_line = n->end_line;
        f->end_col = n->end_col;
    }
    f->confidence = confidence;
    if (kernel && tdx_finding_set_kernel(t->ledger, f, kernel) != TDX_OK)
        t->st = TDX_ERR_NOMEM;
    return f;
}

// Parse, model and triage one file.
tdx_status tdx_tri_source(const char *path, const char *src, size_t len, tdx_ledger *ledger,
                          tdx_diags *diags)
{
    if (!src || !ledger || !diags)
        return TDX_ERR_ARG;
    tdx_arena arena;
    tdx_arena_init(&arena, 64 * 1024);
    tdx_src_module *mod = NULL;
    tdx_status st = tdx_src_parse(path, src, len, &arena, diags, &mod);
    if (st != TDX_OK) {
        tdx_arena_free(&arena);
        return st;
    }
    tdx_km_file *file = NULL;
    st = tdx_km_build(mod, &arena, &file);
    if (st == TDX_OK)
        st = tdx_tri_model(path, file, ledger);
    tdx_arena_free(&arena);
    return st;
}

// Classify every kernel of a model and run the rules.
tdx_status tdx_tri_model(const char *path, const tdx_km_file *file, tdx_ledger *ledger)
{
    if (!file || !ledger)
        return TDX_ERR_ARG;
    const tdx_src_module *mod = file->mod;
    tdx_tri t = {path, file, ledger, TDX_OK, tdx_ledger_count(ledger)};
    for (size_t i = 0; i < file->kernels.len && !t.st; i++) {
        const tdx_km_kernel *k = file->kernels.items[i];
        if (k->is_helper)
            continue;
        tdx_tri_class cls = tdx_tri_classify(k);
        int line, col;
        tdx_src_def_name_pos(mod, k->def, &line, &col);
        tdx_kernel_info *ki =
            tdx_ledger_add_kernel(ledger, k->name, path, line, col, cls.pattern, cls.confidence);
        if (!ki) {
            t.st = TDX_ERR_NOMEM;
            break;
        }
        if (cls.why && !(ki->why = tdx_arena_strdup(&ledger->arena, cls.why))) {
            t.st = TDX_ERR_NOMEM;
            break;
        }
        tdx_tri_rules_kernel(&t, k, &cls);
    }
    if (!t.st)
        tdx_tri_rules_launches(&t);
    return t.st;
}
