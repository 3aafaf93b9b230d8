/* libFuzzer target: judging what a harness child left behind -- how it
 * ended and its stdout and stderr -- into a reply or a one-line reason, and
 * the problems of a `validate` reply. Input layout: byte 0 picks how the
 * child ended, byte 1 the verb asked for, byte 2 how much of the rest is
 * stderr; the rest is stdout. Any input must give a status with a reply
 * object or a printable reason, never a crash or a leak. */
#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hx/hx.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

// A malloc'd NUL-terminated copy, as tdx_proc_run leaves its captures.
static char *dup_bytes(const uint8_t *p, size_t n)
{
    char *s = malloc(n + 1);
    if (!s)
        abort();
    if (n)
        memcpy(s, p, n);
    s[n] = '\0';
    return s;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const verbs[] = {"validate", "check", "capture", "time", "ceilings", "ncu"};
    if (size < 3)
        return 0;
    uint8_t how = data[0];
    const char *verb = verbs[data[1] % (sizeof verbs / sizeof verbs[0])];
    size_t rest = size - 3;
    size_t nerr = rest * data[2] / 256;
    const uint8_t *err = data + 3, *out = data + 3 + nerr;
    size_t nout = rest - nerr;

    tdx_hx_reply r;
    memset(&r, 0, sizeof r);
    r.proc.out = dup_bytes(out, nout);
    r.proc.out_len = r.proc.out_total = nout;
    r.proc.err = dup_bytes(err, nerr);
    r.proc.err_len = r.proc.err_total = nerr;
    r.proc.timed_out = (how & 0x03) == 0x03;
    r.proc.signaled = (how & 0x03) == 0x02;
    r.proc.term_signal = how >> 4;
    r.proc.exited = !r.proc.signaled && !r.proc.timed_out;
    r.proc.exit_status = (how & 0x03) == 0x01 ? how >> 2 : 0;
    r.proc.out_over_cap = (how & 0x04) != 0 && (how & 0x03) == 0;
    r.proc.stopped_at_cap = r.proc.out_over_cap && (how & 0x08);

    tdx_status st = tdx_hx_judge(&r, verb, 30, 1 << 20, 0);
    if (st == TDX_OK) {
        if (!json_is_object(r.json) || !json_is_true(json_object_get(r.json, "ok")) || r.reason[0])
            __builtin_trap();
    } else {
        if (st != TDX_ERR_CHILD || !r.reason[0])
            __builtin_trap();
        for (const char *p = r.reason; *p; p++)
            if ((unsigned char)*p < 0x20)
                __builtin_trap();
    }
    if (r.json) {
        tdx_buf b;
        tdx_buf_init(&b, 1 << 20);
        tdx_hx_validate_problems(r.json, "task.py", &b);
        tdx_buf_free(&b);
    }
    /* the same stdout as a reply read on its own */
    json_decref(tdx_hx_parse_stdout(r.proc.out, r.proc.out_len));
    tdx_hx_reply_free(&r);
    return 0;
}
