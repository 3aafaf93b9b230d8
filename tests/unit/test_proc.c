/* Unit tests for tdx_proc: a child that crashes, hangs, forks stubborn
 * grandchildren, floods its streams, eats memory, writes huge files, or
 * behaves -- and the run always returns with the right account of it.
 * The children are modes of tests/helpers/tdx_child.c (TDX_CHILD). */
#define _GNU_SOURCE 1
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "proc/proc.h"

#define MiB ((uint64_t)1 << 20)

// Run TDX_CHILD with the given mode and arguments under opts (argv is set
// here); returns the status.
static tdx_status run_child(tdx_proc_opts *o, tdx_proc_result *r, const char *mode,
                            const char *a1, const char *a2)
{
    const char *argv[] = {TDX_CHILD, mode, a1, a2, NULL};
    if (!a1)
        argv[2] = NULL;
    o->argv = argv;
    tdx_status st = tdx_proc_run(o, r);
    o->argv = NULL;
    return st;
}

// Non-zero once pid is gone or a zombie (killed, awaiting its new parent).
static int pid_gone(pid_t pid)
{
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    for (int i = 0; i < 300; i++) {
        FILE *f = fopen(path, "r");
        if (!f)
            return 1;
        size_t n = fread(buf, 1, sizeof buf - 1, f);
        fclose(f);
        buf[n] = '\0';
        const char *rp = strrchr(buf, ')');
        if (rp && rp[1] == ' ' && (rp[2] == 'Z' || rp[2] == 'X'))
            return 1;
        struct timespec ts = {0, 10000000L};
        nanosleep(&ts, NULL);
    }
    return 0;
}

static void captures_both_streams(void **state)
{
    (void)state;
    tdx_proc_opts o = {0};
    tdx_proc_result r;
    assert_int_equal(run_child(&o, &r, "hello", NULL, NULL), TDX_OK);
    assert_true(r.exited);
    assert_int_equal(r.exit_status, 0);
    assert_false(r.signaled);
    assert_false(r.timed_out);
    assert_string_equal(r.out, "hello out\n");
    assert_string_equal(r.err, "hello err\n");
    assert_int_equal(r.out_len, 10);
    assert_int_equal(r.out_total, 10);
    assert_false(r.out_over_cap);
    assert_true(r.wall_s >= 0 && r.wall_s < 5);
    assert_true(tdx_proc_ok(&r));
    assert_false(r.net_isolated);
    assert_null(r.tmpdir);
    tdx_proc_result_free(&r);
}

static void passes_arguments_and_finds_program_in_path(void **state)
{
    (void)state;
    char dir[PATH_MAX], pathvar[PATH_MAX + 32];
    snprintf(dir, sizeof dir, "%s", TDX_CHILD);
    *strrchr(dir, '/') = '\0';
    snprintf(pathvar, sizeof pathvar, "PATH=/nonexistent::%s", dir);
    const char *set[] = {pathvar, NULL};
    const char *argv[] = {"tdx_child", "args", "a b", "", "--x=1", NULL};
    tdx_proc_opts o = {.argv = argv, .env_set = set};
    tdx_proc_result r;
    assert_int_equal(tdx_proc_run(&o, &r), TDX_OK);
    assert_string_equal(r.out, "a b\n\n--x=1\n");
    tdx_proc_result_free(&r);

    /* a relative path is relative to tritondx's directory, not to cwd */
    char cwd[PATH_MAX];
    assert_non_null(getcwd(cwd, sizeof cwd));
    assert_int_equal(chdir(dir), 0);
    const char *relative[] = {"./tdx_child", "pwd", NULL};
    o.argv = relative;
    o.cwd = "/";
    assert_int_equal(tdx_proc_run(&o, &r), TDX_OK);
    assert_string_equal(r.out, "/\n");
    tdx_proc_result_free(&r);
    assert_int_equal(chdir(cwd), 0);
    o.cwd = NULL;

    const char *missing[] = {"tdx-no-such-program-anywhere", NULL};
    o.argv = missing;
    assert_int_equal(tdx_proc_run(&o, &r), TDX_ERR_NOTFOUND);
    tdx_proc_result_free(&r);
    const char *missing_path[] = {"/nonexistent/prog", NULL};
    o.argv = missing_path;
    assert_int_equal(tdx_proc_run(&o, &r), TDX_ERR_NOTFOUND);
    tdx_proc_result_free(&r);
}

static void rejects_bad_options(void **state)
{
    (void)state;
    tdx_proc_result r;
    assert_int_equal(tdx_proc_run(NULL, &r), TDX_ERR_ARG);
    tdx_proc_opts o = {0};
    assert_int_equal(tdx_proc_run(&o, &r), TDX_ERR_ARG);
    const char *empty[] = {"", NULL};
    o.argv = empty;
    assert_int_equal(tdx_proc_run(&o, &r), TDX_ERR_ARG);
    const char *argv[] = {TDX_CHILD, "hello", NULL};
    const char *bad_env[] = {"NO_EQUALS_SIGN", NULL};
    o.argv = argv;
    o.env_set = bad_env;
    assert_int_equal(tdx_proc_run(&o, &r), TDX_ERR_ARG);
    tdx_proc_result_free(&r);
}

static void reports_a_program_that_cannot_be_executed(void **state)
{
    (void)state;
    char dir[] = "/tmp/tdx-test-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/not-a-program", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("\x7f" "ELF? no, garbage\n", f);
    fclose(f);
    chmod(path, 0755);
    const char *argv[] = {path, NULL};
    tdx_proc_opts o = {.argv = argv};
    tdx_proc_result r;
    assert_int_equal(tdx_proc_run(&o, &r), TDX_ERR_NOTFOUND);
    assert_int_equal(r.exec_errno, ENOEXEC);
    char why[128];
    assert_string_equal(tdx_proc_describe(&r, 0, why, sizeof why),
                        "could not start (exec): Exec format error");
    tdx_proc_result_free(&r);
    unlink(path);
    rmdir(dir);
}

static void builds_the_environment(void **state)
{
    (void)state;
    setenv("TDX_TEST_KEEP", "kept", 1);
    setenv("TDX_TEST_DROP", "dropped", 1);
    setenv("TDX_TEST_OVER", "old", 1);
    const char *set[] = {"TDX_TEST_OVER=new", "TDX_TEST_NEW=fresh=x", NULL};
    const char *unset[] = {"TDX_TEST_DROP", NULL};
    tdx_proc_opts o = {.env_set = set, .env_unset = unset};
    const char *argv[] = {TDX_CHILD,       "env",          "TDX_TEST_KEEP", "TDX_TEST_DROP",
                          "TDX_TEST_OVER", "TDX_TEST_NEW", NULL};
    o.argv = argv;
    tdx_proc_result r;
    assert_int_equal(tdx_proc_run(&o, &r), TDX_OK);
    assert_string_equal(r.out, "TDX_TEST_KEEP=kept\nTDX_TEST_DROP=(unset)\n"
                               "TDX_TEST_OVER=new\nTDX_TEST_NEW=fresh=x\n");
    tdx_proc_result_free(&r);
    o.env_clear = 1;
    assert_int_equal(tdx_proc_run(&o, &r), TDX_OK);
    assert_string_equal(r.out, "TDX_TEST_KEEP=(unset)\nTDX_TEST_DROP=(unset)\n"
                               "TDX_TEST_OVER=new\nTDX_TEST_NEW=fresh=x\n");
    tdx_proc_result_free(&r);
    unsetenv("TDX_TEST_KEEP");
    unsetenv("TDX_TEST_DROP");
    unsetenv("TDX_TEST_OVER");
}

static void reports_a_non_zero_exit(void **state)
{
    (void)state;
    tdx_proc_opts o = {0};
    tdx_proc_result r;
    assert_int_equal(run_child(&o, &r, "exit", "3", "the reason"), TDX_OK);
    assert_true(r.exited);
    assert_int_equal(r.exit_status, 3);
    assert_false(tdx_proc_ok(&r));
    char why[128];
    assert_string_equal(tdx_proc_describe(&r, 0, why, sizeof why),
                        "exited with status 3: second: the reason");
    tdx_proc_result_free(&r);
}

static void survives_a_segfault(void **state)
{
    (void)state;
    tdx_proc_opts o = {0};
    tdx_proc_result r;
    assert_int_equal(run_child(&o, &r, "segv", NULL, NULL), TDX_OK);
    assert_false(r.exited);
    assert_true(r.signaled);
    assert_int_equal(r.term_signal, SIGSEGV);
    char why[128];
    assert_string_equal(tdx_proc_describe(&r, 0, why, sizeof why), "killed by signal 11 (SIGSEGV)");
    tdx_proc_result_free(&r);
}

static void times_out_a_hang(void **state)
{
    (void)state;
    tdx_proc_opts o = {.timeout_s = 0.3};
    tdx_proc_result r;
    assert_int_equal(run_child(&o, &r, "hang", NULL, NULL), TDX_OK);
    assert_true(r.timed_out);
    assert_true(r.signaled);
    assert_int_equal(r.term_signal, SIGTERM);
    assert_true(r.wall_s >= 0.3 && r.wall_s < 10.0);
    char why[128];
    assert_string_equal(tdx_proc_describe(&r, o.timeout_s, why, sizeof why),
                        "timed out after 0.3 s");
    tdx_proc_result_free(&r);
}

static void timeout_kills_the_whole_group(void **state)
{
    (void)state;
    /* The grandchild ignores SIGTERM: only the SIGKILL to the group that
     * follows the leader's end can take it. */
    tdx_proc_opts o = {.timeout_s = 0.3};
    tdx_proc_result r;
    assert_int_equal(run_child(&o, &r, "hang-tree", NULL, NULL), TDX_OK);
    assert_true(r.timed_out);
    pid_t g = (pid_t)atoi(r.out);
    assert_true(g > 1);
    assert_true(pid_gone(g));
    tdx_proc_result_free(&r);

    /* The leader ignores SIGTERM too: SIGKILL after the grace period. */
    o.kill_grace_s = 0.3;
    assert_int_equal(run_child(&o, &r, "hang-tree-stubborn", NULL, NULL), TDX_OK);
    assert_true(r.timed_out);
    assert_true(r.signaled);
    assert_int_equal(r.term_signal, SIGKILL);
    assert_true(r.wall_s >= 0.55 && r.wall_s < 10.0);
    g = (pid_t)atoi(r.out);
    assert_true(g > 1);
    assert_true(pid_gone(g));
    tdx_proc_result_free(&r);
}

static void times_out_a_child_that_closed_its_pipes(void **state)
{
    (void)state;
    tdx_proc_opts o = {.timeout_s = 0.3};
    tdx_proc_result r;
    assert_int_equal(run_child(&o, &r, "close-and-hang", NULL, NULL), TDX_OK);
    assert_true(r.timed_out);
    assert_true(r.wall_s < 10.0);
    tdx_proc_result_free(&r);
}

static void does_not_wait_for_an_escaped_grandchild(void **state)
{
    (void)state;
    /* setsid() leaves the group, so nothing kills it; it holds stdout for
     * 60 s, but the run ends shortly after the leader. */
    tdx_proc_opts o = {.timeout_s = 30};
    tdx_proc_result r;
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    assert_int_equal(run_child(&o, &r, "escape", NULL, NULL), TDX_OK);
    clock_gettime(CLOCK_MONOTONIC, &b);
    double took = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) * 1e-9;
    assert_true(took < 10.0);
    assert_true(r.exited);
    assert_int_equal(r.exit_status, 0);
    pid_t g = (pid_t)atoi(r.out);
    assert_true(g > 1);
    kill(g, SIGKILL);
    tdx_proc_result_free(&r);
}

static void caps_a_stdout_flood(void **state)
{
    (void)state;
    /* 1 GiB through the pipe, 1 MiB kept: read and dropped, never stored */
    tdx_proc_opts o = {.timeout_s = 120, .stdout_cap = MiB};
    tdx_proc_result r;
    assert_int_equal(run_child(&o, &r, "flood-out", "1073741824", NULL), TDX_OK);
    assert_true(r.exited);
    assert_int_equal(r.exit_status, 0);
    assert_false(r.timed_out);
    assert_int_equal(r.out_len, MiB);
    assert_true(r.out_total == ((uint64_t)1 << 30));
    assert_true(r.out_over_cap);
    assert_int_equal(strlen(r.out), MiB);
    assert_false(tdx_proc_ok(&r));
    char why[64];
    assert_string_equal(tdx_proc_describe(&r, 0, why, sizeof why), "output over cap");
    tdx_proc_result_free(&r);
}

static void stops_a_flood_at_the_cap_on_request(void **state)
{
    (void)state;
    /* 1 TiB would take minutes to drain: killed as soon as it passes 1 MiB */
    tdx_proc_opts o = {.timeout_s = 120, .stdout_cap = MiB, .stop_at_stdout_cap = 1};
    tdx_proc_result r;
    assert_int_equal(run_child(&o, &r, "flood-out", "1099511627776", NULL), TDX_OK);
    assert_true(r.stopped_at_cap);
    assert_true(r.out_over_cap);
    assert_false(r.timed_out);
    assert_true(r.signaled);
    assert_int_equal(r.term_signal, SIGKILL);
    assert_true(r.wall_s < 10.0);
    assert_int_equal(r.out_len, MiB);
    char why[64];
    assert_string_equal(tdx_proc_describe(&r, 120, why, sizeof why), "output over cap");
    tdx_proc_result_free(&r);
}

static void caps_a_stderr_flood(void **state)
{
    (void)state;
    tdx_proc_opts o = {.timeout_s = 120, .stderr_cap = 65536, .stderr_keep = TDX_PROC_KEEP_TAIL};
    tdx_proc_result r;
    assert_int_equal(run_child(&o, &r, "flood-err", "268435456", NULL), TDX_OK);
    assert_true(r.exited);
    assert_int_equal(r.err_len, 65536);
    assert_true(r.err_total == ((uint64_t)256 << 20));
    assert_true(r.err_over_cap);
    assert_false(r.out_over_cap);
    assert_true(tdx_proc_ok(&r)); /* a noisy stderr is not a failure */
    tdx_proc_result_free(&r);
}

static void feeds_stdin_and_keeps_a_tail(void **state)
{
    (void)state;
    size_t n = 3 * MiB + 17;
    char *in = malloc(n);
    assert_non_null(in);
    for (size_t i = 0; i < n; i++)
        in[i] = (char)('a' + (i * 7 + i / 1000) % 26);
    tdx_proc_opts o = {.stdin_data = in, .stdin_len = n, .stdout_cap = 1000,
                       .stdout_keep = TDX_PROC_KEEP_TAIL};
    tdx_proc_result r;
    assert_int_equal(run_child(&o, &r, "cat", NULL, NULL), TDX_OK);
    assert_int_equal(r.out_len, 1000);
    assert_true(r.out_total == n);
    assert_memory_equal(r.out, in + n - 1000, 1000);
    char count[32];
    snprintf(count, sizeof count, "%zu\n", n);
    assert_string_equal(r.err, count);
    tdx_proc_result_free(&r);

    /* head kept, whole input */
    o.stdout_cap = 0;
    o.stdout_keep = TDX_PROC_KEEP_HEAD;
    assert_int_equal(run_child(&o, &r, "cat", NULL, NULL), TDX_OK);
    assert_int_equal(r.out_len, n);
    assert_memory_equal(r.out, in, n);
    tdx_proc_result_free(&r);
    free(in);

    /* no stdin: /dev/null */
    tdx_proc_opts none = {0};
    assert_int_equal(run_child(&none, &r, "cat", NULL, NULL), TDX_OK);
    assert_string_equal(r.out, "");
    assert_string_equal(r.err, "0\n");
    tdx_proc_result_free(&r);
}

static void limits_address_space(void **state)
{
    (void)state;
    tdx_proc_opts o = {.rlimit_as = 256 * MiB};
    tdx_proc_result r;
    assert_int_equal(run_child(&o, &r, "alloc", "1024", NULL), TDX_OK);
    assert_true(r.exited);
    assert_int_equal(r.exit_status, 42); /* malloc said no */
    tdx_proc_result_free(&r);
    assert_int_equal(run_child(&o, &r, "alloc", "16", NULL), TDX_OK);
    assert_int_equal(r.exit_status, 0);
    tdx_proc_result_free(&r);
}

static void limits_file_size(void **state)
{
    (void)state;
    tdx_proc_opts o = {.rlimit_fsize = MiB, .private_tmpdir = 1};
    tdx_proc_result r;
    assert_int_equal(run_child(&o, &r, "write-file", "16777216", NULL), TDX_OK);
    assert_true(r.signaled);
    assert_int_equal(r.term_signal, SIGXFSZ);
    assert_true(r.tmpdir_removed);
    tdx_proc_result_free(&r);
}

static void limits_cpu_time(void **state)
{
    (void)state;
    tdx_proc_opts o = {.rlimit_cpu = 1, .timeout_s = 20};
    tdx_proc_result r;
    assert_int_equal(run_child(&o, &r, "spin", NULL, NULL), TDX_OK);
    assert_true(r.signaled);
    assert_int_equal(r.term_signal, SIGXCPU);
    assert_false(r.timed_out);
    assert_true(r.cpu_s >= 0.5); /* tick-based accounting lags under load */
    tdx_proc_result_free(&r);
}

static void sets_limits_and_no_core_files(void **state)
{
    (void)state;
    tdx_proc_opts o = {.rlimit_as = 2048 * MiB, .rlimit_fsize = 123 * MiB, .rlimit_cpu = 77};
    tdx_proc_result r;
    assert_int_equal(run_child(&o, &r, "limits", NULL, NULL), TDX_OK);
    char want[256];
    snprintf(want, sizeof want, "as=%llu\n", (unsigned long long)(2048 * MiB));
    assert_non_null(strstr(r.out, "core=0\n"));
    assert_non_null(strstr(r.out, want));
    assert_non_null(strstr(r.out, "cpu=77\n"));
    snprintf(want, sizeof want, "fsize=%llu\n", (unsigned long long)(123 * MiB));
    assert_non_null(strstr(r.out, want));
    tdx_proc_result_free(&r);
}

static void gives_the_child_only_three_descriptors(void **state)
{
    (void)state;
    int leak = open("/dev/null", O_RDONLY); /* deliberately not O_CLOEXEC */
    assert_true(leak >= 0);
    tdx_proc_opts o = {0};
    tdx_proc_result r;
    assert_int_equal(run_child(&o, &r, "fds", NULL, NULL), TDX_OK);
    assert_string_equal(r.out, "0\n");
    tdx_proc_result_free(&r);
    close(leak);
}

static void runs_in_a_directory(void **state)
{
    (void)state;
    tdx_proc_opts o = {.cwd = "/"};
    tdx_proc_result r;
    assert_int_equal(run_child(&o, &r, "pwd", NULL, NULL), TDX_OK);
    assert_string_equal(r.out, "/\n");
    tdx_proc_result_free(&r);
    o.cwd = "/nonexistent/dir";
    assert_int_equal(run_child(&o, &r, "pwd", NULL, NULL), TDX_ERR_NOTFOUND);
    assert_int_equal(r.exec_errno, ENOENT);
    assert_string_equal(r.failed_step, "chdir");
    tdx_proc_result_free(&r);
}

static void private_tmpdir_is_created_and_removed(void **state)
{
    (void)state;
    /* a file outside, reachable through a symlink the child leaves */
    char outside[] = "/tmp/tdx-outside-XXXXXX";
    int fd = mkstemp(outside);
    assert_true(fd >= 0);
    close(fd);
    tdx_proc_opts o = {.private_tmpdir = 1};
    tdx_proc_result r;
    assert_int_equal(run_child(&o, &r, "mess", outside, NULL), TDX_OK);
    assert_int_equal(r.exit_status, 0);
    assert_non_null(r.tmpdir);
    assert_true(r.tmpdir_removed);
    char want[PATH_MAX * 2 + 4];
    snprintf(want, sizeof want, "%s\n%s\n", r.tmpdir, r.tmpdir);
    assert_string_equal(r.out, want); /* cwd, then TMPDIR */
    struct stat st;
    assert_int_equal(stat(r.tmpdir, &st), -1);
    assert_int_equal(stat(outside, &st), 0);
    tdx_proc_result_free(&r);
    unlink(outside);

    char *dir = NULL;
    assert_int_equal(tdx_proc_tmpdir_create(&dir), TDX_OK);
    assert_int_equal(stat(dir, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0700);
    assert_int_equal(tdx_proc_tmpdir_remove(dir), TDX_OK);
    assert_int_equal(stat(dir, &st), -1);
    free(dir);
}

static void isolates_the_network_or_says_it_did_not(void **state)
{
    (void)state;
    tdx_proc_opts o = {0};
    tdx_proc_result r;
    assert_int_equal(run_child(&o, &r, "net", NULL, NULL), TDX_OK);
    assert_string_equal(r.out, "net up\n");
    assert_false(r.net_isolated);
    tdx_proc_result_free(&r);

    o.net = TDX_PROC_NET_TRY;
    assert_int_equal(run_child(&o, &r, "net", NULL, NULL), TDX_OK);
    int isolated = r.net_isolated;
    /* whichever way the system allows, the result tells the truth */
    assert_string_equal(r.out, isolated ? "net down\n" : "net up\n");
    tdx_proc_result_free(&r);

    o.net = TDX_PROC_NET_REQUIRE;
    tdx_status st = run_child(&o, &r, "net", NULL, NULL);
    if (isolated) {
        assert_int_equal(st, TDX_OK);
        assert_string_equal(r.out, "net down\n");
    } else {
        assert_int_equal(st, TDX_ERR_UNSUPPORTED);
    }
    tdx_proc_result_free(&r);
}

// Independent probe: may a fresh child of ours unshare user + net?
static int system_allows_userns(void)
{
    pid_t pid = fork();
    if (pid == 0)
        _exit(unshare(CLONE_NEWUSER | CLONE_NEWNET) == 0 ? 0 : 1);
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

static void isolation_is_applied_where_allowed(void **state)
{
    (void)state;
    tdx_proc_opts o = {.net = TDX_PROC_NET_TRY};
    tdx_proc_result r;
    assert_int_equal(run_child(&o, &r, "net", NULL, NULL), TDX_OK);
    assert_int_equal(r.net_isolated, system_allows_userns());
    tdx_proc_result_free(&r);
}

// Open descriptors of this process.
static int count_fds(void)
{
    int n = 0;
    for (int fd = 0; fd < 1024; fd++)
        if (fcntl(fd, F_GETFD) != -1)
            n++;
    return n;
}

static void leaks_no_descriptors_or_directories(void **state)
{
    (void)state;
    int before = count_fds();
    for (int i = 0; i < 20; i++) {
        tdx_proc_opts o = {.timeout_s = 0.05, .private_tmpdir = 1, .stdin_data = "x",
                           .stdin_len = 1, .net = TDX_PROC_NET_TRY};
        tdx_proc_result r;
        static const char *const modes[] = {"hello", "segv", "hang", "exit", "cat"};
        tdx_status st = run_child(&o, &r, modes[i % 5], "1", NULL);
        assert_int_equal(st, TDX_OK);
        assert_true(r.tmpdir_removed);
        tdx_proc_result_free(&r);
        const char *missing[] = {"/nonexistent", NULL};
        o.argv = missing;
        assert_int_equal(tdx_proc_run(&o, &r), TDX_ERR_NOTFOUND);
        tdx_proc_result_free(&r);
        o.argv = NULL;
        o.cwd = "/nonexistent";
        assert_int_equal(run_child(&o, &r, "hello", NULL, NULL), TDX_ERR_NOTFOUND);
        tdx_proc_result_free(&r);
    }
    assert_int_equal(count_fds(), before);
}

static void describes_and_names(void **state)
{
    (void)state;
    char buf[64];
    const char text[] = "one\ntwo \x01 three\r\n\n  \n";
    assert_string_equal(tdx_proc_last_line(text, sizeof text - 1, buf, sizeof buf), "two ? three");
    assert_string_equal(tdx_proc_last_line("", 0, buf, sizeof buf), "");
    assert_string_equal(tdx_proc_last_line("abcdef", 6, buf, 4), "abc");
    assert_string_equal(tdx_proc_signame(SIGKILL), "SIGKILL");
    assert_string_equal(tdx_proc_signame(SIGXFSZ), "SIGXFSZ");
    assert_string_equal(tdx_proc_signame(999), "SIG?");
    tdx_proc_result r = {.exited = 1, .exit_status = 2};
    assert_string_equal(tdx_proc_describe(&r, 0, buf, sizeof buf), "exited with status 2");
    r.timed_out = 1;
    assert_string_equal(tdx_proc_describe(&r, 30, buf, sizeof buf), "timed out after 30 s");
    assert_string_equal(tdx_proc_describe(&r, 30, buf, 8), "timed o");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(captures_both_streams),
        cmocka_unit_test(passes_arguments_and_finds_program_in_path),
        cmocka_unit_test(rejects_bad_options),
        cmocka_unit_test(reports_a_program_that_cannot_be_executed),
        cmocka_unit_test(builds_the_environment),
        cmocka_unit_test(reports_a_non_zero_exit),
        cmocka_unit_test(survives_a_segfault),
        cmocka_unit_test(times_out_a_hang),
        cmocka_unit_test(timeout_kills_the_whole_group),
        cmocka_unit_test(times_out_a_child_that_closed_its_pipes),
        cmocka_unit_test(does_not_wait_for_an_escaped_grandchild),
        cmocka_unit_test(caps_a_stdout_flood),
        cmocka_unit_test(stops_a_flood_at_the_cap_on_request),
        cmocka_unit_test(caps_a_stderr_flood),
        cmocka_unit_test(feeds_stdin_and_keeps_a_tail),
        cmocka_unit_test(limits_address_space),
        cmocka_unit_test(limits_file_size),
        cmocka_unit_test(limits_cpu_time),
        cmocka_unit_test(sets_limits_and_no_core_files),
        cmocka_unit_test(gives_the_child_only_three_descriptors),
        cmocka_unit_test(runs_in_a_directory),
        cmocka_unit_test(private_tmpdir_is_created_and_removed),
        cmocka_unit_test(isolates_the_network_or_says_it_did_not),
        cmocka_unit_test(isolation_is_applied_where_allowed),
        cmocka_unit_test(leaks_no_descriptors_or_directories),
        cmocka_unit_test(describes_and_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
