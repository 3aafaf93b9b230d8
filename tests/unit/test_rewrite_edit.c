/* Span edits and unified diffs: edits keep the rest byte-identical; a diff
 * applied with patch(1) turns a into b. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/file.h"
#include "rewrite/edit.h"

static void apply_in_any_order(void **state)
{
    (void)state;
    const char *src = "x = tl.load(p + offs)\nBLOCK = 64\n";
    tdx_rw_edit e[] = {
        {30, 32, "1024"},           /* 64 -> 1024 */
        {4, 11, "tl.load"},         /* same text */
        {0, 0, "# tuned\n"},        /* insertion at 0 */
    };
    tdx_buf out;
    tdx_buf_init(&out, 0);
    assert_int_equal(tdx_rw_apply(src, strlen(src), e, 3, &out), TDX_OK);
    assert_string_equal(tdx_buf_str(&out), "# tuned\nx = tl.load(p + offs)\nBLOCK = 1024\n");
    tdx_rw_edit bad[] = {{2, 6, "a"}, {5, 8, "b"}};
    assert_int_equal(tdx_rw_apply(src, strlen(src), bad, 2, &out), TDX_ERR_ARG);
    assert_int_equal(out.len, 0);
    tdx_rw_edit past[] = {{2, 600, "a"}};
    assert_int_equal(tdx_rw_apply(src, strlen(src), past, 1, &out), TDX_ERR_ARG);
    tdx_rw_edit none[] = {{0, 0, NULL}};
    assert_int_equal(tdx_rw_apply(src, strlen(src), none, 0, &out), TDX_OK);
    assert_string_equal(tdx_buf_str(&out), src);
    tdx_buf_free(&out);
}

static void diff_of_equal_texts_is_empty(void **state)
{
    (void)state;
    tdx_buf out;
    tdx_buf_init(&out, 0);
    assert_int_equal(tdx_rw_diff("a\nb\n", 4, "a\nb\n", 4, "a", "b", 3, 0, &out), TDX_OK);
    assert_int_equal(out.len, 0);
    tdx_buf_free(&out);
}

static void diff_small_change(void **state)
{
    (void)state;
    const char *a = "1\n2\n3\n4\n5\n6\n7\n8\n9\n";
    const char *b = "1\n2\n3\n4\nfive\n6\n7\n8\n9\n";
    tdx_buf out;
    tdx_buf_init(&out, 0);
    assert_int_equal(tdx_rw_diff(a, strlen(a), b, strlen(b), "a/k.py", "b/k.py", 2, 0, &out), TDX_OK);
    assert_string_equal(tdx_buf_str(&out),
                        "--- a/k.py\n+++ b/k.py\n@@ -3,5 +3,5 @@\n 3\n 4\n-5\n+five\n 6\n 7\n");
    tdx_buf_free(&out);
}

/* Random line-level mutations: the diff must patch a into b exactly. */
static void diff_roundtrips_through_patch(void **state)
{
    (void)state;
    srand(12345);
    const char *words[] = {"x = 1\n", "y = 2\n", "BLOCK = 64\n", "\n", "tl.store(p, x)\n", "pass\n"};
    for (int round = 0; round < 60; round++) {
        tdx_buf a, b, d;
        tdx_buf_init(&a, 0);
        tdx_buf_init(&b, 0);
        tdx_buf_init(&d, 0);
        int n = rand() % 40;
        for (int i = 0; i < n; i++) {
            const char *w = words[rand() % 6];
            tdx_buf_adds(&a, w);
            int r = rand() % 10;
            if (r == 0)
                continue; /* delete */
            if (r == 1)
                tdx_buf_adds(&b, words[rand() % 6]); /* insert before */
            if (r == 2)
                tdx_buf_adds(&b, "changed\n");
            else
                tdx_buf_adds(&b, w);
        }
        if (round % 7 == 0)
            tdx_buf_adds(&b, "no newline at end");
        assert_int_equal(tdx_rw_diff(a.data ? a.data : "", a.len, b.data ? b.data : "", b.len, "a",
                                     "b", 3, 0, &d),
                         TDX_OK);
        assert_int_equal(tdx_file_write("/tmp/tdx_diff_a", a.data ? a.data : "", a.len), TDX_OK);
        assert_int_equal(tdx_file_write("/tmp/tdx_diff_p", d.data ? d.data : "", d.len), TDX_OK);
        if (d.len) {
            int rc = system("patch -s -o /tmp/tdx_diff_out /tmp/tdx_diff_a /tmp/tdx_diff_p");
            assert_int_equal(rc, 0);
        } else {
            assert_int_equal(system("cp /tmp/tdx_diff_a /tmp/tdx_diff_out"), 0);
        }
        char *got;
        size_t glen;
        assert_int_equal(tdx_file_read("/tmp/tdx_diff_out", 1 << 20, &got, &glen), TDX_OK);
        assert_int_equal(glen, b.len);
        assert_memory_equal(got, b.data ? b.data : "", glen);
        free(got);
        tdx_buf_free(&a);
        tdx_buf_free(&b);
        tdx_buf_free(&d);
    }
    remove("/tmp/tdx_diff_a");
    remove("/tmp/tdx_diff_p");
    remove("/tmp/tdx_diff_out");
}

static void diff_too_different_is_an_error(void **state)
{
    (void)state;
    tdx_buf out;
    tdx_buf_init(&out, 0);
    assert_int_equal(tdx_rw_diff("a\nb\nc\n", 6, "x\ny\nz\n", 6, "a", "b", 3, 2, &out),
                     TDX_ERR_TOOBIG);
    tdx_buf_free(&out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(apply_in_any_order),
        cmocka_unit_test(diff_of_equal_texts_is_empty),
        cmocka_unit_test(diff_small_change),
        cmocka_unit_test(diff_roundtrips_through_patch),
        cmocka_unit_test(diff_too_different_is_an_error),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
