/* The chat client against a canned local server (tests/helpers/llm_server.c,
 * replies from tests/data/llm/http): success, retries with backoff, final
 * errors, timeouts, oversized and malformed bodies, and the key kept out of
 * every message. The server listens on 127.0.0.1 only, on a port the kernel
 * picks, and each test starts and stops its own. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <arpa/inet.h>
#include <jansson.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/file.h"
#include "llm/extract.h"
#include "llm/llm.h"

#define KEY "sk-test-SECRET-4242-abcdef"

typedef struct server {
    pid_t pid;
    int port;
    char log[512];
} server;

/* Start the server with the given steps; fails the test when it does not
 * report its port within 10 s. */
static void server_start(server *s, const char *const *steps)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(s->log, sizeof s->log, "%s/tdx_llm_log_XXXXXX", tmp && *tmp ? tmp : "/tmp");
    int lfd = mkstemp(s->log);
    assert_true(lfd >= 0);
    close(lfd);
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    const char *argv[32] = {TDX_LLM_SERVER, "-d", TDX_TEST_DATA "/llm/http", "-l", s->log};
    int n = 5;
    for (int i = 0; steps[i] && n < 31; i++)
        argv[n++] = steps[i];
    argv[n] = NULL;
    s->pid = fork();
    assert_true(s->pid >= 0);
    if (s->pid == 0) {
        dup2(fds[1], 1);
        close(fds[0]);
        close(fds[1]);
        execv(argv[0], (char *const *)argv);
        _exit(127);
    }
    close(fds[1]);
    char line[64] = "";
    size_t len = 0;
    struct pollfd p = {.fd = fds[0], .events = POLLIN};
    while (len < sizeof line - 1 && !strchr(line, '\n') && poll(&p, 1, 10000) > 0) {
        ssize_t k = read(fds[0], line + len, sizeof line - 1 - len);
        if (k <= 0)
            break;
        len += (size_t)k;
        line[len] = '\0';
    }
    close(fds[0]);
    s->port = 0;
    if (sscanf(line, "port %d", &s->port) != 1 || s->port <= 0)
        fail_msg("the canned server did not start (%s)", TDX_LLM_SERVER);
}

static void server_stop(server *s)
{
    if (s->pid > 0) {
        kill(s->pid, SIGTERM);
        waitpid(s->pid, NULL, 0);
        s->pid = 0;
    }
    unlink(s->log);
}

/* The requests the server logged (caller frees). */
static char *server_log(const server *s)
{
    FILE *f = fopen(s->log, "rb");
    if (!f)
        fail_msg("cannot read the server's log %s", s->log);
    tdx_buf b;
    tdx_buf_init(&b, 64 << 20);
    char chunk[65536];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
        assert_int_equal(tdx_buf_add(&b, chunk, n), TDX_OK);
    fclose(f);
    assert_int_equal(tdx_buf_add(&b, "", 0), TDX_OK);
    return tdx_buf_detach(&b, NULL);
}

static int count(const char *hay, const char *needle)
{
    int n = 0;
    for (const char *p = hay; (p = strstr(p, needle)) != NULL; p += strlen(needle))
        n++;
    return n;
}

/* Injected waits: recorded, never slept. */
typedef struct waits {
    long ms[16];
    int n;
    unsigned rnd;
} waits;

static void fake_sleep(void *ctx, long ms)
{
    waits *w = ctx;
    if (w->n < 16)
        w->ms[w->n] = ms;
    w->n++;
}

static unsigned fake_rand(void *ctx) { return ((waits *)ctx)->rnd; }

typedef struct fixture {
    server srv;
    tdx_llm_config cfg;
    tdx_llm_prompt prompt;
    tdx_llm_reply reply;
    tdx_diags diags;
    waits w;
    tdx_llm_hooks hooks;
    char *task;
    size_t task_len;
} fixture;

/* The fixture of the running test, so that a failed test's teardown still
 * stops its server. */
static fixture *live;

static fixture *fx_new(const char *const *steps)
{
    fixture *f = calloc(1, sizeof *f);
    assert_non_null(f);
    live = f;
    server_start(&f->srv, steps);
    tdx_llm_config_init(&f->cfg);
    char url[128];
    snprintf(url, sizeof url, "http://127.0.0.1:%d/v1", f->srv.port);
    assert_int_equal(tdx_llm_config_set(&f->cfg, "url", url, NULL), TDX_OK);
    assert_int_equal(tdx_llm_config_set(&f->cfg, "model", "test-model", NULL), TDX_OK);
    assert_int_equal(tdx_llm_config_set(&f->cfg, "key", KEY, NULL), TDX_OK);
    f->cfg.timeout_ms = 5000;
    f->cfg.connect_timeout_ms = 2000;
    tdx_diags_init(&f->diags);
    tdx_llm_reply_init(&f->reply);
    assert_int_equal(tdx_file_read(TDX_TEST_DATA "/llm/task.py", 1 << 20, &f->task, &f->task_len),
                     TDX_OK);
    assert_int_equal(tdx_llm_prompt_build(&f->prompt, "task.py", f->task, f->task_len, NULL, NULL,
                                          0, "retune", &f->diags),
                     TDX_OK);
    f->w.rnd = 7;
    f->hooks = (tdx_llm_hooks){fake_sleep, fake_rand, &f->w};
    return f;
}

/* Every string the client produced must be free of the key. */
static void assert_no_key(const fixture *f)
{
    assert_null(strstr(f->reply.error, KEY));
    for (size_t i = 0; i < f->diags.len; i++)
        assert_null(strstr(f->diags.items[i].msg, KEY));
    tdx_buf b;
    tdx_buf_init(&b, 0);
    assert_int_equal(tdx_llm_config_describe(&f->cfg, &b), TDX_OK);
    assert_null(strstr(tdx_buf_str(&b), KEY));
    tdx_buf_free(&b);
}

static void fx_free(fixture *f)
{
    assert_no_key(f);
    live = NULL;
    server_stop(&f->srv);
    tdx_llm_config_free(&f->cfg);
    tdx_llm_prompt_free(&f->prompt);
    tdx_llm_reply_free(&f->reply);
    tdx_diags_free(&f->diags);
    free(f->task);
    free(f);
}

static tdx_status chat(fixture *f)
{
    return tdx_llm_chat(&f->cfg, &f->prompt, &f->hooks, &f->reply, &f->diags);
}

static void test_good_code(void **state)
{
    (void)state;
    fixture *f = fx_new((const char *const[]){"ok", NULL});
    assert_int_equal(chat(f), TDX_OK);
    assert_int_equal(f->reply.fail, TDX_LLM_FAIL_NONE);
    assert_string_equal(f->reply.error, "");
    assert_int_equal(f->reply.http_status, 200);
    assert_int_equal(f->reply.attempts, 1);
    assert_int_equal(f->reply.prompt_tokens, 812);
    assert_int_equal(f->reply.completion_tokens, 604);
    assert_string_equal(f->reply.model, "test-model");
    assert_string_equal(f->reply.finish_reason, "stop");
    assert_int_equal(f->w.n, 0);

    tdx_llm_code code;
    assert_int_equal(tdx_llm_extract(f->reply.content, strlen(f->reply.content), &code), TDX_OK);
    assert_int_equal(code.pick, TDX_LLM_PICK_TASK);
    assert_non_null(strstr(code.code, "num_warps=8"));
    tdx_llm_guard g;
    tdx_llm_guard_check(f->task, f->task_len, code.code, code.len, &g);
    assert_true(tdx_llm_guard_ok(&g));
    tdx_llm_code_free(&code);

    /* What went over the wire: the endpoint, the bearer, the JSON body. */
    char *log = server_log(&f->srv);
    assert_int_equal(count(log, "=== request"), 1);
    assert_non_null(strstr(log, "POST /v1/chat/completions HTTP/1.1\r\n"));
    assert_non_null(strstr(log, "Authorization: Bearer " KEY "\r\n"));
    assert_non_null(strstr(log, "Content-Type: application/json\r\n"));
    const char *body = strstr(log, "\r\n\r\n");
    assert_non_null(body);
    json_error_t err;
    json_t *req = json_loads(body + 4, JSON_DISABLE_EOF_CHECK, &err);
    assert_non_null(req);
    assert_string_equal(json_string_value(json_object_get(req, "model")), "test-model");
    assert_int_equal(json_integer_value(json_object_get(req, "max_tokens")),
                     TDX_LLM_DEFAULT_MAX_TOKENS);
    assert_true(json_is_real(json_object_get(req, "temperature")));
    json_t *msgs = json_object_get(req, "messages");
    assert_int_equal(json_array_size(msgs), 2);
    assert_string_equal(json_string_value(json_object_get(json_array_get(msgs, 0), "role")),
                        "system");
    assert_string_equal(json_string_value(json_object_get(json_array_get(msgs, 1), "role")),
                        "user");
    const char *user = json_string_value(json_object_get(json_array_get(msgs, 1), "content"));
    assert_non_null(strstr(user, "def softmax_kernel(x_ptr, y_ptr, n_cols, stride_row"));
    assert_null(strstr(body, KEY));
    json_decref(req);
    free(log);
    fx_free(f);
}

static void test_no_key_no_bearer(void **state)
{
    (void)state;
    fixture *f = fx_new((const char *const[]){"ok", NULL});
    assert_int_equal(tdx_llm_config_set(&f->cfg, "key", "", NULL), TDX_OK);
    assert_int_equal(chat(f), TDX_OK);
    char *log = server_log(&f->srv);
    assert_null(strstr(log, "Authorization"));
    free(log);
    fx_free(f);
}

static void test_no_code_block(void **state)
{
    (void)state;
    fixture *f = fx_new((const char *const[]){"ok", "nocode", NULL});
    assert_int_equal(chat(f), TDX_OK);
    /* The same reply reused: the second call replaces the first's. */
    assert_int_equal(chat(f), TDX_OK);
    assert_int_equal(f->reply.attempts, 1);
    assert_int_equal(f->reply.completion_tokens, 5);
    assert_string_equal(f->reply.content, "Try num_warps=8.");
    tdx_llm_code code;
    assert_int_equal(tdx_llm_extract(f->reply.content, strlen(f->reply.content), &code),
                     TDX_ERR_NOTFOUND);
    assert_string_equal(code.error, "reply has no code block");
    assert_null(code.code);
    fx_free(f);
}

static void test_signature_changed(void **state)
{
    (void)state;
    fixture *f = fx_new((const char *const[]){"sigchange", NULL});
    assert_int_equal(chat(f), TDX_OK);
    tdx_llm_code code;
    assert_int_equal(tdx_llm_extract(f->reply.content, strlen(f->reply.content), &code), TDX_OK);
    tdx_llm_guard g;
    tdx_llm_guard_check(f->task, f->task_len, code.code, code.len, &g);
    assert_int_equal(g.launch, TDX_LLM_KEEP_CHANGED);
    assert_int_equal(g.reference, TDX_LLM_KEEP_SAME);
    assert_false(tdx_llm_guard_ok(&g));
    assert_string_equal(g.reason, "the candidate changed launch's parameter list");
    tdx_llm_code_free(&code);
    fx_free(f);
}

static void test_429_then_success(void **state)
{
    (void)state;
    fixture *f = fx_new((const char *const[]){"ratelimited", "ok", NULL});
    assert_int_equal(chat(f), TDX_OK);
    assert_int_equal(f->reply.attempts, 2);
    assert_int_equal(f->reply.http_status, 200);
    /* Retry-After: 2 is honoured as is, without jitter. */
    assert_int_equal(f->w.n, 1);
    assert_int_equal(f->w.ms[0], 2000);
    fx_free(f);
}

static void test_retry_after_capped(void **state)
{
    (void)state;
    fixture *f = fx_new((const char *const[]){"ratelimited", "ok", NULL});
    f->cfg.backoff_cap_ms = 500;
    assert_int_equal(chat(f), TDX_OK);
    assert_int_equal(f->w.n, 1);
    assert_int_equal(f->w.ms[0], 500);
    fx_free(f);
}

static void test_retry_after_forms(void **state)
{
    (void)state;
    /* An HTTP date already past: retry at once. */
    fixture *f = fx_new((const char *const[]){"ratelimited_date", "ok", NULL});
    assert_int_equal(chat(f), TDX_OK);
    assert_int_equal(f->w.n, 1);
    assert_int_equal(f->w.ms[0], 0);
    fx_free(f);
    /* Retry-After-Ms is more precise than Retry-After, whatever the order. */
    f = fx_new((const char *const[]){"ratelimited_ms", "ok", NULL});
    assert_int_equal(chat(f), TDX_OK);
    assert_int_equal(f->w.n, 1);
    assert_int_equal(f->w.ms[0], 1500);
    fx_free(f);
}

static void test_dropped_connection_retried(void **state)
{
    (void)state;
    fixture *f = fx_new((const char *const[]){"drop", "ok", NULL});
    assert_int_equal(chat(f), TDX_OK);
    assert_int_equal(f->reply.attempts, 2);
    assert_int_equal(f->w.n, 1);
    fx_free(f);
    f = fx_new((const char *const[]){"drop", NULL});
    f->cfg.max_retries = 0;
    assert_int_equal(chat(f), TDX_ERR_IO);
    assert_int_equal(f->reply.fail, TDX_LLM_FAIL_CONNECT);
    assert_non_null(strstr(f->reply.error, "connection dropped by http://127.0.0.1:"));
    fx_free(f);
}

static void test_500_twice_then_success(void **state)
{
    (void)state;
    fixture *f = fx_new((const char *const[]){"overloaded", "overloaded", "ok", NULL});
    f->cfg.backoff_ms = 1000;
    assert_int_equal(chat(f), TDX_OK);
    assert_int_equal(f->reply.attempts, 3);
    assert_string_equal(f->reply.error, "");
    /* Exponential: 1000 then 2000, each plus jitter (rand 7 mod a quarter + 1). */
    assert_int_equal(f->w.n, 2);
    assert_int_equal(f->w.ms[0], 1000 + 7 % 251);
    assert_int_equal(f->w.ms[1], 2000 + 7 % 501);
    char *log = server_log(&f->srv);
    assert_int_equal(count(log, "=== request"), 3);
    free(log);
    fx_free(f);
}

static void test_5xx_gives_up(void **state)
{
    (void)state;
    fixture *f = fx_new((const char *const[]){"overloaded", "overloaded", "badgateway", NULL});
    f->cfg.max_retries = 2;
    f->hooks.rand = NULL; /* the client's own jitter, checked by range */
    assert_int_equal(chat(f), TDX_ERR_IO);
    assert_int_equal(f->reply.fail, TDX_LLM_FAIL_HTTP);
    assert_int_equal(f->reply.attempts, 3);
    assert_int_equal(f->reply.http_status, 502);
    /* An HTML body: the status line's reason phrase stands in. */
    assert_string_equal(f->reply.error, "http 502: Bad Gateway (after 3 attempts)");
    assert_int_equal(f->w.n, 2);
    for (int i = 0; i < 2; i++) {
        long base = TDX_LLM_DEFAULT_BACKOFF_MS << i;
        assert_in_range(f->w.ms[i], base, base + base / 4);
    }
    assert_int_equal(f->diags.nerrors, 1);
    assert_string_equal(f->diags.items[0].msg, "llm: http 502: Bad Gateway (after 3 attempts)");
    fx_free(f);
}

static void test_401_no_retry(void **state)
{
    (void)state;
    fixture *f = fx_new((const char *const[]){"unauthorized", "ok", NULL});
    assert_int_equal(chat(f), TDX_ERR_IO);
    assert_int_equal(f->reply.fail, TDX_LLM_FAIL_HTTP);
    assert_int_equal(f->reply.attempts, 1);
    assert_int_equal(f->reply.http_status, 401);
    assert_int_equal(f->w.n, 0);
    assert_null(f->reply.content);
    /* The server echoed the key; the message keeps its words, not the key. */
    assert_non_null(strstr(f->reply.error, "http 401: Incorrect API key provided: ***."));
    assert_null(strstr(f->reply.error, "SECRET"));
    fx_free(f);
}

static void test_404_detail(void **state)
{
    (void)state;
    fixture *f = fx_new((const char *const[]){"notfound", NULL});
    assert_int_equal(chat(f), TDX_ERR_IO);
    assert_string_equal(f->reply.error, "http 404: model 'nope' not found");
    fx_free(f);
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void test_total_timeout(void **state)
{
    (void)state;
    fixture *f = fx_new((const char *const[]){"hang", "ok", NULL});
    f->cfg.timeout_ms = 1000;
    double t0 = now();
    assert_int_equal(chat(f), TDX_ERR_IO);
    double dt = now() - t0;
    assert_int_equal(f->reply.fail, TDX_LLM_FAIL_TIMEOUT);
    assert_string_equal(f->reply.error, "timed out after 1 s");
    assert_int_equal(f->reply.attempts, 1);
    assert_true(dt >= 0.9 && dt < 4.0);
    fx_free(f);
}

static void test_oversized_body(void **state)
{
    (void)state;
    /* Announced by Content-Length, and discovered while streaming. */
    const char *const *cases[] = {(const char *const[]){"big:5000000", NULL},
                                  (const char *const[]){"stream:5000000", NULL}};
    for (int i = 0; i < 2; i++) {
        fixture *f = fx_new(cases[i]);
        assert_int_equal(chat(f), TDX_ERR_TOOBIG);
        assert_int_equal(f->reply.fail, TDX_LLM_FAIL_TOOBIG);
        assert_string_equal(f->reply.error, "reply over 4 MiB");
        assert_int_equal(f->reply.attempts, 1);
        assert_null(f->reply.content);
        fx_free(f);
    }
}

static void test_invalid_json(void **state)
{
    (void)state;
    fixture *f = fx_new((const char *const[]){"notjson", NULL});
    assert_int_equal(chat(f), TDX_ERR_PARSE);
    assert_int_equal(f->reply.fail, TDX_LLM_FAIL_REPLY);
    assert_string_equal(f->reply.error, "reply is not JSON");
    fx_free(f);
}

static void test_no_choices(void **state)
{
    (void)state;
    fixture *f = fx_new((const char *const[]){"nochoices", NULL});
    assert_int_equal(chat(f), TDX_ERR_PARSE);
    assert_string_equal(f->reply.error, "no choices in reply");
    assert_int_equal(f->reply.prompt_tokens, 10);
    assert_int_equal(f->reply.completion_tokens, 0);
    fx_free(f);
}

static void test_content_parts(void **state)
{
    (void)state;
    fixture *f = fx_new((const char *const[]){"parts", NULL});
    assert_int_equal(chat(f), TDX_OK);
    assert_string_equal(f->reply.finish_reason, "length");
    assert_int_equal(f->reply.prompt_tokens, -1);
    tdx_llm_code code;
    assert_int_equal(tdx_llm_extract(f->reply.content, strlen(f->reply.content), &code), TDX_OK);
    assert_int_equal(code.pick, TDX_LLM_PICK_TASK);
    tdx_llm_code_free(&code);
    fx_free(f);
}

static void test_connection_refused(void **state)
{
    (void)state;
    fixture *f = fx_new((const char *const[]){NULL});
    server_stop(&f->srv); /* nobody listens on the port any more */
    assert_int_equal(chat(f), TDX_ERR_IO);
    assert_int_equal(f->reply.fail, TDX_LLM_FAIL_CONNECT);
    assert_int_equal(f->reply.attempts, 1);
    char want[128];
    snprintf(want, sizeof want, "cannot reach http://127.0.0.1:%d/v1/chat/completions: ",
             f->srv.port);
    assert_memory_equal(f->reply.error, want, strlen(want));
    fx_free(f);
}

static tdx_status propose(fixture *f, tdx_llm_candidate *cand)
{
    tdx_ledger l;
    tdx_ledger_init(&l);
    size_t n;
    const tdx_rule *rules = tdx_rules(&n);
    assert_non_null(tdx_ledger_add(&l, rules[1].id, "task.py", 14, 5, "the row is read three times"));
    int ids[] = {1};
    tdx_status st = tdx_llm_propose(&f->cfg, "task.py", f->task, f->task_len, &l, ids, 1,
                                    "single-pass-reduction", &f->hooks, cand, &f->diags);
    tdx_ledger_free(&l);
    return st;
}

static void test_propose(void **state)
{
    (void)state;
    fixture *f = fx_new((const char *const[]){"ok", "sigchange", "nocode", "unauthorized", NULL});
    tdx_llm_candidate cand;

    assert_int_equal(propose(f, &cand), TDX_OK);
    assert_string_equal(cand.why, "");
    assert_non_null(strstr(cand.code, "num_warps=8"));
    assert_true(tdx_llm_guard_ok(&cand.guard));
    assert_int_equal(cand.reply.completion_tokens, 604);
    tdx_llm_candidate_free(&cand);

    assert_int_equal(propose(f, &cand), TDX_ERR_INPUT);
    assert_string_equal(cand.why, "the candidate changed launch's parameter list");
    assert_non_null(cand.code); /* kept for the journal */
    tdx_llm_candidate_free(&cand);

    assert_int_equal(propose(f, &cand), TDX_ERR_NOTFOUND);
    assert_string_equal(cand.why, "reply has no code block");
    assert_null(cand.code);
    tdx_llm_candidate_free(&cand);

    assert_int_equal(propose(f, &cand), TDX_ERR_IO);
    assert_null(strstr(cand.why, KEY));
    assert_non_null(strstr(cand.why, "http 401: "));
    tdx_llm_candidate_free(&cand);

    /* The prompt went out with the finding and the family. */
    char *log = server_log(&f->srv);
    assert_int_equal(count(log, "=== request"), 4);
    assert_non_null(strstr(log, "Rewrite to apply: single-pass-reduction"));
    assert_non_null(strstr(log, "the row is read three times"));
    free(log);
    assert_int_equal(f->diags.nerrors, 3);
    assert_string_equal(f->diags.items[0].msg,
                        "llm: candidate rejected: the candidate changed launch's parameter list");
    fx_free(f);
}

/* A listener whose accept queue is full drops new SYNs (Linux), so the
 * client's connect never completes. */
static void test_connect_timeout(void **state)
{
    (void)state;
    int l = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t al = sizeof a;
    assert_int_equal(bind(l, (struct sockaddr *)&a, sizeof a), 0);
    assert_int_equal(listen(l, 0), 0);
    assert_int_equal(getsockname(l, (struct sockaddr *)&a, &al), 0);
    int fill[4];
    for (int i = 0; i < 4; i++) {
        fill[i] = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
        (void)connect(fill[i], (struct sockaddr *)&a, sizeof a);
    }
    usleep(50000);
    tdx_llm_config c;
    tdx_llm_config_init(&c);
    char url[64];
    snprintf(url, sizeof url, "http://127.0.0.1:%d", ntohs(a.sin_port));
    assert_int_equal(tdx_llm_config_set(&c, "url", url, NULL), TDX_OK);
    assert_int_equal(tdx_llm_config_set(&c, "model", "m", NULL), TDX_OK);
    assert_int_equal(tdx_llm_config_set(&c, "connect-timeout", "0.5", NULL), TDX_OK);
    tdx_llm_prompt p = {0};
    tdx_llm_reply r;
    tdx_llm_reply_init(&r);
    assert_int_equal(tdx_llm_chat(&c, &p, NULL, &r, NULL), TDX_ERR_IO);
    for (int i = 0; i < 4; i++)
        close(fill[i]);
    close(l);
    assert_int_equal(r.fail, TDX_LLM_FAIL_TIMEOUT);
    char want[128];
    snprintf(want, sizeof want, "could not connect to %s/v1/chat/completions within 0.5 s", url);
    assert_string_equal(r.error, want);
    tdx_llm_reply_free(&r);
    tdx_llm_config_free(&c);
}

static void test_not_configured(void **state)
{
    (void)state;
    tdx_llm_config c;
    tdx_llm_config_init(&c);
    tdx_llm_prompt p = {0};
    tdx_llm_reply r;
    tdx_llm_reply_init(&r);
    assert_int_equal(tdx_llm_chat(&c, &p, NULL, &r, NULL), TDX_ERR_ARG);
    assert_int_equal(r.fail, TDX_LLM_FAIL_CONFIG);
    assert_int_equal(r.attempts, 0);
    assert_non_null(strstr(r.error, "TRITONDX_LLM_URL"));
    tdx_llm_reply_free(&r);
    tdx_llm_config_free(&c);
}

static int teardown(void **state)
{
    (void)state;
    if (live)
        server_stop(&live->srv); /* the rest leaks only on a failed test */
    live = NULL;
    return 0;
}

int main(void)
{
    /* A proxy from the environment must not stand between us and 127.0.0.1. */
    static const char *const proxies[] = {"http_proxy", "HTTP_PROXY", "https_proxy",
                                          "HTTPS_PROXY", "all_proxy", "ALL_PROXY"};
    for (size_t i = 0; i < sizeof proxies / sizeof proxies[0]; i++)
        unsetenv(proxies[i]);
    setenv("no_proxy", "*", 1);
    setenv("NO_PROXY", "*", 1);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_good_code, teardown),
        cmocka_unit_test_teardown(test_no_key_no_bearer, teardown),
        cmocka_unit_test_teardown(test_no_code_block, teardown),
        cmocka_unit_test_teardown(test_signature_changed, teardown),
        cmocka_unit_test_teardown(test_429_then_success, teardown),
        cmocka_unit_test_teardown(test_retry_after_capped, teardown),
        cmocka_unit_test_teardown(test_retry_after_forms, teardown),
        cmocka_unit_test_teardown(test_dropped_connection_retried, teardown),
        cmocka_unit_test_teardown(test_500_twice_then_success, teardown),
        cmocka_unit_test_teardown(test_5xx_gives_up, teardown),
        cmocka_unit_test_teardown(test_401_no_retry, teardown),
        cmocka_unit_test_teardown(test_404_detail, teardown),
        cmocka_unit_test_teardown(test_total_timeout, teardown),
        cmocka_unit_test_teardown(test_oversized_body, teardown),
        cmocka_unit_test_teardown(test_invalid_json, teardown),
        cmocka_unit_test_teardown(test_no_choices, teardown),
        cmocka_unit_test_teardown(test_content_parts, teardown),
        cmocka_unit_test_teardown(test_connection_refused, teardown),
        cmocka_unit_test_teardown(test_propose, teardown),
        cmocka_unit_test_teardown(test_connect_timeout, teardown),
        cmocka_unit_test_teardown(test_not_configured, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
