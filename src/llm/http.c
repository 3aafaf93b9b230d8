/* One chat completion over HTTP (libcurl), with retries and backoff. */
#include "llm/internal.h"
#include "llm/llm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef TDX_HAVE_CURL
#include <curl/curl.h>
#include <strings.h>
#include <unistd.h>
#endif

/* Human units for messages: "30 s", "1.5 s"; "4 MiB", "64 KiB", "1000 bytes". */
static void fmt_ms(char *out, size_t n, long ms)
{
    if (ms % 1000 == 0)
        snprintf(out, n, "%ld s", ms / 1000);
    else
        snprintf(out, n, "%.1f s", (double)ms / 1000.0);
}

/* A byte count in the largest exact binary unit. */
static void fmt_bytes(char *out, size_t n, size_t b)
{
    if (b >= ((size_t)1 << 20) && b % ((size_t)1 << 20) == 0)
        snprintf(out, n, "%zu MiB", b >> 20);
    else if (b >= 1024 && b % 1024 == 0)
        snprintf(out, n, "%zu KiB", b >> 10);
    else
        snprintf(out, n, "%zu bytes", b);
}

/* Monotonic seconds, for the reply's wall time. */
static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Record the failure: masked, as a value and as a diagnostic. */
static tdx_status fail(const tdx_llm_config *c, tdx_llm_reply *r, tdx_diags *d, tdx_llm_fail kind,
                       tdx_status st)
{
    r->fail = kind;
    tdx_llm_mask(r->error, c->key);
    if (d)
        tdx_diags_add(d, TDX_SEV_ERROR, NULL, 0, 0, "llm: %s", r->error);
    return st;
}

#ifdef TDX_HAVE_CURL

/* Overwrite a copy of the key before freeing it. */
static void wipe(char *s)
{
    if (!s)
        return;
    volatile char *v = s;
    while (*v)
        *v++ = '\0';
}

typedef struct xfer {
    tdx_buf body;
    int toobig;
    long retry_after_ms; /* -1 when the server did not say */
    char reason[96];     /* the status line's reason phrase */
} xfer;

/* curl write callback: append to the capped body, stop when over the cap. */
static size_t on_body(char *p, size_t size, size_t nmemb, void *ud)
{
    xfer *x = ud;
    size_t n = size * nmemb;
    tdx_status st = tdx_buf_add(&x->body, p, n);
    if (st) {
        x->toobig = st == TDX_ERR_TOOBIG;
        return 0; /* curl stops with CURLE_WRITE_ERROR */
    }
    return n;
}

/* Parse Retry-After: delta seconds or an HTTP date (RFC 9110 10.2.3). */
static long retry_after(const char *v, size_t n)
{
    char tmp[128];
    if (n >= sizeof tmp)
        return -1;
    memcpy(tmp, v, n);
    tmp[n] = '\0';
    char *end;
    double s = strtod(tmp, &end);
    while (*end == ' ' || *end == '\t' || *end == '\r' || *end == '\n')
        end++;
    if (end != tmp && *end == '\0')
        return s < 0 ? 0 : s > 86400 ? 86400000L : (long)(s * 1000.0);
    time_t t = curl_getdate(tmp, NULL);
    if (t == (time_t)-1)
        return -1;
    time_t now = time(NULL);
    return t <= now ? 0 : (long)(t - now) * 1000L;
}

/* curl header callback: the reason phrase and Retry-After(-Ms) of the last response. */
static size_t on_header(char *p, size_t size, size_t nmemb, void *ud)
{
    xfer *x = ud;
    size_t n = size * nmemb;
    if (n >= 5 && memcmp(p, "HTTP/", 5) == 0) {
        /* A new response (after 100 Continue, say): forget the last one. */
        x->retry_after_ms = -1;
        x->reason[0] = '\0';
        size_t i = 0;
        for (int sp = 0; i < n && sp < 2; i++)
            if (p[i] == ' ')
                sp++;
        size_t e = n;
        while (e > i && (p[e - 1] == '\r' || p[e - 1] == '\n'))
            e--;
        size_t m = e > i ? e - i : 0;
        if (m >= sizeof x->reason)
            m = sizeof x->reason - 1;
        memcpy(x->reason, p + i, m);
        x->reason[m] = '\0';
        return n;
    }
    static const char ra[] = "retry-after:", ram[] = "retry-after-ms:";
    if (n > sizeof ram - 1 && strncasecmp(p, ram, sizeof ram - 1) == 0) {
        /* OpenAI's millisecond variant is the more precise one. */
        char tmp[32];
        size_t m = n - (sizeof ram - 1) < sizeof tmp - 1 ? n - (sizeof ram - 1) : sizeof tmp - 1;
        memcpy(tmp, p + sizeof ram - 1, m);
        tmp[m] = '\0';
        char *end;
        double ms = strtod(tmp, &end);
        if (end != tmp && ms >= 0)
            x->retry_after_ms = ms > 86400000.0 ? 86400000L : (long)ms;
    } else if (n > sizeof ra - 1 && strncasecmp(p, ra, sizeof ra - 1) == 0 &&
               x->retry_after_ms < 0) {
        size_t i = sizeof ra - 1;
        while (i < n && (p[i] == ' ' || p[i] == '\t'))
            i++;
        x->retry_after_ms = retry_after(p + i, n - i);
    }
    return n;
}

/* Wait between attempts, resuming after signals. */
static void default_sleep(void *ctx, long ms)
{
    (void)ctx;
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0)
        ;
}

/* The wait before retry number `attempt` (0-based): exponential from
 * c->backoff_ms plus up to 25% jitter, or the server's Retry-After; capped. */
static long backoff(const tdx_llm_config *c, int attempt, long server_ms, unsigned rnd)
{
    long cap = c->backoff_cap_ms > 0 ? c->backoff_cap_ms : TDX_LLM_DEFAULT_BACKOFF_CAP_MS;
    if (server_ms >= 0)
        return server_ms < cap ? server_ms : cap;
    long w = c->backoff_ms > 0 ? c->backoff_ms : 0;
    for (int i = 0; i < attempt && w < cap; i++)
        w *= 2;
    if (w > cap)
        w = cap;
    w += (long)(rnd % (unsigned long)(w / 4 + 1));
    return w < cap ? w : cap;
}

/* A small generator for jitter; no need for quality here. */
static unsigned xorshift(unsigned *s)
{
    unsigned x = *s ? *s : 2463534242u;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    return *s = x;
}

/* A transport error worth another try: the connection dropped mid-way. */
static int transient(CURLcode rc)
{
    return rc == CURLE_GOT_NOTHING || rc == CURLE_SEND_ERROR || rc == CURLE_RECV_ERROR ||
           rc == CURLE_PARTIAL_FILE;
}

/* One chat completion with retries; see llm.h for the policy. */
tdx_status tdx_llm_chat(const tdx_llm_config *c, const tdx_llm_prompt *p,
                        const tdx_llm_hooks *hooks, tdx_llm_reply *r, tdx_diags *d)
{
    /* A reply reused from an earlier call starts afresh. */
    tdx_llm_reply_free(r);
    tdx_llm_reply_init(r);
    const char *why;
    if (!tdx_llm_configured(c, &why)) {
        snprintf(r->error, sizeof r->error, "%s", why);
        return fail(c, r, d, TDX_LLM_FAIL_CONFIG, TDX_ERR_ARG);
    }
    double t0 = now_s();
    tdx_buf url, shown;
    tdx_buf_init(&url, 0);
    tdx_buf_init(&shown, 0);
    char *body = tdx_llm_request_json(c, p);
    char *auth = NULL;
    struct curl_slist *hdrs = NULL;
    CURL *h = NULL;
    xfer x = {.retry_after_ms = -1};
    tdx_buf_init(&x.body, c->max_reply_bytes ? c->max_reply_bytes : TDX_LLM_DEFAULT_MAX_REPLY);
    tdx_status st = TDX_OK;
    tdx_llm_fail kind = TDX_LLM_FAIL_NONE;

    if (!body || tdx_llm_endpoint(c, &url) || tdx_llm__safe_endpoint(c, &shown)) {
        snprintf(r->error, sizeof r->error, "cannot build the request (out of memory or not UTF-8)");
        kind = TDX_LLM_FAIL_INTERNAL;
        st = TDX_ERR_NOMEM;
        goto done;
    }
    h = curl_easy_init();
    if (c->key && *c->key) {
        size_t n = strlen(c->key) + sizeof "Authorization: Bearer ";
        auth = malloc(n);
        if (auth)
            snprintf(auth, n, "Authorization: Bearer %s", c->key);
    }
    /* "Expect:" stops curl waiting for 100 Continue on large bodies. */
    const char *lines[] = {"Content-Type: application/json", "Accept: application/json",
                           "Expect:", auth};
    int oom = !h || (c->key && *c->key && !auth);
    for (size_t i = 0; i < sizeof lines / sizeof lines[0] && !oom; i++) {
        if (!lines[i])
            continue;
        struct curl_slist *t = curl_slist_append(hdrs, lines[i]);
        if (t)
            hdrs = t;
        else
            oom = 1;
    }
    if (oom) {
        snprintf(r->error, sizeof r->error, "cannot set up the HTTP client");
        kind = TDX_LLM_FAIL_INTERNAL;
        st = TDX_ERR_NOMEM;
        goto done;
    }
    char errbuf[CURL_ERROR_SIZE];
    curl_easy_setopt(h, CURLOPT_URL, tdx_buf_str(&url));
#if LIBCURL_VERSION_NUM >= 0x075500
    curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
#else
    curl_easy_setopt(h, CURLOPT_PROTOCOLS, (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS));
#endif
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, hdrs);
    curl_easy_setopt(h, CURLOPT_POSTFIELDS, body);
    curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)strlen(body));
    curl_easy_setopt(h, CURLOPT_USERAGENT, "tritondx/" TDX_VERSION);
    curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, c->connect_timeout_ms);
    curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, c->timeout_ms);
    curl_easy_setopt(h, CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)x.body.limit);
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, &x);
    curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(h, CURLOPT_HEADERDATA, &x);
    curl_easy_setopt(h, CURLOPT_ERRORBUFFER, errbuf);
    curl_easy_setopt(h, CURLOPT_ACCEPT_ENCODING, "");

    void (*sleep_ms)(void *, long) = hooks && hooks->sleep_ms ? hooks->sleep_ms : default_sleep;
    unsigned seed = (unsigned)(t0 * 1e6) ^ (unsigned)getpid();
    const char *ep = tdx_buf_str(&shown);
    char size[32], secs[32];
    fmt_bytes(size, sizeof size, x.body.limit);

    for (int attempt = 0;; attempt++) {
        tdx_buf_reset(&x.body);
        x.toobig = 0;
        x.retry_after_ms = -1;
        x.reason[0] = '\0';
        errbuf[0] = '\0';
        r->error[0] = '\0';
        CURLcode rc = curl_easy_perform(h);
        r->attempts++;
        long code = 0;
        curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &code);
        r->http_status = (int)code;
        int retry = 0;
        const char *cerr = errbuf[0] ? errbuf : curl_easy_strerror(rc);
        if (rc == CURLE_OK && code >= 200 && code < 300) {
            st = tdx_llm_parse_reply(x.body.data, x.body.len, r);
            kind = st ? TDX_LLM_FAIL_REPLY : TDX_LLM_FAIL_NONE;
            break;
        } else if (x.toobig || rc == CURLE_FILESIZE_EXCEEDED) {
            snprintf(r->error, sizeof r->error, "reply over %s", size);
            kind = TDX_LLM_FAIL_TOOBIG;
            st = TDX_ERR_TOOBIG;
        } else if (rc == CURLE_OPERATION_TIMEDOUT) {
            curl_off_t connected = 0;
            curl_easy_getinfo(h, CURLINFO_CONNECT_TIME_T, &connected);
            if (connected == 0) {
                fmt_ms(secs, sizeof secs, c->connect_timeout_ms);
                snprintf(r->error, sizeof r->error, "could not connect to %s within %s", ep, secs);
            } else {
                fmt_ms(secs, sizeof secs, c->timeout_ms);
                snprintf(r->error, sizeof r->error, "timed out after %s", secs);
            }
            kind = TDX_LLM_FAIL_TIMEOUT;
            st = TDX_ERR_IO;
        } else if (rc != CURLE_OK) {
            retry = transient(rc);
            snprintf(r->error, sizeof r->error, "%s %s: %s",
                     retry ? "connection dropped by" : "cannot reach", ep, cerr);
            kind = TDX_LLM_FAIL_CONNECT;
            st = TDX_ERR_IO;
        } else {
            char msg[160];
            tdx_llm_error_text(x.body.data, x.body.len, msg, sizeof msg);
            if (!msg[0])
                snprintf(msg, sizeof msg, "%s", x.reason[0] ? x.reason : "no message");
            snprintf(r->error, sizeof r->error, "http %ld: %s", code, msg);
            retry = code == 429 || code >= 500;
            kind = TDX_LLM_FAIL_HTTP;
            st = TDX_ERR_IO;
        }
        if (!retry || attempt >= c->max_retries) {
            if (attempt > 0) {
                size_t n = strlen(r->error);
                snprintf(r->error + n, sizeof r->error - n, " (after %d attempts)", attempt + 1);
            }
            break;
        }
        unsigned rnd = hooks && hooks->rand ? hooks->rand(hooks->ctx) : xorshift(&seed);
        sleep_ms(hooks ? hooks->ctx : NULL, backoff(c, attempt, x.retry_after_ms, rnd));
    }

done:
    r->seconds = now_s() - t0;
    if (h)
        curl_easy_cleanup(h);
    /* The header list holds a copy of the key too. */
    for (struct curl_slist *t = hdrs; t; t = t->next)
        wipe(t->data);
    curl_slist_free_all(hdrs);
    wipe(auth);
    free(auth);
    free(body);
    tdx_buf_free(&x.body);
    tdx_buf_free(&url);
    tdx_buf_free(&shown);
    return st ? fail(c, r, d, kind, st) : TDX_OK;
}

#else /* !TDX_HAVE_CURL */

/* Without libcurl there is no way to ask: say so as a value. */
tdx_status tdx_llm_chat(const tdx_llm_config *c, const tdx_llm_prompt *p,
                        const tdx_llm_hooks *hooks, tdx_llm_reply *r, tdx_diags *d)
{
    (void)p;
    (void)hooks;
    tdx_llm_reply_free(r);
    tdx_llm_reply_init(r);
    (void)now_s;
    (void)fmt_ms;
    (void)fmt_bytes;
    snprintf(r->error, sizeof r->error, "this build has no HTTP client (libcurl was not found)");
    return fail(c, r, d, TDX_LLM_FAIL_CONFIG, TDX_ERR_UNSUPPORTED);
}

#endif
