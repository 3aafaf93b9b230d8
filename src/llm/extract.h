/* Code extraction from a model's reply, and the textual guard that checks the
 * extracted task file kept what a rewrite must never touch (tdx_llm_*).
 *
 * Extraction finds the fenced blocks of a Markdown reply (``` or ~~~, any
 * length of three or more, tagged python/py/python3 or untagged), and picks
 * the one that holds the task: the last block with both `@triton.jit` and
 * `def launch`; failing that, the largest Python block. A stray language line
 * ("python" alone on the first line of a block) is dropped, CRLF becomes LF,
 * and the fence's indentation is removed from every line.
 *
 * The guard is textual on purpose: the loop parses the candidate properly
 * later; this only rejects the obvious breaches early and says which.
 *
 * Ownership: tdx_llm_code owns its `code` (malloc); release it with
 * tdx_llm_code_free(). Inputs are borrowed and need not be NUL-terminated.
 * Nothing here allocates beyond the returned code, and nothing prints. */
#ifndef TDX_LLM_EXTRACT_H
#define TDX_LLM_EXTRACT_H

#include <stddef.h>

#include "base/status.h"

/* How the block was chosen. */
typedef enum tdx_llm_pick {
    TDX_LLM_PICK_NONE = 0,
    TDX_LLM_PICK_TASK,    /* the last Python block holding @triton.jit and def launch */
    TDX_LLM_PICK_LARGEST, /* the largest Python block */
    TDX_LLM_PICK_BARE,    /* no fences: the whole reply is the task file */
} tdx_llm_pick;

typedef struct tdx_llm_code {
    char *code;          /* the chosen block's text, NUL-terminated; NULL on failure */
    size_t len;
    int nblocks;         /* fenced blocks found in the reply */
    int chosen;          /* 0-based index of the chosen block; -1 when none (or bare) */
    tdx_llm_pick pick;
    int unterminated;    /* the chosen block's closing fence was missing (reply cut off?) */
    const char *error;   /* static one-line reason on failure, "" on success */
} tdx_llm_code;

/* Extract the task code from reply text[0..len). Returns TDX_OK, or
 * TDX_ERR_NOTFOUND with code->error "reply has no code block" (no fence at
 * all) or "reply has no python code block", or TDX_ERR_NOMEM. */
tdx_status tdx_llm_extract(const char *text, size_t len, tdx_llm_code *code);
void tdx_llm_code_free(tdx_llm_code *code);

/* The state of one protected part of the task file in the candidate. */
typedef enum tdx_llm_keep {
    TDX_LLM_KEEP_SAME = 0, /* present and unchanged (launch: same parameter list) */
    TDX_LLM_KEEP_CHANGED,  /* present but different, or added where the original has none */
    TDX_LLM_KEEP_MISSING,  /* the original has it, the candidate does not */
    TDX_LLM_KEEP_ABSENT,   /* the original does not have it either: nothing to check */
} tdx_llm_keep;

typedef struct tdx_llm_guard {
    tdx_llm_keep launch;      /* `def launch(...)`: parameter names, kinds and defaults */
    tdx_llm_keep reference;   /* the text of the `def reference` block */
    tdx_llm_keep make_inputs; /* the text of the `def make_inputs` block */
    tdx_llm_keep shapes;      /* the text of the `SHAPES = ...` statement */
    tdx_llm_keep tolerance;   /* `TOLERANCE = ...`: how close is correct */
    tdx_llm_keep flops;       /* `def flops`: the work the roofline counts */
    tdx_llm_keep bytes;       /* `def bytes`: the traffic the roofline counts */
    int has_kernel;           /* the candidate still has an @triton.jit function */
    const char *reason;       /* static text of the first breach, "" when none */
} tdx_llm_guard;

/* Compare candidate code against the original task source: launch's
 * parameters, and the text of reference, make_inputs, SHAPES, TOLERANCE,
 * flops and bytes (what decides whether and how well a candidate passes,
 * so a rewrite must not touch it). Never fails. */
void tdx_llm_guard_check(const char *orig, size_t olen, const char *code, size_t clen,
                         tdx_llm_guard *g);
/* Non-zero when the guard found no breach (a part absent from both is fine). */
int tdx_llm_guard_ok(const tdx_llm_guard *g);
/* "same", "changed", "missing", "absent". */
const char *tdx_llm_keep_str(tdx_llm_keep k);

#endif
