/* Proposers for the optimize loop (see loop.h for the interface). */
#ifndef TDX_LOOP_PROPOSE_H
#define TDX_LOOP_PROPOSE_H

#include "loop/loop.h"

/* The built-in, deterministic proposer: the families the findings name (the
 * deciding finding's first), then retune. ud is unused. */
tdx_status tdx_loop_builtin_propose(void *ud, const tdx_loop_ctx *ctx, tdx_loop_cands *out,
                                    tdx_diags *diags);

/* A rewrite the round's best opened up or the round left untried: level-0
 * triage of best's source, and the first finding (most confident first,
 * ledger order among equals) whose built-in family is
 * not in best's stack and whose rule the round's diagnosis (seen) did not
 * report -- else, the first whose rule it reported but whose family none
 * of the round's nround candidates tried (the round had fewer candidate
 * slots than families) -- yields its family's first candidate on best
 * into *out (retune and autotune, which every round proposes anyway, only
 * when no other family does, and only as new findings; family "A+F", as
 * tdx_loop_builtin_stack); *rule gets that rule's id. TDX_ERR_NOTFOUND when
 * no finding gives one. *out owns its source. */
tdx_status tdx_loop_builtin_follow_up(const char *task_path, const tdx_loop_cand *best, const tdx_ledger *seen,
                                      const tdx_loop_cand *round, size_t nround, tdx_loop_cand *out, char *rule,
                                      size_t rule_cap, tdx_diags *diags);

/* A search on the round's best: when no finding opened anything up
 * (tdx_loop_builtin_follow_up gave TDX_ERR_NOTFOUND), retune's first
 * candidate on best -- a next step when best was retuned already -- whose
 * source is that of none of the round's nround candidates; else
 * autotune's, unless autotune is in best's stack or in any of theirs (the
 * '+'-joined family names). Family "A+F". TDX_ERR_NOTFOUND when neither
 * gives a new candidate. *out owns its source. */
tdx_status tdx_loop_builtin_search_on(const char *task_path, const tdx_loop_cand *best, const tdx_loop_cand *round,
                                      size_t nround, tdx_loop_cand *out, tdx_diags *diags);

/* Stack two rewrites that each won on their own: built-in family
 * second->family applied to the source of `best` (a candidate that passed),
 * its first candidate into *out (family "A+B", the cites of both); when it
 * yields nothing there, best->family applied to the source of `second`
 * (family "B+A"). TDX_ERR_NOTFOUND when neither way gives a candidate. *out owns its source (free it, or hand it on with
 * tdx_loop_cands_take). */
tdx_status tdx_loop_builtin_stack(const char *task_path, const tdx_loop_cand *best, const tdx_loop_cand *second,
                                  tdx_loop_cand *out, tdx_diags *diags);

/* The LLM proposer: ud is a tdx_llm_config. For the deciding finding's
 * family, then the next families the findings name (at most two a round), it
 * asks the endpoint for the rewritten task, citing those findings. A reply
 * with no code, or one that breaks the guard, is dropped with a note (a
 * breached guard still goes to the loop, which rejects it with the reason in
 * the journal). Tokens are recorded on the candidate. */
tdx_status tdx_loop_llm_propose(void *ud, const tdx_loop_ctx *ctx, tdx_loop_cands *out,
                                tdx_diags *diags);

#endif
