/* Unit tests for tdx_proc's write isolation (Landlock): a child under
 * TDX_PROC_FS_TRY writes in its private directory but nowhere else, cannot
 * signal its parent where the kernel has ABI 6, and where Landlock is
 * missing the run says so. The children are /bin/sh one-liners. */
#define _GNU_SOURCE 1
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "proc/proc.h"

// The running kernel's Landlock ABI version, 0 when there is none.
static int landlock_abi(void)
{
#ifdef SYS_landlock_create_ruleset
    long v = syscall(SYS_landlock_create_ruleset, NULL, 0, 1u);
    return v > 0 ? (int)v : 0;
#else
    return 0;
#endif
}

// Run `sh -c script` with write isolation asked for; the result in *r.
static tdx_status run_sh(const char *script, tdx_proc_fs fs, const char *const *writable,
                         tdx_proc_result *r)
{
    const char *argv[] = {"/bin/sh", "-c", script, NULL};
    tdx_proc_opts o;
    memset(&o, 0, sizeof o);
    o.argv = argv;
    o.timeout_s = 30;
    o.private_tmpdir = 1;
    o.fs = fs;
    o.fs_writable = writable;
    return tdx_proc_run(&o, r);
}

// A fresh folder with one file in it; *dir is malloc'd.
static void make_folder(char **dir)
{
    assert_int_equal(tdx_proc_tmpdir_create(dir), TDX_OK);
    char path[512];
    snprintf(path, sizeof path, "%s/keep.txt", *dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("the user's file\n", f);
    fclose(f);
}

static void writes_only_in_its_private_directory(void **state)
{
    (void)state;
    char *dir;
    make_folder(&dir);
    char script[2048];
    /* each step prints ok or no; the child keeps going either way */
    snprintf(script, sizeof script,
             "for t in \"$TMPDIR/mine\" \"%s/keep.txt\" \"%s/new.txt\"; do"
             "  if echo hacked > \"$t\" 2>/dev/null; then echo ok; else echo no; fi; done;"
             "if rm -f \"%s/keep.txt\" 2>/dev/null && [ ! -e \"%s/keep.txt\" ]; then echo ok; else echo no; fi;"
             "if echo x > /dev/null; then echo ok; else echo no; fi",
             dir, dir, dir, dir);
    tdx_proc_result r;
    assert_int_equal(run_sh(script, TDX_PROC_FS_TRY, NULL, &r), TDX_OK);
    assert_true(tdx_proc_ok(&r));
    if (landlock_abi() > 0) {
        assert_int_equal(r.fs_isolated, 1);
        assert_int_equal(r.landlock_abi, landlock_abi());
        /* private dir yes; the user's file, a new file and removal no; /dev/null yes */
        assert_string_equal(r.out, "ok\nno\nno\nno\nok\n");
        char path[512];
        snprintf(path, sizeof path, "%s/keep.txt", dir);
        FILE *f = fopen(path, "r");
        assert_non_null(f);
        char buf[64] = "";
        assert_non_null(fgets(buf, sizeof buf, f));
        fclose(f);
        assert_string_equal(buf, "the user's file\n");
        snprintf(path, sizeof path, "%s/new.txt", dir);
        assert_int_not_equal(access(path, F_OK), 0);
    } else {
        /* the documented fallback: it ran, without isolation, and says so */
        assert_int_equal(r.fs_isolated, 0);
    }
    tdx_proc_result_free(&r);
    assert_int_equal(tdx_proc_tmpdir_remove(dir), TDX_OK);
    free(dir);
}

static void extra_writable_folders_are_writable(void **state)
{
    (void)state;
    char *dir;
    make_folder(&dir);
    const char *writable[] = {dir, "/nonexistent-tdx-folder", NULL};
    char script[1024];
    snprintf(script, sizeof script, "echo more > \"%s/more.txt\" && echo ok", dir);
    tdx_proc_result r;
    assert_int_equal(run_sh(script, TDX_PROC_FS_TRY, writable, &r), TDX_OK);
    assert_true(tdx_proc_ok(&r));
    assert_string_equal(r.out, "ok\n");
    tdx_proc_result_free(&r);
    assert_int_equal(tdx_proc_tmpdir_remove(dir), TDX_OK);
    free(dir);
}

static void cannot_signal_outside_its_sandbox(void **state)
{
    (void)state;
    if (landlock_abi() < 6)
        skip(); /* the scope needs ABI 6 (Linux 6.12); the fallback is documented */
    char script[256];
    /* the parent is this test: signal 0 only asks whether it may */
    snprintf(script, sizeof script, "if kill -0 %d 2>/dev/null; then echo reached; else echo refused; fi",
             (int)getpid());
    tdx_proc_result r;
    assert_int_equal(run_sh(script, TDX_PROC_FS_TRY, NULL, &r), TDX_OK);
    assert_string_equal(r.out, "refused\n");
    tdx_proc_result_free(&r);
    /* without isolation the same child may */
    assert_int_equal(run_sh(script, TDX_PROC_FS_INHERIT, NULL, &r), TDX_OK);
    assert_string_equal(r.out, "reached\n");
    assert_int_equal(r.fs_isolated, 0);
    tdx_proc_result_free(&r);
}

static void require_refuses_or_isolates(void **state)
{
    (void)state;
    tdx_proc_result r;
    tdx_status st = run_sh("echo ran", TDX_PROC_FS_REQUIRE, NULL, &r);
    if (landlock_abi() > 0) {
        assert_int_equal(st, TDX_OK);
        assert_int_equal(r.fs_isolated, 1);
        assert_string_equal(r.out, "ran\n");
    } else {
        assert_int_equal(st, TDX_ERR_UNSUPPORTED);
        assert_string_equal(r.failed_step, "landlock");
    }
    tdx_proc_result_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(writes_only_in_its_private_directory),
        cmocka_unit_test(extra_writable_folders_are_writable),
        cmocka_unit_test(cannot_signal_outside_its_sandbox),
        cmocka_unit_test(require_refuses_or_isolates),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
