/* Configuration of the LLM endpoint: defaults, environment, flags. */
#include "llm/llm.h"
#include "llm/internal.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *const tdx_llm_config_names[] = {
    "url", "model", "key", "timeout", "connect-timeout", "retries", "max-tokens", "temperature",
    "max-reply", NULL,
};

/* Defaults, no endpoint. */
void tdx_llm_config_init(tdx_llm_config *c)
{
    memset(c, 0, sizeof *c);
    c->connect_timeout_ms = TDX_LLM_DEFAULT_CONNECT_TIMEOUT_MS;
    c->timeout_ms = TDX_LLM_DEFAULT_TIMEOUT_MS;
    c->max_retries = TDX_LLM_DEFAULT_RETRIES;
    c->max_tokens = TDX_LLM_DEFAULT_MAX_TOKENS;
    c->temperature = TDX_LLM_DEFAULT_TEMPERATURE;
    c->max_reply_bytes = TDX_LLM_DEFAULT_MAX_REPLY;
    c->backoff_ms = TDX_LLM_DEFAULT_BACKOFF_MS;
    c->backoff_cap_ms = TDX_LLM_DEFAULT_BACKOFF_CAP_MS;
}

/* Overwrite a secret before its memory goes back to the allocator. */
static void wipe(char *s)
{
    if (!s)
        return;
    volatile char *v = s;
    while (*v)
        *v++ = '\0';
}

/* Free the strings, the key wiped first. */
void tdx_llm_config_free(tdx_llm_config *c)
{
    free(c->url);
    free(c->model);
    wipe(c->key);
    free(c->key);
    c->url = c->model = c->key = NULL;
}

/* Replace a string setting by a copy of value (an old key is wiped). */
static tdx_status set_str(char **dst, const char *value)
{
    char *s = strdup(value);
    if (!s)
        return TDX_ERR_NOMEM;
    wipe(*dst);
    free(*dst);
    *dst = s;
    return TDX_OK;
}

/* Seconds (fractions allowed) to milliseconds, within (0, 1 day]. */
static int parse_seconds(const char *v, long *ms)
{
    char *end;
    errno = 0;
    double s = strtod(v, &end);
    if (errno || end == v || *end || !isfinite(s) || s <= 0 || s > 86400)
        return -1;
    *ms = (long)(s * 1000.0 + 0.5);
    if (*ms < 1)
        *ms = 1;
    return 0;
}

/* A whole number within [lo, hi]. */
static int parse_long(const char *v, long lo, long hi, long *out)
{
    char *end;
    errno = 0;
    long x = strtol(v, &end, 10);
    if (errno || end == v || *end || x < lo || x > hi)
        return -1;
    *out = x;
    return 0;
}

/* Apply one named setting, checked; bad values change nothing. */
tdx_status tdx_llm_config_set(tdx_llm_config *c, const char *name, const char *value,
                              tdx_diags *d)
{
    if (!name || !value)
        return TDX_ERR_ARG;
    long x;
    int bad = 0;
    const char *expect = "";
    if (strcmp(name, "url") == 0) {
        /* Not echoed: a URL may carry credentials. */
        if (strncmp(value, "http://", 7) != 0 && strncmp(value, "https://", 8) != 0) {
            if (d)
                tdx_diags_add(d, TDX_SEV_ERROR, NULL, 0, 0,
                              "llm url: not an http:// or https:// URL");
            return TDX_ERR_ARG;
        }
        return set_str(&c->url, value);
    } else if (strcmp(name, "model") == 0) {
        return set_str(&c->model, value);
    } else if (strcmp(name, "key") == 0) {
        /* A header value cannot carry line breaks; never echo the key. */
        if (strpbrk(value, "\r\n")) {
            if (d)
                tdx_diags_add(d, TDX_SEV_ERROR, NULL, 0, 0,
                              "llm key: contains a line break (value not shown)");
            return TDX_ERR_ARG;
        }
        return set_str(&c->key, value);
    } else if (strcmp(name, "timeout") == 0) {
        bad = parse_seconds(value, &c->timeout_ms) != 0;
        expect = "seconds, more than 0";
    } else if (strcmp(name, "connect-timeout") == 0) {
        bad = parse_seconds(value, &c->connect_timeout_ms) != 0;
        expect = "seconds, more than 0";
    } else if (strcmp(name, "retries") == 0) {
        bad = parse_long(value, 0, 20, &x) != 0;
        if (!bad)
            c->max_retries = (int)x;
        expect = "a whole number from 0 to 20";
    } else if (strcmp(name, "max-tokens") == 0) {
        bad = parse_long(value, 1, 1000000, &x) != 0;
        if (!bad)
            c->max_tokens = (int)x;
        expect = "a whole number from 1 to 1000000";
    } else if (strcmp(name, "temperature") == 0) {
        char *end;
        errno = 0;
        double t = strtod(value, &end);
        bad = errno || end == value || *end || !isfinite(t) || t < 0 || t > 2;
        if (!bad)
            c->temperature = t;
        expect = "a number from 0 to 2";
    } else if (strcmp(name, "max-reply") == 0) {
        bad = parse_long(value, 1024, 1L << 30, &x) != 0;
        if (!bad)
            c->max_reply_bytes = (size_t)x;
        expect = "bytes, from 1024 to 1073741824";
    } else {
        if (d)
            tdx_diags_add(d, TDX_SEV_ERROR, NULL, 0, 0, "llm: unknown setting '%s'", name);
        return TDX_ERR_NOTFOUND;
    }
    if (bad) {
        if (d)
            tdx_diags_add(d, TDX_SEV_ERROR, NULL, 0, 0, "llm %s: '%.64s' is not %s", name, value,
                          expect);
        return TDX_ERR_ARG;
    }
    return TDX_OK;
}

/* Apply the environment's settings, reporting the first bad one. */
tdx_status tdx_llm_config_from_env(tdx_llm_config *c, tdx_diags *d)
{
    static const struct {
        const char *var, *name;
    } vars[] = {
        {"TRITONDX_LLM_URL", "url"},
        {"TRITONDX_LLM_MODEL", "model"},
        {"OPENAI_API_KEY", "key"}, /* the generic one first: ours overrides it */
        {"TRITONDX_LLM_KEY", "key"},
        {"TRITONDX_LLM_TIMEOUT", "timeout"},
        {"TRITONDX_LLM_CONNECT_TIMEOUT", "connect-timeout"},
        {"TRITONDX_LLM_RETRIES", "retries"},
        {"TRITONDX_LLM_MAX_TOKENS", "max-tokens"},
        {"TRITONDX_LLM_TEMPERATURE", "temperature"},
        {"TRITONDX_LLM_MAX_REPLY", "max-reply"},
    };
    tdx_status first = TDX_OK;
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
        const char *v = getenv(vars[i].var);
        if (!v || !*v)
            continue;
        tdx_status st = tdx_llm_config_set(c, vars[i].name, v, d);
        if (st == TDX_ERR_NOMEM)
            return st;
        if (st && !first)
            first = st;
    }
    return first;
}

/* Whether an endpoint can be used, and if not, why. */
int tdx_llm_configured(const tdx_llm_config *c, const char **why)
{
    const char *w = NULL;
    if (!c->url || !*c->url)
        w = "no LLM endpoint configured (set TRITONDX_LLM_URL and TRITONDX_LLM_MODEL)";
    else if (!c->model || !*c->model)
        w = "no LLM model configured (set TRITONDX_LLM_MODEL)";
#ifndef TDX_HAVE_CURL
    else
        w = "this build has no HTTP client (libcurl was not found)";
#endif
    if (why)
        *why = w;
    return w == NULL;
}

/* Length of "scheme://" plus the authority, and where the authority's host
 * part starts (after any user info). */
static void split_url(const char *u, size_t *host, size_t *path)
{
    const char *s = strstr(u, "://");
    size_t a = s ? (size_t)(s - u) + 3 : 0;
    size_t p = a;
    while (u[p] && u[p] != '/' && u[p] != '?' && u[p] != '#')
        p++;
    size_t h = a;
    for (size_t i = a; i < p; i++)
        if (u[i] == '@')
            h = i + 1;
    *host = h;
    *path = p;
}

/* The URL posted to, from the configured base URL. */
tdx_status tdx_llm_endpoint(const tdx_llm_config *c, tdx_buf *out)
{
    if (!c->url || !*c->url)
        return TDX_ERR_ARG;
    const char *u = c->url;
    size_t host, path;
    split_url(u, &host, &path);
    /* The path ends where a query or fragment starts; those go back after. */
    size_t q = path;
    while (u[q] && u[q] != '?' && u[q] != '#')
        q++;
    size_t n = q;
    while (n > path && u[n - 1] == '/')
        n--;
    static const char tail[] = "/chat/completions";
    const char *add = "";
    if (n - path < sizeof tail - 1 || memcmp(u + n - (sizeof tail - 1), tail, sizeof tail - 1) != 0)
        add = n == path ? "/v1/chat/completions" : tail;
    tdx_status st = tdx_buf_add(out, u, n);
    if (!st)
        st = tdx_buf_adds(out, add);
    if (!st)
        st = tdx_buf_adds(out, u + q);
    return st;
}

/* The endpoint without user info, query or fragment: safe to show. */
static tdx_status safe_endpoint(const tdx_llm_config *c, tdx_buf *out)
{
    tdx_buf e;
    tdx_buf_init(&e, 0);
    tdx_status st = tdx_llm_endpoint(c, &e);
    if (!st) {
        const char *u = tdx_buf_str(&e);
        size_t host, path;
        split_url(u, &host, &path);
        const char *s = strstr(u, "://");
        size_t scheme = s ? (size_t)(s - u) + 3 : 0;
        size_t end = path;
        while (u[end] && u[end] != '?' && u[end] != '#')
            end++;
        st = tdx_buf_add(out, u, scheme);
        if (!st)
            st = tdx_buf_add(out, u + host, end - host);
    }
    tdx_buf_free(&e);
    return st;
}

/* One line for logs; the key only as "key set". */
tdx_status tdx_llm_config_describe(const tdx_llm_config *c, tdx_buf *out)
{
    const char *why;
    if (!tdx_llm_configured(c, &why))
        return tdx_buf_adds(out, why);
    tdx_status st = tdx_buf_adds(out, "endpoint ");
    if (!st)
        st = safe_endpoint(c, out);
    if (!st)
        st = tdx_buf_printf(out,
                            ", model %s, %s, timeouts %.1f s connect / %.1f s total, %d retries, "
                            "max_tokens %d, temperature %.2f",
                            c->model, c->key && *c->key ? "key set" : "no key",
                            (double)c->connect_timeout_ms / 1000.0, (double)c->timeout_ms / 1000.0,
                            c->max_retries, c->max_tokens, c->temperature);
    return st;
}

/* For messages: the endpoint without anything secret in it. */
tdx_status tdx_llm__safe_endpoint(const tdx_llm_config *c, tdx_buf *out)
{
    return safe_endpoint(c, out);
}

/* Mask every occurrence of the secret in place. */
void tdx_llm_mask(char *s, const char *secret)
{
    if (!s || !secret || !*secret)
        return;
    size_t m = strlen(secret);
    char *p = s;
    while ((p = strstr(p, secret)) != NULL) {
        if (m < 3) {
            memset(p, '*', m);
            p += m;
            continue;
        }
        memset(p, '*', 3);
        memmove(p + 3, p + m, strlen(p + m) + 1);
        p += 3;
    }
}
