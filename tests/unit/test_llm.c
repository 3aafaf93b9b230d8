/* The LLM client without a network: configuration from the environment and
 * flags, the endpoint, the prompt and request body, reply parsing, error
 * texts, and the key kept out of everything that is shown. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/file.h"
#include "llm/llm.h"
#include "rewrite/families.h"

#define KEY "sk-live-TOPSECRET-0123456789"

static const char *const env_vars[] = {
    "TRITONDX_LLM_URL",     "TRITONDX_LLM_MODEL",           "TRITONDX_LLM_KEY",
    "OPENAI_API_KEY",       "TRITONDX_LLM_TIMEOUT",         "TRITONDX_LLM_CONNECT_TIMEOUT",
    "TRITONDX_LLM_RETRIES", "TRITONDX_LLM_MAX_TOKENS",      "TRITONDX_LLM_TEMPERATURE",
    "TRITONDX_LLM_MAX_REPLY",
};

static int clear_env(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof env_vars / sizeof env_vars[0]; i++)
        unsetenv(env_vars[i]);
    return 0;
}

static void test_defaults_not_configured(void **state)
{
    (void)state;
    tdx_llm_config c;
    tdx_llm_config_init(&c);
    assert_int_equal(tdx_llm_config_from_env(&c, NULL), TDX_OK);
    const char *why = NULL;
    assert_false(tdx_llm_configured(&c, &why));
    assert_string_equal(why,
                        "no LLM endpoint configured (set TRITONDX_LLM_URL and TRITONDX_LLM_MODEL)");
    assert_int_equal(c.timeout_ms, TDX_LLM_DEFAULT_TIMEOUT_MS);
    assert_int_equal(c.max_retries, TDX_LLM_DEFAULT_RETRIES);
    assert_int_equal(c.max_reply_bytes, 4 << 20);
    assert_int_equal(tdx_llm_config_set(&c, "url", "http://localhost:8000", NULL), TDX_OK);
    assert_false(tdx_llm_configured(&c, &why));
    assert_string_equal(why, "no LLM model configured (set TRITONDX_LLM_MODEL)");
    assert_int_equal(tdx_llm_config_set(&c, "model", "qwen", NULL), TDX_OK);
    assert_true(tdx_llm_configured(&c, &why));
    assert_null(why);
    tdx_llm_config_free(&c);
}

static void test_env(void **state)
{
    (void)state;
    setenv("TRITONDX_LLM_URL", "http://127.0.0.1:11434/v1", 1);
    setenv("TRITONDX_LLM_MODEL", "llama3", 1);
    setenv("OPENAI_API_KEY", "sk-openai", 1);
    setenv("TRITONDX_LLM_TIMEOUT", "2.5", 1);
    setenv("TRITONDX_LLM_CONNECT_TIMEOUT", "3", 1);
    setenv("TRITONDX_LLM_RETRIES", "0", 1);
    setenv("TRITONDX_LLM_MAX_TOKENS", "1234", 1);
    setenv("TRITONDX_LLM_TEMPERATURE", "0", 1);
    setenv("TRITONDX_LLM_MAX_REPLY", "65536", 1);
    tdx_llm_config c;
    tdx_llm_config_init(&c);
    assert_int_equal(tdx_llm_config_from_env(&c, NULL), TDX_OK);
    assert_true(tdx_llm_configured(&c, NULL));
    assert_string_equal(c.url, "http://127.0.0.1:11434/v1");
    assert_string_equal(c.model, "llama3");
    assert_string_equal(c.key, "sk-openai"); /* the fallback */
    assert_int_equal(c.timeout_ms, 2500);
    assert_int_equal(c.connect_timeout_ms, 3000);
    assert_int_equal(c.max_retries, 0);
    assert_int_equal(c.max_tokens, 1234);
    assert_true(c.temperature == 0.0);
    assert_int_equal(c.max_reply_bytes, 65536);
    tdx_llm_config_free(&c);

    /* Our own variable wins over the generic one; flags win over both. */
    setenv("TRITONDX_LLM_KEY", "sk-ours", 1);
    tdx_llm_config_init(&c);
    assert_int_equal(tdx_llm_config_from_env(&c, NULL), TDX_OK);
    assert_string_equal(c.key, "sk-ours");
    assert_int_equal(tdx_llm_config_set(&c, "model", "flagged", NULL), TDX_OK);
    assert_string_equal(c.model, "flagged");
    tdx_llm_config_free(&c);
    assert_null(c.key);
    clear_env(NULL);
}

static void test_bad_values(void **state)
{
    (void)state;
    tdx_llm_config c;
    tdx_llm_config_init(&c);
    tdx_diags d;
    tdx_diags_init(&d);
    static const char *const bad[][2] = {
        {"timeout", "0"},         {"timeout", "soon"},      {"connect-timeout", "-1"},
        {"retries", "100"},       {"retries", "2x"},        {"max-tokens", "0"},
        {"temperature", "3"},     {"temperature", "nan"},   {"max-reply", "10"},
        {"url", "ftp://" KEY},    {"key", KEY "\r\nX: y"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_int_equal(tdx_llm_config_set(&c, bad[i][0], bad[i][1], &d), TDX_ERR_ARG);
    assert_int_equal(tdx_llm_config_set(&c, "colour", "blue", &d), TDX_ERR_NOTFOUND);
    assert_int_equal(d.nerrors, sizeof bad / sizeof bad[0] + 1);
    assert_string_equal(d.items[0].msg, "llm timeout: '0' is not seconds, more than 0");
    for (size_t i = 0; i < d.len; i++)
        assert_null(strstr(d.items[i].msg, "TOPSECRET"));
    /* Nothing bad was taken. */
    assert_int_equal(c.timeout_ms, TDX_LLM_DEFAULT_TIMEOUT_MS);
    assert_null(c.url);
    assert_null(c.key);

    /* A bad variable in the environment is reported, the others still read. */
    setenv("TRITONDX_LLM_RETRIES", "many", 1);
    setenv("TRITONDX_LLM_MODEL", "m", 1);
    assert_int_equal(tdx_llm_config_from_env(&c, &d), TDX_ERR_ARG);
    assert_string_equal(c.model, "m");
    clear_env(NULL);
    tdx_diags_free(&d);
    tdx_llm_config_free(&c);
}

static void check_endpoint(const char *url, const char *want)
{
    tdx_llm_config c;
    tdx_llm_config_init(&c);
    assert_int_equal(tdx_llm_config_set(&c, "url", url, NULL), TDX_OK);
    tdx_buf b;
    tdx_buf_init(&b, 0);
    assert_int_equal(tdx_llm_endpoint(&c, &b), TDX_OK);
    assert_string_equal(tdx_buf_str(&b), want);
    tdx_buf_free(&b);
    tdx_llm_config_free(&c);
}

static void test_endpoint(void **state)
{
    (void)state;
    check_endpoint("http://localhost:8000", "http://localhost:8000/v1/chat/completions");
    check_endpoint("http://localhost:8000/", "http://localhost:8000/v1/chat/completions");
    check_endpoint("http://localhost:11434/v1", "http://localhost:11434/v1/chat/completions");
    check_endpoint("https://api.example.com/openai/v1/",
                   "https://api.example.com/openai/v1/chat/completions");
    check_endpoint("http://h/v1/chat/completions", "http://h/v1/chat/completions");
    check_endpoint("http://h:1/v1?api-version=2", "http://h:1/v1/chat/completions?api-version=2");
}

static void test_describe_hides_secrets(void **state)
{
    (void)state;
    tdx_llm_config c;
    tdx_llm_config_init(&c);
    tdx_buf b;
    tdx_buf_init(&b, 0);
    assert_int_equal(tdx_llm_config_set(&c, "url", "https://user:pw-" KEY "@api.example.com/v1?token=" KEY, NULL),
                     TDX_OK);
    assert_int_equal(tdx_llm_config_set(&c, "model", "gpt", NULL), TDX_OK);
    assert_int_equal(tdx_llm_config_describe(&c, &b), TDX_OK);
    assert_null(strstr(tdx_buf_str(&b), "key set"));
    assert_non_null(strstr(tdx_buf_str(&b), "no key"));
    tdx_buf_reset(&b);
    assert_int_equal(tdx_llm_config_set(&c, "key", KEY, NULL), TDX_OK);
    assert_int_equal(tdx_llm_config_describe(&c, &b), TDX_OK);
    assert_string_equal(tdx_buf_str(&b),
                        "endpoint https://api.example.com/v1/chat/completions, model gpt, key set, "
                        "timeouts 10.0 s connect / 300.0 s total, 3 retries, max_tokens 8192, "
                        "temperature 0.20");
    assert_null(strstr(tdx_buf_str(&b), "TOPSECRET"));
    tdx_buf_free(&b);
    tdx_llm_config_free(&c);
}

static void test_mask(void **state)
{
    (void)state;
    char s[128] = "bad key " KEY ", really " KEY "!";
    tdx_llm_mask(s, KEY);
    assert_string_equal(s, "bad key ***, really ***!");
    char t[32] = "a-b-a";
    tdx_llm_mask(t, "a");
    assert_string_equal(t, "*-b-*");
    tdx_llm_mask(t, "*"); /* never loops */
    tdx_llm_mask(t, NULL);
    tdx_llm_mask(t, "");
    assert_string_equal(t, "*-b-*");
}

/* A ledger with three findings, the way the levels fill it. */
static void fill_ledger(tdx_ledger *l)
{
    tdx_ledger_init(l);
    const tdx_rule *rules;
    size_t n;
    rules = tdx_rules(&n);
    assert_true(n >= 2);
    tdx_finding *f1 = tdx_ledger_add(l, rules[1].id, "task.py", 21, 5, "the row is read three times");
    assert_non_null(f1);
    assert_int_equal(tdx_finding_set_kernel(l, f1, "softmax_kernel"), TDX_OK);
    assert_int_equal(tdx_finding_set_hypothesis(l, f1, "three passes over memory where one fits"),
                     TDX_OK);
    assert_int_equal(tdx_finding_fact(l, f1, "passes", "%d", 3), TDX_OK);
    tdx_buf ev;
    tdx_buf_init(&ev, 0);
    for (int i = 0; i < 60; i++)
        assert_int_equal(tdx_buf_printf(&ev, "%%x%d = tt.load %%p%d : tensor<128xf32>\n", i, i),
                         TDX_OK);
    assert_int_equal(tdx_finding_set_evidence(l, f1, tdx_buf_str(&ev)), TDX_OK);
    tdx_buf_free(&ev);
    assert_non_null(tdx_ledger_add(l, rules[0].id, "task.py", 1, 1, "an unrelated finding"));
    assert_non_null(tdx_ledger_add(l, rules[1].id, NULL, 0, 0, "a second cited finding"));
}

static void test_prompt(void **state)
{
    (void)state;
    char *src;
    size_t len;
    assert_int_equal(tdx_file_read(TDX_TEST_DATA "/llm/task.py", 1 << 20, &src, &len), TDX_OK);
    tdx_ledger l;
    fill_ledger(&l);
    tdx_diags d;
    tdx_diags_init(&d);
    tdx_llm_prompt p;
    int ids[] = {1, 3};
    assert_int_equal(tdx_llm_prompt_build(&p, "task.py", src, len, &l, ids, 2,
                                          "single-pass-reduction", &d),
                     TDX_OK);
    const char *u = tdx_buf_str(&p.user);
    assert_non_null(strstr(tdx_buf_str(&p.system), "```python"));
    assert_non_null(strstr(u, "Rewrite to apply: single-pass-reduction - read the data once"));
    const tdx_finding *f1 = tdx_ledger_at(&l, 0);
    char head[128];
    snprintf(head, sizeof head, "- F1 [%s %s, level %d] line 21 in softmax_kernel: the row is read "
                                "three times\n", f1->rule->id, f1->rule->name, f1->level);
    assert_non_null(strstr(u, head));
    assert_non_null(strstr(u, "  why: three passes over memory where one fits\n"));
    assert_non_null(strstr(u, "  passes: 3\n"));
    assert_non_null(strstr(u, "    | %x0 = tt.load %p0 : tensor<128xf32>\n"));
    assert_non_null(strstr(u, "    | %x39 = tt.load"));
    assert_null(strstr(u, "    | %x40 = tt.load")); /* the excerpt is cut */
    assert_non_null(strstr(u, "    | ...\n"));
    assert_non_null(strstr(u, "- F3 ["));
    assert_null(strstr(u, "F2")); /* not cited, not sent */
    assert_non_null(strstr(u, "The task file task.py:\n```python\n\"\"\"Row softmax"));
    assert_non_null(strstr(u, "SHAPES = {\"bench\""));
    assert_non_null(strstr(u, "keep the signature of `launch` exactly as it is (`def launch(x):`)"));
    assert_non_null(strstr(u, "copy `reference`, `make_inputs`, `SHAPES` and, where the file has them, `TOLERANCE`, `flops` and `bytes` unchanged"));
    tdx_llm_prompt_free(&p);

    /* A missing id is an error that names it. */
    int missing[] = {1, 9};
    assert_int_equal(tdx_llm_prompt_build(&p, "task.py", src, len, &l, missing, 2, "retune", &d),
                     TDX_ERR_NOTFOUND);
    assert_string_equal(d.items[d.len - 1].msg, "llm prompt: no finding F9 in the ledger");
    tdx_llm_prompt_free(&p);

    /* Backticks in the source lengthen the fence; an unknown family is named as is. */
    const char *tricky = "s = '```'\n";
    assert_int_equal(tdx_llm_prompt_build(&p, NULL, tricky, strlen(tricky), NULL, NULL, 0,
                                          "my-family", &d),
                     TDX_OK);
    assert_non_null(strstr(tdx_buf_str(&p.user), "Rewrite to apply: my-family.\n"));
    assert_non_null(strstr(tdx_buf_str(&p.user), "The task file:\n````python\ns = '```'\n````\n"));
    tdx_llm_prompt_free(&p);
    tdx_diags_free(&d);
    tdx_ledger_free(&l);
    free(src);
}

/* Every built-in family is described to the model in words, not only by
 * its name. */
static void test_every_family_is_described(void **state)
{
    (void)state;
    size_t n = 0;
    const tdx_rw_family *fams = tdx_rw_families(&n);
    assert_true(n >= 18);
    tdx_diags d;
    tdx_diags_init(&d);
    const char *src = "x = 1\n";
    for (size_t i = 0; i < n; i++) {
        tdx_llm_prompt p;
        assert_int_equal(tdx_llm_prompt_build(&p, "t.py", src, strlen(src), NULL, NULL, 0, fams[i].name, &d), TDX_OK);
        char want[160];
        snprintf(want, sizeof want, "Rewrite to apply: %s - ", fams[i].name);
        if (!strstr(tdx_buf_str(&p.user), want))
            fail_msg("family %s has no description in the prompt", fams[i].name);
        tdx_llm_prompt_free(&p);
    }
    tdx_diags_free(&d);
}

static void test_request_json(void **state)
{
    (void)state;
    tdx_llm_config c;
    tdx_llm_config_init(&c);
    assert_int_equal(tdx_llm_config_set(&c, "model", "m-1", NULL), TDX_OK);
    assert_int_equal(tdx_llm_config_set(&c, "key", KEY, NULL), TDX_OK);
    c.max_tokens = 99;
    c.temperature = 0.5;
    tdx_llm_prompt p;
    const char *src = "x = \"quote\\\" and \xc3\xa9\"\n";
    assert_int_equal(tdx_llm_prompt_build(&p, "t.py", src, strlen(src), NULL, NULL, 0, NULL, NULL),
                     TDX_OK);
    char *s = tdx_llm_request_json(&c, &p);
    assert_non_null(s);
    assert_null(strstr(s, "TOPSECRET"));
    json_error_t err;
    json_t *j = json_loads(s, 0, &err);
    assert_non_null(j);
    assert_string_equal(json_string_value(json_object_get(j, "model")), "m-1");
    assert_int_equal(json_integer_value(json_object_get(j, "max_tokens")), 99);
    assert_true(json_real_value(json_object_get(j, "temperature")) == 0.5);
    assert_true(json_is_false(json_object_get(j, "stream")));
    json_t *m = json_object_get(j, "messages");
    assert_int_equal(json_array_size(m), 2);
    assert_string_equal(json_string_value(json_object_get(json_array_get(m, 0), "content")),
                        tdx_buf_str(&p.system));
    assert_string_equal(json_string_value(json_object_get(json_array_get(m, 1), "content")),
                        tdx_buf_str(&p.user));
    json_decref(j);
    free(s);
    tdx_llm_prompt_free(&p);

    /* Bytes that are not UTF-8 cannot be sent: no body rather than a bad one. */
    const char *bin = "x = '\xff'\n";
    assert_int_equal(tdx_llm_prompt_build(&p, "t.py", bin, strlen(bin), NULL, NULL, 0, NULL, NULL),
                     TDX_OK);
    assert_null(tdx_llm_request_json(&c, &p));
    tdx_llm_prompt_free(&p);
    tdx_llm_config_free(&c);
}

static void check_parse(const char *body, tdx_status want, const char *error, const char *content)
{
    tdx_llm_reply r;
    tdx_llm_reply_init(&r);
    assert_int_equal(tdx_llm_parse_reply(body, strlen(body), &r), want);
    assert_string_equal(r.error, error);
    if (content)
        assert_string_equal(r.content, content);
    else
        assert_null(r.content);
    tdx_llm_reply_free(&r);
}

static void test_parse_reply(void **state)
{
    (void)state;
    check_parse("{\"choices\":[{\"message\":{\"content\":\"hi\"},\"finish_reason\":\"stop\"}],"
                "\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":1}}",
                TDX_OK, "", "hi");
    check_parse("not json at all", TDX_ERR_PARSE, "reply is not JSON", NULL);
    check_parse("[1, 2]", TDX_ERR_PARSE, "reply is not JSON", NULL);
    check_parse("{\"choices\": []}", TDX_ERR_PARSE, "no choices in reply", NULL);
    check_parse("{\"id\": 1}", TDX_ERR_PARSE, "no choices in reply", NULL);
    check_parse("{\"error\": {\"message\": \"model is loading\"}}", TDX_ERR_PARSE,
                "no choices in reply: model is loading", NULL);
    check_parse("{\"choices\":[{\"message\":{\"content\":null},\"finish_reason\":\"length\"}]}",
                TDX_ERR_PARSE, "no message content in reply (finish_reason length)", NULL);
    check_parse("{\"choices\":[{\"text\":\"completion style\"}]}", TDX_OK, "", "completion style");
    check_parse("{\"choices\":[{\"message\":{\"content\":[{\"type\":\"text\",\"text\":\"a\"},"
                "{\"type\":\"image\"},{\"type\":\"text\",\"text\":\"b\"}]}}]}",
                TDX_OK, "", "ab");

    tdx_llm_reply r;
    tdx_llm_reply_init(&r);
    const char *b = "{\"model\":\"m\",\"choices\":[{\"message\":{\"content\":\"x\"}}],"
                    "\"usage\":{\"prompt_tokens\":-4,\"completion_tokens\":\"7\"}}";
    assert_int_equal(tdx_llm_parse_reply(b, strlen(b), &r), TDX_OK);
    assert_int_equal(r.prompt_tokens, -1); /* nonsense is not counted */
    assert_int_equal(r.completion_tokens, -1);
    assert_string_equal(r.model, "m");
    assert_null(r.finish_reason);
    tdx_llm_reply_free(&r);
}

static void check_error_text(const char *body, size_t outsz, const char *want)
{
    char out[256];
    assert_true(outsz <= sizeof out);
    tdx_llm_error_text(body, strlen(body), out, outsz);
    assert_string_equal(out, want);
}

static void test_error_text(void **state)
{
    (void)state;
    check_error_text("{\"error\":{\"message\":\"bad\\nthing\\t here\"}}", 64, "bad thing here");
    check_error_text("{\"error\":\"flat\"}", 64, "flat");
    check_error_text("{\"message\":\"top\"}", 64, "top");
    check_error_text("{\"detail\":\"fastapi\"}", 64, "fastapi");
    check_error_text("{\"detail\":[{\"msg\":\"field required\"}]}", 64, "field required");
    check_error_text("{\"other\":1}", 64, "");
    check_error_text("\n  Service Unavailable\nmore", 64, "Service Unavailable");
    check_error_text("<html>x</html>", 64, "");
    check_error_text("", 64, "");
    check_error_text("{\"error\":{\"message\":\"0123456789abcdefghij\"}}", 12, "01234567...");
    /* A cut never splits a UTF-8 character. */
    check_error_text("{\"error\":{\"message\":\"abcd\xc3\xa9\xc3\xa9\xc3\xa9\"}}", 10, "abcd\xc3\xa9...");
    check_error_text("{\"error\":{\"message\":\"abcde\xc3\xa9\xc3\xa9\xc3\xa9\"}}", 10, "abcde...");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_defaults_not_configured, clear_env),
        cmocka_unit_test_setup(test_env, clear_env),
        cmocka_unit_test_setup(test_bad_values, clear_env),
        cmocka_unit_test(test_endpoint),
        cmocka_unit_test(test_describe_hides_secrets),
        cmocka_unit_test(test_mask),
        cmocka_unit_test(test_prompt),
        cmocka_unit_test(test_every_family_is_described),
        cmocka_unit_test(test_request_json),
        cmocka_unit_test(test_parse_reply),
        cmocka_unit_test(test_error_text),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
