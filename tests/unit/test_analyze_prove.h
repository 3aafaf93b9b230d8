/* Shared by test_analyze_prove_*.c: levels 2 and 3 on a task of
 * tests/data/analyze/tasks/ through the real harness (python3 -m
 * tritondx_harness capture, ahead of time for sm_90 on the CPU), and the
 * level 3 finding expected from it. */
#ifndef TEST_ANALYZE_PROVE_H
#define TEST_ANALYZE_PROVE_H

#include <stdio.h>
#include <string.h>

#include "analyze/analyze.h"

// Run levels 2 and 3 on tasks/<name>.py with at most max_compiles
// counterfactual compiles; return the first level 3 finding of `rule`
// (NULL when none). The ledger stays the caller's.
static const tdx_finding *prove(const char *name, const char *rule, int max_compiles, tdx_ledger *l,
                                tdx_dx_cost *cost)
{
    char task[4096];
    snprintf(task, sizeof task, "%s/analyze/tasks/%s.py", TDX_TEST_DATA, name);
    tdx_an_session s;
    memset(&s, 0, sizeof s);
    s.env.mode = "aot";
    s.env.max_compiles = max_compiles;
    tdx_diags d;
    tdx_diags_init(&d);
    char why[512] = "";
    char *src = NULL;
    size_t len = 0;
    tdx_file_read(task, 1 << 20, &src, &len);
    tdx_status st = tdx_an_level2(&s, task, src, len, l, cost, why, sizeof why, &d);
    if (!st)
        st = tdx_an_level3(&s, task, src, len, l, cost, why, sizeof why, &d);
    free(src);
    if (st)
        fprintf(stderr, "%s: %s: %s\n", name, tdx_status_str(st), why);
    tdx_an_session_free(&s);
    tdx_diags_free(&d);
    if (st)
        return NULL;
    const tdx_finding *hit = NULL;
    for (size_t i = 0; i < tdx_ledger_count(l); i++) {
        const tdx_finding *f = tdx_ledger_at(l, i);
        if (getenv("TDX_AN_PRINT"))
            fprintf(stderr, "%s: F%d %s:%d %s\n%s", name, f->id, f->rule->id, f->line, f->message,
                    f->evidence ? f->evidence : "");
        if (!hit && f->level == 3 && strcmp(f->rule->id, rule) == 0)
            hit = f;
    }
    if (!hit)
        fprintf(stderr, "%s: no %s finding\n", name, rule);
    return hit;
}

// The finding is proven, cites a level 2 finding, names the kernel's own
// file, and its evidence holds `before` then `after`.
static void expect_proven(const tdx_finding *f, const tdx_ledger *l, const char *before, const char *after)
{
    assert_non_null(f);
    if (strcmp(tdx_finding_get_fact(f, "outcome"), "proven") != 0)
        fprintf(stderr, "not proven: %s\n", f->message);
    assert_string_equal(tdx_finding_get_fact(f, "outcome"), "proven");
    assert_true(f->confidence >= 0.7);
    assert_true(f->ncites >= 1);
    const tdx_finding *c = tdx_ledger_at(l, (size_t)f->cites[0] - 1);
    assert_int_equal(c->level, 2);
    assert_int_equal(c->line, f->line);
    assert_non_null(strstr(f->file, "/analyze/tasks/"));
    assert_non_null(f->evidence);
    const char *w = strstr(f->evidence, "with ");
    assert_non_null(w);
    const char *b = strstr(f->evidence, before);
    if (!b || b > w || !strstr(w, after))
        fprintf(stderr, "evidence lacks %s ... %s:\n%s", before, after, f->evidence);
    assert_true(b && b < w);
    assert_non_null(strstr(w, after));
}

#endif
