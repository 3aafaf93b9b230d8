/* Unit tests of the Python tokenizer and parser: tokens, tree helpers,
 * kernel discovery, literal values, tolerance, errors and limits. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "source/ast.h"
#include "source/token.h"

typedef struct fixture {
    tdx_arena arena;
    tdx_diags diags;
    tdx_src_module *m;
    tdx_status st;
} fixture;

// Parse src into a fresh fixture (the caller frees it with done()).
static fixture *parse(const char *src)
{
    fixture *f = calloc(1, sizeof *f);
    assert_non_null(f);
    tdx_arena_init(&f->arena, 0);
    tdx_diags_init(&f->diags);
    f->st = tdx_src_parse("t.py", src, strlen(src), &f->arena, &f->diags, &f->m);
    return f;
}

static void done(fixture *f)
{
    tdx_diags_free(&f->diags);
    tdx_arena_free(&f->arena);
    free(f);
}

// The n-th statement of the module (or of a def's body).
static tdx_src_node *stmt(tdx_src_node *parent, size_t n)
{
    tdx_src_node *s = tdx_src_next(parent, TDX_SRC_R_BODY, NULL);
    while (s && n--)
        s = tdx_src_next(parent, TDX_SRC_R_BODY, s);
    assert_non_null(s);
    return s;
}

static void tokens_have_indent_and_spans(void **state)
{
    (void)state;
    const char *src = "if x:\n    y = (1,\n  2)\n# c\nz\n";
    tdx_arena a;
    tdx_arena_init(&a, 0);
    tdx_src_tokens t;
    assert_int_equal(tdx_src_tokenize("t.py", src, strlen(src), &a, NULL, &t), TDX_OK);
    const char *want[] = {"NAME", "NAME", "OP", "NEWLINE", "INDENT", "NAME", "OP", "OP",
                          "NUMBER", "OP", "NUMBER", "OP", "NEWLINE", "DEDENT", "NAME",
                          "NEWLINE", "EOF"};
    assert_int_equal(t.len, sizeof want / sizeof want[0]);
    for (size_t i = 0; i < t.len; i++)
        assert_string_equal(tdx_src_tok_kind_str(t.items[i].kind), want[i]);
    assert_int_equal(t.items[0].kw, TDX_KW_IF);
    assert_int_equal(t.items[10].line, 3); /* `2` on the joined line */
    assert_int_equal(t.items[10].col, 3);
    assert_int_equal(t.items[14].line, 5);
    assert_int_equal(t.items[14].start, (uint32_t)(strchr(src, 'z') - src));
    tdx_arena_free(&a);
}

static void dotted_names_and_calls(void **state)
{
    (void)state;
    fixture *f = parse("y = tl.load(p + o, mask=m, other=0.0)\nz = f(a)(b).c\n");
    assert_int_equal(f->st, TDX_OK);
    tdx_src_node *call = tdx_src_kid(stmt(f->m->root, 0), TDX_SRC_R_VALUE);
    assert_int_equal(call->kind, TDX_SRC_CALL);
    tdx_src_node *fn = tdx_src_call_func(call);
    assert_string_equal(tdx_src_dotted(fn, &f->arena), "tl.load");
    assert_true(tdx_src_is_dotted(fn, "tl.load"));
    assert_false(tdx_src_is_dotted(fn, "l.load"));
    assert_false(tdx_src_is_dotted(fn, "tl.loa"));
    assert_false(tdx_src_is_dotted(fn, "x.tl.load"));
    assert_int_equal(tdx_src_call_nargs(call), 1);
    assert_int_equal(tdx_src_call_arg(call, 0)->kind, TDX_SRC_BINOP);
    assert_null(tdx_src_call_arg(call, 1));
    assert_string_equal(tdx_src_call_kwarg(call, "mask")->name, "m");
    assert_null(tdx_src_call_kwarg(call, "nope"));
    size_t len;
    const char *t = tdx_src_text(f->m, tdx_src_call_kwarg(call, "other"), &len);
    assert_int_equal(len, 3);
    assert_memory_equal(t, "0.0", 3);
    int nkw = 0;
    for (tdx_src_node *k = tdx_src_next(call, TDX_SRC_R_KEYWORD, NULL); k;
         k = tdx_src_next(call, TDX_SRC_R_KEYWORD, k))
        nkw++;
    assert_int_equal(nkw, 2);
    tdx_src_node *chain = tdx_src_kid(stmt(f->m->root, 1), TDX_SRC_R_VALUE);
    assert_null(tdx_src_dotted(chain, &f->arena)); /* calls in the chain */
    done(f);
}

static void kernels_are_found_however_decorated(void **state)
{
    (void)state;
    fixture *f = parse("@triton.autotune(configs=[], key=['n'])\n"
                       "@triton.jit(do_not_specialize=['s'])\n"
                       "def a(x, BLOCK: tl.constexpr = 128, s=1): pass\n"
                       "@jit\ndef b(x): pass\n"
                       "@torch.no_grad()\ndef c(x): pass\n"
                       "@numba.jit\ndef e(x): pass\n"
                       "@torch.jit.script\ndef g(x): pass\n"
                       "class K:\n    @triton.jit\n    def d(x, N: 'tl.constexpr'): pass\n"
                       "def launch(x):\n    a[(1,)](x, BLOCK=64)\n");
    assert_int_equal(f->st, TDX_OK);
    tdx_ptrvec v = {0};
    assert_int_equal(tdx_src_find_jit(f->m, &f->arena, &v), 3);
    tdx_src_node *a = v.items[0];
    assert_string_equal(a->name, "a");
    assert_string_equal(((tdx_src_node *)v.items[1])->name, "b");
    assert_string_equal(((tdx_src_node *)v.items[2])->name, "d");
    assert_non_null(tdx_src_decorator(a, "triton.autotune"));
    assert_non_null(tdx_src_decorator(a, "triton.jit"));
    assert_null(tdx_src_decorator(a, "triton.heuristics"));
    assert_false(tdx_src_is_jit(tdx_src_find_def(f->m, "c")));
    tdx_src_node *blk = tdx_src_param(a, "BLOCK");
    assert_non_null(blk);
    assert_true(tdx_src_param_is_constexpr(blk));
    assert_false(tdx_src_param_is_constexpr(tdx_src_param(a, "x")));
    long long dv = 0;
    assert_int_equal(tdx_src_int_value(f->m, tdx_src_kid(blk, TDX_SRC_R_DEFAULT), &dv), TDX_OK);
    assert_int_equal(dv, 128);
    /* the launch inside a plain def */
    tdx_src_node *launch = tdx_src_find_def(f->m, "launch");
    tdx_src_node *call = tdx_src_kid(stmt(launch, 0), TDX_SRC_R_VALUE);
    tdx_src_node *kernel, *grid;
    assert_true(tdx_src_is_launch(call, &kernel, &grid));
    assert_string_equal(kernel->name, "a");
    assert_int_equal(grid->kind, TDX_SRC_TUPLE);
    assert_int_equal(grid->nkids, 1);
    assert_non_null(tdx_src_call_kwarg(call, "BLOCK"));
    done(f);
}

/* What a module binds at its top level: defs and classes, assignments
 * (tuple targets too), imports by their `as` name or first dotted part, a
 * star import (which may bind anything), under a top-level if / try; not
 * what a function's body binds, nor a name merely used. */
static void top_level_bindings(void **state)
{
    (void)state;
    fixture *f = parse("import torch.nn as tnn, os.path\n"
                       "from x import y as launch_impl\n"
                       "def make_inputs(shape): pass\n"
                       "class Model: pass\n"
                       "a, (b, c) = 1, (2, 3)\n"
                       "SHAPES: dict = {}\n"
                       "try:\n    from fast import reference\nexcept ImportError:\n    reference = None\n"
                       "if True:\n    get_inputs = list\n"
                       "def f():\n    launch = 1\n    return launch\n"
                       "print(inner)\n");
    assert_int_equal(f->st, TDX_OK);
    static const char *const yes[] = {"tnn", "os", "launch_impl", "make_inputs", "Model", "a", "b", "c",
                                      "SHAPES", "reference", "get_inputs", "f"};
    for (size_t i = 0; i < sizeof yes / sizeof yes[0]; i++)
        assert_true(tdx_src_binds(f->m, yes[i]));
    static const char *const no[] = {"torch", "y", "launch", "inner", "print", "fast", "x", "ImportError"};
    for (size_t i = 0; i < sizeof no / sizeof no[0]; i++)
        assert_false(tdx_src_binds(f->m, no[i]));
    assert_false(tdx_src_binds(NULL, "a"));
    done(f);
    f = parse("from helpers import *\n");
    assert_true(tdx_src_binds(f->m, "launch"));
    done(f);
}

static void literal_values(void **state)
{
    (void)state;
    fixture *f = parse("a = (0x1F, 1_000, -7, 1e-5, 2.5, 'ab' \"c\\n\", f'x', 0b101, 0o17, "
                       "99999999999999999999)\n");
    assert_int_equal(f->st, TDX_OK);
    tdx_src_node *t = tdx_src_kid(stmt(f->m->root, 0), TDX_SRC_R_VALUE);
    assert_int_equal(t->kind, TDX_SRC_TUPLE);
    long long v;
    double d;
    assert_int_equal(tdx_src_int_value(f->m, t->kids[0], &v), TDX_OK);
    assert_int_equal(v, 31);
    assert_int_equal(tdx_src_int_value(f->m, t->kids[1], &v), TDX_OK);
    assert_int_equal(v, 1000);
    assert_int_equal(tdx_src_int_value(f->m, t->kids[2], &v), TDX_OK);
    assert_int_equal(v, -7);
    assert_int_equal(tdx_src_int_value(f->m, t->kids[3], &v), TDX_ERR_INPUT);
    assert_int_equal(tdx_src_number_value(f->m, t->kids[3], &d), TDX_OK);
    assert_true(d > 0.9e-5 && d < 1.1e-5);
    assert_int_equal(tdx_src_number_value(f->m, t->kids[4], &d), TDX_OK);
    assert_true(d == 2.5);
    assert_string_equal(tdx_src_string_value(f->m, t->kids[5], &f->arena), "abc\n");
    assert_null(tdx_src_string_value(f->m, t->kids[6], &f->arena));
    assert_int_equal(tdx_src_int_value(f->m, t->kids[7], &v), TDX_OK);
    assert_int_equal(v, 5);
    assert_int_equal(tdx_src_int_value(f->m, t->kids[8], &v), TDX_OK);
    assert_int_equal(v, 15);
    assert_int_equal(tdx_src_int_value(f->m, t->kids[9], &v), TDX_ERR_INPUT); /* overflow */
    int line, col;
    tdx_src_position(f->m, 4, &line, &col);
    assert_int_equal(line, 1);
    assert_int_equal(col, 5);
    done(f);
}

static void module_code_is_tolerant_kernels_are_not(void **state)
{
    (void)state;
    fixture *f = parse("x = = 1\nmatch x:\n    case 1:\n        pass\ny = 2\n");
    assert_int_equal(f->st, TDX_OK);
    assert_int_equal(f->m->nopaque, 2);
    assert_int_equal(stmt(f->m->root, 0)->kind, TDX_SRC_OPAQUE);
    tdx_src_node *o = stmt(f->m->root, 1);
    assert_int_equal(o->kind, TDX_SRC_OPAQUE);
    assert_int_equal(o->line, 2);
    assert_int_equal(o->end_line, 4);
    assert_int_equal(stmt(f->m->root, 2)->kind, TDX_SRC_ASSIGN);
    done(f);

    f = parse("def launch(x):\n    y = = 1\n    k[g](x)\n");
    assert_int_equal(f->st, TDX_OK);
    tdx_src_node *launch = tdx_src_find_def(f->m, "launch");
    assert_int_equal(stmt(launch, 0)->kind, TDX_SRC_OPAQUE);
    assert_true(tdx_src_is_launch(tdx_src_kid(stmt(launch, 1), TDX_SRC_R_VALUE), NULL, NULL));
    done(f);

    f = parse("@triton.jit\ndef k(x):\n    y = = 1\n");
    assert_int_equal(f->st, TDX_ERR_PARSE);
    assert_null(f->m);
    assert_int_equal(f->diags.len, 1);
    assert_string_equal(f->diags.items[0].file, "t.py");
    assert_int_equal(f->diags.items[0].line, 3);
    assert_int_equal(f->diags.items[0].col, 9);
    assert_int_equal(f->diags.items[0].sev, TDX_SEV_ERROR);
    done(f);
}

// Build a string of n copies of a, then mid, then n copies of b.
static char *nest(const char *a, const char *mid, const char *b, int n)
{
    size_t la = strlen(a), lm = strlen(mid), lb = strlen(b);
    char *s = malloc((la + lb) * (size_t)n + lm + 1);
    assert_non_null(s);
    char *p = s;
    for (int i = 0; i < n; i++, p += la)
        memcpy(p, a, la);
    memcpy(p, mid, lm);
    p += lm;
    for (int i = 0; i < n; i++, p += lb)
        memcpy(p, b, lb);
    *p = '\0';
    return s;
}

static void deep_nesting_is_an_error_not_a_crash(void **state)
{
    (void)state;
    struct {
        const char *a, *mid, *b;
        int n, ok;
    } cases[] = {
        {"(", "x", ")", 150, 1},        {"(", "x", ")", 250, 0},
        {"[", "x", "]", 100000, 0},     {"-", "x", "", 150, 1},
        {"-", "x", "", 100000, 0},      {"not ", "x", "", 100000, 0},
        {"x if y else ", "z", "", 5000, 0}, {"lambda: ", "z", "", 5000, 0},
        {"x + ", "z", "", 100000, 0},   {"f(", "", ")", 190, 1},
        {"a.", "b", "", 100000, 0},     {"a[", "0", "]", 100000, 0},
        {"f(x)", "", "", 1, 1},         {"x ** ", "y", "", 100000, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *expr = nest(cases[i].a, cases[i].mid, cases[i].b, cases[i].n);
        size_t l = strlen(expr);
        char *src = malloc(l + 6);
        assert_non_null(src);
        memcpy(src, "y = ", 4);
        memcpy(src + 4, expr, l);
        memcpy(src + 4 + l, "\n", 2);
        fixture *f = parse(src);
        if (cases[i].ok) {
            if (f->st != TDX_OK)
                fail_msg("case %zu: %s", i, f->diags.len ? f->diags.items[0].msg : "?");
            assert_int_equal(f->m->nopaque, 0);
        } else {
            if (f->st != TDX_ERR_PARSE)
                fail_msg("case %zu: expected an error, got %s", i, tdx_status_str(f->st));
            assert_true(f->diags.nerrors >= 1);
        }
        done(f);
        free(src);
        free(expr);
    }
    /* deep blocks */
    tdx_buf b;
    tdx_buf_init(&b, 0);
    for (int i = 0; i < 150; i++)
        tdx_buf_printf(&b, "%*sif x:\n", i, "");
    tdx_buf_printf(&b, "%*spass\n", 150, "");
    fixture *f = parse(tdx_buf_str(&b));
    assert_int_equal(f->st, TDX_ERR_PARSE);
    done(f);
    tdx_buf_free(&b);
}

static void fstrings_nest_quotes(void **state)
{
    (void)state;
    fixture *f = parse("s = f\"{d[\"k\"]:{w}} {f'{x}'} \\{y}\"\nt = rf'\\d{{1}}{z}'\n");
    assert_int_equal(f->st, TDX_OK);
    tdx_src_node *s = tdx_src_kid(stmt(f->m->root, 0), TDX_SRC_R_VALUE);
    assert_int_equal(s->kind, TDX_SRC_STRING);
    assert_true(s->flags & TDX_SRC_F_FSTRING);
    assert_int_equal(stmt(f->m->root, 1)->line, 2);
    done(f);
}

static void odd_inputs_do_not_crash(void **state)
{
    (void)state;
    const char *inputs[] = {
        "",       "\n",        "#",          "\\\n",         "x",        "\xef\xbb\xbfx = 1\n",
        "x\r\ny\r\n", "  \n\tx\n", "(",      ")",            "'''",      "f'{'",
        "@",      "@x\n",      "def",        "class A",      "if x:",    "lambda",
        "x[",     "a = b = c = d\n", "x = yield\n", "print(*a, **b, c=d)\n", "async def f(): await x\n",
        "with (a as b, c as d): pass\n", "with (a, b) as c: pass\n", "for x, in y: pass\n",
        "from . import (a, b,)\n", "del a, b[0]\n", "x = *a, *b\n", "assert x\n",
        "try:\n pass\nexcept* E:\n pass\n", "a := 1\n", "(a := 1)\n",
    };
    for (size_t i = 0; i < sizeof inputs / sizeof inputs[0]; i++) {
        fixture *f = parse(inputs[i]);
        assert_true(f->st == TDX_OK || f->st == TDX_ERR_PARSE);
        if (f->st == TDX_OK) {
            tdx_buf b;
            tdx_buf_init(&b, 0);
            assert_int_equal(tdx_src_unparse(f->m, &b), TDX_OK);
            assert_string_equal(tdx_buf_str(&b), inputs[i]);
            assert_int_equal(tdx_src_verify(f->m, NULL), TDX_OK);
            tdx_buf_free(&b);
        } else {
            assert_true(f->diags.nerrors > 0);
        }
        done(f);
    }
}

static void positions_map_back_to_nodes(void **state)
{
    (void)state;
    fixture *f = parse("@triton.jit\n@other\ndef kern(x):\n    y = tl.load(x + 1)\n");
    assert_int_equal(f->st, TDX_OK);
    tdx_src_node *k = tdx_src_find_def(f->m, "kern");
    assert_int_equal(k->line, 1); /* spans from its first decorator */
    int line, col;
    tdx_src_def_name_pos(f->m, k, &line, &col);
    assert_int_equal(line, 3);
    assert_int_equal(col, 5);
    size_t off = tdx_src_offset(f->m, 4, 17); /* the `x` in x + 1 */
    assert_int_not_equal(off, (size_t)-1);
    tdx_src_node *n = tdx_src_node_at(f->m, off);
    assert_int_equal(n->kind, TDX_SRC_NAME);
    assert_string_equal(n->name, "x");
    assert_int_equal(n->parent->kind, TDX_SRC_BINOP);
    n = tdx_src_node_at(f->m, tdx_src_offset(f->m, 4, 9)); /* `tl` */
    assert_int_equal(n->kind, TDX_SRC_NAME);
    assert_int_equal(n->parent->parent->kind, TDX_SRC_CALL);
    assert_int_equal(tdx_src_offset(f->m, 9, 1), (size_t)-1);
    assert_int_equal(tdx_src_offset(f->m, 1, 40), (size_t)-1);
    done(f);
}

// The node at line, col of f's source.
static tdx_src_node *at(fixture *f, int line, int col)
{
    size_t off = tdx_src_offset(f->m, line, col);
    assert_int_not_equal(off, (size_t)-1);
    return tdx_src_node_at(f->m, off);
}

// Branches of one if (an elif's included) or of a conditional expression
// exclude each other; statements of one branch, or before and after the if,
// do not.
static void exclusive_branches(void **state)
{
    (void)state;
    fixture *f = parse("if a:\n"          /* 1 */
                       "    p = 1\n"      /* 2 */
                       "    q = 2\n"      /* 3 */
                       "elif b:\n"        /* 4 */
                       "    r = 3\n"      /* 5 */
                       "else:\n"          /* 6 */
                       "    if c:\n"      /* 7 */
                       "        s = 4\n"  /* 8 */
                       "    t = 5\n"      /* 9 */
                       "u = x if c else y\n" /* 10 */);
    assert_int_equal(f->st, TDX_OK);
    tdx_src_node *p = at(f, 2, 5), *q = at(f, 3, 5), *r = at(f, 5, 5), *s = at(f, 8, 9), *t = at(f, 9, 5);
    tdx_src_node *u = at(f, 10, 1), *x = at(f, 10, 5), *y = at(f, 10, 17);
    assert_true(tdx_src_exclusive(p, r) && tdx_src_exclusive(r, p)); /* if / elif */
    assert_true(tdx_src_exclusive(p, s) && tdx_src_exclusive(r, t)); /* if / else, elif / else */
    assert_false(tdx_src_exclusive(p, q));                           /* one branch */
    assert_false(tdx_src_exclusive(s, t));                           /* inside else: nested if, then after it */
    assert_false(tdx_src_exclusive(p, u) || tdx_src_exclusive(u, t)); /* before and after */
    assert_true(tdx_src_exclusive(x, y));                            /* x if c else y */
    assert_false(tdx_src_exclusive(p, p));
    done(f);
}

static void verify_and_unparse_catch_broken_trees(void **state)
{
    (void)state;
    fixture *f = parse("x = a + b\n");
    assert_int_equal(f->st, TDX_OK);
    assert_int_equal(tdx_src_verify(f->m, NULL), TDX_OK);
    tdx_src_node *binop = tdx_src_kid(stmt(f->m->root, 0), TDX_SRC_R_VALUE);
    tdx_src_node *b = binop->kids[1];
    b->col++; /* line:col no longer matches the offset */
    assert_int_equal(tdx_src_verify(f->m, &f->diags), TDX_ERR_INPUT);
    assert_true(f->diags.nerrors >= 1);
    b->col--;
    uint32_t end = binop->kids[0]->end;
    binop->kids[0]->end = b->start + 1; /* overlaps its sibling */
    assert_int_equal(tdx_src_verify(f->m, NULL), TDX_ERR_INPUT);
    tdx_buf out;
    tdx_buf_init(&out, 0);
    assert_int_equal(tdx_src_unparse(f->m, &out), TDX_ERR_INPUT);
    tdx_buf_free(&out);
    binop->kids[0]->end = end;
    b->parent = NULL;
    assert_int_equal(tdx_src_verify(f->m, NULL), TDX_ERR_INPUT);
    done(f);
}

static void walk_visits_in_source_order(void **state)
{
    (void)state;
    fixture *f = parse("a = b + c\nd = e\n");
    assert_int_equal(f->st, TDX_OK);
    tdx_buf b;
    tdx_buf_init(&b, 0);
    int visit(tdx_src_node * n, void *ud);
    assert_int_equal(tdx_src_walk(f->m->root, visit, &b), 0);
    assert_string_equal(tdx_buf_str(&b), "a b c d e ");
    tdx_buf_free(&b);
    done(f);
}

// Visitor for walk_visits_in_source_order: names only.
int visit(tdx_src_node *n, void *ud)
{
    if (n->kind == TDX_SRC_NAME)
        tdx_buf_printf(ud, "%s ", n->name);
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(tokens_have_indent_and_spans),
        cmocka_unit_test(dotted_names_and_calls),
        cmocka_unit_test(kernels_are_found_however_decorated),
        cmocka_unit_test(top_level_bindings),
        cmocka_unit_test(literal_values),
        cmocka_unit_test(module_code_is_tolerant_kernels_are_not),
        cmocka_unit_test(deep_nesting_is_an_error_not_a_crash),
        cmocka_unit_test(fstrings_nest_quotes),
        cmocka_unit_test(odd_inputs_do_not_crash),
        cmocka_unit_test(positions_map_back_to_nodes),
        cmocka_unit_test(exclusive_branches),
        cmocka_unit_test(verify_and_unparse_catch_broken_trees),
        cmocka_unit_test(walk_visits_in_source_order),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
