/* Data-driven tests of the ir module: every tests/data/ir/<case>/ holds the
 * stages of one AOT-compiled kernel (see tests/data/ir/gen.py) and an
 * expected.txt written by hand. Each expected line is a record:
 *
 *     load line=18 name=x contig=4 vec=4 pbits=128
 *
 * and must match a distinct record of the same kind in the joined kernel's
 * rendering (tdx_ir_kernel_dump) on every key it names. `kernel`, `res` and
 * `count` lines are checked against the one record of that kind, so `count`
 * pins the number of records and stray extra ones fail too. */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/file.h"
#include "ir/ir.h"

#define MAX_KEYS 24

typedef struct rec {
    char kind[16];
    char keys[MAX_KEYS][24];
    char vals[MAX_KEYS][64];
    int nkeys;
    int used;
    char text[512];
} rec;

// Parse "kind k=v k=v" into r; 0 when the line is blank or a comment.
static int parse_rec(const char *line, rec *r)
{
    memset(r, 0, sizeof *r);
    while (*line == ' ' || *line == '\t')
        line++;
    if (!*line || *line == '#' || *line == '\n')
        return 0;
    snprintf(r->text, sizeof r->text, "%s", line);
    r->text[strcspn(r->text, "\n")] = 0;
    char buf[512];
    snprintf(buf, sizeof buf, "%s", r->text);
    char *save = NULL;
    char *tok = strtok_r(buf, " \t", &save);
    if (!tok)
        return 0;
    snprintf(r->kind, sizeof r->kind, "%s", tok);
    while ((tok = strtok_r(NULL, " \t", &save)) && r->nkeys < MAX_KEYS) {
        char *eq = strchr(tok, '=');
        if (!eq)
            continue;
        *eq = 0;
        snprintf(r->keys[r->nkeys], sizeof r->keys[0], "%s", tok);
        snprintf(r->vals[r->nkeys], sizeof r->vals[0], "%s", eq + 1);
        r->nkeys++;
    }
    return 1;
}

// A record's value for key, or NULL.
static const char *rec_get(const rec *r, const char *key)
{
    for (int i = 0; i < r->nkeys; i++)
        if (strcmp(r->keys[i], key) == 0)
            return r->vals[i];
    return NULL;
}

// 1 when have is of want's kind and agrees on every key want names.
static int rec_matches(const rec *want, const rec *have)
{
    if (strcmp(want->kind, have->kind) != 0)
        return 0;
    for (int i = 0; i < want->nkeys; i++) {
        const char *v = rec_get(have, want->keys[i]);
        if (!v || strcmp(v, want->vals[i]) != 0)
            return 0;
    }
    return 1;
}

// All records of a text (comments and blanks skipped); the caller frees.
static size_t parse_all(const char *text, rec **out)
{
    size_t cap = 64, n = 0;
    rec *rs = calloc(cap, sizeof *rs);
    for (const char *l = text; l && *l;) {
        const char *nl = strchr(l, '\n');
        char line[512];
        size_t len = nl ? (size_t)(nl - l) : strlen(l);
        if (len >= sizeof line)
            len = sizeof line - 1;
        memcpy(line, l, len);
        line[len] = 0;
        if (n == cap)
            rs = realloc(rs, (cap *= 2) * sizeof *rs);
        if (parse_rec(line, &rs[n]))
            n++;
        l = nl ? nl + 1 : NULL;
    }
    *out = rs;
    return n;
}

// One fixture: load, join, render, and match every expected record.
static void check_case(void **state)
{
    const char *dir = *state;
    char path[4096];
    snprintf(path, sizeof path, "%s/expected.txt", dir);
    char *exp_text = NULL;
    size_t exp_len = 0;
    assert_int_equal(tdx_file_read(path, 1 << 20, &exp_text, &exp_len), TDX_OK);

    tdx_ir_kernel k;
    tdx_ir_kernel_init(&k);
    tdx_diags d;
    tdx_diags_init(&d);
    tdx_status st = tdx_ir_kernel_load_dir(&k, dir, &d);
    for (size_t i = 0; i < d.len; i++)
        print_message("%s: diag: %s\n", dir, d.items[i].msg);
    assert_int_equal(st, TDX_OK);
    assert_int_equal(d.len, 0); /* real compiler output parses without a word */
    assert_non_null(k.ttir);
    assert_non_null(k.ttgir);
    assert_non_null(k.ptx);
    assert_non_null(k.sass);
    assert_non_null(k.ptxas);
    tdx_buf b;
    tdx_buf_init(&b, 0);
    assert_int_equal(tdx_ir_kernel_dump(&k, &b), TDX_OK);

    rec *want = NULL, *have = NULL;
    size_t nwant = parse_all(exp_text, &want);
    size_t nhave = parse_all(tdx_buf_str(&b), &have);
    assert_true(nwant > 0);
    int failures = 0;
    int seen_count = 0;
    for (size_t i = 0; i < nwant; i++) {
        seen_count |= strcmp(want[i].kind, "count") == 0;
        size_t j;
        for (j = 0; j < nhave; j++)
            if (!have[j].used && rec_matches(&want[i], &have[j]))
                break;
        if (j < nhave) {
            have[j].used = 1;
            continue;
        }
        failures++;
        print_error("%s: no record matches: %s\n", dir, want[i].text);
        for (size_t h = 0; h < nhave; h++)
            if (strcmp(have[h].kind, want[i].kind) == 0)
                print_error("    have: %s\n", have[h].text);
    }
    if (!seen_count) {
        failures++;
        print_error("%s: expected.txt has no count line\n", dir);
    }
    free(want);
    free(have);
    free(exp_text);
    tdx_buf_free(&b);
    tdx_diags_free(&d);
    tdx_ir_kernel_free(&k);
    assert_int_equal(failures, 0);
}

// Sort case folders by name.
static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

// One cmocka test per fixture folder; fewer than 15 folders fail.
int main(void)
{
    const char *root = TDX_TEST_DATA "/ir";
    DIR *dp = opendir(root);
    if (!dp) {
        fprintf(stderr, "cannot open %s\n", root);
        return 1;
    }
    char *dirs[256];
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir(dp)) && n < 256) {
        if (e->d_name[0] == '.' || strcmp(e->d_name, "kernels") == 0)
            continue;
        /* A case is a folder with the meta.json gen.py writes (so that a
         * stray __pycache__ is not one); its expected.txt must exist. */
        char p[4096], meta[4200];
        struct stat sb;
        snprintf(p, sizeof p, "%s/%s", root, e->d_name);
        snprintf(meta, sizeof meta, "%s/meta.json", p);
        if (stat(p, &sb) == 0 && S_ISDIR(sb.st_mode) && stat(meta, &sb) == 0)
            dirs[n++] = strdup(p);
    }
    closedir(dp);
    qsort(dirs, n, sizeof *dirs, by_name);
    /* The fixture set is part of the contract: fewer cases is a failure. */
    if (n < 15) {
        fprintf(stderr, "only %zu fixture cases under %s\n", n, root);
        return 1;
    }
    struct CMUnitTest *tests = calloc(n, sizeof *tests);
    for (size_t i = 0; i < n; i++) {
        tests[i].name = strrchr(dirs[i], '/') + 1;
        tests[i].test_func = check_case;
        tests[i].initial_state = dirs[i];
    }
    int rc = _cmocka_run_group_tests("ir_fixtures", tests, n, NULL, NULL);
    free(tests);
    for (size_t i = 0; i < n; i++)
        free(dirs[i]);
    return rc;
}
