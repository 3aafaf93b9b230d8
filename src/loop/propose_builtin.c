/* The built-in proposer: the rewrite families the findings point to, the
 * deciding one first, then the others by confidence, each citing them. The
 * candidates are dealt out in turns -- the first of every family, then the
 * second of every family, ... -- so that a round of a few candidates tries
 * the best guess of several families instead of the variants of one. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loop/propose.h"
#include "rewrite/families.h"
#include "triage/triage.h"

typedef struct emit_ud {
    tdx_loop_cands *out;
    const int *cites;
    int ncites;
} emit_ud;

static tdx_status emit_cand(void *ud, char *src, size_t len, const char *family, const char *summary)
{
    emit_ud *e = ud;
    tdx_status st = tdx_loop_cands_push(e->out, src, len, family, "builtin", summary);
    if (!st) {
        tdx_loop_cand *c = &e->out->items[e->out->len - 1];
        for (int i = 0; i < e->ncites && i < 8; i++)
            c->cites[c->ncites++] = e->cites[i];
    }
    return st;
}

/* Rules whose rewrite pays only on the tiles retune sizes wait for retune:
 * on a round of two candidates they would take its slot, and a follow-up
 * takes them up on the round's best. Tiles in grid order (TDX028,
 * grouped-order); a last pass in order (TDX029, reverse-pass: on the H100
 * log_softmax_long's retuned kernel walked backwards took 0.931 of its time,
 * but tried first on the initial kernel it came out even and kept retune out
 * of the round); an fp32 dot's operand K-major (TDX019, operand-layout: the
 * tf32 wgmma of retune's tiles needs it, the initial 32x32 mma.sync does
 * not; on the H100 it came out 1.9 % slower there, so it was not stacked,
 * and the retuned kernel without it took 7.5 ms against 3.5 with it). */
static int waits_for_retune(const char *rule_id)
{
    return strcmp(rule_id, "TDX028") == 0 || strcmp(rule_id, "TDX029") == 0 || strcmp(rule_id, "TDX019") == 0;
}

/* Add name to the ordered family list if it is new. */
static void want(const char *name, const char **fams, int *n, int max)
{
    if (!name || !name[0])
        return;
    for (int i = 0; i < *n; i++)
        if (strcmp(fams[i], name) == 0)
            return;
    if (*n < max)
        fams[(*n)++] = name;
}

/* f's family into fams (at most 32), or into later (at most 8) when its rule
 * waits for retune. */
static void want_finding(const tdx_finding *f, const char **fams, int *nf, const char **later, int *nlater)
{
    if (waits_for_retune(f->rule->id))
        want(f->family, later, nlater, 8);
    else
        want(f->family, fams, nf, 32);
}

tdx_status tdx_loop_builtin_propose(void *ud, const tdx_loop_ctx *ctx, tdx_loop_cands *out,
                                    tdx_diags *diags)
{
    (void)ud;
    const char *fams[32];
    int nf = 0;
    const tdx_ledger *l = ctx->ledger;
    const char *later[8];
    int nlater = 0;
    if (ctx->dx && ctx->dx->deciding_finding > 0)
        want_finding(tdx_ledger_at(l, (size_t)ctx->dx->deciding_finding - 1), fams, &nf, later, &nlater);
    /* then the other findings' families, most confident first (ledger order
     * among equals) */
    int taken[256] = {0};
    size_t nl = tdx_ledger_count(l) < 256 ? tdx_ledger_count(l) : 256;
    for (;;) {
        size_t pick = nl;
        for (size_t i = 0; i < nl; i++)
            if (!taken[i] && (pick == nl || tdx_ledger_at(l, i)->confidence > tdx_ledger_at(l, pick)->confidence))
                pick = i;
        if (pick == nl)
            break;
        taken[pick] = 1;
        want_finding(tdx_ledger_at(l, pick), fams, &nf, later, &nlater);
    }
    /* retuning is the search every diagnosis narrows; it always applies, then
     * the families that wait for it, the program order of tile grids (it
     * yields nothing for other kernels), then the same search left to the GPU
     * as @triton.autotune */
    want("retune", fams, &nf, 32);
    for (int i = 0; i < nlater; i++)
        want(later[i], fams, &nf, 32);
    want("grouped-order", fams, &nf, 32);
    want("autotune", fams, &nf, 32);
    tdx_loop_cands per[32];
    memset(per, 0, sizeof per);
    tdx_status st = TDX_OK;
    for (int i = 0; i < nf && !st; i++) {
        if (!tdx_rw_family_find(fams[i])) {
            tdx_diags_add(diags, TDX_SEV_NOTE, ctx->task_path, 0, 0,
                          "no built-in rewrite for family %s: an LLM proposer can apply it", fams[i]);
            continue;
        }
        int cites[8], nc = 0;
        for (size_t k = 0; k < tdx_ledger_count(l) && nc < 8; k++) {
            const tdx_finding *f = tdx_ledger_at(l, k);
            if (f->family && strcmp(f->family, fams[i]) == 0)
                cites[nc++] = f->id;
        }
        emit_ud e = {&per[i], cites, nc};
        st = tdx_rw_apply_family(fams[i], ctx->task_path, ctx->src, ctx->len, emit_cand, &e, diags);
        if (st == TDX_ERR_PARSE)
            st = TDX_OK;
    }
    for (size_t k = 0, any = 1; !st && any; k++) {
        any = 0;
        for (int i = 0; i < nf && !st; i++) {
            if (k >= per[i].len)
                continue;
            any = 1;
            st = tdx_loop_cands_take(out, &per[i].items[k]);
        }
    }
    for (int i = 0; i < nf; i++)
        tdx_loop_cands_free(&per[i]);
    return st;
}

/* Non-zero when c's source is that of one of the n candidates. */
static int same_source(const tdx_loop_cand *c, const tdx_loop_cand *round, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (round[i].source && round[i].len == c->len && memcmp(round[i].source, c->source, c->len) == 0)
            return 1;
    return 0;
}

/* Built-in family `top`'s first candidate on the source of `base` whose
 * source is none of the nskip in skip, into *out (family "base+top", the
 * cites of both); TDX_ERR_NOTFOUND when the family is not built in, is
 * itself a stack, or yields nothing new for that source. */
static tdx_status stack_on_skipping(const char *task_path, const tdx_loop_cand *base, const tdx_loop_cand *top,
                                    const char *which, const tdx_loop_cand *skip, size_t nskip, tdx_loop_cand *out,
                                    tdx_diags *diags)
{
    memset(out, 0, sizeof *out);
    if (strcmp(top->origin, "builtin") != 0 || !tdx_rw_family_find(top->family) || strchr(top->family, '+'))
        return TDX_ERR_NOTFOUND;
    tdx_loop_cands got = {0};
    emit_ud e = {&got, NULL, 0};
    tdx_status st = tdx_rw_apply_family(top->family, task_path, base->source, base->len, emit_cand, &e, diags);
    size_t pick = 0;
    while (!st && pick < got.len && same_source(&got.items[pick], skip, nskip))
        pick++;
    if (!st && pick == got.len)
        st = TDX_ERR_NOTFOUND;
    if (!st) {
        *out = got.items[pick];
        got.items[pick].source = NULL;
        /* "A+B" whole: a cut name would read as another family */
        size_t bl = strlen(base->family), tl = strlen(top->family);
        if (bl + 1 + tl >= sizeof out->family) {
            free(out->source);
            memset(out, 0, sizeof *out);
            tdx_loop_cands_free(&got);
            return TDX_ERR_NOTFOUND;
        }
        memcpy(out->family, base->family, bl);
        out->family[bl] = '+';
        memcpy(out->family + bl + 1, top->family, tl + 1);
        snprintf(out->summary, sizeof out->summary, "on the round's %s (%.40s): %.180s", which, base->family,
                 got.items[pick].summary);
        for (int i = 0; i < base->ncites && out->ncites < 8; i++)
            out->cites[out->ncites++] = base->cites[i];
        for (int i = 0; i < top->ncites && out->ncites < 8; i++)
            out->cites[out->ncites++] = top->cites[i];
    }
    tdx_loop_cands_free(&got);
    return st == TDX_ERR_PARSE ? TDX_ERR_NOTFOUND : st;
}

/* stack_on_skipping with nothing to skip: top's first candidate. */
static tdx_status stack_on(const char *task_path, const tdx_loop_cand *base, const tdx_loop_cand *top,
                           const char *which, tdx_loop_cand *out, tdx_diags *diags)
{
    return stack_on_skipping(task_path, base, top, which, NULL, 0, out, diags);
}

tdx_status tdx_loop_builtin_stack(const char *task_path, const tdx_loop_cand *best, const tdx_loop_cand *second,
                                  tdx_loop_cand *out, tdx_diags *diags)
{
    tdx_status st = stack_on(task_path, best, second, "best", out, diags);
    /* the runner-up's rewrite may not recognise the winner's output (split-
     * reduction finds no loop reduction once defer-reduction moved it after
     * the loop) while the winner's applies to the runner-up's */
    if (st == TDX_ERR_NOTFOUND && strchr(best->family, '+') == NULL)
        st = stack_on(task_path, second, best, "runner-up", out, diags);
    return st;
}

/* Non-zero when family name is one of the '+'-joined parts of stack. */
static int in_stack(const char *stack, const char *name)
{
    size_t nl = strlen(name);
    for (const char *p = stack; p && *p;) {
        const char *q = strchr(p, '+');
        size_t l = q ? (size_t)(q - p) : strlen(p);
        if (l == nl && strncmp(p, name, nl) == 0)
            return 1;
        p = q ? q + 1 : NULL;
    }
    return 0;
}

tdx_status tdx_loop_builtin_follow_up(const char *task_path, const tdx_loop_cand *best, const tdx_ledger *seen,
                                      const tdx_loop_cand *round, size_t nround, tdx_loop_cand *out, char *rule,
                                      size_t rule_cap, tdx_diags *diags)
{
    memset(out, 0, sizeof *out);
    tdx_ledger l;
    tdx_ledger_init(&l);
    tdx_diags quiet;
    tdx_diags_init(&quiet);
    tdx_status st = tdx_tri_source(task_path, best->source, best->len, &l, &quiet);
    tdx_diags_free(&quiet);
    if (st) {
        tdx_ledger_free(&l);
        return st == TDX_ERR_NOMEM ? st : TDX_ERR_NOTFOUND;
    }
    st = TDX_ERR_NOTFOUND;
    /* three sweeps: the rewrites new findings name; then those of findings
     * the round reported but had no candidate slot for; then the searches
     * every round proposes anyway (retune, autotune), when new findings
     * name them and nothing else applies */
    static const char *const why[] = {"best, a new finding", "best, a finding the round did not try",
                                      "best, a new finding"};
    /* each sweep most confident first, ledger order among equals, as a
     * round's proposals: on the fp32 matmul retuned, TDX028 (grouped-order,
     * 0.45) came before TDX019 (operand-layout, 0.70) in the ledger, took
     * the follow-up and lost, and the layout was never tried (7.7 ms kept) */
    size_t nf = tdx_ledger_count(&l) < 256 ? tdx_ledger_count(&l) : 256;
    size_t order[256];
    for (size_t i = 0; i < nf; i++) {
        size_t j = i;
        for (; j > 0 && tdx_ledger_at(&l, order[j - 1])->confidence < tdx_ledger_at(&l, i)->confidence; j--)
            order[j] = order[j - 1];
        order[j] = i;
    }
    for (size_t k = 0; nf && k < 3 * nf && st == TDX_ERR_NOTFOUND; k++) {
        size_t sweep = k / nf;
        const tdx_finding *f = tdx_ledger_at(&l, order[k % nf]);
        int search = f->family && (strcmp(f->family, "retune") == 0 || strcmp(f->family, "autotune") == 0);
        if (!f->family || !f->family[0] || in_stack(best->family, f->family) || search != (sweep == 2))
            continue;
        int old = 0;
        for (size_t j = 0; j < tdx_ledger_count(seen) && !old; j++)
            old = strcmp(tdx_ledger_at(seen, j)->rule->id, f->rule->id) == 0;
        if (old != (sweep == 1))
            continue;
        if (sweep == 1) {
            int tried = 0;
            for (size_t j = 0; j < nround && !tried; j++)
                tried = in_stack(round[j].family, f->family);
            if (tried)
                continue;
        }
        tdx_loop_cand top;
        memset(&top, 0, sizeof top);
        snprintf(top.family, sizeof top.family, "%s", f->family);
        snprintf(top.origin, sizeof top.origin, "builtin");
        st = stack_on(task_path, best, &top, why[sweep], out, diags);
        if (!st && rule && rule_cap)
            snprintf(rule, rule_cap, "%s", f->rule->id);
    }
    tdx_ledger_free(&l);
    return st;
}

tdx_status tdx_loop_builtin_search_on(const char *task_path, const tdx_loop_cand *best, const tdx_loop_cand *round,
                                      size_t nround, tdx_loop_cand *out, tdx_diags *diags)
{
    static const char *const searches[] = {"retune", "autotune"};
    memset(out, 0, sizeof *out);
    for (size_t s = 0; s < sizeof searches / sizeof searches[0]; s++) {
        /* autotune once: on a tuned kernel, or after the round tried it */
        int old = s == 1 && in_stack(best->family, searches[s]);
        for (size_t i = 0; i < nround && s == 1 && !old; i++)
            old = in_stack(round[i].family, searches[s]);
        if (old)
            continue;
        tdx_loop_cand top;
        memset(&top, 0, sizeof top);
        snprintf(top.family, sizeof top.family, "%s", searches[s]);
        snprintf(top.origin, sizeof top.origin, "builtin");
        /* the first step that is no candidate the round timed: on col_argmax
         * retune's first step on the round's best (BLOCK_M 128, 0.1 % ahead
         * of 256) was the round's other candidate, and the search went
         * without a step (0.557 ms kept, 0.477 when 256 had won) */
        tdx_status st = stack_on_skipping(task_path, best, &top, "best", round, nround, out, diags);
        if (st != TDX_ERR_NOTFOUND)
            return st;
    }
    return TDX_ERR_NOTFOUND;
}
