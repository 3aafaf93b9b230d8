/* Unit tests for the base module: arena, capped buffer, diagnostics, files,
 * and the finding ledger. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "base/buf.h"
#include "base/diag.h"
#include "base/file.h"
#include "finding/finding.h"

static void arena_allocates_zeroed_aligned(void **state)
{
    (void)state;
    tdx_arena a;
    tdx_arena_init(&a, 64);
    for (int i = 0; i < 1000; i++) {
        unsigned char *p = tdx_arena_alloc(&a, (size_t)(i % 37) + 1);
        assert_non_null(p);
        assert_int_equal((uintptr_t)p % _Alignof(max_align_t), 0);
        for (int j = 0; j < i % 37 + 1; j++)
            assert_int_equal(p[j], 0);
        memset(p, 0xAB, (size_t)(i % 37) + 1);
    }
    char *s = tdx_arena_printf(&a, "%s-%d", "x", 42);
    assert_string_equal(s, "x-42");
    tdx_ptrvec v = {0};
    for (int i = 0; i < 100; i++)
        assert_int_equal(tdx_ptrvec_push(&a, &v, (void *)(intptr_t)(i + 1)), 0);
    assert_int_equal(v.len, 100);
    assert_int_equal((intptr_t)v.items[99], 100);
    tdx_arena_free(&a);
}

static void buf_respects_its_cap(void **state)
{
    (void)state;
    tdx_buf b;
    tdx_buf_init(&b, 10);
    assert_int_equal(tdx_buf_adds(&b, "hello"), TDX_OK);
    assert_int_equal(tdx_buf_printf(&b, "%d", 1234), TDX_OK);
    assert_string_equal(tdx_buf_str(&b), "hello1234");
    assert_int_equal(tdx_buf_adds(&b, "xx"), TDX_ERR_TOOBIG);
    assert_string_equal(tdx_buf_str(&b), "hello1234");
    assert_int_equal(tdx_buf_addc(&b, '!'), TDX_OK);
    assert_int_equal(b.len, 10);
    tdx_buf_free(&b);
}

static void diags_collect_messages(void **state)
{
    (void)state;
    tdx_diags d;
    tdx_diags_init(&d);
    tdx_diags_add(&d, TDX_SEV_ERROR, "k.py", 3, 7, "unexpected '%s'", ")");
    tdx_diags_add(&d, TDX_SEV_WARNING, NULL, 0, 0, "plain");
    assert_int_equal(d.len, 2);
    assert_int_equal(d.nerrors, 1);
    assert_string_equal(d.items[0].msg, "unexpected ')'");
    assert_string_equal(d.items[0].file, "k.py");
    assert_null(d.items[1].file);
    tdx_diags_free(&d);
}

static void binary_detection(void **state)
{
    (void)state;
    assert_false(tdx_file_is_binary("import triton\n", 14));
    assert_false(tdx_file_is_binary("# caf\xc3\xa9\n", 8));
    assert_true(tdx_file_is_binary("ab\0cd", 5));
    assert_true(tdx_file_is_binary("\xff\xfe\x00", 2));
    assert_false(tdx_file_is_binary("", 0));
}

static void file_roundtrip(void **state)
{
    (void)state;
    const char *path = "/tmp/tdx_test_base_file.txt";
    assert_int_equal(tdx_file_write(path, "abc\n", 4), TDX_OK);
    char *data;
    size_t len;
    assert_int_equal(tdx_file_read(path, 100, &data, &len), TDX_OK);
    assert_int_equal(len, 4);
    assert_string_equal(data, "abc\n");
    free(data);
    assert_int_equal(tdx_file_read(path, 3, &data, &len), TDX_ERR_TOOBIG);
    assert_int_equal(tdx_file_read("/nonexistent/x", 3, &data, &len), TDX_ERR_IO);
    remove(path);
}

// mkdir -p: parents made, an existing folder is fine, a file in the way is not.
static void mkdirs_makes_parents(void **state)
{
    (void)state;
    char root[] = "/tmp/tdx_test_mkdirs_XXXXXX";
    assert_non_null(mkdtemp(root));
    char deep[256], file[256], under[300];
    snprintf(deep, sizeof deep, "%s/a/b/c", root);
    assert_int_equal(tdx_file_mkdirs(deep), TDX_OK);
    assert_int_equal(tdx_file_mkdirs(deep), TDX_OK);
    snprintf(file, sizeof file, "%s/a/f", root);
    assert_int_equal(tdx_file_write(file, "x", 1), TDX_OK);
    assert_int_equal(tdx_file_mkdirs(file), TDX_ERR_IO);
    snprintf(under, sizeof under, "%s/g", file);
    assert_int_equal(tdx_file_mkdirs(under), TDX_ERR_IO);
    assert_int_equal(tdx_file_mkdirs(""), TDX_ERR_IO);
    remove(file);
    snprintf(under, sizeof under, "rm -rf '%s'", root);
    assert_int_equal(system(under), 0);
}

static void ledger_adds_findings_with_rule_defaults(void **state)
{
    (void)state;
    tdx_ledger l;
    tdx_ledger_init(&l);
    tdx_finding *f = tdx_ledger_add(&l, "TDX000", "k.py", 2, 1, "cannot parse %s", "k.py");
    assert_non_null(f);
    assert_int_equal(f->id, 1);
    assert_int_equal(f->level, 0);
    assert_int_equal(f->sev, TDX_SEV_ERROR);
    assert_int_equal(tdx_finding_fact(&l, f, "bytes", "%d", 42), TDX_OK);
    assert_string_equal(tdx_finding_get_fact(f, "bytes"), "42");
    assert_null(tdx_finding_get_fact(f, "other"));
    assert_null(tdx_ledger_add(&l, "TDX-NOPE", NULL, 0, 0, "x"));
    size_t n;
    const tdx_rule *rules = tdx_rules(&n);
    assert_true(n >= 1);
    for (size_t i = 1; i < n; i++)
        assert_true(strcmp(rules[i - 1].id, rules[i].id) < 0); /* ids in order, unique */
    tdx_ledger_free(&l);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(arena_allocates_zeroed_aligned),
        cmocka_unit_test(buf_respects_its_cap),
        cmocka_unit_test(diags_collect_messages),
        cmocka_unit_test(binary_detection),
        cmocka_unit_test(file_roundtrip),
        cmocka_unit_test(mkdirs_makes_parents),
        cmocka_unit_test(ledger_adds_findings_with_rule_defaults),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
