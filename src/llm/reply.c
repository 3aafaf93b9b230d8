/* Reading a chat completion's body: the answer, or the server's complaint. */
#include "llm/llm.h"

#include <ctype.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* An empty reply: no content, usage unknown. */
void tdx_llm_reply_init(tdx_llm_reply *r)
{
    memset(r, 0, sizeof *r);
    r->prompt_tokens = r->completion_tokens = -1;
}

/* Release the reply's strings. */
void tdx_llm_reply_free(tdx_llm_reply *r)
{
    free(r->content);
    free(r->model);
    free(r->finish_reason);
    r->content = r->model = r->finish_reason = NULL;
}

/* A malloc'd copy of a JSON string (NUL bytes kept), or NULL. */
static char *dup_string(json_t *v)
{
    if (!json_is_string(v))
        return NULL;
    size_t n = json_string_length(v);
    char *s = malloc(n + 1);
    if (s) {
        memcpy(s, json_string_value(v), n);
        s[n] = '\0';
    }
    return s;
}

/* The message text: a string, or (newer servers) an array of parts whose
 * "text" members are joined. NULL when there is none. */
static char *message_text(json_t *content)
{
    if (json_is_string(content))
        return dup_string(content);
    if (!json_is_array(content))
        return NULL;
    tdx_buf b;
    tdx_buf_init(&b, 0);
    size_t i;
    json_t *part;
    int any = 0;
    json_array_foreach(content, i, part)
    {
        json_t *t = json_object_get(part, "text");
        if (json_is_string(t)) {
            if (tdx_buf_add(&b, json_string_value(t), json_string_length(t))) {
                tdx_buf_free(&b);
                return NULL;
            }
            any = 1;
        }
    }
    if (!any || !b.data) {
        tdx_buf_free(&b);
        return NULL;
    }
    return tdx_buf_detach(&b, NULL);
}

/* A token count from usage; -1 when absent or nonsense. */
static long usage_count(json_t *usage, const char *key)
{
    json_t *v = json_object_get(usage, key);
    return json_is_integer(v) && json_integer_value(v) >= 0 ? (long)json_integer_value(v) : -1;
}

/* Read a chat completion body: content, model, finish reason, usage. */
tdx_status tdx_llm_parse_reply(const char *body, size_t len, tdx_llm_reply *r)
{
    json_error_t err;
    json_t *root = body ? json_loadb(body, len, 0, &err) : NULL;
    if (!json_is_object(root)) {
        json_decref(root);
        snprintf(r->error, sizeof r->error, "reply is not JSON");
        r->fail = TDX_LLM_FAIL_REPLY;
        return TDX_ERR_PARSE;
    }
    /* Usage is recorded even when the answer is unusable: tokens were spent. */
    json_t *usage = json_object_get(root, "usage");
    if (json_is_object(usage)) {
        r->prompt_tokens = usage_count(usage, "prompt_tokens");
        r->completion_tokens = usage_count(usage, "completion_tokens");
    }
    free(r->model);
    r->model = dup_string(json_object_get(root, "model"));
    json_t *choices = json_object_get(root, "choices");
    json_t *first = json_array_get(choices, 0);
    tdx_status st = TDX_OK;
    if (!json_is_object(first)) {
        /* Some servers answer 200 with an error object; give its words. */
        char msg[160];
        tdx_llm_error_text(body, len, msg, sizeof msg);
        snprintf(r->error, sizeof r->error, "no choices in reply%s%s", msg[0] ? ": " : "", msg);
        st = TDX_ERR_PARSE;
    } else {
        free(r->finish_reason);
        r->finish_reason = dup_string(json_object_get(first, "finish_reason"));
        json_t *msg = json_object_get(first, "message");
        free(r->content);
        r->content = message_text(json_object_get(msg, "content"));
        if (!r->content) {
            /* Completion-style servers put the text in choices[0].text. */
            r->content = dup_string(json_object_get(first, "text"));
        }
        if (!r->content) {
            snprintf(r->error, sizeof r->error, "no message content in reply%s%s",
                     r->finish_reason ? " (finish_reason " : "",
                     r->finish_reason ? r->finish_reason : "");
            if (r->finish_reason)
                strncat(r->error, ")", sizeof r->error - strlen(r->error) - 1);
            st = TDX_ERR_PARSE;
        }
    }
    if (st)
        r->fail = TDX_LLM_FAIL_REPLY;
    json_decref(root);
    return st;
}

/* Copy s[0..n) into out as one line: control characters become spaces,
 * runs of spaces collapse, the ends are trimmed, the end is marked "..."
 * when cut. */
static void one_line(const char *s, size_t n, char *out, size_t outsz)
{
    size_t o = 0;
    int space = 1, cut = 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if ((unsigned char)c < 0x20 || c == 0x7f)
            c = ' ';
        if (c == ' ' && space)
            continue;
        space = c == ' ';
        if (o + 1 >= outsz) {
            cut = 1;
            break;
        }
        out[o++] = c;
    }
    if (cut) {
        o = outsz > 4 ? (o < outsz - 4 ? o : outsz - 4) : 0;
        /* Do not leave half a UTF-8 sequence before the "...". */
        size_t k = o;
        while (k > 0 && ((unsigned char)out[k - 1] & 0xC0) == 0x80)
            k--;
        if (k > 0 && ((unsigned char)out[k - 1] & 0xC0) == 0xC0) {
            unsigned char lead = (unsigned char)out[k - 1];
            size_t want = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : 2;
            if (o - (k - 1) < want)
                o = k - 1;
        }
    }
    while (o > 0 && out[o - 1] == ' ')
        o--;
    if (cut && outsz > 4) {
        memcpy(out + o, "...", 3);
        o += 3;
    }
    if (outsz)
        out[o] = '\0';
}

/* The server's own words from an error body, in one line. */
void tdx_llm_error_text(const char *body, size_t len, char *out, size_t outsz)
{
    if (!outsz)
        return;
    out[0] = '\0';
    if (!body || !len)
        return;
    json_error_t err;
    json_t *root = json_loadb(body, len, 0, &err);
    if (json_is_object(root)) {
        json_t *e = json_object_get(root, "error");
        json_t *m = json_is_object(e) ? json_object_get(e, "message") : e;
        if (!json_is_string(m))
            m = json_object_get(root, "message");
        if (!json_is_string(m))
            m = json_object_get(root, "detail");
        /* FastAPI validation errors: detail is a list of {msg: ...}. */
        if (json_is_array(m))
            m = json_object_get(json_array_get(m, 0), "msg");
        if (json_is_string(m))
            one_line(json_string_value(m), json_string_length(m), out, outsz);
        json_decref(root);
        return;
    }
    json_decref(root);
    /* Not JSON: the first non-blank line, when it is text and not markup. */
    size_t i = 0;
    while (i < len && isspace((unsigned char)body[i]))
        i++;
    size_t e = i;
    while (e < len && body[e] != '\n')
        e++;
    for (size_t k = i; k < e; k++)
        if (body[k] == '\0')
            return;
    if (e > i && body[i] != '<')
        one_line(body + i, e - i, out, outsz);
}
