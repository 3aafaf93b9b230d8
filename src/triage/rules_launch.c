/* Level 0 rules over the launching code (ids in src/finding/rules_l0.def):
 * TDX007, a tensor copied or converted in a pass of its own around a
 * launch; TDX008, launches of one function that pass the same tensor. */
#include <string.h>

#include "triage/triage_int.h"

// The position of a method name in `x.name(...)`.
static void method_position(const tdx_src_node *call, const char *name, int *line, int *col)
{
    const tdx_src_node *fn = tdx_src_call_func(call);
    *line = fn->end_line;
    *col = fn->end_col - (int)strlen(name);
}

/* TDX007 launch-side passes and TDX008 launches sharing a tensor. */
void tdx_tri_rules_launches(tdx_tri *t)
{
    const tdx_km_file *f = t->file;
    for (size_t i = 0; i < f->passes.len; i++) {
        const tdx_km_pass *p = f->passes.items[i];
        int line, col;
        method_position(p->call, p->method, &line, &col);
        const char *what = strcmp(p->method, "contiguous") == 0 ? "copies the tensor"
                                                                : "converts the tensor";
        tdx_finding *fd = tdx_tri_add(t, "TDX007", p->call, line, col, NULL, 0.6,
                                      ".%s() %s in a separate pass around the launch", p->method,
                                      what);
        if (fd)
            tdx_finding_set_hypothesis(t->ledger, fd,
                                       "an extra PyTorch kernel reads and writes the whole "
                                       "tensor on every call");
    }
    for (size_t i = 0; i < f->launches.len; i++) {
        const tdx_km_launch *l = f->launches.items[i];
        const char *shared = NULL;
        const tdx_km_launch *with = NULL;
        for (size_t j = 0; j < i && !shared; j++) {
            const tdx_km_launch *e = f->launches.items[j];
            /* one branch of an if or the other: only one of them runs */
            if (e->scope != l->scope || tdx_src_exclusive(e->call, l->call))
                continue;
            for (size_t a = 0; a < l->nargs && !shared; a++) {
                const tdx_src_node *x = l->args[a];
                if (!x || x->kind != TDX_SRC_NAME ||
                    l->kernel->params[a].kind != TDX_KM_PARAM_POINTER)
                    continue;
                for (size_t b = 0; b < e->nargs && !shared; b++) {
                    const tdx_src_node *y = e->args[b];
                    if (y && y->kind == TDX_SRC_NAME &&
                        e->kernel->params[b].kind == TDX_KM_PARAM_POINTER &&
                        strcmp(x->name, y->name) == 0)
                        shared = x->name, with = e;
                }
            }
        }
        if (!shared)
            continue;
        tdx_finding *fd = tdx_tri_add(t, "TDX008", l->call, 0, 0, l->kernel->name, 0.6,
                                      "'%s' is launched after '%s' on the same tensor '%s'",
                                      l->kernel->name, with->kernel->name, shared);
        if (fd)
            tdx_finding_set_hypothesis(t->ledger, fd,
                                       "'%s' makes a round trip through global memory between "
                                       "two launches",
                                       shared);
    }
}
