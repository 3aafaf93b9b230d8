/* Level 1 told what the caller already has (the optimize loop: the device's
 * ceilings, its own timing of the source being diagnosed) asks the harness
 * only for what is new: the capture. A stand-in harness (a shell script as
 * TDX_PYTHON) logs the verbs it is asked for and answers with fixed numbers. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/file.h"
#include "diagnose/diagnose.h"
#include "finding/finding.h"
#include "profile/profile.h"

static char dir[128], logpath[200], script[200], task[200];
static char asked[2048]; /* level 1's findings when it measured everything itself */

/* The stand-in: `-m tritondx_harness VERB ...` -> one reply line. The time
 * reply says 1 ms for 1 GB (25 % of a 4 TB/s roof); ceilings say 4 TB/s. */
static const char *fake =
    "#!/bin/sh\n"
    "echo \"$3\" >> \"$TDX_L1_LOG\"\n"
    "case \"$3\" in\n"
    "ceilings) echo '{\"ok\": true, \"verb\": \"ceilings\", \"protocol\": 1, \"device\": {\"name\": \"X\", "
    "\"sms\": 132, \"l2_bytes\": 62914560}, \"copy_bytes_per_s\": 4e12, \"matmul\": "
    "{\"float16\": {\"flops_per_s\": 7e14}}}' ;;\n"
    "time) echo '{\"ok\": true, \"verb\": \"time\", \"protocol\": 1, \"bytes\": 1e9, \"flops\": 0, \"dtype\": "
    "\"float32\", \"variants\": {\"baseline\": {\"median_ms\": 1.0, \"iqr_ms\": 0.01}}}' ;;\n"
    "capture) echo '{\"ok\": true, \"verb\": \"capture\", \"protocol\": 1, \"launches\": []}' ;;\n"
    "*) echo '{\"ok\": false, \"verb\": \"'$3'\", \"protocol\": 1, \"error\": \"no\"}' ;;\n"
    "esac\n";

static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/tdx_l1_%ld", (long)getpid());
    mkdir(dir, 0700);
    snprintf(logpath, sizeof logpath, "%s/verbs.log", dir);
    snprintf(script, sizeof script, "%s/python", dir);
    snprintf(task, sizeof task, "%s/task.py", dir);
    assert_int_equal(tdx_file_write(script, fake, strlen(fake)), TDX_OK);
    chmod(script, 0700);
    assert_int_equal(tdx_file_write(task, "x = 1\n", 6), TDX_OK);
    setenv("TDX_PYTHON", script, 1);
    setenv("TDX_L1_LOG", logpath, 1);
    unlink(logpath);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[200];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    return system(cmd) == 0 ? 0 : -1;
}

static void verbs(char *out, size_t n)
{
    char *s = NULL;
    size_t len = 0;
    out[0] = '\0';
    if (tdx_file_read(logpath, 1 << 16, &s, &len) == TDX_OK) {
        for (char *p = s; *p; p++)
            if (*p == '\n')
                *p = ' ';
        snprintf(out, n, "%s", s);
        free(s);
    }
}

/* The messages of the level 1 findings, joined: what level 1 concluded. */
static void profile_findings(const tdx_ledger *l, char *out, size_t n)
{
    out[0] = '\0';
    for (size_t i = 0; i < tdx_ledger_count(l); i++) {
        const tdx_finding *f = tdx_ledger_at(l, i);
        if (f->level == TDX_LEVEL_PROFILE && strlen(out) + strlen(f->message) + 2 < n) {
            strcat(out, f->message);
            strcat(out, "\n");
        }
    }
}

static void run_level1(const tdx_dx_l1_opts *l1, const char *src, size_t len, tdx_ledger *l)
{
    tdx_dx_cost cost = {0};
    char why[256] = "";
    tdx_diags d;
    tdx_diags_init(&d);
    tdx_status st = tdx_dx_level1((void *)l1, task, src, len, l, &cost, why, sizeof why, &d);
    tdx_diags_free(&d);
    assert_int_equal(st, TDX_OK);
}

static void asks_for_everything_when_told_nothing(void **state)
{
    (void)state;
    tdx_ledger l;
    tdx_ledger_init(&l);
    const char src[] = "x = 1\n";
    run_level1(NULL, src, sizeof src - 1, &l);
    char v[256];
    verbs(v, sizeof v);
    assert_string_equal(v, "ceilings time capture ");
    profile_findings(&l, asked, sizeof asked);
    assert_non_null(strstr(asked, "25%"));
    tdx_ledger_free(&l);
}

static void takes_the_known_timing_of_the_same_buffer(void **state)
{
    (void)state;
    tdx_prof_ceilings c = {0};
    c.copy_bw = 4e12;
    c.sms = 132;
    c.l2_bytes = 62914560;
    c.mm_fp16 = 7e14;
    const char src[] = "x = 1\n";
    tdx_dx_l1_opts l1 = {0};
    l1.ceilings = &c;
    l1.known_src = src;
    l1.known_len = sizeof src - 1;
    l1.known_median_s = 1e-3;
    l1.known_iqr_s = 1e-5;
    l1.known_bytes = 1e9;
    snprintf(l1.known_dtype, sizeof l1.known_dtype, "float32");
    tdx_ledger l;
    tdx_ledger_init(&l);
    run_level1(&l1, src, sizeof src - 1, &l);
    char v[256];
    verbs(v, sizeof v);
    assert_string_equal(v, "capture ");
    /* the same numbers, the same conclusions */
    char told[2048];
    profile_findings(&l, told, sizeof told);
    assert_string_equal(told, asked);
    tdx_ledger_free(&l);
    /* another buffer (a new best): timed again, the ceilings still known */
    unlink(logpath);
    char other[] = "x = 1\n";
    tdx_ledger_init(&l);
    run_level1(&l1, other, sizeof other - 1, &l);
    verbs(v, sizeof v);
    assert_string_equal(v, "time capture ");
    tdx_ledger_free(&l);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(asks_for_everything_when_told_nothing, setup, teardown),
        cmocka_unit_test_setup_teardown(takes_the_known_timing_of_the_same_buffer, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
