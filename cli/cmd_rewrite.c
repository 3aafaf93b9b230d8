/* tritondx rewrite: apply one built-in rewrite family to a task and write the
 * candidates it yields (a preview of what optimize would try). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/file.h"
#include "cli.h"
#include "rewrite/edit.h"
#include "rewrite/families.h"

typedef struct out_ud {
    const char *dir;
    const char *orig;
    size_t olen;
    int n;
    int failed;
    int diff;
} out_ud;

static tdx_status emit(void *ud, char *src, size_t len, const char *family, const char *summary)
{
    out_ud *o = ud;
    o->n++;
    char path[4096];
    snprintf(path, sizeof path, "%s/%s_%d.py", o->dir, family, o->n);
    if (tdx_file_write(path, src, len) != TDX_OK) {
        tdx_cli_error("cannot write %s", path);
        o->failed = 1;
    } else {
        printf("%s\t%s\n", path, summary);
        if (o->diff) {
            tdx_buf d;
            tdx_buf_init(&d, 0);
            tdx_rw_diff(o->orig, o->olen, src, len, "a/task.py", "b/candidate.py", 3, 0, &d);
            fputs(tdx_buf_str(&d), stdout);
            tdx_buf_free(&d);
        }
    }
    free(src);
    return TDX_OK;
}

static void usage(FILE *f)
{
    fputs("usage: tritondx rewrite --family NAME [--out-dir DIR] [--diff] TASK.py\n"
          "       tritondx rewrite --list\n\n"
          "Applies one built-in rewrite family to the task and writes each candidate it yields\n"
          "as DIR/NAME_N.py (default DIR: TASK.rewrites/), printing its path and what changed.\n"
          "Candidates are not checked or timed here: 'tritondx optimize' does that.\n",
          f);
}

int tdx_cmd_rewrite(int argc, char **argv)
{
    const char *family = NULL, *dir = NULL, *task = NULL;
    int diff = 0;
    for (int i = 1; i < argc; i++) {
        const char *v;
        int r;
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            usage(stdout);
            return TDX_EXIT_OK;
        } else if (strcmp(argv[i], "--list") == 0) {
            size_t n;
            const tdx_rw_family *f = tdx_rw_families(&n);
            for (size_t k = 0; k < n; k++)
                printf("%-22s needs %s\n", f[k].name, f[k].needs);
            return TDX_EXIT_OK;
        } else if (strcmp(argv[i], "--diff") == 0) {
            diff = 1;
        } else if ((r = tdx_cli_opt_value(argc, argv, &i, "--family", &v)) != 0) {
            if (r < 0)
                return TDX_EXIT_USAGE;
            family = v;
        } else if ((r = tdx_cli_opt_value(argc, argv, &i, "--out-dir", &v)) != 0) {
            if (r < 0)
                return TDX_EXIT_USAGE;
            dir = v;
        } else if (argv[i][0] == '-') {
            tdx_cli_error("unknown option '%s' (see 'tritondx rewrite --help')", argv[i]);
            return TDX_EXIT_USAGE;
        } else {
            task = argv[i];
        }
    }
    if (!family || !task) {
        tdx_cli_error("rewrite needs --family NAME and a task file (see 'tritondx rewrite --help')");
        return TDX_EXIT_USAGE;
    }
    if (!tdx_rw_family_find(family)) {
        tdx_cli_error("no built-in rewrite family '%s' (see 'tritondx rewrite --list')", family);
        return TDX_EXIT_USAGE;
    }
    char *src;
    size_t len;
    int rc = tdx_cli_read_task(task, &src, &len);
    if (rc)
        return rc;
    char defdir[4096];
    if (!dir) {
        size_t n = strlen(task);
        if (n > 3 && strcmp(task + n - 3, ".py") == 0)
            n -= 3;
        snprintf(defdir, sizeof defdir, "%.*s.rewrites", (int)n, task);
        dir = defdir;
    }
    if (tdx_file_mkdirs(dir) != TDX_OK) {
        tdx_cli_error("cannot create %s: %s", dir, strerror(errno));
        free(src);
        return TDX_EXIT_INPUT;
    }
    out_ud o = {dir, src, len, 0, 0, diff};
    tdx_diags d;
    tdx_diags_init(&d);
    tdx_status st = tdx_rw_apply_family(family, task, src, len, emit, &o, &d);
    for (size_t i = 0; i < d.len; i++)
        fprintf(stderr, "%s:%d:%d: %s: %s\n", d.items[i].file ? d.items[i].file : task,
                d.items[i].line, d.items[i].col, tdx_severity_str(d.items[i].sev), d.items[i].msg);
    tdx_diags_free(&d);
    free(src);
    if (st == TDX_ERR_PARSE)
        return TDX_EXIT_INPUT;
    if (st || o.failed)
        return TDX_EXIT_FAILED;
    if (o.n == 0)
        fprintf(stderr, "%s: note: family %s does not apply to this task\n", task, family);
    return TDX_EXIT_OK;
}
