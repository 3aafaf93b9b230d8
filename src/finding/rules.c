/* The rule table: one entry per rule id, from the per-level .def files. */
#include <string.h>

#include "finding/finding.h"

#define TDX_RULE(id, name, level, sev, family, sh, full, help, basis) \
    {id, name, level, sev, family, sh, full, help, basis},

static const tdx_rule rules[] = {
#include "finding/rules_l0.def"
#include "finding/rules_l1.def"
#include "finding/rules_l2.def"
#include "finding/rules_l3.def"
};

#undef TDX_RULE

const tdx_rule *tdx_rules(size_t *n)
{
    *n = sizeof rules / sizeof rules[0];
    return rules;
}

const tdx_rule *tdx_rule_find(const char *id)
{
    if (!id)
        return NULL;
    for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++)
        if (strcmp(rules[i].id, id) == 0 || strcmp(rules[i].name, id) == 0)
            return &rules[i];
    return NULL;
}
