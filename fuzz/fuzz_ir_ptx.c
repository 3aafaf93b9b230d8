/* libFuzzer target: the ir parser for PTX, then the join and every
 * rendering of the records (fuzz_ir_common.h). */
#include "fuzz_ir_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return tdx_fuzz_ir_stage(TDX_IR_PTX, data, size);
}
