/* The LLM proposer: findings and family in, a rewritten task out. */
#include <stdio.h>
#include <string.h>

#include "llm/llm.h"
#include "loop/propose.h"

tdx_status tdx_loop_llm_propose(void *ud, const tdx_loop_ctx *ctx, tdx_loop_cands *out,
                                tdx_diags *diags)
{
    const tdx_llm_config *cfg = ud;
    const tdx_ledger *l = ctx->ledger;
    const char *fams[2];
    int nf = 0;
    if (ctx->dx && ctx->dx->deciding_finding > 0)
        fams[nf++] = tdx_ledger_at(l, (size_t)ctx->dx->deciding_finding - 1)->family;
    for (size_t i = 0; i < tdx_ledger_count(l) && nf < 2; i++) {
        const char *f = tdx_ledger_at(l, i)->family;
        if (f && f[0] && (nf == 0 || strcmp(fams[0], f) != 0))
            fams[nf++] = f;
    }
    for (int k = 0; k < nf; k++) {
        if (!fams[k] || !fams[k][0])
            continue;
        int ids[8];
        size_t nids = 0;
        for (size_t i = 0; i < tdx_ledger_count(l) && nids < 8; i++) {
            const tdx_finding *f = tdx_ledger_at(l, i);
            if (f->family && strcmp(f->family, fams[k]) == 0)
                ids[nids++] = f->id;
        }
        tdx_llm_candidate c;
        memset(&c, 0, sizeof c);
        tdx_status st = tdx_llm_propose(cfg, ctx->task_path, ctx->src, ctx->len, l, ids, nids,
                                        fams[k], NULL, &c, diags);
        if (c.code && (st == TDX_OK || st == TDX_ERR_INPUT)) {
            char summary[256];
            snprintf(summary, sizeof summary, "%.40s rewrite from %.60s%s%.120s", fams[k],
                     c.reply.model ? c.reply.model : "the model", c.why[0] ? ": " : "", c.why);
            tdx_status ps = tdx_loop_cands_push(out, c.code, c.code_len, fams[k], "llm", summary);
            c.code = NULL; /* owned by the list now */
            if (!ps) {
                tdx_loop_cand *cand = &out->items[out->len - 1];
                for (size_t i = 0; i < nids && i < 8; i++)
                    cand->cites[cand->ncites++] = ids[i];
                long pt = c.reply.prompt_tokens > 0 ? c.reply.prompt_tokens : 0;
                long ct = c.reply.completion_tokens > 0 ? c.reply.completion_tokens : 0;
                cand->tokens = pt + ct;
            }
        } else {
            tdx_diags_add(diags, TDX_SEV_NOTE, ctx->task_path, 0, 0, "llm proposal for %s dropped: %s",
                          fams[k], c.why[0] ? c.why : tdx_status_str(st));
        }
        tdx_llm_candidate_free(&c);
    }
    return TDX_OK;
}
