/* MLIR text scanning helpers, attribute dicts, types and TritonGPU layout
 * attributes (#ttg.blocked, #ttg.nvidia_mma, #ttg.slice, #ttg.dot_op, the
 * shared encodings, #ttg.linear). */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "ir/ir_int.h"

// The closing bracket for an opener, 0 for other characters.
static char closer_of(char c)
{
    switch (c) {
    case '(': return ')';
    case '[': return ']';
    case '{': return '}';
    case '<': return '>';
    default: return 0;
    }
}

// Skip a "..." string starting at s[i]; returns the index after it (n if open).
static size_t skip_string(const char *s, size_t i, size_t n)
{
    for (i++; i < n; i++) {
        if (s[i] == '\\')
            i++;
        else if (s[i] == '"')
            return i + 1;
    }
    return n;
}

// Bracket matching with a fixed-size stack (see ir_int.h).
size_t tdx_ir__match(const char *s, size_t i, size_t n)
{
    char stack[TDX_IR_MAX_DEPTH];
    int d = 0;
    while (i < n) {
        char c = s[i];
        if (c == '"') {
            i = skip_string(s, i, n);
            continue;
        }
        if (c == '-' && i + 1 < n && s[i + 1] == '>') {
            i += 2;
            continue;
        }
        char cl = closer_of(c);
        if (cl) {
            if (d == TDX_IR_MAX_DEPTH)
                return n;
            stack[d++] = cl;
        } else if (c == ')' || c == ']' || c == '}' || c == '>') {
            if (d == 0 || stack[d - 1] != c)
                return n;
            if (--d == 0)
                return i;
        }
        i++;
    }
    return n;
}

// Search outside brackets and strings (see ir_int.h).
size_t tdx_ir__find_top(const char *s, size_t n, const char *needle)
{
    size_t k = strlen(needle);
    size_t i = 0;
    while (i < n) {
        char c = s[i];
        if (k && c == needle[0] && i + k <= n && memcmp(s + i, needle, k) == 0)
            return i;
        if (c == '"') {
            i = skip_string(s, i, n);
        } else if (c == '-' && i + 1 < n && s[i + 1] == '>') {
            i += 2;
        } else if (closer_of(c)) {
            size_t j = tdx_ir__match(s, i, n);
            if (j >= n)
                return n;
            i = j + 1;
        } else {
            i++;
        }
    }
    return n;
}

// Blank characters, line ends included.
static int is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

// Trim blanks and line ends at both ends.
void tdx_ir__trim(const char **s, size_t *n)
{
    while (*n && is_space((*s)[0]))
        (*s)++, (*n)--;
    while (*n && is_space((*s)[*n - 1]))
        (*n)--;
}

// Split at a top-level separator (see ir_int.h).
size_t tdx_ir__split_top(const char *s, size_t n, const char *sep,
                         void (*fn)(const char *, size_t, void *), void *ctx)
{
    size_t parts = 0, k = strlen(sep);
    while (n) {
        size_t j = tdx_ir__find_top(s, n, sep);
        const char *p = s;
        size_t pn = j;
        tdx_ir__trim(&p, &pn);
        if (pn) {
            fn(p, pn, ctx);
            parts++;
        }
        if (j >= n)
            break;
        s += j + k;
        n -= j + k;
    }
    return parts;
}

// A bounded decimal integer (see ir_int.h).
size_t tdx_ir__int(const char *s, size_t n, long long *out)
{
    size_t i = 0;
    int neg = 0;
    if (i < n && (s[i] == '-' || s[i] == '+'))
        neg = s[i++] == '-';
    size_t start = i;
    long long v = 0;
    while (i < n && isdigit((unsigned char)s[i])) {
        if (v < 100000000000000LL)
            v = v * 10 + (s[i] - '0');
        i++;
    }
    if (i == start)
        return 0;
    *out = neg ? -v : v;
    return i;
}

// Bit width of a scalar type name (see ir_int.h).
int tdx_ir__type_bits(const char *s, size_t n)
{
    long long v = 0;
    if (n >= 2 && (s[0] == 'i' || s[0] == 'f' || s[0] == 'u') && isdigit((unsigned char)s[1])) {
        if (tdx_ir__int(s + 1, n - 1, &v) && v > 0 && v <= 1024)
            return (int)v;
        return 0;
    }
    if (n >= 2 && s[0] == 's' && s[1] == 'i' && n > 2 && tdx_ir__int(s + 2, n - 2, &v))
        return (int)(v > 0 && v <= 1024 ? v : 0);
    if (n >= 4 && memcmp(s, "bf16", 4) == 0)
        return 16;
    if (n >= 2 && s[0] == 'f' && s[1] == '8')
        return 8;
    if (n == 5 && memcmp(s, "index", 5) == 0)
        return 64;
    if (n == 4 && memcmp(s, "tf32", 4) == 0)
        return 32;
    return 0;
}

// An upper bound on statements: the ';' count (see ir_int.h).
size_t tdx_ir__count_semis(const char *s, size_t n)
{
    size_t c = 16;
    for (const char *e = s + n; (s = memchr(s, ';', (size_t)(e - s))) != NULL; s++)
        c++;
    return c;
}

// The part of a path after its last '/'.
const char *tdx_ir__basename(const char *path)
{
    if (!path)
        return NULL;
    const char *b = strrchr(path, '/');
    return b ? b + 1 : path;
}

// Path equality up to a leading directory (see ir_int.h).
int tdx_ir__same_file(const char *a, const char *b)
{
    if (!a || !b)
        return 0;
    size_t la = strlen(a), lb = strlen(b);
    if (la == lb)
        return strcmp(a, b) == 0;
    const char *lng = la > lb ? a : b, *sht = la > lb ? b : a;
    size_t ll = la > lb ? la : lb, ls = la > lb ? lb : la;
    return strcmp(lng + ll - ls, sht) == 0 && lng[ll - ls - 1] == '/';
}

typedef struct attr_ctx {
    tdx_arena *a;
    tdx_ptrvec v;
} attr_ctx;

// One `name = value` (or unit) attribute (split_top callback).
static void add_attr(const char *s, size_t n, void *vctx)
{
    attr_ctx *c = vctx;
    tdx_ir_attr *at = tdx_arena_alloc(c->a, sizeof *at);
    if (!at)
        return;
    size_t eq = tdx_ir__find_top(s, n, "=");
    const char *k = s;
    size_t kn = eq < n ? eq : n;
    tdx_ir__trim(&k, &kn);
    if (kn >= 2 && k[0] == '"' && k[kn - 1] == '"')
        k++, kn -= 2;
    at->name = tdx_arena_strndup(c->a, k, kn);
    if (eq < n) {
        const char *v = s + eq + 1;
        size_t vn = n - eq - 1;
        tdx_ir__trim(&v, &vn);
        at->value = tdx_arena_strndup(c->a, v, vn);
    } else {
        at->value = "";
    }
    if (at->name && at->value)
        tdx_ptrvec_push(c->a, &c->v, at);
}

// Append the attributes of a dict body to an attribute array.
void tdx_ir__parse_attrs(tdx_arena *a, const char *s, size_t n, tdx_ir_attr **attrs, size_t *nattrs)
{
    attr_ctx c = {a, {0}};
    tdx_ir__split_top(s, n, ",", add_attr, &c);
    if (!c.v.len)
        return;
    tdx_ir_attr *arr = tdx_arena_alloc(a, sizeof *arr * (c.v.len + *nattrs));
    if (!arr)
        return;
    for (size_t i = 0; i < *nattrs; i++)
        arr[i] = (*attrs)[i];
    for (size_t i = 0; i < c.v.len; i++)
        arr[*nattrs + i] = *(tdx_ir_attr *)c.v.items[i];
    *attrs = arr;
    *nattrs += c.v.len;
}

/* ---- layouts ---------------------------------------------------------------- */

// Parse "[1, 8]" into out (at most TDX_IR_MAX_RANK entries); returns the count.
static int int_list(const char *s, size_t n, int *out)
{
    tdx_ir__trim(&s, &n);
    if (n < 2 || s[0] != '[')
        return 0;
    int k = 0;
    for (size_t i = 1; i < n && k < TDX_IR_MAX_RANK;) {
        long long v;
        size_t used = tdx_ir__int(s + i, n - i, &v);
        if (used) {
            out[k++] = (int)v;
            i += used;
        } else if (s[i] == '[') {
            return 0; /* nested lists (linear layouts) are kept as text only */
        } else {
            i++;
        }
    }
    return k;
}

// An integer or boolean attribute value.
static int int_value(const char *s, size_t n)
{
    long long v = 0;
    tdx_ir__trim(&s, &n);
    if (n >= 4 && memcmp(s, "true", 4) == 0)
        return 1;
    tdx_ir__int(s, n, &v);
    return (int)v;
}

typedef struct layout_ctx {
    tdx_arena *a;
    const tdx_ir_module *m;
    tdx_ir_layout *l;
} layout_ctx;

// 1 when the key s[0..kn) is want.
static int key_is(const char *k, size_t kn, const char *want)
{
    return strlen(want) == kn && memcmp(k, want, kn) == 0;
}

// One `key = value` of a layout's parameters.
static void layout_field(const char *s, size_t n, void *vctx)
{
    layout_ctx *c = vctx;
    tdx_ir_layout *l = c->l;
    size_t eq = tdx_ir__find_top(s, n, "=");
    if (eq >= n)
        return;
    const char *k = s, *v = s + eq + 1;
    size_t kn = eq, vn = n - eq - 1;
    tdx_ir__trim(&k, &kn);
    tdx_ir__trim(&v, &vn);
    int r;
    if (key_is(k, kn, "sizePerThread")) {
        r = int_list(v, vn, l->size_per_thread);
        if (r > l->rank)
            l->rank = r;
    } else if (key_is(k, kn, "threadsPerWarp")) {
        int_list(v, vn, l->threads_per_warp);
    } else if (key_is(k, kn, "warpsPerCTA")) {
        r = int_list(v, vn, l->warps_per_cta);
        if (r > l->rank)
            l->rank = r;
    } else if (key_is(k, kn, "order")) {
        int_list(v, vn, l->order);
    } else if (key_is(k, kn, "versionMajor")) {
        l->version_major = int_value(v, vn);
    } else if (key_is(k, kn, "versionMinor")) {
        l->version_minor = int_value(v, vn);
    } else if (key_is(k, kn, "instrShape")) {
        int tmp[TDX_IR_MAX_RANK];
        int cnt = int_list(v, vn, tmp);
        l->ninstr = cnt > 3 ? 3 : cnt;
        for (int i = 0; i < l->ninstr; i++)
            l->instr_shape[i] = tmp[i];
    } else if (key_is(k, kn, "dim")) {
        l->dim = int_value(v, vn);
    } else if (key_is(k, kn, "opIdx")) {
        l->op_idx = int_value(v, vn);
    } else if (key_is(k, kn, "kWidth")) {
        l->k_width = int_value(v, vn);
    } else if (key_is(k, kn, "swizzlingByteWidth")) {
        l->swizzle_bytes = int_value(v, vn);
    } else if (key_is(k, kn, "transposed")) {
        l->transposed = int_value(v, vn);
    } else if (key_is(k, kn, "elementBitWidth")) {
        l->elem_bits = int_value(v, vn);
    } else if (key_is(k, kn, "vec")) {
        l->vec = int_value(v, vn);
    } else if (key_is(k, kn, "perPhase")) {
        l->per_phase = int_value(v, vn);
    } else if (key_is(k, kn, "maxPhase")) {
        l->max_phase = int_value(v, vn);
    } else if (key_is(k, kn, "parent")) {
        if (vn && v[0] == '#' && !memchr(v, '<', vn) && c->m) {
            char name[128];
            size_t ln = vn - 1 < sizeof name - 1 ? vn - 1 : sizeof name - 1;
            memcpy(name, v + 1, ln);
            name[ln] = 0;
            l->parent = tdx_ir_layout_find(c->m, name);
        } else {
            l->parent = tdx_ir_layout_parse(c->a, v, vn, c->m);
        }
    }
}

// A layout attribute: its kind from the name, then its parameters.
tdx_ir_layout *tdx_ir_layout_parse(tdx_arena *a, const char *text, size_t len,
                                   const tdx_ir_module *m)
{
    const char *s = text;
    size_t n = len;
    tdx_ir__trim(&s, &n);
    if (n < 2 || s[0] != '#')
        return NULL;
    size_t lt = 0;
    while (lt < n && s[lt] != '<')
        lt++;
    const char *kind = s + 1;
    size_t kn = lt - 1;
    const char *dot = memchr(kind, '.', kn);
    if (dot) {
        kn -= (size_t)(dot + 1 - kind);
        kind = dot + 1;
    }
    tdx_ir_layout *l = tdx_arena_alloc(a, sizeof *l);
    if (!l)
        return NULL;
    l->text = tdx_arena_strndup(a, s, n);
    static const struct { const char *name; tdx_ir_layout_kind kind; } kinds[] = {
        {"blocked", TDX_IR_LAYOUT_BLOCKED},        {"nvidia_mma", TDX_IR_LAYOUT_NVIDIA_MMA},
        {"nvmma_shared", TDX_IR_LAYOUT_NVMMA_SHARED},
        {"swizzled_shared", TDX_IR_LAYOUT_SWIZZLED_SHARED},
        {"slice", TDX_IR_LAYOUT_SLICE},            {"dot_op", TDX_IR_LAYOUT_DOT_OP},
        {"linear", TDX_IR_LAYOUT_LINEAR},          {"shared_memory", TDX_IR_LAYOUT_SHARED_MEMORY},
    };
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (key_is(kind, kn, kinds[i].name))
            l->kind = kinds[i].kind;
    if (lt < n) {
        size_t close = tdx_ir__match(s, lt, n);
        if (close < n && lt + 1 < close && s[lt + 1] == '{') {
            size_t bclose = tdx_ir__match(s, lt + 1, n);
            if (bclose < close) {
                layout_ctx c = {a, m, l};
                tdx_ir__split_top(s + lt + 2, bclose - lt - 2, ",", layout_field, &c);
            }
        }
    }
    return l;
}

// An aliased layout by name (without '#').
const tdx_ir_layout *tdx_ir_layout_find(const tdx_ir_module *m, const char *alias)
{
    if (!m || !alias)
        return NULL;
    for (size_t i = 0; i < m->layouts.len; i++) {
        const tdx_ir_layout *l = m->layouts.items[i];
        if (l->alias && strcmp(l->alias, alias) == 0)
            return l;
    }
    return NULL;
}

// Elements per thread along the fastest dim (see ir.h).
int tdx_ir_layout_contig(const tdx_ir_layout *l)
{
    if (!l)
        return 0;
    if (l->kind == TDX_IR_LAYOUT_BLOCKED && l->rank > 0) {
        int d = l->order[0];
        return d >= 0 && d < l->rank ? l->size_per_thread[d] : 0;
    }
    if (l->kind == TDX_IR_LAYOUT_SLICE && l->parent &&
        l->parent->kind == TDX_IR_LAYOUT_BLOCKED) {
        /* The sliced tensor keeps the parent's dims minus `dim`: its fastest
         * dim is the first of the parent's order that is not sliced away. */
        const tdx_ir_layout *p = l->parent;
        for (int i = 0; i < p->rank; i++) {
            int d = p->order[i];
            if (d != l->dim && d >= 0 && d < p->rank)
                return p->size_per_thread[d];
        }
    }
    return 0;
}

/* ---- types ---------------------------------------------------------------------- */

// Parse "128x64xf16, rest" dims and element; returns the index after the element.
static size_t shape_elem(tdx_arena *a, const char *s, size_t n, tdx_ir_type *t)
{
    size_t i = 0;
    while (i < n) {
        long long v;
        size_t used = tdx_ir__int(s + i, n - i, &v);
        if (!used && s[i] == '?') {
            used = 1;
            v = -1;
        }
        if (!used || i + used >= n || s[i + used] != 'x')
            break;
        if (t->rank < TDX_IR_MAX_RANK)
            t->shape[t->rank++] = v;
        i += used + 1;
    }
    size_t e = i + tdx_ir__find_top(s + i, n - i, ",");
    const char *el = s + i;
    size_t en = e - i;
    tdx_ir__trim(&el, &en);
    if (en > 8 && memcmp(el, "!tt.ptr<", 8) == 0) {
        t->elem = "ptr";
        size_t close = tdx_ir__match(el, 7, en);
        size_t pe = close < en ? close : en;
        const char *pt = el + 8;
        size_t pn = pe > 8 ? pe - 8 : 0;
        size_t comma = tdx_ir__find_top(pt, pn, ",");
        pn = comma;
        tdx_ir__trim(&pt, &pn);
        t->pointee = tdx_arena_strndup(a, pt, pn);
        t->elem_bits = tdx_ir__type_bits(pt, pn);
    } else {
        t->elem = tdx_arena_strndup(a, el, en);
        t->elem_bits = tdx_ir__type_bits(el, en);
    }
    return e;
}

// After the element: ", #layout, #smem, mutable" style trailers.
static void trailers(tdx_arena *a, const char *s, size_t n, tdx_ir_module *m, tdx_ir_type *t)
{
    while (n) {
        size_t j = tdx_ir__find_top(s, n, ",");
        const char *p = s;
        size_t pn = j;
        tdx_ir__trim(&p, &pn);
        if (pn > 1 && p[0] == '#' && !t->layout) {
            if (memchr(p, '<', pn)) {
                t->layout = tdx_ir_layout_parse(a, p, pn, m);
            } else {
                char name[128];
                size_t ln = pn - 1 < sizeof name - 1 ? pn - 1 : sizeof name - 1;
                memcpy(name, p + 1, ln);
                name[ln] = 0;
                t->layout = tdx_ir_layout_find(m, name);
            }
        } else if (pn == 7 && memcmp(p, "mutable", 7) == 0) {
            t->mutable_ = 1;
        }
        if (j >= n)
            break;
        s += j + 1;
        n -= j + 1;
    }
}

// A type: tensor, memdesc (long or short form), pointer, token or scalar.
void tdx_ir_type_parse(tdx_arena *a, const char *text, size_t len, tdx_ir_module *m,
                       tdx_ir_type *t)
{
    memset(t, 0, sizeof *t);
    const char *s = text;
    size_t n = len;
    tdx_ir__trim(&s, &n);
    t->text = tdx_arena_strndup(a, s, n);
    t->kind = TDX_IR_TYPE_OTHER;
    size_t open = 0;
    if (n > 7 && memcmp(s, "tensor<", 7) == 0) {
        t->kind = TDX_IR_TYPE_TENSOR;
        open = 6;
    } else if (n > 13 && memcmp(s, "!ttg.memdesc<", 13) == 0) {
        t->kind = TDX_IR_TYPE_MEMDESC;
        open = 12;
    } else if (n > 1 && s[0] == '<') {
        t->kind = TDX_IR_TYPE_MEMDESC; /* the short form printed after "->" */
        open = 0;
    } else if (n > 8 && memcmp(s, "!tt.ptr<", 8) == 0) {
        t->kind = TDX_IR_TYPE_PTR;
        t->elem = "ptr";
        size_t close = tdx_ir__match(s, 7, n);
        const char *pt = s + 8;
        size_t pn = (close < n ? close : n) - 8;
        pn = tdx_ir__find_top(pt, pn, ",");
        tdx_ir__trim(&pt, &pn);
        t->pointee = tdx_arena_strndup(a, pt, pn);
        t->elem_bits = tdx_ir__type_bits(pt, pn);
        return;
    } else if (n && s[0] == '!') {
        t->kind = TDX_IR_TYPE_TOKEN;
        return;
    } else {
        int bits = tdx_ir__type_bits(s, n);
        if (bits) {
            t->kind = TDX_IR_TYPE_SCALAR;
            t->elem = t->text;
            t->elem_bits = bits;
        }
        return;
    }
    size_t close = tdx_ir__match(s, open, n);
    if (close >= n) {
        t->kind = TDX_IR_TYPE_OTHER;
        return;
    }
    const char *in = s + open + 1;
    size_t inn = close - open - 1;
    size_t e = shape_elem(a, in, inn, t);
    if (e < inn)
        trailers(a, in + e + 1, inn - e - 1, m, t);
}
