/* libFuzzer target for the Python tokenizer and parser: any input must
 * either parse, print back byte for byte and pass the tree's invariant
 * check, or fail with an error diagnostic. Anything else aborts. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "source/ast.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    tdx_arena arena;
    tdx_arena_init(&arena, 0);
    tdx_diags diags;
    tdx_diags_init(&diags);
    tdx_src_module *m = NULL;
    tdx_status st = tdx_src_parse("fuzz.py", (const char *)data, size, &arena, &diags, &m);
    if (st == TDX_OK) {
        tdx_buf b;
        tdx_buf_init(&b, 0);
        if (tdx_src_unparse(m, &b) != TDX_OK || b.len != size ||
            (size && memcmp(b.data, data, size) != 0))
            abort();
        if (tdx_src_verify(m, NULL) != TDX_OK)
            abort();
        tdx_buf_reset(&b);
        if (tdx_src_dump(m, m->root, &b) != TDX_OK)
            abort();
        tdx_ptrvec kernels = {0};
        if (tdx_src_find_jit(m, &arena, &kernels) < 0)
            abort();
        tdx_buf_free(&b);
    } else if (st != TDX_ERR_PARSE || diags.nerrors == 0 || m != NULL) {
        abort();
    }
    tdx_diags_free(&diags);
    tdx_arena_free(&arena);
    return 0;
}
