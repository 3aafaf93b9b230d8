/* The evidence ledger: findings from every diagnosis level, and the rule
 * table they refer to.
 *
 * A finding has an id within its ledger ("F1", "F2", ...), a level (0..3),
 * a rule, a source location, observed facts, a hypothesis, a confidence,
 * the rewrite family it points to and the expected gain. Later findings and
 * rewrites cite earlier ones by id.
 *
 * Ownership: a ledger owns one arena; every string, fact and finding added
 * to it lives there and is freed by tdx_ledger_free(). Strings passed in are
 * copied. Rules are static and never freed. */
#ifndef TDX_FINDING_FINDING_H
#define TDX_FINDING_FINDING_H

#include <stddef.h>

#include "base/arena.h"
#include "base/diag.h"
#include "base/status.h"

enum { TDX_LEVEL_TRIAGE = 0, TDX_LEVEL_PROFILE = 1, TDX_LEVEL_IR = 2, TDX_LEVEL_COMPILER = 3 };

/* One rule. The table is generated from src/finding/rules_l*.def so that the
 * code, the SARIF rule list and the reference docs cannot drift. */
typedef struct tdx_rule {
    const char *id;        /* stable: "TDX001" (L0 001-099, L1 100-199, L2 200-299, L3 300-399) */
    const char *name;      /* kebab-case, e.g. "tiny-block" */
    int level;             /* 0..3 */
    tdx_severity sev;      /* default severity */
    const char *family;    /* rewrite family it points to ("" when none) */
    const char *short_desc;/* one line */
    const char *full_desc; /* a paragraph: what and why */
    const char *help;      /* what to change */
    const char *basis;     /* the compiler/hardware fact behind it, with the Triton source file */
} tdx_rule;

const tdx_rule *tdx_rule_find(const char *id);
/* The whole table, in id order. */
const tdx_rule *tdx_rules(size_t *n);

typedef struct tdx_fact {
    const char *key;
    const char *value;
} tdx_fact;

typedef struct tdx_finding {
    int id;                /* 1-based within the ledger; printed "F<id>" */
    const tdx_rule *rule;
    int level;
    tdx_severity sev;
    const char *file;      /* may be NULL */
    int line, col;         /* 1-based, 0 when unknown */
    int end_line, end_col; /* 0 when unknown */
    const char *kernel;    /* kernel name, may be NULL */
    const char *message;   /* one line, lower-case start, no full stop */
    const char *hypothesis;/* why it is slow, may be NULL */
    const char *family;    /* rewrite family, defaults to the rule's */
    double confidence;     /* 0..1 */
    double expected_gain;  /* estimated speedup factor of the fix; 0 unknown */
    tdx_fact *facts;
    size_t nfacts, capfacts;
    const char *evidence;  /* multi-line excerpt (IR lines, before/after), may be NULL */
    int *cites;            /* ids of findings this one builds on */
    size_t ncites, capcites;
} tdx_finding;

/* What a level learned about one kernel as a whole (its pattern class). */
typedef struct tdx_kernel_info {
    const char *name;
    const char *file;
    int line, col;
    const char *pattern;   /* e.g. "row-reduction", "matmul" */
    double confidence;
    const char *why;       /* short reason for the class, may be NULL */
} tdx_kernel_info;

typedef struct tdx_ledger {
    tdx_arena arena;
    tdx_ptrvec findings;   /* tdx_finding* in order of addition */
    tdx_ptrvec kernels;    /* tdx_kernel_info* */
} tdx_ledger;

void tdx_ledger_init(tdx_ledger *l);
void tdx_ledger_free(tdx_ledger *l);

/* Add a finding for rule_id at file:line:col with a printf-style message.
 * Severity, level and family come from the rule; confidence starts at 0.5.
 * Returns NULL when the rule is unknown or memory runs out. */
tdx_finding *tdx_ledger_add(tdx_ledger *l, const char *rule_id, const char *file, int line,
                            int col, const char *fmt, ...) __attribute__((format(printf, 6, 7)));

tdx_status tdx_finding_set_hypothesis(tdx_ledger *l, tdx_finding *f, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
tdx_status tdx_finding_set_evidence(tdx_ledger *l, tdx_finding *f, const char *text);
tdx_status tdx_finding_set_kernel(tdx_ledger *l, tdx_finding *f, const char *kernel);
tdx_status tdx_finding_fact(tdx_ledger *l, tdx_finding *f, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
tdx_status tdx_finding_cite(tdx_ledger *l, tdx_finding *f, int other_id);
const char *tdx_finding_get_fact(const tdx_finding *f, const char *key);

tdx_kernel_info *tdx_ledger_add_kernel(tdx_ledger *l, const char *name, const char *file, int line,
                                       int col, const char *pattern, double confidence);

static inline size_t tdx_ledger_count(const tdx_ledger *l) { return l->findings.len; }
static inline tdx_finding *tdx_ledger_at(const tdx_ledger *l, size_t i)
{
    return (tdx_finding *)l->findings.items[i];
}

/* Sort findings by file, line, col, rule id (stable; ids unchanged). */
void tdx_ledger_sort(tdx_ledger *l);

#endif
