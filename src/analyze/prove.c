/* Level 3 proofs: run each hypothesis's counterfactual compile, compare the
 * new IR with the IR as launched, and record what was proven or refuted. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/an_int.h"
#include "base/file.h"
#include "proc/proc.h"

// The widest PTX vector of the (non-async) accesses of one kind at a line,
// and the access itself.
static int vec_at(const tdx_an_kernel *k, int line, int store, const tdx_ir_mem **which)
{
    int v = 0;
    *which = NULL;
    for (size_t i = 0; k && i < k->ir->nmems; i++) {
        const tdx_ir_mem *m = &k->ir->mems[i];
        if (m->loc.site.line != line || m->is_store != store || m->is_async)
            continue;
        if (!*which || m->ptx_vec > v) {
            v = m->ptx_vec;
            *which = m;
        }
    }
    return v;
}

// The narrowest cp.async (bits) of the async copies at a line, and one of them.
static int copy_bits_at(const tdx_an_kernel *k, int line, const tdx_ir_mem **which)
{
    int bits = 0;
    *which = NULL;
    for (size_t i = 0; k && i < k->ir->nmems; i++) {
        const tdx_ir_mem *m = &k->ir->mems[i];
        if (m->loc.site.line != line || !m->is_async || m->is_tma || m->ptx_bits <= 0)
            continue;
        if (!*which || m->ptx_bits < bits) {
            bits = m->ptx_bits;
            *which = m;
        }
    }
    return bits;
}

// The global atomics at a line: how many, how many of them acq_rel, and one
// (an acq_rel one when there is one).
static int atoms_at(const tdx_an_kernel *k, int line, int *acq_rel, const tdx_ir_ptx_insn **which)
{
    int n = 0;
    *acq_rel = 0;
    *which = NULL;
    for (size_t i = 0; k && k->ir->ptx && i < k->ir->ptx->ninsns; i++) {
        const tdx_ir_ptx_insn *in = &k->ir->ptx->insns[i];
        if (in->cls != TDX_PTX_ATOM || in->site_line != line)
            continue;
        int ar = in->mods && strstr(in->mods, "acq_rel") != NULL;
        n++;
        *acq_rel += ar;
        if (!*which || ar)
            *which = *which && !ar ? *which : in;
    }
    return n;
}

static tdx_ir_dot_path dot_path(const tdx_ir_dot *d)
{
    if (!d)
        return TDX_IR_DOT_UNKNOWN;
    return d->path != TDX_IR_DOT_UNKNOWN ? d->path : d->ptx_path;
}

// Evidence for one side: the IR lines the prediction is about.
static void side(tdx_buf *ev, const tdx_an_plan *p, const tdx_an_kernel *k, const char *label)
{
    tdx_buf_printf(ev, "%s:\n", label);
    if (!k) {
        tdx_buf_adds(ev, "  (kernel not in this compile)\n");
        return;
    }
    switch (p->predict) {
    case TDX_AN_PRED_VEC_UP: {
        const tdx_ir_mem *m;
        int v = vec_at(k, p->line, p->store, &m);
        if (m) {
            tdx_an__ev_op(ev, "ttgir", m->op);
            tdx_an__ev_ptx(ev, tdx_an__ptx_at(k->ir, p->line, p->store ? TDX_PTX_ST_GLOBAL : TDX_PTX_LD_GLOBAL));
            tdx_buf_printf(ev, "  vec %d, %d bits per access, %d elements per thread in the layout\n", v,
                           m->ptx_bits, m->contig);
        }
        break;
    }
    case TDX_AN_PRED_DOT_TC:
    case TDX_AN_PRED_DOT_WGMMA: {
        const tdx_ir_dot *d = tdx_ir_kernel_dot_at(k->ir, p->line);
        if (d) {
            tdx_an__ev_op(ev, "ttgir", d->op);
            tdx_buf_printf(ev, "  path %s; ptx: %zu wgmma.mma_async, %zu mma.sync, %zu fma.rn.f32\n",
                           tdx_ir_dot_path_str(dot_path(d)), tdx_an__ptx_count(k->ir, TDX_PTX_WGMMA),
                           tdx_an__ptx_count(k->ir, TDX_PTX_MMA), tdx_an__ptx_count(k->ir, TDX_PTX_FMA_F32));
        }
        break;
    }
    case TDX_AN_PRED_PIPELINED: {
        const tdx_ir_loop *lp = tdx_ir_kernel_loop_at(k->ir, p->line);
        if (lp) {
            tdx_an__ev_op(ev, "ttgir", lp->op);
            tdx_buf_printf(ev, "  %d plain tt.load, %d async copies, %d waits, %d buffers, pipelined %s\n",
                           lp->loads, lp->async_copies, lp->waits, lp->bufs, lp->pipelined ? "yes" : "no");
            for (size_t i = 0; i < k->ir->nmems; i++)
                if (k->ir->mems[i].is_async && tdx_an__is_inside(k->ir->mems[i].op, lp->op)) {
                    tdx_an__ev_op(ev, "ttgir", k->ir->mems[i].op);
                    break;
                }
        }
        break;
    }
    case TDX_AN_PRED_COPY_WIDE: {
        const tdx_ir_mem *m;
        int bits = copy_bits_at(k, p->line, &m);
        if (m) {
            tdx_an__ev_op(ev, "ttgir", m->op);
            tdx_an__ev_ptx(ev, tdx_an__ptx_at(k->ir, p->line, TDX_PTX_CP_ASYNC));
            tdx_buf_printf(ev, "  %d cp.async of %d bytes at the line\n", m->ptx_count, bits / 8);
        }
        break;
    }
    case TDX_AN_PRED_ATOM_RELAXED: {
        const tdx_ir_ptx_insn *in;
        int ar, n = atoms_at(k, p->line, &ar, &in);
        tdx_an__ev_ptx(ev, in);
        tdx_buf_printf(ev, "  %d atomic%s at the line, %d acq_rel\n", n, n == 1 ? "" : "s", ar);
        break;
    }
    case TDX_AN_PRED_NO_SPILLS:
        if (k->ir->res)
            tdx_buf_printf(ev, "  ptxas: %d registers, %d bytes spill stores, %d bytes spill loads (%d warps)\n",
                           k->ir->res->registers, k->ir->res->spill_stores, k->ir->res->spill_loads,
                           k->num_warps);
        break;
    case TDX_AN_PRED_NONE:
        break;
    }
    tdx_an__ev_remarks(ev, k, p->line);
}

int tdx_an_check(const tdx_an_plan *p, const tdx_an_kernel *before, const tdx_an_kernel *after,
                 tdx_buf *evidence, char *result, size_t result_len)
{
    int ok = 0;
    if (evidence) {
        side(evidence, p, before, "as launched");
        char label[200];
        snprintf(label, sizeof label, "with %s", p->change);
        side(evidence, p, after, label);
    }
    if (!after || !before) {
        snprintf(result, result_len, "the kernel is missing from %s compile",
                 after ? "the as-launched" : "the counterfactual");
        return 0;
    }
    switch (p->predict) {
    case TDX_AN_PRED_VEC_UP: {
        const tdx_ir_mem *mb, *ma;
        int vb = vec_at(before, p->line, p->store, &mb), va = vec_at(after, p->line, p->store, &ma);
        ok = va > vb;
        const tdx_ir_ptx_insn *in =
            tdx_an__ptx_at(after->ir, p->line, p->store ? TDX_PTX_ST_GLOBAL : TDX_PTX_LD_GLOBAL);
        snprintf(result, result_len, "%s vec %d -> %d%s%s%s", p->store ? "store" : "load", vb, va,
                 in ? " (" : "", in ? in->opcode : "", in ? ")" : "");
        break;
    }
    case TDX_AN_PRED_DOT_TC:
    case TDX_AN_PRED_DOT_WGMMA: {
        tdx_ir_dot_path b = dot_path(tdx_ir_kernel_dot_at(before->ir, p->line));
        tdx_ir_dot_path a = dot_path(tdx_ir_kernel_dot_at(after->ir, p->line));
        ok = p->predict == TDX_AN_PRED_DOT_WGMMA ? a == TDX_IR_DOT_WGMMA
                                                 : a == TDX_IR_DOT_WGMMA || a == TDX_IR_DOT_MMA;
        snprintf(result, result_len, "dot %s -> %s", tdx_ir_dot_path_str(b), tdx_ir_dot_path_str(a));
        break;
    }
    case TDX_AN_PRED_PIPELINED: {
        const tdx_ir_loop *lb = tdx_ir_kernel_loop_at(before->ir, p->line);
        const tdx_ir_loop *la = tdx_ir_kernel_loop_at(after->ir, p->line);
        ok = la && la->pipelined;
        snprintf(result, result_len, "loop %s -> %s (%d async copies into %d buffers)",
                 lb && lb->pipelined ? "pipelined" : "not pipelined",
                 ok ? "pipelined" : "not pipelined", la ? la->async_copies : 0, la ? la->bufs : 0);
        break;
    }
    case TDX_AN_PRED_NO_SPILLS: {
        int b = tdx_an__spills(before->ir), a = tdx_an__spills(after->ir);
        ok = after->ir->res && a == 0;
        snprintf(result, result_len, "spills %d B -> %d B, registers %d -> %d", b, a,
                 before->ir->res ? before->ir->res->registers : 0, after->ir->res ? after->ir->res->registers : 0);
        break;
    }
    case TDX_AN_PRED_COPY_WIDE: {
        const tdx_ir_mem *mb, *ma;
        int b = copy_bits_at(before, p->line, &mb), a = copy_bits_at(after, p->line, &ma);
        ok = ma && a >= 128 && a > b;
        snprintf(result, result_len, "copies %d -> %d bytes (%d -> %d cp.async at the line)", b / 8, a / 8,
                 mb ? mb->ptx_count : 0, ma ? ma->ptx_count : 0);
        break;
    }
    case TDX_AN_PRED_ATOM_RELAXED: {
        const tdx_ir_ptx_insn *ib, *ia;
        int arb, ara, nb = atoms_at(before, p->line, &arb, &ib), na = atoms_at(after, p->line, &ara, &ia);
        ok = arb > 0 && na > 0 && ara == 0;
        snprintf(result, result_len, "%d %s -> %d %s at the line", nb, ib && ib->opcode ? ib->opcode : "atomics",
                 na, ia && ia->opcode ? ia->opcode : "atomics");
        break;
    }
    case TDX_AN_PRED_NONE:
        snprintf(result, result_len, "no prediction to check");
        break;
    }
    return ok;
}

tdx_finding *tdx_an_record(tdx_ledger *l, const tdx_an_plan *p, int outcome, const char *result,
                           const char *evidence)
{
    tdx_finding *f;
    if (outcome > 0)
        f = tdx_ledger_add(l, p->rule, p->file, p->line, p->col, "%s: proven, %s with %s", p->title, result,
                           p->change);
    else if (outcome == 0)
        f = tdx_ledger_add(l, p->rule, p->file, p->line, p->col, "not confirmed: %s: %s with %s", p->title,
                           result, p->change);
    else
        f = tdx_ledger_add(l, p->rule, p->file, p->line, p->col, "%s (not tested by a compile: %s)", p->title,
                           result ? result : "no single change tests it");
    if (!f)
        return NULL;
    tdx_finding_set_kernel(l, f, p->kernel);
    tdx_finding_set_hypothesis(l, f, "%s", p->cause);
    if (evidence && *evidence)
        tdx_finding_set_evidence(l, f, evidence);
    for (int i = 0; i < p->nfindings; i++)
        tdx_finding_cite(l, f, p->findings[i]);
    tdx_finding_fact(l, f, "outcome", "%s", outcome > 0 ? "proven" : outcome == 0 ? "refuted" : "untested");
    if (p->change[0])
        tdx_finding_fact(l, f, "counterfactual", "%s", p->change);
    if (result)
        tdx_finding_fact(l, f, "result", "%s", result);
    if (outcome > 0) {
        f->confidence = 0.9;
        f->expected_gain = p->gain;
    } else if (outcome == 0) {
        f->confidence = 0.2;
        f->sev = TDX_SEV_NOTE;
        f->expected_gain = 0;
    } else {
        f->confidence = 0.6;
        f->expected_gain = p->gain;
    }
    return f;
}

/* ---- running the counterfactuals ------------------------------------------- */

// The task's source with one occurrence of `from` on line `line` replaced;
// written to dir/<task base name>. *out is malloc'd.
static tdx_status write_edit(const char *task, const char *src, size_t len, const tdx_an_plan *p,
                             const char *dir, char **out)
{
    int ln = 1;
    size_t i = 0;
    while (i < len && ln < p->edit_line)
        if (src[i++] == '\n')
            ln++;
    size_t fl = strlen(p->edit_from), tl = strlen(p->edit_to);
    size_t at = len;
    for (size_t j = i; j + fl <= len && src[j] != '\n'; j++)
        if (memcmp(src + j, p->edit_from, fl) == 0) {
            at = j;
            break;
        }
    if (at == len)
        return TDX_ERR_NOTFOUND;
    tdx_buf b;
    tdx_buf_init(&b, 0);
    tdx_buf_add(&b, src, at);
    tdx_buf_add(&b, p->edit_to, tl);
    tdx_buf_add(&b, src + at + fl, len - at - fl);
    size_t path_len = strlen(dir) + strlen(tdx_an__base(task)) + 2;
    *out = malloc(path_len);
    if (!*out) {
        tdx_buf_free(&b);
        return TDX_ERR_NOMEM;
    }
    snprintf(*out, path_len, "%s/%s", dir, tdx_an__base(task));
    tdx_status st = tdx_file_write(*out, b.data ? b.data : "", b.len);
    tdx_buf_free(&b);
    return st;
}

// One counterfactual compile for a plan into `after`.
static tdx_status run_plan(const tdx_an_env *env, const char *task, const char *src, size_t len,
                           const tdx_an_plan *p, tdx_an_capture *after, char *why, size_t why_len,
                           tdx_diags *diags)
{
    const char *args[8];
    int n = 0;
    for (int i = 0; i < p->nargs && n < 6; i++)
        args[n++] = p->args[i];
    args[n] = NULL;
    if (!p->edit_line)
        return tdx_an_capture_run(env, task, args, after, why, why_len, diags);
    char *dir = NULL, *path = NULL;
    tdx_status st = tdx_proc_tmpdir_create(&dir);
    if (!st)
        st = write_edit(task, src, len, p, dir, &path);
    if (!st)
        st = tdx_an_capture_run(env, path, args, after, why, why_len, diags);
    else
        snprintf(why, why_len, "the source edit could not be made: %s", tdx_status_str(st));
    if (dir) {
        tdx_proc_tmpdir_remove(dir);
        free(dir);
    }
    free(path);
    return st;
}

// Every record the change touched (the ir module's diff), a dozen lines at
// most: the evidence beyond the one line the prediction is about.
static void append_diff(tdx_buf *ev, const tdx_an_kernel *kb, const tdx_an_kernel *ka)
{
    if (!kb || !ka)
        return;
    tdx_buf d;
    tdx_buf_init(&d, 0);
    size_t n = 0;
    if (tdx_ir_kernel_diff(kb->ir, ka->ir, &d, &n) == TDX_OK && n) {
        tdx_buf_printf(ev, "changed records (%zu):\n", n);
        const char *s = tdx_buf_str(&d);
        for (int i = 0; i < 12 && *s; i++) {
            size_t len = strcspn(s, "\n");
            tdx_buf_printf(ev, "  %.*s\n", (int)len, s);
            s += len + (s[len] == '\n');
        }
        if (*s)
            tdx_buf_adds(ev, "  ...\n");
    }
    tdx_buf_free(&d);
}

// The change works in the IR but the kernel it gives would not launch: its
// shared memory is over the per-CTA limit (the AOT compile does not check
// it; the driver does at launch).
static void record_smem(tdx_ledger *l, const tdx_an_plan *p, const tdx_finding *proof, const tdx_an_kernel *kb,
                        const tdx_an_kernel *ka)
{
    tdx_finding *f = tdx_ledger_add(l, "TDX310", p->file, p->line, p->col,
                                    "with %s the kernel needs %d B of shared memory, over the %d B a CTA may use",
                                    p->change, ka->shared, TDX_AN_SM90_SMEM_PER_CTA);
    if (!f)
        return;
    tdx_finding_set_kernel(l, f, p->kernel);
    tdx_finding_set_hypothesis(l, f, "the fix is right but does not fit: each stage buffers whole A and B tiles, "
                                     "so the tiles must shrink for the stages to fit");
    char ev[256];
    snprintf(ev, sizeof ev, "  shared: %d B as launched, %d B with %s; limit %d B per CTA on sm_90\n",
             kb ? kb->shared : -1, ka->shared, p->change, TDX_AN_SM90_SMEM_PER_CTA);
    tdx_finding_set_evidence(l, f, ev);
    tdx_finding_cite(l, f, proof->id);
    tdx_finding_fact(l, f, "shared", "%d", ka->shared);
    tdx_finding_fact(l, f, "limit", "%d", TDX_AN_SM90_SMEM_PER_CTA);
    f->confidence = 0.9;
}

tdx_status tdx_an_explain(const tdx_an_env *env, const char *task, const char *src, size_t len,
                          const tdx_an_capture *base, tdx_ledger *l, tdx_dx_cost *cost, tdx_diags *diags)
{
    tdx_an_plan plans[32];
    size_t n = tdx_an_plan_all(l, base, src, len, plans, sizeof plans / sizeof plans[0]);
    int max = env && env->max_compiles > 0 ? env->max_compiles : 8;
    int done = 0;
    for (size_t i = 0; i < n; i++) {
        const tdx_an_plan *p = &plans[i];
        if (p->predict == TDX_AN_PRED_NONE || (!p->nargs && !p->edit_line)) {
            tdx_an_record(l, p, -1, strcmp(p->rule, "TDX302") == 0
                                        ? "no ieee precision argument found at the dot to change"
                                    : strcmp(p->rule, "TDX307") == 0
                                        ? "no one-line range(...) found at the loop to change"
                                    : strcmp(p->rule, "TDX311") == 0
                                        ? "read from the IR; the fix is a source change"
                                        : "no single launch or source change tests it",
                          NULL);
            continue;
        }
        if (done >= max) {
            tdx_an_record(l, p, -1, "the budget of counterfactual compiles is spent", NULL);
            continue;
        }
        tdx_an_capture after;
        tdx_an_capture_init(&after);
        char why[512] = "";
        tdx_diags scratch;
        tdx_diags_init(&scratch);
        tdx_status st = run_plan(env, task, src, len, p, &after, why, sizeof why, &scratch);
        tdx_diags_free(&scratch);
        (void)diags; /* a failed counterfactual is a result, recorded below, not an input error */
        done++;
        if (cost)
            cost->compiles++;
        if (st) {
            char res[600];
            snprintf(res, sizeof res, "the compile with %s failed: %s", p->change, why);
            tdx_an_record(l, p, -1, res, NULL);
        } else {
            tdx_buf ev;
            tdx_buf_init(&ev, 0);
            char res[256];
            const tdx_an_kernel *kb = tdx_an_capture_find(base, p->kernel);
            const tdx_an_kernel *ka = tdx_an_capture_find(&after, p->kernel);
            int ok = tdx_an_check(p, kb, ka, &ev, res, sizeof res);
            append_diff(&ev, kb, ka);
            tdx_finding *f = tdx_an_record(l, p, ok, res, tdx_buf_str(&ev));
            tdx_buf_free(&ev);
            if (f && ok && ka && ka->shared > TDX_AN_SM90_SMEM_PER_CTA) {
                /* proven, but not a fix as it stands: the limit decides */
                f->confidence = 0.6;
                record_smem(l, p, f, kb, ka);
            }
        }
        tdx_an_capture_free(&after);
    }
    return TDX_OK;
}
