/* One task's findings printed the way every per-task command prints them:
 * diags on stderr, the ledger on stdout in the chosen format, and the exit
 * code from what happened. */
#include <stdlib.h>
#include <unistd.h>

#include "cli.h"
#include "report/report.h"

tdx_status tdx_cli_render_task(const tdx_cli_render *r)
{
    tdx_rep_opts ro = {0};
    ro.color = r->fmt == TDX_FMT_TEXT && tdx_cli_use_color(r->color, stdout);
    ro.caret = r->fmt == TDX_FMT_TEXT && isatty(fileno(stdout));
    char cwd[4096];
    ro.root = getcwd(cwd, sizeof cwd);
    tdx_rep_file file = {r->task, r->src, r->len, r->status};
    tdx_rep_run run = {r->ledger, &file, 1, r->diags};
    tdx_buf out, err;
    tdx_buf_init(&out, 0);
    tdx_buf_init(&err, 0);
    tdx_rep_opts eo = {0};
    eo.color = tdx_cli_use_color(r->color, stderr);
    if (r->diags)
        tdx_rep_diags_text(r->diags, &eo, &err);
    tdx_status rs;
    if (r->fmt == TDX_FMT_TEXT) {
        rs = tdx_rep_text(&run, &ro, &out);
        if (!rs && !r->status && r->text_tail)
            rs = r->text_tail(r->ud, &out);
    } else if (r->fmt == TDX_FMT_SARIF) {
        rs = tdx_rep_sarif(&run, &ro, &out);
    } else {
        rs = tdx_rep_json(&run, &ro, &out);
        json_t *j = !rs && r->json_extra ? json_loads(tdx_buf_str(&out), 0, NULL) : NULL;
        if (j) {
            r->json_extra(r->ud, j);
            char *s = json_dumps(j, JSON_INDENT(2) | JSON_SORT_KEYS);
            tdx_buf_reset(&out);
            if (s) {
                tdx_buf_adds(&out, s);
                tdx_buf_addc(&out, '\n');
                free(s);
            }
            json_decref(j);
        }
    }
    fputs(tdx_buf_str(&err), stderr);
    fputs(tdx_buf_str(&out), stdout);
    tdx_buf_free(&out);
    tdx_buf_free(&err);
    return rs;
}

int tdx_cli_task_exit(tdx_status render, tdx_status run, const tdx_ledger *led)
{
    if (render)
        return TDX_EXIT_FAILED;
    if (run)
        return run == TDX_ERR_PARSE || run == TDX_ERR_INPUT ? TDX_EXIT_INPUT : TDX_EXIT_FAILED;
    for (size_t i = 0; i < tdx_ledger_count(led); i++)
        if (tdx_ledger_at(led, i)->sev >= TDX_SEV_WARNING)
            return TDX_EXIT_FINDINGS;
    return TDX_EXIT_OK;
}
