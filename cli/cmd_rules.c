/* tritondx rules: the rule table listed, one rule explained, or the
 * Markdown reference (docs/rules.md is this command's output). */
#include <string.h>

#include "cli.h"
#include "finding/finding.h"
#include "report/report.h"

// The help text.
static void usage(FILE *f)
{
    fputs("usage: tritondx rules [--markdown] [ID|NAME]\n\n"
          "With no argument, list every rule: id, level, severity, name, summary.\n"
          "With a rule id (TDX012) or name (tiny-block), explain that rule: what it\n"
          "flags, the compiler or hardware fact behind it, and the rewrite it suggests.\n\n"
          "options:\n"
          "  --markdown   write the reference documentation of every rule as Markdown\n"
          "               (this is docs/rules.md)\n"
          "  -h, --help   show this help\n",
          f);
}

// List, explain one rule, or write the Markdown reference.
int tdx_cmd_rules(int argc, char **argv)
{
    int markdown = 0;
    const char *which = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            usage(stdout);
            return TDX_EXIT_OK;
        } else if (strcmp(a, "--markdown") == 0) {
            markdown = 1;
        } else if (a[0] == '-') {
            tdx_cli_error("unknown option '%s' (see 'tritondx rules --help')", a);
            return TDX_EXIT_USAGE;
        } else if (which) {
            tdx_cli_error("one rule at a time (got '%s' and '%s')", which, a);
            return TDX_EXIT_USAGE;
        } else {
            which = a;
        }
    }
    if (markdown && which) {
        tdx_cli_error("--markdown documents every rule; it takes no rule id");
        return TDX_EXIT_USAGE;
    }
    size_t n;
    const tdx_rule *rules = tdx_rules(&n);
    tdx_buf out;
    tdx_buf_init(&out, 0);
    tdx_status st;
    if (markdown) {
        st = tdx_rep_rules_markdown(rules, n, &out);
    } else if (which) {
        const tdx_rule *r = tdx_rule_find(which);
        if (!r) {
            /* Ids are case-insensitive on the command line: tdx012 works. */
            char up[32];
            size_t k = 0;
            for (; which[k] && k + 1 < sizeof up; k++)
                up[k] = (char)(which[k] >= 'a' && which[k] <= 'z' ? which[k] - 32 : which[k]);
            up[k] = '\0';
            r = tdx_rule_find(up);
        }
        if (!r) {
            tdx_cli_error("unknown rule '%s' (see 'tritondx rules' for the list)", which);
            tdx_buf_free(&out);
            return TDX_EXIT_USAGE;
        }
        st = tdx_rep_rule_explain(r, &out);
    } else {
        st = tdx_rep_rules_list(rules, n, &out);
    }
    if (st) {
        tdx_cli_error("%s", tdx_status_str(st));
        tdx_buf_free(&out);
        return TDX_EXIT_FAILED;
    }
    fwrite(out.data ? out.data : "", 1, out.len, stdout);
    tdx_buf_free(&out);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        tdx_cli_error("cannot write the output");
        return TDX_EXIT_FAILED;
    }
    return TDX_EXIT_OK;
}
