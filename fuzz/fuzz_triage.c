/* libFuzzer target for what reads a task's source after the parser: the
 * kernel model, every level-0 rule (the bench-shape evaluator included) and
 * the built-in rewrite families (one picked by the input's last byte, or
 * all of them). Any input must triage to TDX_OK or
 * TDX_ERR_PARSE (nothing else but running out of memory), and each family
 * must return TDX_OK, TDX_ERR_PARSE or TDX_ERR_NOMEM; a candidate a family
 * yields must be non-empty. Anything else aborts. */
#include <stdint.h>
#include <stdlib.h>

#include "finding/finding.h"
#include "rewrite/families.h"
#include "triage/triage.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static tdx_status take(void *ud, char *src, size_t len, const char *family, const char *summary)
{
    (void)ud;
    if (!src || len == 0 || !family || !summary)
        abort();
    free(src);
    return TDX_OK;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *src = (const char *)data;
    tdx_ledger ledger;
    tdx_diags diags;
    tdx_ledger_init(&ledger);
    tdx_diags_init(&diags);
    tdx_status st = tdx_tri_source("fuzz.py", src, size, &ledger, &diags);
    if (st != TDX_OK && st != TDX_ERR_PARSE && st != TDX_ERR_NOMEM)
        abort();
    if (st == TDX_OK && size) {
        size_t n;
        const tdx_rw_family *fams = tdx_rw_families(&n);
        /* the input's last byte picks one family (each parses the source
         * again: all of them on every input is ~10x slower), or, one time in
         * n + 1, all of them */
        size_t pick = data[size - 1] % (n + 1);
        for (size_t i = pick == n ? 0 : pick; i < (pick == n ? n : pick + 1); i++) {
            tdx_status fs = tdx_rw_apply_family(fams[i].name, "fuzz.py", src, size, take, NULL, &diags);
            if (fs != TDX_OK && fs != TDX_ERR_PARSE && fs != TDX_ERR_NOMEM)
                abort();
        }
    }
    tdx_diags_free(&diags);
    tdx_ledger_free(&ledger);
    return 0;
}
