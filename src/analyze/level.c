/* Levels 2 and 3 as steps of the escalation (tdx_dx_level_fn): one capture
 * of the task as launched, shared by both through a tdx_an_session. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/analyze.h"

void tdx_an_session_free(tdx_an_session *s)
{
    if (s->have_base)
        tdx_an_capture_free(&s->base);
    free(s->task);
    s->task = NULL;
    s->have_base = 0;
    s->failed = TDX_OK;
    s->failed_why[0] = 0;
}

// FNV-1a of the task's text (0 when not at hand).
static unsigned long long text_hash(const char *src, size_t len)
{
    unsigned long long h = 1469598103934665603ULL;
    for (size_t i = 0; src && i < len; i++)
        h = (h ^ (unsigned char)src[i]) * 1099511628211ULL;
    return src ? h : 0;
}

tdx_status tdx_an_session_capture(tdx_an_session *s, const char *task, const char *src, size_t len,
                                  tdx_dx_cost *cost, char *why, size_t why_len, tdx_diags *diags)
{
    unsigned long long h = text_hash(src, len);
    int same = s->task && strcmp(s->task, task) == 0 && (!src || h == s->src_hash);
    if (same && s->have_base)
        return TDX_OK;
    if (same && s->failed) {
        if (why && why_len)
            snprintf(why, why_len, "%s", s->failed_why);
        return s->failed;
    }
    tdx_an_session_free(s);
    s->src_hash = h;
    tdx_an_capture_init(&s->base);
    s->have_base = 1;
    s->task = strdup(task);
    if (!s->task)
        return TDX_ERR_NOMEM;
    tdx_status st = tdx_an_capture_run(&s->env, task, NULL, &s->base, why, why_len, diags);
    if (cost)
        cost->compiles += (int)(s->base.nkernels ? s->base.nkernels : 1);
    if (st) {
        tdx_an_capture_free(&s->base);
        s->have_base = 0;
        s->failed = st;
        snprintf(s->failed_why, sizeof s->failed_why, "%s", why && why_len ? why : "");
    }
    return st;
}

tdx_status tdx_an_level2(void *ud, const char *task_path, const char *src, size_t len,
                         tdx_ledger *ledger, tdx_dx_cost *cost, char *why, size_t why_len,
                         tdx_diags *diags)
{
    tdx_an_session local = {0};
    tdx_an_session *s = ud ? ud : &local;
    tdx_status st = tdx_an_session_capture(s, task_path, src, len, cost, why, why_len, diags);
    if (st)
        return st;
    /* The level 1 symptoms to attach: its warnings, the first one named. */
    int cites[16];
    size_t nc = 0;
    const char *symptom = NULL;
    for (size_t i = 0; i < tdx_ledger_count(ledger) && nc < 16; i++) {
        const tdx_finding *f = tdx_ledger_at(ledger, i);
        if (f->level != TDX_LEVEL_PROFILE || f->sev < TDX_SEV_WARNING)
            continue;
        cites[nc++] = f->id;
        if (!symptom)
            symptom = f->message;
    }
    tdx_an_l2opts o = {task_path, cites, nc, symptom};
    for (size_t i = 0; i < s->base.nkernels && !st; i++)
        st = tdx_an_attribute(&s->base.kernels[i], &o, ledger);
    if (s == &local)
        tdx_an_session_free(&local);
    return st;
}

tdx_status tdx_an_level3(void *ud, const char *task_path, const char *src, size_t len,
                         tdx_ledger *ledger, tdx_dx_cost *cost, char *why, size_t why_len,
                         tdx_diags *diags)
{
    tdx_an_session local = {0};
    tdx_an_session *s = ud ? ud : &local;
    tdx_status st = tdx_an_session_capture(s, task_path, src, len, cost, why, why_len, diags);
    if (!st)
        st = tdx_an_explain(&s->env, task_path, src, len, &s->base, ledger, cost, diags);
    if (s == &local)
        tdx_an_session_free(&local);
    return st;
}
