/* The `ptxas -v` log parser: per function, registers, barriers, stack frame,
 * spill stores/loads, static shared memory and constant bank 0. Lines look
 * like
 *   ptxas info    : Compiling entry function 'k' for 'sm_90a'
 *   ptxas info    : Function properties for k
 *       64 bytes stack frame, 60 bytes spill stores, 84 bytes spill loads
 *   ptxas info    : Used 255 registers, used 0 barriers, 384 bytes smem, 400 bytes cmem[0]
 * and the figures may come in any order or be missing. */
#include <ctype.h>
#include <string.h>

#include "ir/ir_int.h"

// The number just before " <unit>" in s[0..n), or -1.
static int figure(const char *s, size_t n, const char *unit)
{
    size_t k = strlen(unit);
    for (size_t i = 0; i + k <= n; i++) {
        if (memcmp(s + i, unit, k) != 0)
            continue;
        size_t j = i;
        while (j > 0 && s[j - 1] == ' ')
            j--;
        size_t end = j;
        while (j > 0 && isdigit((unsigned char)s[j - 1]))
            j--;
        if (j < end && end - j < 10) {
            long long v = 0;
            tdx_ir__int(s + j, end - j, &v);
            return (int)v;
        }
    }
    return -1;
}

// Store v unless it is -1 (not on this line).
static void set_if(int *dst, int v)
{
    if (v >= 0)
        *dst = v;
}

// Text between the first pair of single quotes after key, or after key to end.
static const char *quoted_after(tdx_arena *a, const char *s, size_t n, const char *key, int nth)
{
    const char *k = NULL;
    size_t kl = strlen(key);
    for (size_t i = 0; i + kl <= n; i++)
        if (memcmp(s + i, key, kl) == 0) {
            k = s + i + kl;
            break;
        }
    if (!k)
        return NULL;
    const char *e = s + n;
    for (int q = 0; q < nth; q++) {
        const char *q1 = memchr(k, '\'', (size_t)(e - k));
        if (!q1)
            return NULL;
        const char *q2 = memchr(q1 + 1, '\'', (size_t)(e - q1 - 1));
        if (!q2)
            return NULL;
        if (q == nth - 1)
            return tdx_arena_strndup(a, q1 + 1, (size_t)(q2 - q1 - 1));
        k = q2 + 1;
    }
    return NULL;
}

// Line by line; figures attach to the function named last.
tdx_status tdx_ir_ptxas_parse(const char *text, size_t len, tdx_arena *arena, tdx_ir_ptxas **out,
                              tdx_diags *diags)
{
    *out = NULL;
    if (!text || !arena)
        return TDX_ERR_ARG;
    if (len > TDX_IR_MAX_INPUT) {
        if (diags)
            tdx_diags_add(diags, TDX_SEV_ERROR, NULL, 0, 0, "ptxas: input too large");
        return TDX_ERR_TOOBIG;
    }
    tdx_ir_ptxas *x = tdx_arena_alloc(arena, sizeof *x);
    if (!x)
        return TDX_ERR_NOMEM;
    tdx_ptrvec funcs = {0};
    tdx_ir_ptxas_func *cur = NULL;
    for (size_t i = 0; i < len;) {
        const char *nl = memchr(text + i, '\n', len - i);
        size_t e = nl ? (size_t)(nl - text) : len;
        const char *s = text + i;
        size_t n = e - i;
        i = e + 1;
        tdx_ir__trim(&s, &n);
        if (!n)
            continue;
        if (n > 13 && memcmp(s, "ptxas warning", 13) == 0) {
            x->nwarnings++;
            continue;
        }
        if ((n > 11 && memcmp(s, "ptxas fatal", 11) == 0) ||
            (n > 11 && memcmp(s, "ptxas error", 11) == 0)) {
            x->nerrors++;
            continue;
        }
        const char *name = NULL, *arch = NULL;
        if ((name = quoted_after(arena, s, n, "Compiling entry function", 1)) ||
            (name = quoted_after(arena, s, n, "Compiling function", 1))) {
            arch = quoted_after(arena, s, n, "Compiling", 2);
        } else {
            const char *fp = NULL;
            for (size_t k = 0; k + 24 <= n; k++)
                if (memcmp(s + k, "Function properties for ", 24) == 0) {
                    fp = s + k + 24;
                    break;
                }
            if (fp)
                name = tdx_arena_strndup(arena, fp, (size_t)(s + n - fp));
        }
        if (name) {
            cur = NULL;
            for (size_t k = 0; k < funcs.len; k++)
                if (strcmp(((tdx_ir_ptxas_func *)funcs.items[k])->name, name) == 0)
                    cur = funcs.items[k];
            if (!cur) {
                cur = tdx_arena_alloc(arena, sizeof *cur);
                if (!cur || tdx_ptrvec_push(arena, &funcs, cur))
                    return TDX_ERR_NOMEM;
                cur->name = name;
            }
            if (arch)
                cur->arch = arch;
            continue;
        }
        int gm = figure(s, n, "bytes gmem");
        if (gm >= 0 && figure(s, n, "registers") < 0) {
            x->gmem = gm;
            continue;
        }
        if (!cur)
            continue;
        set_if(&cur->stack, figure(s, n, "bytes stack frame"));
        set_if(&cur->spill_stores, figure(s, n, "bytes spill stores"));
        set_if(&cur->spill_loads, figure(s, n, "bytes spill loads"));
        set_if(&cur->registers, figure(s, n, "registers"));
        set_if(&cur->barriers, figure(s, n, "barriers"));
        set_if(&cur->smem, figure(s, n, "bytes smem"));
        set_if(&cur->cmem0, figure(s, n, "bytes cmem[0]"));
        set_if(&cur->cumulative_stack, figure(s, n, "bytes cumulative stack size"));
    }
    x->funcs = tdx_arena_alloc(arena, (funcs.len ? funcs.len : 1) * sizeof *x->funcs);
    if (!x->funcs)
        return TDX_ERR_NOMEM;
    for (size_t k = 0; k < funcs.len; k++)
        x->funcs[k] = *(tdx_ir_ptxas_func *)funcs.items[k];
    x->nfuncs = funcs.len;
    *out = x;
    if (x->nerrors && diags)
        tdx_diags_add(diags, TDX_SEV_WARNING, NULL, 0, 0, "ptxas: the log reports %d error(s)",
                      x->nerrors);
    return TDX_OK;
}
