/* The loop's executor: the harness's check and time verbs, or a test timer. */
#include "loop/exec.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Address-space limit of a child on the CPU: the interpreter checking a
 * task needs about 3 GiB of it (torch and triton mapped); on a GPU there is
 * none, since CUDA reserves far more address space than it uses. */
#define TDX_LOOP_CPU_AS ((uint64_t)8 << 30)
/* Largest file a child may write (in its private directory). */
#define TDX_LOOP_FSIZE ((uint64_t)1 << 30)

/* Secrets of tritondx's own that code under test never needs. */
static const char *const secret_env[] = {"TRITONDX_LLM_KEY", "OPENAI_API_KEY", NULL};
/* Tells the harness it runs sandboxed: Triton's cache goes into the private
 * directory (the only writable place), so one candidate cannot plant
 * compiled kernels for the next. */
#define TDX_LOOP_SANDBOX_ENV "TDX_SANDBOX=1"
#define TDX_LOOP_MAX_ENV 64

/* The CPU time limit of each process: $TRITONDX_CANDIDATE_CPU (seconds),
 * else the wall-clock limit. Unlike the wall clock it does not run while a
 * busy machine keeps the process waiting, so a loop is stopped after the
 * same work however loaded the machine is. */
/* A positive number of seconds from the environment variable name, else 0. */
static double env_seconds(const char *name)
{
    const char *e = getenv(name);
    char *end = NULL;
    double v = e ? strtod(e, &end) : 0;
    return e && end != e && *end == '\0' && v > 0 && v < 1e9 ? v : 0;
}

static uint64_t cpu_limit(double timeout_s)
{
    double v = env_seconds("TRITONDX_CANDIDATE_CPU");
    if (v <= 0)
        v = timeout_s;
    return (uint64_t)(v + 0.999);
}

/* The per-child time limit: the caller's, else $TRITONDX_CANDIDATE_TIMEOUT
 * (seconds), else 600 s. */
static double child_timeout(double set)
{
    if (set > 0)
        return set;
    double v = env_seconds("TRITONDX_CANDIDATE_TIMEOUT");
    return v > 0 ? v : 600;
}

/* A 0/1 switch from the environment, else dflt. */
static int env_on(const char *name, int dflt)
{
    const char *e = getenv(name);
    return e && (e[0] == '0' || e[0] == '1') && !e[1] ? e[0] == '1' : dflt;
}

/* The options every child that runs task or candidate code gets: a private
 * directory as its working directory and only writable place, no network,
 * no secrets, rlimits (see docs/faults.md). A limit the caller set stays. */
static tdx_hx_opts sandboxed(const tdx_loop_hx *x, double timeout_s,
                             const char *env[TDX_LOOP_MAX_ENV + 2])
{
    tdx_hx_opts o = x->hx;
    size_t n = 0;
    for (size_t i = 0; x->hx.env_set && x->hx.env_set[i] && n < TDX_LOOP_MAX_ENV; i++)
        env[n++] = x->hx.env_set[i];
    env[n++] = TDX_LOOP_SANDBOX_ENV;
    env[n] = NULL;
    o.env_set = env;
    o.timeout_s = timeout_s;
    o.private_tmpdir = 1;
    int on_cpu = x->device && strcmp(x->device, "cpu") == 0;
    if (o.net == TDX_PROC_NET_INHERIT && env_on("TRITONDX_SANDBOX_NET", 1))
        o.net = TDX_PROC_NET_TRY;
    /* Write confinement from the first instruction only on the CPU: CUDA's
     * initialisation fails inside it (cudaGetDeviceCount: error 304, seen on
     * the H200). On a GPU the harness confines the process that imports the
     * candidate itself, right after CUDA is up (isolate.confine_self). */
    if (o.fs == TDX_PROC_FS_INHERIT && env_on("TRITONDX_SANDBOX_FS", on_cpu))
        o.fs = TDX_PROC_FS_TRY;
    if (!o.rlimit_as && x->device && strcmp(x->device, "cpu") == 0)
        o.rlimit_as = TDX_LOOP_CPU_AS;
    if (!o.rlimit_fsize)
        o.rlimit_fsize = TDX_LOOP_FSIZE;
    if (!o.rlimit_cpu)
        o.rlimit_cpu = cpu_limit(timeout_s);
    if (!o.env_unset)
        o.env_unset = secret_env;
    return o;
}

/* An absolute form of path in buf (the child runs in another directory). */
static const char *absolute(const char *path, char *buf)
{
    if (!path || path[0] == '/' || !realpath(path, buf))
        return path;
    return buf;
}

tdx_loop_exec tdx_loop_hx_exec(tdx_loop_hx *hx)
{
    tdx_loop_exec e = {tdx_loop_hx_check, tdx_loop_hx_time, NULL, hx, tdx_loop_hx_time_torch};
    /* one child for a candidate's check and timing on a GPU; on the CPU
     * (interpreter, test timer) the two steps stay apart */
    const char *prog = hx->test_timer ? hx->test_timer : getenv("TDX_TEST_TIMER");
    if ((!hx->device || strcmp(hx->device, "cuda") == 0) && !(prog && *prog) && env_on("TRITONDX_TRIAL", 1))
        e.trial = tdx_loop_hx_trial;
    return e;
}

/* The check's failure as a verdict: the harness's reason without its
 * prefix; a task that does not meet the task format (error_kind
 * task_invalid: no reference, no make_inputs ...) is marked unfit. */
static void verdict_reason(const tdx_hx_reply *r, tdx_loop_check *res)
{
    const char *prefix = "harness reported error: ";
    const char *why = strncmp(r->reason, prefix, strlen(prefix)) == 0 ? r->reason + strlen(prefix) : r->reason;
    snprintf(res->reason, sizeof res->reason, "%s", why);
    const char *kind = json_string_value(json_object_get(r->json, "error_kind"));
    res->task_unfit = kind && strcmp(kind, "task_invalid") == 0;
}

/* A check reply's "tolerance" (the loosest an output was judged by), 0 when absent. */
static double tolerance_of(json_t *reply)
{
    json_t *v = json_object_get(reply, "tolerance");
    return json_is_number(v) && json_number_value(v) > 0 ? json_number_value(v) : 0;
}

tdx_status tdx_loop_hx_check(void *ud, const char *task_path, const char *candidate_path,
                             tdx_loop_check *res)
{
    tdx_loop_hx *x = ud;
    memset(res, 0, sizeof *res);
    const char *env[TDX_LOOP_MAX_ENV + 2];
    tdx_hx_opts o = sandboxed(x, child_timeout(x->check_timeout_s), env);
    char at[PATH_MAX], ac[PATH_MAX];
    task_path = absolute(task_path, at);
    const char *dev = x->device ? x->device : "cuda";
    /* On the GPU a candidate is also checked once at the bench shape, the
     * size it is timed at: small check shapes cannot catch a grid or tile
     * that only goes wrong at size. (The interpreter would take too long.) */
    const char *args[] = {"--candidate", absolute(candidate_path, ac), "--device", dev,
                          strcmp(dev, "cuda") == 0 ? "--bench-shape" : NULL, NULL};
    tdx_hx_reply r;
    tdx_status st = tdx_hx_call(&o, "check", task_path, args, &r, NULL);
    res->sandbox_known = 1;
    res->net_isolated = r.proc.net_isolated;
    res->fs_isolated = r.proc.fs_isolated;
    if (!st) {
        res->ok = 1;
        res->tolerance = tolerance_of(r.json);
    } else {
        /* a wrong candidate is a verdict, not a failure of the loop */
        verdict_reason(&r, res);
        st = TDX_OK;
    }
    if (strcmp(x->device ? x->device : "cuda", "cuda") == 0)
        x->gpu_runs++;
    tdx_hx_reply_free(&r);
    return st;
}

static double num(json_t *o, const char *k)
{
    json_t *v = json_object_get(o, k);
    return json_is_number(v) ? json_number_value(v) : -1;
}

/* Median and spread, in seconds, of one variant of a `time` reply:
 * {"variants": {"baseline": {"median_ms":..., "iqr_ms":...}, "candidate": {...}}}. */
static int side(json_t *reply, const char *key, double *median, double *iqr)
{
    json_t *o = json_object_get(json_object_get(reply, "variants"), key);
    if (!json_is_object(o))
        return -1;
    *median = num(o, "median_ms") / 1e3;
    *iqr = num(o, "iqr_ms") / 1e3;
    if (*iqr < 0)
        *iqr = 0;
    return *median > 0 ? 0 : -1;
}

/* The reply's rep-by-rep ratios (`paired` of a `time` reply, or the test
 * timer's ratio_* keys) into res; left 0 when absent. */
static void read_paired(json_t *j, tdx_loop_timing *res)
{
    json_t *p = json_object_get(j, "paired");
    if (!json_is_object(p))
        p = j;
    double m = num(p, "ratio_median"), lo = num(p, "ratio_lo"), hi = num(p, "ratio_hi");
    if (m > 0 && lo > 0 && hi >= lo) {
        res->ratio_median = m;
        res->ratio_lo = lo;
        res->ratio_hi = hi;
    }
}

static tdx_status test_timer(tdx_loop_hx *x, const char *prog, const char *base, const char *cand, int torch,
                             tdx_loop_timing *res)
{
    const char *argv[] = {prog, base, cand ? cand : "-", torch ? "--torch" : NULL, NULL};
    tdx_proc_opts po = {0};
    po.argv = argv;
    po.timeout_s = 60;
    po.stdout_cap = 1 << 16;
    tdx_proc_result pr;
    tdx_status st = tdx_proc_run(&po, &pr);
    if (st || !tdx_proc_ok(&pr)) {
        char why[256];
        snprintf(res->reason, sizeof res->reason, "test timer: %s",
                 st ? tdx_status_str(st) : tdx_proc_describe(&pr, 60, why, sizeof why));
        tdx_proc_result_free(&pr);
        return TDX_ERR_CHILD;
    }
    json_error_t err;
    json_t *j = json_loads(pr.out, 0, &err);
    tdx_proc_result_free(&pr);
    if (!json_is_object(j)) {
        json_decref(j);
        snprintf(res->reason, sizeof res->reason, "test timer: output is not a JSON object");
        return TDX_ERR_CHILD;
    }
    res->base_median_s = num(j, "base_median_s");
    res->base_iqr_s = num(j, "base_iqr_s");
    res->cand_median_s = num(j, "cand_median_s");
    res->cand_iqr_s = num(j, "cand_iqr_s");
    res->fraction = num(j, "fraction");
    read_paired(j, res);
    if (torch) {
        res->torch_eager_s = fmax(num(j, "torch_eager_median_s"), 0);
        res->torch_compile_s = fmax(num(j, "torch_compile_median_s"), 0);
        res->torch_compile_build_s = fmax(num(j, "torch_compile_build_s"), 0);
    }
    json_decref(j);
    (void)x;
    return res->base_median_s > 0 ? TDX_OK : TDX_ERR_CHILD;
}

/* The torch columns a `time --beside-torch` reply timed among the two: a
 * torch.compile through another backend than Inductor (a test seam) is not
 * torch.compile's time and is left out. */
static void read_beside_torch(json_t *j, tdx_loop_timing *res)
{
    double iqr;
    if (side(j, "torch_eager", &res->torch_eager_s, &iqr) != 0)
        res->torch_eager_s = 0;
    json_t *b = json_object_get(j, "beside_torch");
    const char *backend = json_string_value(json_object_get(b, "backend"));
    if (!backend || strcmp(backend, "inductor") != 0 || side(j, "torch_compile", &res->torch_compile_s, &iqr) != 0)
        res->torch_compile_s = 0;
    res->torch_compile_build_s = res->torch_compile_s > 0 ? fmax(num(b, "compile_s"), 0) : 0;
}

/* Medians, work and roofline fraction from a `time` reply j (with_cand: it
 * timed a candidate against the baseline). */
static tdx_status fill_timing(const tdx_loop_hx *x, json_t *j, int with_cand, tdx_loop_timing *res)
{
    if (side(j, "baseline", &res->base_median_s, &res->base_iqr_s) != 0 ||
        (with_cand && side(j, "candidate", &res->cand_median_s, &res->cand_iqr_s) != 0)) {
        snprintf(res->reason, sizeof res->reason, "timing reply lacks median_s");
        return TDX_ERR_CHILD;
    }
    if (with_cand)
        read_paired(j, res);
    res->bytes = num(j, "bytes") > 0 ? num(j, "bytes") : 0;
    res->flops = num(j, "flops") > 0 ? num(j, "flops") : 0;
    res->out_bytes = num(j, "out_bytes") > 0 ? num(j, "out_bytes") : 0;
    res->wait_s = num(j, "lock_wait_s") > 0 ? num(j, "lock_wait_s") : 0;
    res->timed_s = num(j, "timed_s") > 0 ? num(j, "timed_s") : 0;
    json_t *rdt = json_object_get(j, "dtype");
    snprintf(res->dtype, sizeof res->dtype, "%s", json_is_string(rdt) ? json_string_value(rdt) : "");
    if (x->ceilings && x->ceilings->copy_bw > 0) {
        tdx_prof_measure m = {0};
        m.median_s = with_cand ? res->cand_median_s : res->base_median_s;
        m.bytes = res->bytes;
        m.out_bytes = res->out_bytes;
        m.flops = res->flops;
        m.dtype = res->dtype[0] ? res->dtype : NULL;
        tdx_prof_roofline rl;
        if (tdx_prof_roofline_of(&m, x->ceilings, &rl) == TDX_OK)
            res->fraction = rl.fraction;
    }
    return TDX_OK;
}

static tdx_status hx_time(tdx_loop_hx *x, const char *baseline_path, const char *candidate_path, int torch,
                          tdx_loop_timing *res)
{
    memset(res, 0, sizeof *res);
    res->fraction = -1;
    const char *prog = x->test_timer ? x->test_timer : getenv("TDX_TEST_TIMER");
    if (prog && *prog)
        return test_timer(x, prog, baseline_path, candidate_path, torch, res);
    const char *env[TDX_LOOP_MAX_ENV + 2];
    tdx_hx_opts o = sandboxed(x, child_timeout(x->time_timeout_s), env);
    char ab[PATH_MAX], ac[PATH_MAX];
    baseline_path = absolute(baseline_path, ab);
    candidate_path = absolute(candidate_path, ac);
    /* the baseline file carries the task's reference and inputs (vetted
     * unchanged), so it serves as the task for back-to-back timing. The
     * loop compares baseline and candidate only: the torch baselines are
     * timed once per task by `tritondx bench`, not once per candidate
     * (the float64 reference of a large matmul costs seconds a call);
     * the confirm asks for them among its two (--beside-torch). */
    const char *args[5] = {"--no-reference", NULL, NULL, NULL, NULL};
    int na = 1;
    if (torch)
        args[na++] = "--beside-torch";
    if (candidate_path) {
        args[na++] = "--candidate";
        args[na++] = candidate_path;
    }
    tdx_hx_reply r;
    tdx_status st = tdx_hx_call(&o, "time", baseline_path, args, &r, NULL);
    x->gpu_runs++;
    if (st) {
        snprintf(res->reason, sizeof res->reason, "%s", r.reason);
        tdx_hx_reply_free(&r);
        return TDX_ERR_CHILD;
    }
    st = fill_timing(x, r.json, candidate_path != NULL, res);
    if (!st && torch)
        read_beside_torch(r.json, res);
    tdx_hx_reply_free(&r);
    return st;
}

tdx_status tdx_loop_hx_time(void *ud, const char *task_path, const char *baseline_path,
                            const char *candidate_path, tdx_loop_timing *res)
{
    (void)task_path;
    return hx_time(ud, baseline_path, candidate_path, 0, res);
}

tdx_status tdx_loop_hx_time_torch(void *ud, const char *task_path, const char *baseline_path,
                                  const char *candidate_path, tdx_loop_timing *res)
{
    (void)task_path;
    return hx_time(ud, baseline_path, candidate_path, 1, res);
}

/* What a trial may spend waiting for the GPU lock when tasks share one GPU
 * ($TRITONDX_GPU_LOCK): the check takes it once and the timing up to four
 * times, each wait bounded by $TRITONDX_GPU_LOCK_WAIT (900 s by default).
 * The harness leaves those waits out of each step's own limit; the child's
 * backstop must too. */
static double lock_waits_s(void)
{
    const char *lock = getenv("TRITONDX_GPU_LOCK");
    if (!lock || !*lock)
        return 0;
    double w = env_seconds("TRITONDX_GPU_LOCK_WAIT");
    return 5 * (w > 0 ? w : 900);
}

static double mono_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The two steps one after the other, each in its own child. */
static tdx_status trial_apart(tdx_loop_hx *x, const char *task_path, const char *baseline_path,
                              const char *candidate_path, tdx_loop_trial *res)
{
    double t0 = mono_s();
    res->check_st = tdx_loop_hx_check(x, task_path, candidate_path, &res->check);
    res->check_s = mono_s() - t0;
    if (res->check_st || !res->check.ok)
        return TDX_OK;
    t0 = mono_s();
    res->time_st = baseline_path ? tdx_loop_hx_time(x, task_path, baseline_path, candidate_path, &res->timing)
                                 : tdx_loop_hx_time(x, task_path, candidate_path, NULL, &res->timing);
    res->time_s = mono_s() - t0;
    res->timed = 1;
    return TDX_OK;
}

tdx_status tdx_loop_hx_trial(void *ud, const char *task_path, const char *baseline_path,
                             const char *candidate_path, tdx_loop_trial *res)
{
    tdx_loop_hx *x = ud;
    memset(res, 0, sizeof *res);
    res->timing.fraction = -1;
    res->time_s = -1;
    res->start_s = res->precompile_s = res->child_s = res->judge_s = res->alone_s = -1;
    const char *dev = x->device ? x->device : "cuda";
    const char *prog = x->test_timer ? x->test_timer : getenv("TDX_TEST_TIMER");
    if (strcmp(dev, "cuda") != 0 || (prog && *prog) || !env_on("TRITONDX_TRIAL", 1))
        return trial_apart(x, task_path, baseline_path, candidate_path, res);
    /* the harness keeps each step to its own limit (and says which one ran
     * out); the child's limit is only the backstop */
    double check_timeout = child_timeout(x->check_timeout_s), time_timeout = child_timeout(x->time_timeout_s);
    const char *env[TDX_LOOP_MAX_ENV + 2];
    tdx_hx_opts o = sandboxed(x, check_timeout + time_timeout + 60 + lock_waits_s(), env);
    char at[PATH_MAX], ab[PATH_MAX], ac[PATH_MAX], ct[32], tt[32];
    task_path = absolute(task_path, at);
    snprintf(ct, sizeof ct, "%g", check_timeout);
    snprintf(tt, sizeof tt, "%g", time_timeout);
    const char *args[12] = {"--candidate", absolute(candidate_path, ac), "--device", "cuda", "--bench-shape",
                            "--check-timeout", ct, "--time-timeout", tt, NULL, NULL, NULL};
    if (baseline_path) {
        args[9] = "--baseline";
        args[10] = absolute(baseline_path, ab);
    }
    double t0 = mono_s();
    tdx_hx_reply r;
    tdx_status st = tdx_hx_call(&o, "trial", task_path, args, &r, NULL);
    double wall = mono_s() - t0;
    res->check.sandbox_known = 1;
    res->check.net_isolated = r.proc.net_isolated;
    res->check.fs_isolated = r.proc.fs_isolated;
    x->gpu_runs++;
    json_t *tj = st ? NULL : json_object_get(r.json, "time");
    double harness_time_s = st ? -1 : num(r.json, "time_s");
    if (st) {
        /* a wrong candidate is a verdict, not a failure of the loop */
        verdict_reason(&r, &res->check);
    } else {
        res->check.ok = 1;
        res->check.tolerance = tolerance_of(r.json);
        res->timed = 1;
        x->gpu_runs++;
        json_t *tok = json_object_get(tj, "ok");
        if (!json_is_object(tj)) {
            snprintf(res->timing.reason, sizeof res->timing.reason, "the trial reply has no timing");
            res->time_st = TDX_ERR_CHILD;
        } else if (!json_is_true(tok)) {
            const char *msg = json_string_value(json_object_get(tj, "error"));
            snprintf(res->timing.reason, sizeof res->timing.reason, "harness reported error: %.400s",
                     msg && msg[0] ? msg : "(no message)");
            res->time_st = TDX_ERR_CHILD;
        } else {
            res->time_st = fill_timing(x, tj, baseline_path != NULL, &res->timing);
        }
    }
    /* the interpreter's start belongs to the check, the timer's wait to the timing */
    res->time_s = res->timed && harness_time_s >= 0 ? harness_time_s : -1;
    res->check_s = res->time_s >= 0 ? wall - res->time_s : wall;
    res->check_wait_s = st ? -1 : num(r.json, "check_lock_wait_s");
    double inner = num(r.json, "check_s");
    res->start_s = inner >= 0 && res->check_s >= inner ? res->check_s - inner : -1;
    json_t *ph = json_object_get(r.json, "phases_s");
    res->precompile_s = num(ph, "precompile");
    res->child_s = num(ph, "child");
    res->judge_s = num(ph, "judge");
    res->alone_s = num(ph, "alone");
    res->time_wait_s = res->time_s >= 0 ? num(r.json, "time_lock_wait_s") : -1;
    tdx_hx_reply_free(&r);
    return TDX_OK;
}
