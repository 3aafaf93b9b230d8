/* One proposal: prompt, chat, extraction and guard in a row. */
#include "llm/llm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Prompt, chat, extract and guard: one candidate or the reason there is none. */
tdx_status tdx_llm_propose(const tdx_llm_config *c, const char *task_name, const char *source,
                           size_t source_len, const tdx_ledger *l, const int *ids, size_t nids,
                           const char *family, const tdx_llm_hooks *hooks,
                           tdx_llm_candidate *out, tdx_diags *d)
{
    memset(out, 0, sizeof *out);
    tdx_llm_reply_init(&out->reply);
    tdx_llm_prompt p;
    tdx_status st = tdx_llm_prompt_build(&p, task_name, source, source_len, l, ids, nids, family, d);
    if (st) {
        snprintf(out->why, sizeof out->why, "cannot build the prompt: %s", tdx_status_str(st));
        tdx_llm_prompt_free(&p);
        return st;
    }
    st = tdx_llm_chat(c, &p, hooks, &out->reply, d);
    tdx_llm_prompt_free(&p);
    if (st) {
        snprintf(out->why, sizeof out->why, "%s", out->reply.error);
        return st;
    }
    tdx_llm_code code;
    st = tdx_llm_extract(out->reply.content, strlen(out->reply.content), &code);
    if (st) {
        /* A cut-off reply explains a missing block better than the block does. */
        int cut = out->reply.finish_reason && strcmp(out->reply.finish_reason, "length") == 0;
        snprintf(out->why, sizeof out->why, "%s%s", code.error,
                 cut ? " (the reply was cut off at max_tokens)" : "");
        if (d)
            tdx_diags_add(d, TDX_SEV_ERROR, NULL, 0, 0, "llm: %s", out->why);
        return st;
    }
    out->code = code.code;
    out->code_len = code.len;
    out->unterminated = code.unterminated;
    tdx_llm_guard_check(source, source_len, out->code, out->code_len, &out->guard);
    if (!tdx_llm_guard_ok(&out->guard)) {
        snprintf(out->why, sizeof out->why, "%s%s", out->guard.reason,
                 out->unterminated ? " (the reply was cut off)" : "");
        if (d)
            tdx_diags_add(d, TDX_SEV_ERROR, NULL, 0, 0, "llm: candidate rejected: %s", out->why);
        return TDX_ERR_INPUT;
    }
    return TDX_OK;
}

/* Release the reply and the code. */
void tdx_llm_candidate_free(tdx_llm_candidate *cand)
{
    tdx_llm_reply_free(&cand->reply);
    free(cand->code);
    cand->code = NULL;
    cand->code_len = 0;
}
