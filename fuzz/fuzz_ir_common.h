/* The body shared by the ir fuzz targets: one stage parsed from the input,
 * then the join, and the records rendered as text, as JSON and as a diff
 * against an empty kernel. Any input must give a status, never a crash, a
 * leak or an out-of-bounds read. Each fuzz_ir_*.c names its stage. */
#ifndef TDX_FUZZ_IR_COMMON_H
#define TDX_FUZZ_IR_COMMON_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "ir/ir.h"

static int tdx_fuzz_ir_stage(tdx_ir_stage stage, const uint8_t *data, size_t size)
{
    tdx_ir_kernel k;
    tdx_ir_kernel_init(&k);
    tdx_diags d;
    tdx_diags_init(&d);
    tdx_ir_kernel_add(&k, stage, (const char *)data, size, &d);
    tdx_ir_kernel_join(&k, &d);
    tdx_buf b;
    tdx_buf_init(&b, 1 << 20);
    tdx_ir_kernel_dump(&k, &b);
    tdx_buf_free(&b);
    json_t *j = tdx_ir_kernel_to_json(&k);
    char *text = j ? json_dumps(j, JSON_COMPACT) : NULL;
    free(text);
    json_decref(j);
    tdx_ir_kernel empty;
    tdx_ir_kernel_init(&empty);
    tdx_ir_kernel_join(&empty, NULL);
    tdx_buf_init(&b, 1 << 20);
    tdx_ir_kernel_diff(&empty, &k, &b, NULL);
    tdx_buf_free(&b);
    tdx_ir_kernel_free(&empty);
    tdx_diags_free(&d);
    tdx_ir_kernel_free(&k);
    return 0;
}

#endif
