/* The LLM proposer's client (tdx_llm_*): configuration, the prompt, one
 * chat completion against any OpenAI-compatible `/v1/chat/completions`
 * endpoint (vLLM, llama.cpp server, Ollama, OpenAI), and the reply.
 * Code extraction from the reply and its guard are in llm/extract.h.
 *
 * The API key is a secret: it goes into the Authorization header and
 * nowhere else. It is never logged, never written to a file, never put into
 * an error message (a server that echoes it back has it masked), and
 * tdx_llm_config_describe() prints only whether one is set.
 *
 * Ownership: a tdx_llm_config owns copies of its strings; release them with
 * tdx_llm_config_free() (which also wipes the key). A tdx_llm_prompt owns its
 * two buffers (tdx_llm_prompt_free). A tdx_llm_reply owns its strings
 * (tdx_llm_reply_free). Everything passed in is borrowed for the call. */
#ifndef TDX_LLM_LLM_H
#define TDX_LLM_LLM_H

#include <stddef.h>

#include "base/buf.h"
#include "base/diag.h"
#include "base/status.h"
#include "finding/finding.h"
#include "llm/extract.h"

/* Defaults. */
#define TDX_LLM_DEFAULT_CONNECT_TIMEOUT_MS 10000L
#define TDX_LLM_DEFAULT_TIMEOUT_MS 300000L       /* a long completion on a slow server */
#define TDX_LLM_DEFAULT_RETRIES 3
#define TDX_LLM_DEFAULT_MAX_TOKENS 8192
#define TDX_LLM_DEFAULT_TEMPERATURE 0.2
#define TDX_LLM_DEFAULT_MAX_REPLY ((size_t)4 << 20) /* 4 MiB */
#define TDX_LLM_DEFAULT_BACKOFF_MS 1000L          /* first retry; doubles each time */
#define TDX_LLM_DEFAULT_BACKOFF_CAP_MS 30000L     /* cap on one wait, Retry-After included */

typedef struct tdx_llm_config {
    char *url;               /* base URL ("http://host:8000/v1") or the full endpoint; NULL: none */
    char *model;             /* model name as the server knows it; NULL: none */
    char *key;               /* API key; NULL: none (local servers need none) */
    long connect_timeout_ms;
    long timeout_ms;         /* whole request, per attempt */
    int max_retries;         /* retries after the first attempt, on 429/5xx */
    int max_tokens;
    double temperature;
    size_t max_reply_bytes;  /* a bigger body is a failure */
    long backoff_ms;         /* first retry's wait */
    long backoff_cap_ms;     /* cap on any single wait */
} tdx_llm_config;

/* Defaults, no endpoint. */
void tdx_llm_config_init(tdx_llm_config *c);
void tdx_llm_config_free(tdx_llm_config *c);

/* Settings by name, shared by the environment and the command line
 * (`--llm-<name> VALUE`): url, model, key, timeout, connect-timeout (both in
 * seconds, fractions allowed), retries, max-tokens, temperature, max-reply
 * (bytes). A bad value gives TDX_ERR_ARG and a diagnostic naming the setting
 * (never echoing a key or a URL); an unknown name gives TDX_ERR_NOTFOUND.
 * The key is better given by environment: a command line is visible to
 * every user of the machine. */
tdx_status tdx_llm_config_set(tdx_llm_config *c, const char *name, const char *value,
                              tdx_diags *d);
/* The names tdx_llm_config_set() accepts, NULL-terminated. */
extern const char *const tdx_llm_config_names[];

/* Read TRITONDX_LLM_URL, TRITONDX_LLM_MODEL, TRITONDX_LLM_KEY (falling back
 * to OPENAI_API_KEY), TRITONDX_LLM_TIMEOUT, TRITONDX_LLM_CONNECT_TIMEOUT,
 * TRITONDX_LLM_RETRIES, TRITONDX_LLM_MAX_TOKENS, TRITONDX_LLM_TEMPERATURE,
 * TRITONDX_LLM_MAX_REPLY. Unset or empty variables leave the value alone, so
 * call this before applying flags. */
tdx_status tdx_llm_config_from_env(tdx_llm_config *c, tdx_diags *d);

/* Non-zero when an endpoint is configured (a URL and a model) and this
 * build can reach it (libcurl). Otherwise *why (when why is non-NULL) says
 * what is missing, for the one line the loop prints before running the
 * built-in proposer alone. */
int tdx_llm_configured(const tdx_llm_config *c, const char **why);

/* The endpoint actually posted to, into out: a URL ending in
 * /chat/completions is used as is; a bare host gets /v1/chat/completions;
 * any other path gets /chat/completions. */
tdx_status tdx_llm_endpoint(const tdx_llm_config *c, tdx_buf *out);

/* A one-line description for logs and journals: endpoint (without user
 * info or query), model, limits, and "key set" / "no key" - never the key. */
tdx_status tdx_llm_config_describe(const tdx_llm_config *c, tdx_buf *out);

/* The two messages of a request. */
typedef struct tdx_llm_prompt {
    tdx_buf system;
    tdx_buf user;
} tdx_llm_prompt;

/* Build the prompt for one rewrite: the task file's source (its name is
 * only shown), the findings with the given ids from the ledger (rule,
 * location, message, hypothesis, facts, evidence excerpt), and the rewrite
 * family to apply. It asks for the complete rewritten file in one ```python
 * block, launch's signature kept, reference, make_inputs and SHAPES
 * untouched. An id missing from the ledger gives TDX_ERR_NOTFOUND and a
 * diagnostic. */
tdx_status tdx_llm_prompt_build(tdx_llm_prompt *p, const char *task_name, const char *source,
                                size_t source_len, const tdx_ledger *l, const int *ids,
                                size_t nids, const char *family, tdx_diags *d);
void tdx_llm_prompt_free(tdx_llm_prompt *p);

/* The request body as JSON text (malloc, caller frees): {model, messages,
 * temperature, max_tokens, stream: false}. NULL when out of memory or when
 * the prompt is not valid UTF-8. */
char *tdx_llm_request_json(const tdx_llm_config *c, const tdx_llm_prompt *p);

/* What failed, for callers that branch on it; the words are in reply.error. */
typedef enum tdx_llm_fail {
    TDX_LLM_FAIL_NONE = 0,
    TDX_LLM_FAIL_CONFIG,   /* no endpoint, or built without libcurl */
    TDX_LLM_FAIL_CONNECT,  /* could not reach the server */
    TDX_LLM_FAIL_TIMEOUT,  /* connect or total timeout */
    TDX_LLM_FAIL_HTTP,     /* a non-2xx status (after retries) */
    TDX_LLM_FAIL_TOOBIG,   /* the body went over max_reply_bytes */
    TDX_LLM_FAIL_REPLY,    /* not JSON, no choices, no content */
    TDX_LLM_FAIL_INTERNAL, /* out of memory, curl setup */
} tdx_llm_fail;

typedef struct tdx_llm_reply {
    char *content;          /* the first choice's message text; NULL on failure */
    char *model;            /* the model named in the reply, may be NULL */
    char *finish_reason;    /* "stop", "length", ...; may be NULL */
    long prompt_tokens;     /* from `usage`; -1 when the server did not say */
    long completion_tokens;
    int http_status;        /* of the last attempt; 0 when none completed */
    int attempts;           /* requests sent */
    double seconds;         /* wall time over all attempts and waits */
    tdx_llm_fail fail;
    char error[256];        /* one-line reason, "" on success; never holds the key */
} tdx_llm_reply;

void tdx_llm_reply_init(tdx_llm_reply *r);
void tdx_llm_reply_free(tdx_llm_reply *r);

/* Hooks for tests: how to wait between attempts and where jitter comes
 * from. NULL hooks (or NULL members) use nanosleep and an internal
 * generator. */
typedef struct tdx_llm_hooks {
    void (*sleep_ms)(void *ctx, long ms);
    unsigned (*rand)(void *ctx);
    void *ctx;
} tdx_llm_hooks;

/* Post one chat completion and wait for it (r must have been initialised
 * with tdx_llm_reply_init; what it held is freed first), retrying 429 and 5xx (and
 * dropped connections) up to c->max_retries times with exponential backoff
 * plus up to 25% jitter, or the server's Retry-After when it sends one,
 * each wait capped at c->backoff_cap_ms. Other 4xx are final. On failure
 * returns a status, r->fail and r->error say why, and an error goes to d
 * (when non-NULL) as "llm: <reason>". A call is self-contained (its own
 * curl handle), so calls may run in parallel threads once libcurl has been
 * initialised; the first call initialises it, so make that call, or
 * curl_global_init(), before starting threads. */
tdx_status tdx_llm_chat(const tdx_llm_config *c, const tdx_llm_prompt *p,
                        const tdx_llm_hooks *hooks, tdx_llm_reply *r, tdx_diags *d);

/* One proposal from the model, start to finish: the prompt, the chat, the
 * code extracted from the reply and the guard's verdict on it. */
typedef struct tdx_llm_candidate {
    tdx_llm_reply reply;  /* usage, timing, model, transport errors */
    char *code;           /* the candidate task file (malloc); NULL when none */
    size_t code_len;
    int unterminated;     /* the code block was cut off (see reply.finish_reason) */
    tdx_llm_guard guard;  /* valid when code is non-NULL */
    char why[256];        /* one line: why there is no usable candidate; "" when there is */
} tdx_llm_candidate;

/* Build the prompt (tdx_llm_prompt_build), ask (tdx_llm_chat), extract the
 * code and guard it against source. TDX_OK: out->code is a candidate that
 * passed the guard. Otherwise out->why says why, and an error goes to d:
 * the chat's status on transport failures, TDX_ERR_NOTFOUND when the reply
 * had no code, TDX_ERR_INPUT when the code breached the guard (out->code is
 * still set, for the journal). Release with tdx_llm_candidate_free(). */
tdx_status tdx_llm_propose(const tdx_llm_config *c, const char *task_name, const char *source,
                           size_t source_len, const tdx_ledger *l, const int *ids, size_t nids,
                           const char *family, const tdx_llm_hooks *hooks,
                           tdx_llm_candidate *out, tdx_diags *d);
void tdx_llm_candidate_free(tdx_llm_candidate *cand);

/* Parse a 2xx body into r (content, model, finish_reason, usage). Returns
 * TDX_ERR_PARSE with r->error "reply is not JSON", "no choices in reply" or
 * "no message content in reply". */
tdx_status tdx_llm_parse_reply(const char *body, size_t len, tdx_llm_reply *r);

/* The server's own words from an error body ({"error": {"message": ...}},
 * {"error": "..."}, {"message": ...}, {"detail": ...}) or its first line of
 * text, squashed to one line of at most outsz-1 bytes; "" when none. */
void tdx_llm_error_text(const char *body, size_t len, char *out, size_t outsz);

/* Replace every occurrence of secret in s (NUL-terminated, in place) by
 * "***". Used on every message that may carry server text. */
void tdx_llm_mask(char *s, const char *secret);

#endif
