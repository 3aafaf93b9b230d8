/* libFuzzer target: code extraction from a model's reply, and the guard
 * that compares the extracted code with a task file. The input is the
 * reply; the guard also runs with the input's halves as original and
 * candidate, so both sides of it see arbitrary text, and the input is read
 * as a server's body too. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "llm/extract.h"
#include "llm/llm.h"

static const char task[] =
    "import triton\n\n@triton.jit\ndef k(x_ptr, BLOCK: tl.constexpr):\n    pass\n\n\n"
    "def launch(x, y=(1, 2), *, z: int = 3):\n    return x\n\n\n"
    "def reference(x):\n    \"\"\"doc\n\"\"\"\n    return x\n\n\n"
    "def make_inputs(shape, dtype=None, device=\"cuda\", seed=0):\n    return ()\n\n\n"
    "SHAPES = {\n    \"bench\": (1,),\n    \"check\": [(2,)],\n}\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* One input: extraction, its invariants, and the guard both ways. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data;
    tdx_llm_code code;
    tdx_llm_guard g;
    if (tdx_llm_extract(text, size, &code) == TDX_OK) {
        /* NUL-terminated at len; never longer than the reply plus the final
         * newline added to an unterminated last line. */
        if (code.len > size + 1 || code.code[code.len] != '\0' || code.error[0])
            __builtin_trap();
        tdx_llm_guard_check(task, sizeof task - 1, code.code, code.len, &g);
        if (!g.reason)
            __builtin_trap();
        tdx_llm_code_free(&code);
    } else if (code.code || !code.error[0]) {
        __builtin_trap();
    }
    size_t half = size / 2;
    tdx_llm_guard_check(text, half, text + half, size - half, &g);
    tdx_llm_guard_check(text, size, task, sizeof task - 1, &g);
    /* The same bytes as a server's body, for the reply and error readers. */
    char msg[64];
    tdx_llm_error_text(text, size, msg, sizeof msg);
    if (strlen(msg) >= sizeof msg)
        __builtin_trap();
    tdx_llm_reply r;
    tdx_llm_reply_init(&r);
    if (tdx_llm_parse_reply(text, size, &r) == TDX_OK ? !r.content || r.error[0] : !r.error[0])
        __builtin_trap();
    tdx_llm_reply_free(&r);
    return 0;
}
