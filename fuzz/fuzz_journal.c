/* libFuzzer target: the run journal read back from disk (partial lines,
 * huge lines, lines that are not JSON objects), and what is derived from
 * its entries: the last entry of each type and a bench row; each entry is
 * also read as a row of a bench results file (--merge). Any input must
 * give a status, never a crash, a leak or an out-of-bounds read. */
#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"
#include "journal/journal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    tdx_diags d;
    tdx_diags_init(&d);
    json_t *entries = NULL;
    size_t good = 0;
    tdx_status st = tdx_jnl_parse("<fuzz>", (const char *)data, size, &entries, &good, &d);
    /* the valid prefix ends a line inside the input; entries only on success */
    if (good > size || (good > 0 && data[good - 1] != '\n') || (st == TDX_OK) != (entries != NULL))
        __builtin_trap();
    if (st == TDX_OK) {
        for (size_t i = 0; i < json_array_size(entries); i++)
            if (!json_is_object(json_array_get(entries, i)))
                __builtin_trap();
        static const char *const types[] = {"start", "baseline", "round", "candidate",
                                            "keep", "round_end", "stop"};
        for (size_t t = 0; t < sizeof types / sizeof types[0]; t++) {
            json_t *e = tdx_jnl_last(entries, types[t]);
            if (e && !json_is_object(e))
                __builtin_trap();
        }
        tdx_bench_row row;
        memset(&row, 0, sizeof row);
        row.fraction_before = -1;
        tdx_bench_row_from_entries(&row, entries);
        json_t *j = tdx_bench_row_json(&row);
        json_decref(j);
        free(row.task);
        free(row.status);
        free(row.levels);
        free(row.families);
        tdx_bench_results res;
        memset(&res, 0, sizeof res);
        for (size_t i = 0; i < json_array_size(entries); i++)
            tdx_bench_add_json(&res, json_array_get(entries, i));
        tdx_bench_summary sum;
        tdx_bench_summarize(&res, &sum);
        tdx_buf md;
        tdx_buf_init(&md, 1 << 22);
        tdx_bench_markdown(&res, &sum, &md);
        tdx_buf_free(&md);
        tdx_bench_free(&res);
    }
    json_decref(entries);
    tdx_diags_free(&d);
    return 0;
}
