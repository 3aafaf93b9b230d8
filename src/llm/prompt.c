/* The prompt for one rewrite, and the request body around it. */
#include "llm/llm.h"

#include <jansson.h>
#include <string.h>

/* Caps that keep a prompt within any server's context: the task file is
 * sent whole (a rewrite needs all of it), evidence only as an excerpt. */
#define PROMPT_MAX ((size_t)2 << 20)
enum { EVIDENCE_MAX_LINES = 40, EVIDENCE_MAX_BYTES = 4096, MAX_FACTS = 12 };

/* What each rewrite family means, in the words a kernel author would use.
 * Names follow the rule table (src/finding/rules_l*.def) and DESIGN.md. */
static const struct {
    const char *name, *what;
} families[] = {
    {"retune", "retune the tile sizes (constexpr BLOCK sizes), num_warps and num_stages"},
    {"alignment-hints", "add alignment and divisibility hints (tl.multiple_of, tl.max_contiguous) "
                        "so loads and stores vectorize"},
    {"tensor-cores", "make the matrix products run on tensor cores: tl.dot on 16-bit inputs or "
                     "TF32, tiles of at least 16 in every dimension"},
    {"pipelining", "pipeline the main loop (num_stages >= 3, loads issued ahead of use)"},
    {"grouped-order", "reorder program ids in groups so neighbouring programs share tiles in L2"},
    {"split-k", "split the reduction dimension over several programs and combine the partial sums"},
    {"fold-programs", "fold several programs of a 1-D grid into one, each tile gaining a leading axis of rows"},
    {"split-reduction", "split a loop that reduces loaded values over several programs per block and combine "
                        "the partial results with atomics"},
    {"defer-reduction", "keep an elementwise fp32 accumulator of the tile's shape in the loop instead of reducing "
                        "each tile to a scalar (tl.sum / tl.max) per iteration, and reduce it once after the loop; "
                        "a maximum or minimum of 16-bit loads can keep its lanes in the loaded type, exactly"},
    {"relax-atomics", "pass sem=\"relaxed\" to atomics whose result is unused when the kernel reads nothing "
                      "they order: no acq_rel fence and L1 invalidate per atomic"},
    {"peel-masks", "run the blocks of a loop that need no mask (before the sequence end or the causal "
                   "diagonal) in a loop of their own without the masks and selects, the rest in the original "
                   "loop"},
    {"single-pass-reduction", "read the data once: fuse the passes over each row (online max and "
                              "sum) and keep the row in registers when it fits"},
    {"vectorize-loop", "replace the scalar loop over elements (or rows) with block-wide tl.arange operations"},
    {"block-outputs", "give each program R outputs along the grid axis whose programs reload the same tiles "
                      "(R output channels of a convolution), loading the shared tile once for all R"},
    {"dot-accumulate", "take the reduction index of a loop that adds one outer product (an [R, 1] column times a "
                       "row) per value 16 values at a time, as tl.dot(column, row, input_precision=\"ieee\")"},
    {"operand-layout", "pass the fp32 tl.dot operand K-major (a copy at launch whose K axis is contiguous): the "
                       "tf32 wgmma reads 32-bit operands from shared memory only K-major"},
    {"tensor-descriptors", "load the tl.dot operand tiles through tensor descriptors "
                           "(triton.tools.tensor_descriptor.TensorDescriptor built in launch, desc.load([row, col]) "
                           "in the kernel): the TMA unit copies each tile; keep the pointer kernel for inputs that "
                           "are not 16-byte aligned"},
    {"hoist-scale", "multiply the loop-invariant tl.dot operand by the scale once before the loop "
                    "((q * sm_scale).to(q.dtype)) instead of multiplying every element of each iteration's "
                    "tl.dot result"},
    {"row-grid", "run a flat kernel that finds each element's row as offs // D on a 2-D grid of (row, block "
                 "of the row): the row's values (per-channel mean, weight, ...) loaded once a program as "
                 "scalars, the lanes past the row's end masked"},
    {"erf-polynomial", "compute erf with a short polynomial and one exp2 (Abramowitz & Stegun 7.1.26, |error| "
                       "<= 1.5e-7) instead of tl.math.erf's libdevice erff"},
    {"reverse-pass", "walk the last pass over a row (or group) from its last block down, so it first reads "
                     "the blocks the earlier pass read last, which L2 still holds"},
    {"heavy-first", "count the program id of the grid axis whose programs' loop grows with it down "
                    "(P = tl.num_programs(A) - 1 - tl.program_id(A)), so the longest programs start first"},
    {"autotune", "wrap the kernel in @triton.autotune over a few block sizes, num_warps and num_stages"},
    {"coalesce", "re-tile so consecutive threads touch consecutive addresses on the contiguous axis"},
    {"exp2", "use exp2 with a folded log2(e) scale instead of exp (x * log2(e) - m[:, None] * log2(e): one "
             "fused multiply-add a score)"},
    {"persistent-grid", "launch one program per SM (or a few) and loop over the tiles"},
    {"remove-launch-passes", "remove extra passes in launch (.float(), .contiguous() copies, "
                             "temporaries) by doing that work in the kernel"},
    {"fuse-launches", "fuse the separate kernel launches into one kernel"},
};

static const char system_text[] =
    "You are an expert in Triton GPU kernels for NVIDIA Hopper (H200, sm_90) with Triton 3.6. "
    "You rewrite a task file to make its kernel faster while computing exactly the same result. "
    "Your answer is checked against the task's reference on several shapes, including odd and "
    "non-power-of-two ones, and timed; a wrong or slower rewrite is discarded. "
    "Reply with the complete rewritten task file in a single ```python code block, and nothing "
    "else after it.";

/* A Markdown fence longer than any backtick run in the text it encloses. */
static int fence_len(const char *s, size_t n)
{
    int best = 0, run = 0;
    for (size_t i = 0; i < n; i++) {
        run = s[i] == '`' ? run + 1 : 0;
        if (run > best)
            best = run;
    }
    return best >= 3 ? best + 1 : 3;
}

/* A fence line of n backticks and an optional tag. */
static tdx_status add_fence(tdx_buf *b, int n, const char *tag)
{
    for (int i = 0; i < n; i++) {
        tdx_status st = tdx_buf_addc(b, '`');
        if (st)
            return st;
    }
    return tdx_buf_printf(b, "%s\n", tag);
}

/* The evidence excerpt, indented, cut at a line and byte budget. */
static tdx_status add_evidence(tdx_buf *b, const char *ev)
{
    tdx_status st = tdx_buf_adds(b, "  evidence:\n");
    size_t used = 0;
    int lines = 0;
    const char *p = ev;
    while (!st && *p) {
        const char *e = strchr(p, '\n');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        if (lines == EVIDENCE_MAX_LINES || used + n > EVIDENCE_MAX_BYTES) {
            st = tdx_buf_adds(b, "    | ...\n");
            break;
        }
        st = tdx_buf_printf(b, "    | %.*s\n", (int)n, p);
        used += n;
        lines++;
        p = e ? e + 1 : p + n;
    }
    return st;
}

/* One cited finding: id, rule, place, message, why, fix, facts, evidence. */
static tdx_status add_finding(tdx_buf *b, const tdx_finding *f)
{
    tdx_status st = tdx_buf_printf(b, "- F%d [%s %s, level %d]", f->id, f->rule->id, f->rule->name,
                                   f->level);
    if (!st && f->line > 0)
        st = tdx_buf_printf(b, " line %d", f->line);
    if (!st && f->kernel)
        st = tdx_buf_printf(b, " in %s", f->kernel);
    if (!st)
        st = tdx_buf_printf(b, ": %s\n", f->message ? f->message : f->rule->short_desc);
    if (!st && f->hypothesis)
        st = tdx_buf_printf(b, "  why: %s\n", f->hypothesis);
    if (!st && f->rule->help && *f->rule->help)
        st = tdx_buf_printf(b, "  fix: %s\n", f->rule->help);
    for (size_t i = 0; !st && i < f->nfacts && i < MAX_FACTS; i++)
        st = tdx_buf_printf(b, "  %s: %s\n", f->facts[i].key, f->facts[i].value);
    if (!st && f->evidence && *f->evidence)
        st = add_evidence(b, f->evidence);
    return st;
}

/* launch's signature line, when it fits on one line, to quote it back. */
static int launch_line(const char *s, size_t n, size_t *b, size_t *len)
{
    for (size_t i = 0; i < n; i++) {
        if ((i == 0 || s[i - 1] == '\n') && n - i > 11 && memcmp(s + i, "def launch(", 11) == 0) {
            size_t e = i;
            while (e < n && s[e] != '\n')
                e++;
            size_t t = e;
            while (t > i && (s[t - 1] == ' ' || s[t - 1] == '\r' || s[t - 1] == '\t'))
                t--;
            if (t > i && s[t - 1] == ':' && t - i < 200) {
                *b = i;
                *len = t - i;
                return 1;
            }
            return 0;
        }
    }
    return 0;
}

static const tdx_finding *by_id(const tdx_ledger *l, int id)
{
    for (size_t i = 0; l && i < tdx_ledger_count(l); i++)
        if (tdx_ledger_at(l, i)->id == id)
            return tdx_ledger_at(l, i);
    return NULL;
}

/* The user message: family, findings, the task file, the rules of the rewrite. */
static tdx_status build_user(tdx_buf *u, const char *task_name, const char *src, size_t n,
                             const tdx_ledger *l, const int *ids, size_t nids, const char *family)
{
    const char *what = NULL;
    for (size_t i = 0; family && i < sizeof families / sizeof families[0]; i++)
        if (strcmp(family, families[i].name) == 0)
            what = families[i].what;
    tdx_status st;
    if (family && *family)
        st = tdx_buf_printf(u, "Rewrite to apply: %s%s%s.\n\n", family, what ? " - " : "",
                            what ? what : "");
    else
        st = tdx_buf_adds(u, "Rewrite to apply: whatever the findings below point to.\n\n");
    if (!st && nids > 0)
        st = tdx_buf_adds(u, "The diagnosis found (cite these ids in a comment where you change "
                             "the code):\n");
    for (size_t i = 0; !st && i < nids; i++)
        st = add_finding(u, by_id(l, ids[i]));
    if (!st && nids > 0)
        st = tdx_buf_addc(u, '\n');
    int fl = fence_len(src, n);
    if (!st)
        st = tdx_buf_printf(u, "The task file%s%s:\n", task_name ? " " : "",
                            task_name ? task_name : "");
    if (!st)
        st = add_fence(u, fl, "python");
    if (!st)
        st = tdx_buf_add(u, src, n);
    if (!st && (n == 0 || src[n - 1] != '\n'))
        st = tdx_buf_addc(u, '\n');
    if (!st)
        st = add_fence(u, fl, "");
    size_t lb, ll;
    if (!st)
        st = tdx_buf_adds(u, "\nReturn the complete rewritten task file in one ```python code "
                             "block.\nRules:\n");
    if (!st && launch_line(src, n, &lb, &ll))
        st = tdx_buf_printf(u, "- keep the signature of `launch` exactly as it is (`%.*s`); you "
                               "may change its body and the kernels\n", (int)ll, src + lb);
    else if (!st)
        st = tdx_buf_adds(u, "- keep the signature of `launch` exactly as it is; you may change "
                             "its body and the kernels\n");
    if (!st)
        st = tdx_buf_adds(
            u,
               "- copy `reference`, `make_inputs`, `SHAPES` and, where the file has them, "
               "`TOLERANCE`, `flops` and `bytes` unchanged, character for character; add none of "
               "them\n"
               "- keep the output's shape and dtype; every check shape must still work, including "
               "sizes that are not a multiple of the block\n"
               "- add no imports beyond torch, triton and the Python standard library\n"
               "- apply the rewrite named above; do not change unrelated code\n");
    return st;
}

/* Build both messages; cited ids must exist. */
tdx_status tdx_llm_prompt_build(tdx_llm_prompt *p, const char *task_name, const char *source,
                                size_t source_len, const tdx_ledger *l, const int *ids,
                                size_t nids, const char *family, tdx_diags *d)
{
    tdx_buf_init(&p->system, PROMPT_MAX);
    tdx_buf_init(&p->user, PROMPT_MAX);
    if (!source)
        return TDX_ERR_ARG;
    for (size_t i = 0; i < nids; i++)
        if (!by_id(l, ids[i])) {
            if (d)
                tdx_diags_add(d, TDX_SEV_ERROR, NULL, 0, 0,
                              "llm prompt: no finding F%d in the ledger", ids[i]);
            return TDX_ERR_NOTFOUND;
        }
    tdx_status st = tdx_buf_adds(&p->system, system_text);
    if (!st)
        st = build_user(&p->user, task_name, source, source_len, l, ids, nids, family);
    if (st == TDX_ERR_TOOBIG && d)
        tdx_diags_add(d, TDX_SEV_ERROR, NULL, 0, 0, "llm prompt: over %zu MiB", PROMPT_MAX >> 20);
    return st;
}

/* Release both messages. */
void tdx_llm_prompt_free(tdx_llm_prompt *p)
{
    tdx_buf_free(&p->system);
    tdx_buf_free(&p->user);
}

/* The request body around a prompt. */
char *tdx_llm_request_json(const tdx_llm_config *c, const tdx_llm_prompt *p)
{
    json_t *root = json_object();
    json_t *msgs = json_array();
    /* set_new steals msgs even when it fails; from here root owns it. */
    if (!root || json_object_set_new(root, "messages", msgs)) {
        json_decref(root);
        return NULL;
    }
    /* Lengths are passed explicitly; json_pack fails (NULL) on invalid
     * UTF-8, which append_new then reports. */
    int bad = json_array_append_new(msgs, json_pack("{s:s, s:s%}", "role", "system", "content",
                                                    tdx_buf_str(&p->system), p->system.len)) ||
              json_array_append_new(msgs, json_pack("{s:s, s:s%}", "role", "user", "content",
                                                    tdx_buf_str(&p->user), p->user.len)) ||
              json_object_set_new(root, "model", json_string(c->model ? c->model : "")) ||
              json_object_set_new(root, "temperature", json_real(c->temperature)) ||
              json_object_set_new(root, "max_tokens", json_integer(c->max_tokens)) ||
              json_object_set_new(root, "stream", json_false());
    char *s = bad ? NULL : json_dumps(root, JSON_COMPACT);
    json_decref(root);
    return s;
}
