/* The PTX parser: instructions (predicate, opcode, modifiers, operands) and
 * the `.file`/`.loc` line table that gives each one a source line. LLVM's
 * NVPTX printer writes `.loc F L C // file:L:C @[ caller:L:C ]` where the
 * comment names the inlined-at chain; Triton inlines everything, so that
 * comment is how a tl.sum body in triton/language/standard.py maps back to
 * the kernel line that called it. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "ir/ir_int.h"

#define MAX_INSNS ((size_t)2 << 20)

typedef struct pp {
    tdx_arena *a;
    tdx_ir_ptx *x;
    size_t cap;
    size_t hint; /* first capacity: an upper bound from counting ';' */
    tdx_ptrvec files;
    int file, line, col, site_line, site_col;
    const char *site_file;
    int site_fidx;
    tdx_status st;
} pp;

// Arena copy of s[0..n).
static const char *dupn(pp *p, const char *s, size_t n)
{
    return tdx_arena_strndup(p->a, s, n);
}

// 1 when the dotted modifier list has m ("shared::cta" counts as "shared").
static int has_mod(const char *mods, const char *m)
{
    size_t k = strlen(m);
    for (const char *s = mods; s && *s;) {
        const char *dot = strchr(s, '.');
        size_t n = dot ? (size_t)(dot - s) : strlen(s);
        if (n == k && memcmp(s, m, k) == 0)
            return 1;
        /* "shared::cta" counts as "shared" */
        if (n > k + 1 && memcmp(s, m, k) == 0 && s[k] == ':')
            return 1;
        s = dot ? dot + 1 : NULL;
    }
    return 0;
}

// Element bits of the last type-like modifier (b32, f16, u64, f16x2, tf32).
static int mod_bits(const char *mods)
{
    int bits = 0;
    for (const char *s = mods; s && *s;) {
        const char *dot = strchr(s, '.');
        size_t n = dot ? (size_t)(dot - s) : strlen(s);
        if (n >= 2 && strchr("bfsu", s[0]) && isdigit((unsigned char)s[1])) {
            long long v = 0;
            size_t used = tdx_ir__int(s + 1, n - 1, &v);
            if (used && v > 0 && v <= 128) {
                bits = (int)v;
                if (used + 1 < n && s[1 + used] == 'x') { /* f16x2 */
                    long long m = 0;
                    if (tdx_ir__int(s + 2 + used, n - 2 - used, &m) && m > 0 && m <= 8)
                        bits *= (int)m;
                }
            }
        }
        s = dot ? dot + 1 : NULL;
    }
    return bits;
}

// Class, vector width, element bits and copy size of an instruction.
static void classify(tdx_ir_ptx_insn *in)
{
    const char *op = in->opcode;
    const char *mods = in->mods;
    size_t bn = strcspn(op, ".");
#define BASE(w) (bn == strlen(w) && memcmp(op, w, bn) == 0)
    in->vec = has_mod(mods, "v2") ? 2 : has_mod(mods, "v4") ? 4 : has_mod(mods, "v8") ? 8 : 1;
    in->bits = mod_bits(mods);
    if (BASE("ld") || BASE("st")) {
        int ld = op[0] == 'l';
        if (has_mod(mods, "global"))
            in->cls = ld ? TDX_PTX_LD_GLOBAL : TDX_PTX_ST_GLOBAL;
        else if (has_mod(mods, "shared"))
            in->cls = ld ? TDX_PTX_LD_SHARED : TDX_PTX_ST_SHARED;
        else if (has_mod(mods, "local"))
            in->cls = ld ? TDX_PTX_LD_LOCAL : TDX_PTX_ST_LOCAL;
    } else if (BASE("cp")) {
        if (strncmp(op, "cp.async.bulk", 13) == 0 && strchr(in->operands, '['))
            in->cls = TDX_PTX_CP_ASYNC_BULK;
        else if (strncmp(op, "cp.async.", 9) == 0 && strchr(in->operands, '[')) {
            in->cls = TDX_PTX_CP_ASYNC;
            /* cp-size is the operand after the second address: "[..], [..], 0x10" */
            const char *r = strchr(in->operands, ']');
            r = r ? strchr(r + 1, ']') : NULL;
            r = r ? strchr(r, ',') : NULL;
            if (r) {
                r++;
                while (*r == ' ' || *r == '\t')
                    r++;
                in->bytes = (int)strtol(r, NULL, 0);
                if (in->bytes < 0 || in->bytes > 1 << 20)
                    in->bytes = 0;
            }
        }
    } else if (BASE("wgmma")) {
        if (has_mod(mods, "mma_async"))
            in->cls = TDX_PTX_WGMMA;
    } else if (BASE("mma")) {
        in->cls = TDX_PTX_MMA;
    } else if (BASE("fma")) {
        if (has_mod(mods, "f32"))
            in->cls = TDX_PTX_FMA_F32;
    } else if (BASE("bar") || BASE("barrier")) {
        in->cls = TDX_PTX_BAR;
    } else if (BASE("atom") || BASE("red")) {
        in->cls = TDX_PTX_ATOM;
    } else if (BASE("ldmatrix")) {
        in->cls = TDX_PTX_LDMATRIX;
    } else if (BASE("stmatrix")) {
        in->cls = TDX_PTX_STMATRIX;
    } else if (BASE("shfl")) {
        in->cls = TDX_PTX_SHFL;
    }
#undef BASE
}

// One statement: predicate, opcode, modifiers, operands and the current .loc.
static void add_insn(pp *p, const char *s, size_t n, int ptx_line)
{
    tdx_ir__trim(&s, &n);
    if (!n || strchr(".$}{)", s[0]))
        return;
    if (p->x->ninsns >= MAX_INSNS) {
        p->st = TDX_ERR_TOOBIG;
        return;
    }
    if (p->x->ninsns == p->cap) {
        size_t cap = p->cap ? p->cap * 2 : p->hint;
        tdx_ir_ptx_insn *arr = tdx_arena_alloc(p->a, cap * sizeof *arr);
        if (!arr) {
            p->st = TDX_ERR_NOMEM;
            return;
        }
        if (p->x->insns)
            memcpy(arr, p->x->insns, p->x->ninsns * sizeof *arr);
        p->x->insns = arr;
        p->cap = cap;
    }
    tdx_ir_ptx_insn *in = &p->x->insns[p->x->ninsns];
    memset(in, 0, sizeof *in);
    size_t i = 0;
    if (s[0] == '@') {
        i = 1;
        if (i < n && s[i] == '!') {
            in->pred_neg = 1;
            i++;
        }
        size_t j = i;
        while (j < n && !isspace((unsigned char)s[j]))
            j++;
        in->pred = dupn(p, s + i, j - i);
        i = j;
        while (i < n && isspace((unsigned char)s[i]))
            i++;
    }
    size_t j = i;
    while (j < n && !isspace((unsigned char)s[j]))
        j++;
    if (j == i)
        return;
    in->opcode = dupn(p, s + i, j - i);
    const char *dot = memchr(s + i, '.', j - i);
    in->mods = dot ? dupn(p, dot + 1, (size_t)(s + j - dot - 1)) : "";
    const char *o = s + j;
    size_t on = n - j;
    tdx_ir__trim(&o, &on);
    in->operands = dupn(p, o, on);
    if (!in->opcode || !in->mods || !in->operands)
        return;
    classify(in);
    in->file = p->file;
    in->line = p->line;
    in->col = p->col;
    in->site_line = p->site_line;
    in->site_col = p->site_col;
    in->site_file = p->site_file;
    in->site_file_idx = p->site_fidx;
    in->ptx_line = ptx_line;
    p->x->ninsns++;
}

// ".loc F L C [, function_name X, inlined_at F2 L2 C2]  // f:L:C @[ g:L2:C2 ]"
static void loc_line(pp *p, const char *s, size_t n, const char *comment, size_t cn)
{
    long long f = 0, l = 0, c = 0;
    size_t i = 4, u;
    while (i < n && isspace((unsigned char)s[i]))
        i++;
    if (!(u = tdx_ir__int(s + i, n - i, &f)))
        return;
    i += u;
    while (i < n && isspace((unsigned char)s[i]))
        i++;
    if (!(u = tdx_ir__int(s + i, n - i, &l)))
        return;
    i += u;
    while (i < n && isspace((unsigned char)s[i]))
        i++;
    tdx_ir__int(s + i, n - i, &c);
    p->file = f > 0 && f < 100000 ? (int)f : 0;
    p->line = l > 0 && l < 100000000 ? (int)l : 0;
    p->col = c > 0 && c < 100000 ? (int)c : 0;
    p->site_line = p->line;
    p->site_col = p->col;
    p->site_file = NULL;
    p->site_fidx = 0;
    /* Without a comment, "inlined_at F L C" names the immediate caller; the
     * file index is resolved once the .file table (printed last) is read. */
    for (size_t k = i; k + 10 < n; k++) {
        if (memcmp(s + k, "inlined_at", 10) != 0)
            continue;
        long long v[3] = {0, 0, 0};
        size_t j = k + 10;
        for (int t = 0; t < 3; t++) {
            while (j < n && isspace((unsigned char)s[j]))
                j++;
            size_t used = tdx_ir__int(s + j, n - j, &v[t]);
            if (!used)
                break;
            j += used;
        }
        if (v[0] > 0 && v[0] < 100000 && v[1] > 0 && v[1] < 100000000) {
            p->site_fidx = (int)v[0];
            p->site_line = (int)v[1];
            p->site_col = v[2] > 0 && v[2] < 100000 ? (int)v[2] : 0;
        }
        break;
    }
    /* The outermost inlined-at frame is the last "file:L:C" after "@[". */
    const char *at = NULL;
    for (size_t k = 0; k + 1 < cn; k++)
        if (comment[k] == '@' && comment[k + 1] == '[')
            at = comment + k + 2;
    if (!at)
        return;
    const char *end = comment + cn;
    while (at < end && *at == ' ')
        at++;
    size_t rest = (size_t)(end - at);
    size_t fe = 0;
    while (fe < rest && at[fe] != ':' && at[fe] != ' ' && at[fe] != ']')
        fe++;
    if (fe >= rest || at[fe] != ':')
        return;
    long long sl = 0, sc = 0;
    u = tdx_ir__int(at + fe + 1, rest - fe - 1, &sl);
    if (!u)
        return;
    if (fe + 1 + u < rest && at[fe + 1 + u] == ':')
        tdx_ir__int(at + fe + 2 + u, rest - fe - 2 - u, &sc);
    p->site_fidx = 0;
    p->site_line = sl > 0 && sl < 100000000 ? (int)sl : 0;
    p->site_col = sc > 0 && sc < 100000 ? (int)sc : 0;
    p->site_file = dupn(p, at, fe);
}

// `.file N "path"`.
static void file_line(pp *p, const char *s, size_t n)
{
    long long idx = 0;
    size_t i = 5;
    while (i < n && isspace((unsigned char)s[i]))
        i++;
    size_t u = tdx_ir__int(s + i, n - i, &idx);
    if (!u || idx < 0 || idx > 4096)
        return;
    const char *q = memchr(s + i + u, '"', n - i - u);
    if (!q)
        return;
    const char *q2 = memchr(q + 1, '"', (size_t)(s + n - q - 1));
    if (!q2)
        return;
    while (p->files.len <= (size_t)idx)
        if (tdx_ptrvec_push(p->a, &p->files, NULL))
            return;
    p->files.items[idx] = (void *)dupn(p, q + 1, (size_t)(q2 - q - 1));
}

// Line by line: directives, .loc/.file, and the statements of code lines.
tdx_status tdx_ir_ptx_parse(const char *text, size_t len, tdx_arena *arena, tdx_ir_ptx **out,
                            tdx_diags *diags)
{
    *out = NULL;
    if (!text || !arena)
        return TDX_ERR_ARG;
    if (len > TDX_IR_MAX_INPUT) {
        if (diags)
            tdx_diags_add(diags, TDX_SEV_ERROR, NULL, 0, 0, "ptx: input too large");
        return TDX_ERR_TOOBIG;
    }
    tdx_ir_ptx *x = tdx_arena_alloc(arena, sizeof *x);
    if (!x)
        return TDX_ERR_NOMEM;
    pp p = {.a = arena, .x = x, .hint = tdx_ir__count_semis(text, len)};
    int lineno = 0;
    int in_debug = 0;
    for (size_t i = 0; i < len && p.st == TDX_OK;) {
        const char *nl = memchr(text + i, '\n', len - i);
        size_t e = nl ? (size_t)(nl - text) : len;
        const char *s = text + i;
        size_t n = e - i;
        i = e + 1;
        lineno++;
        /* Split off a // comment (no string literals contain "//" in PTX
         * code lines; .file paths are handled before this). */
        const char *comment = NULL;
        size_t cn = 0;
        tdx_ir__trim(&s, &n);
        if (n >= 5 && memcmp(s, ".file", 5) == 0 && (n == 5 || isspace((unsigned char)s[5]))) {
            file_line(&p, s, n);
            continue;
        }
        for (size_t k = 0; k + 1 < n; k++)
            if (s[k] == '/' && s[k + 1] == '/') {
                comment = s + k + 2;
                cn = n - k - 2;
                n = k;
                break;
            }
        tdx_ir__trim(&s, &n);
        if (!n)
            continue;
        if (s[0] == '.') {
            if (n >= 4 && memcmp(s, ".loc", 4) == 0 && (n == 4 || isspace((unsigned char)s[4])))
                loc_line(&p, s, n, comment, cn);
            else if (n > 8 && memcmp(s, ".version", 8) == 0)
                x->version = dupn(&p, s + 9, n - 9);
            else if (n > 7 && memcmp(s, ".target", 7) == 0)
                x->target = dupn(&p, s + 8, n - 8);
            else if (n > 8 && memcmp(s, ".section", 8) == 0)
            {
                in_debug = 0;
                for (size_t k = 8; k + 6 <= n; k++)
                    if (memcmp(s + k, ".debug", 6) == 0)
                        in_debug = 1;
            }
            else if (!x->entry) {
                const char *en = NULL;
                for (size_t k = 0; k + 6 < n; k++)
                    if (memcmp(s + k, ".entry", 6) == 0 && isspace((unsigned char)s[k + 6])) {
                        en = s + k + 7;
                        break;
                    }
                if (en) {
                    while (en < s + n && isspace((unsigned char)*en))
                        en++;
                    size_t l = 0;
                    while (en + l < s + n && (isalnum((unsigned char)en[l]) || en[l] == '_' ||
                                              en[l] == '$'))
                        l++;
                    x->entry = dupn(&p, en, l);
                }
            }
            continue;
        }
        if (in_debug)
            continue;
        /* One line may hold several statements ("{ .reg .b32 t; mov ...; }"). */
        while (n && (s[0] == '{' || s[0] == '}')) {
            s++;
            n--;
        }
        size_t start = 0;
        for (size_t k = 0; k <= n; k++) {
            if (k == n || s[k] == ';') {
                add_insn(&p, s + start, k - start, lineno);
                start = k + 1;
            }
        }
    }
    x->files = (const char **)p.files.items;
    x->nfiles = p.files.len;
    for (size_t i = 0; i < x->ninsns; i++) {
        tdx_ir_ptx_insn *in = &x->insns[i];
        if (!in->site_file && in->site_file_idx > 0 && (size_t)in->site_file_idx < x->nfiles &&
            x->files[in->site_file_idx])
            in->site_file = x->files[in->site_file_idx];
    }
    *out = x;
    if (p.st != TDX_OK && diags)
        tdx_diags_add(diags, TDX_SEV_ERROR, NULL, lineno, 0, "ptx: %s", tdx_status_str(p.st));
    return p.st;
}
