/* The SASS parser for `nvdisasm -g -c` and `cuobjdump -sass` text. nvdisasm
 * with -g writes `//## File "path", line N` above the instructions of that
 * source line (optionally followed by `, inlined at ...`); each instruction
 * line is `/ *0x0040* /  [@!P0] OPCODE.MODS operands ;` with the address in a
 * comment (written here with spaces so this comment stays one). cuobjdump
 * adds the encoding as a trailing `/ * 0x... * /` comment and on lines of its
 * own, which carry no instruction. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "ir/ir_int.h"

#define MAX_INSNS ((size_t)2 << 20)

typedef struct sp {
    tdx_arena *a;
    tdx_ir_sass *x;
    size_t cap;
    size_t hint; /* first capacity: an upper bound from counting ';' */
    const char *file;
    int line;
} sp;

// Access width in bits of a memory opcode: LDG.E.128 → 128, LDG.E → 32, .U16 → 16.
static int access_width(const char *opcode)
{
    int w = 32;
    for (const char *s = strchr(opcode, '.'); s; s = strchr(s + 1, '.')) {
        const char *m = s + 1;
        size_t n = strcspn(m, ".");
        if ((n == 2 || n == 3) && isdigit((unsigned char)m[0]) && strspn(m, "0123456789") == n)
            w = atoi(m); // NOLINT(cert-err34-c): two or three digits, checked above
        else if ((n == 3 || n == 2) && (m[0] == 'U' || m[0] == 'S') && isdigit((unsigned char)m[1]))
            w = atoi(m + 1); // NOLINT(cert-err34-c): a digit follows, checked above
    }
    return w;
}

// 1 for memory opcodes whose width suffix means bits per access.
static int is_mem(const char *base)
{
    static const char *const mem[] = {"LDG", "STG", "LDL", "STL", "LDS", "STS", "LD", "ST",
                                      "LDGSTS", "ATOMG", "RED", "LDC"};
    for (size_t i = 0; i < sizeof mem / sizeof mem[0]; i++)
        if (strcmp(base, mem[i]) == 0)
            return 1;
    return 0;
}

// `//## File "path", line N`: the line of what follows.
static void file_comment(sp *p, const char *s, size_t n)
{
    const char *q = memchr(s, '"', n);
    if (!q)
        return;
    const char *q2 = memchr(q + 1, '"', (size_t)(s + n - q - 1));
    if (!q2)
        return;
    p->file = tdx_arena_strndup(p->a, q + 1, (size_t)(q2 - q - 1));
    const char *ln = NULL;
    for (const char *k = q2; k + 5 <= s + n; k++)
        if (memcmp(k, "line ", 5) == 0) {
            ln = k + 5;
            break;
        }
    long long v = 0;
    if (ln && tdx_ir__int(ln, (size_t)(s + n - ln), &v) && v > 0 && v < 100000000)
        p->line = (int)v;
    else
        p->line = 0;
}

// One statement: predicate, opcode, modifiers, operands and the current .loc.
static int add_insn(sp *p, const char *s, size_t n, unsigned addr)
{
    tdx_ir__trim(&s, &n);
    if (n && s[n - 1] == ';')
        n--;
    tdx_ir__trim(&s, &n);
    if (!n)
        return 0;
    if (p->x->ninsns >= MAX_INSNS)
        return -1;
    if (p->x->ninsns == p->cap) {
        size_t cap = p->cap ? p->cap * 2 : p->hint;
        tdx_ir_sass_insn *arr = tdx_arena_alloc(p->a, cap * sizeof *arr);
        if (!arr)
            return -1;
        if (p->x->insns)
            memcpy(arr, p->x->insns, p->x->ninsns * sizeof *arr);
        p->x->insns = arr;
        p->cap = cap;
    }
    tdx_ir_sass_insn *in = &p->x->insns[p->x->ninsns];
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
        in->pred = tdx_arena_strndup(p->a, s + i, j - i);
        i = j;
        while (i < n && isspace((unsigned char)s[i]))
            i++;
    }
    size_t j = i;
    while (j < n && !isspace((unsigned char)s[j]))
        j++;
    if (j == i)
        return 0;
    in->opcode = tdx_arena_strndup(p->a, s + i, j - i);
    size_t bl = strcspn(in->opcode ? in->opcode : "", ".");
    in->base = tdx_arena_strndup(p->a, s + i, bl);
    const char *o = s + j;
    size_t on = n - j;
    tdx_ir__trim(&o, &on);
    in->operands = tdx_arena_strndup(p->a, o, on);
    if (!in->opcode || !in->base || !in->operands)
        return -1;
    in->addr = addr;
    in->file = p->file;
    in->line = p->line;
    if (is_mem(in->base) && strcmp(in->base, "LDC") != 0)
        in->width = access_width(in->opcode);
    p->x->ninsns++;
    return 0;
}

// Line by line: line comments, instruction lines, the first function label.
tdx_status tdx_ir_sass_parse(const char *text, size_t len, tdx_arena *arena, tdx_ir_sass **out,
                             tdx_diags *diags)
{
    *out = NULL;
    if (!text || !arena)
        return TDX_ERR_ARG;
    if (len > TDX_IR_MAX_INPUT) {
        if (diags)
            tdx_diags_add(diags, TDX_SEV_ERROR, NULL, 0, 0, "sass: input too large");
        return TDX_ERR_TOOBIG;
    }
    tdx_ir_sass *x = tdx_arena_alloc(arena, sizeof *x);
    if (!x)
        return TDX_ERR_NOMEM;
    sp p = {.a = arena, .x = x, .hint = tdx_ir__count_semis(text, len)};
    int lineno = 0;
    for (size_t i = 0; i < len;) {
        const char *nl = memchr(text + i, '\n', len - i);
        size_t e = nl ? (size_t)(nl - text) : len;
        const char *s = text + i;
        size_t n = e - i;
        i = e + 1;
        lineno++;
        tdx_ir__trim(&s, &n);
        if (n >= 4 && memcmp(s, "//##", 4) == 0) {
            file_comment(&p, s, n);
            continue;
        }
        if (n >= 2 && s[0] == '/' && s[1] == '*') {
            /* "/ *0040* /" address, then the instruction up to ';' */
            const char *close = NULL;
            for (size_t k = 2; k + 1 < n; k++)
                if (s[k] == '*' && s[k + 1] == '/') {
                    close = s + k;
                    break;
                }
            if (!close)
                continue;
            unsigned addr = 0;
            for (const char *h = s + 2; h < close && isxdigit((unsigned char)*h); h++)
                addr = addr * 16 + (unsigned)(isdigit((unsigned char)*h) ? *h - '0'
                                                                       : (*h | 0x20) - 'a' + 10);
            const char *ins = close + 2;
            size_t in_n = (size_t)(s + n - ins);
            const char *semi = memchr(ins, ';', in_n);
            if (!semi)
                continue; /* an encoding-only line */
            if (add_insn(&p, ins, (size_t)(semi - ins), addr)) {
                if (diags)
                    tdx_diags_add(diags, TDX_SEV_ERROR, NULL, lineno, 0,
                                  "sass: too many instructions");
                *out = x;
                return TDX_ERR_TOOBIG;
            }
            continue;
        }
        /* "name:" labels; the first function label names the function. */
        if (n > 1 && s[n - 1] == ':' && !x->function && s[0] != '.' && s[0] != '/') {
            x->function = tdx_arena_strndup(arena, s, n - 1);
            continue;
        }
        if (n > 11 && memcmp(s, "Function : ", 11) == 0 && !x->function) /* cuobjdump */
            x->function = tdx_arena_strndup(arena, s + 11, n - 11);
    }
    *out = x;
    return TDX_OK;
}

// Count by base opcode or opcode prefix at a line.
size_t tdx_ir_sass_count(const tdx_ir_sass *s, int line, const char *base)
{
    if (!s || !base)
        return 0;
    size_t k = strlen(base), c = 0;
    for (size_t i = 0; i < s->ninsns; i++) {
        const tdx_ir_sass_insn *in = &s->insns[i];
        if (line && in->line != line)
            continue;
        if (strcmp(in->base, base) == 0 ||
            (strncmp(in->opcode, base, k) == 0 && (in->opcode[k] == '.' || in->opcode[k] == 0)))
            c++;
    }
    return c;
}
