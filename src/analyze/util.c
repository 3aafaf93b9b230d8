/* Small helpers shared by levels 2 and 3: locations, loops around an op,
 * IR lines for evidence. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/an_int.h"

const char *tdx_an__base(const char *path)
{
    if (!path)
        return "?";
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

// Two paths name the same file: equal, or equal once resolved.
static int same_path(const char *a, const char *b)
{
    if (strcmp(a, b) == 0)
        return 1;
    char ra[PATH_MAX], rb[PATH_MAX];
    if (realpath(a, ra) && realpath(b, rb))
        return strcmp(ra, rb) == 0;
    return 0;
}

const char *tdx_an__file(const tdx_an_kernel *k, const tdx_ir_srcloc *loc, const char *alias)
{
    const char *f = loc && loc->site.file ? loc->site.file : (k->ir->file ? k->ir->file : k->file);
    if (!alias)
        return f;
    if (!f || same_path(f, alias))
        return alias;
    /* The harness names the kernel's file; Triton's cache may hand back IR
     * compiled from an identical copy elsewhere, whose locations name that
     * copy: the same base name under the same kernel is the same source. */
    if (k->file && same_path(k->file, alias) &&
        (same_path(f, k->file) || strcmp(tdx_an__base(f), tdx_an__base(alias)) == 0))
        return alias;
    return f;
}

const tdx_ir_op *tdx_an__loop_of(const tdx_ir_op *op)
{
    for (const tdx_ir_op *p = op ? op->parent : NULL; p; p = p->parent)
        if (strcmp(p->name, "scf.for") == 0 || strcmp(p->name, "scf.while") == 0)
            return p;
    return NULL;
}

int tdx_an__is_inside(const tdx_ir_op *op, const tdx_ir_op *anc)
{
    for (const tdx_ir_op *p = op ? op->parent : NULL; p; p = p->parent)
        if (p == anc)
            return 1;
    return 0;
}

const tdx_ir_ptx_insn *tdx_an__ptx_at(const tdx_ir_kernel *k, int line, tdx_ir_ptx_class cls)
{
    if (!k->ptx)
        return NULL;
    const char *kb = tdx_an__base(k->file);
    for (size_t i = 0; i < k->ptx->ninsns; i++) {
        const tdx_ir_ptx_insn *in = &k->ptx->insns[i];
        if (in->cls != cls || in->site_line != line)
            continue;
        if (in->site_file && k->file && strcmp(tdx_an__base(in->site_file), kb) != 0)
            continue;
        return in;
    }
    return NULL;
}

size_t tdx_an__ptx_count(const tdx_ir_kernel *k, tdx_ir_ptx_class cls)
{
    size_t n = 0;
    for (size_t i = 0; k->ptx && i < k->ptx->ninsns; i++)
        n += k->ptx->insns[i].cls == cls;
    return n;
}

void tdx_an__ev_op(tdx_buf *b, const char *stage, const tdx_ir_op *op)
{
    if (!op || !op->text)
        return;
    const char *t = op->text;
    size_t n = strcspn(t, "\n");
    if (n > 200)
        n = 200;
    tdx_buf_printf(b, "  %s:%d: %.*s%s\n", stage, op->ir_line, (int)n, t, n < strlen(t) ? " ..." : "");
}

void tdx_an__ev_ptx(tdx_buf *b, const tdx_ir_ptx_insn *in)
{
    if (!in)
        return;
    tdx_buf_printf(b, "  ptx:%d: %s%s%s%s%s %.100s\n", in->ptx_line, in->pred ? "@" : "",
                   in->pred_neg ? "!" : "", in->pred ? in->pred : "", in->pred ? " " : "", in->opcode,
                   in->operands ? in->operands : "");
}

int tdx_an__spills(const tdx_ir_kernel *k)
{
    return k->res ? k->res->spill_stores + k->res->spill_loads : 0;
}

void tdx_an__ev_remarks(tdx_buf *b, const tdx_an_kernel *k, int line)
{
    for (size_t i = 0; k && i < k->nremarks; i++)
        if (k->remarks[i].line == line)
            tdx_buf_printf(b, "  %s: %.200s\n", k->remarks[i].kind ? k->remarks[i].kind : "remark",
                           k->remarks[i].message);
}

typedef struct trace {
    const tdx_ir_module *m;
    const tdx_ir_func *fn;
    const tdx_ir_op *seen[512];
    size_t nseen;
    int *via;
    int bit;
    const char *const *names; /* tdx_an__through: the op names looked for */
    int found;
} trace;

// Mark the function arguments value `v` is computed from.
static void trace_value(trace *t, const char *v, int depth)
{
    char name[128];
    size_t n = strcspn(v, "#");
    if (n >= sizeof name || depth > 200)
        return;
    memcpy(name, v, n);
    name[n] = '\0';
    for (size_t i = 0; i < t->fn->nargs && i < TDX_AN_MAX_ARGS; i++)
        if (strcmp(t->fn->args[i].name, name) == 0) {
            t->via[i] |= t->bit;
            return;
        }
    const tdx_ir_op *d = tdx_ir_def(t->m, name);
    if (!d)
        return;
    for (size_t i = 0; i < t->nseen; i++)
        if (t->seen[i] == d)
            return;
    if (t->nseen == sizeof t->seen / sizeof t->seen[0])
        return;
    t->seen[t->nseen++] = d;
    for (size_t i = 0; t->names && d->name && t->names[i]; i++)
        if (strcmp(d->name, t->names[i]) == 0) {
            t->found = 1;
            return;
        }
    for (size_t i = 0; i < d->noperands && !t->found; i++)
        trace_value(t, d->operands[i], depth + 1);
}

void tdx_an__args_of(const tdx_ir_module *m, const tdx_ir_op *op, size_t operand, int *via, int bit)
{
    if (!m || !m->funcs.len || !op || operand >= op->noperands)
        return;
    trace *t = calloc(1, sizeof *t);
    if (!t)
        return;
    t->m = m;
    t->fn = m->funcs.items[0];
    t->via = via;
    t->bit = bit;
    trace_value(t, op->operands[operand], 0);
    free(t);
}

int tdx_an__through(const tdx_ir_module *m, const tdx_ir_op *op, size_t operand, const char *const *names)
{
    if (!m || !m->funcs.len || !op || operand >= op->noperands || !names)
        return 0;
    trace *t = calloc(1, sizeof *t);
    if (!t)
        return 0;
    int via[TDX_AN_MAX_ARGS] = {0};
    t->m = m;
    t->fn = m->funcs.items[0];
    t->via = via;
    t->names = names;
    trace_value(t, op->operands[operand], 0);
    int found = t->found;
    free(t);
    return found;
}
