/* Level 1: roofline position, occupancy and symptom findings from measured numbers. */
#include "profile/profile.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* Below this fraction of the roofline a bound kernel is worth rewriting. */
#define TDX_PROF_MEM_OK 0.80
#define TDX_PROF_COMPUTE_OK 0.70
/* Launch-bound: the median is within this many empty-launch overheads, or under 5 us. */
#define TDX_PROF_LAUNCH_FACTOR 3.0
#define TDX_PROF_LAUNCH_ABS 5e-6

double tdx_prof_compute_ceiling(const tdx_prof_ceilings *c, const char *dtype)
{
    if (!dtype)
        return c->mm_fp16;
    if (strcmp(dtype, "fp16") == 0 || strcmp(dtype, "float16") == 0)
        return c->mm_fp16;
    if (strcmp(dtype, "bf16") == 0 || strcmp(dtype, "bfloat16") == 0)
        return c->mm_bf16;
    if (strcmp(dtype, "tf32") == 0)
        return c->mm_tf32;
    if (strcmp(dtype, "fp32") == 0 || strcmp(dtype, "float32") == 0)
        return c->mm_tf32 > 0 ? c->mm_tf32 : c->mm_fp32;
    if (strncmp(dtype, "fp8", 3) == 0)
        return c->mm_fp8 > 0 ? c->mm_fp8 : 2 * c->mm_fp16;
    if (strcmp(dtype, "fp64") == 0 || strcmp(dtype, "float64") == 0)
        return c->mm_fp32 / 2;
    return c->mm_fp16;
}

void tdx_prof_fmt_rate(char *out, size_t n, double v, const char *unit)
{
    static const char *pre[] = {"", "K", "M", "G", "T", "P"};
    int i = 0;
    while (fabs(v) >= 1000.0 && i < 5) {
        v /= 1000.0;
        i++;
    }
    snprintf(out, n, "%.3g %s%s", v, pre[i], unit);
}

void tdx_prof_fmt_time(char *out, size_t n, double s)
{
    if (s >= 1.0)
        snprintf(out, n, "%.3g s", s);
    else if (s >= 1e-3)
        snprintf(out, n, "%.3g ms", s * 1e3);
    else
        snprintf(out, n, "%.3g us", s * 1e6);
}

tdx_status tdx_prof_roofline_of(const tdx_prof_measure *m, const tdx_prof_ceilings *c,
                                tdx_prof_roofline *r)
{
    memset(r, 0, sizeof *r);
    if (!(m->median_s > 0) || !(c->copy_bw > 0))
        return TDX_ERR_ARG;
    r->compute_ceiling = tdx_prof_compute_ceiling(c, m->dtype);
    r->t_mem_s = m->bytes > 0 ? m->bytes / c->copy_bw : 0;
    if (m->bytes > 0 && m->out_bytes > 0 && m->out_bytes < m->bytes && c->read_bw > c->copy_bw) {
        /* a copy moves R bytes in and R out in 2R / copy_bw: the writes' share
         * is 2 / copy_bw - 1 / read_bw a byte, the reads' 1 / read_bw */
        double w = m->out_bytes;
        r->t_mem_s = (m->bytes - w) / c->read_bw + w * (2 / c->copy_bw - 1 / c->read_bw);
    }
    r->t_compute_s = (m->flops > 0 && r->compute_ceiling > 0) ? m->flops / r->compute_ceiling : 0;
    r->t_floor_s = r->t_mem_s > r->t_compute_s ? r->t_mem_s : r->t_compute_s;
    r->bound = r->t_compute_s > r->t_mem_s ? TDX_PROF_COMPUTE : TDX_PROF_MEMORY;
    int launches = m->launches > 0 ? m->launches : 1;
    double t_launch = c->launch_s * launches;
    if (t_launch > r->t_floor_s) {
        r->t_floor_s = t_launch;
        r->bound = TDX_PROF_LAUNCH;
    }
    r->fraction = r->t_floor_s / m->median_s;
    r->achieved_bw = m->bytes / m->median_s;
    r->achieved_flops = m->flops / m->median_s;
    return TDX_OK;
}

static int floor_div(int a, int b) { return b > 0 ? a / b : 0; }

/* CTAs in a launch's grid (entries <= 0 count as 1), saturating at LONG_MAX
 * rather than overflowing on a reply with absurd dimensions. */
static long grid_ctas(const tdx_prof_launch *k)
{
    long n = 1;
    for (int d = 0; d < 3; d++)
        if (k->grid[d] > 0 && __builtin_mul_overflow(n, k->grid[d], &n))
            return LONG_MAX;
    return n;
}

tdx_status tdx_prof_occupancy_of(const tdx_prof_launch *k, int sms, tdx_prof_occupancy *o)
{
    memset(o, 0, sizeof *o);
    o->limiter = "unknown";
    o->ctas = (k->grid[0] || k->grid[1] || k->grid[2]) ? grid_ctas(k) : 0;
    if (k->num_warps <= 0)
        return TDX_ERR_ARG;
    int warps = k->num_warps;
    o->limit_warps = floor_div(TDX_PROF_SM90_MAX_WARPS_PER_SM, warps);
    o->limit_regs = TDX_PROF_SM90_MAX_CTAS_PER_SM;
    if (k->regs > 0) {
        /* registers are allocated per warp in units of 256 */
        long per_warp = (long)k->regs * 32;
        per_warp = (per_warp + TDX_PROF_SM90_REG_ALLOC_UNIT - 1) / TDX_PROF_SM90_REG_ALLOC_UNIT *
                   TDX_PROF_SM90_REG_ALLOC_UNIT;
        o->limit_regs = per_warp > TDX_PROF_SM90_REGS_PER_SM
                            ? 0
                            : floor_div(floor_div(TDX_PROF_SM90_REGS_PER_SM, (int)per_warp), warps);
    }
    o->limit_smem = TDX_PROF_SM90_MAX_CTAS_PER_SM;
    if (k->shared_bytes > 0)
        o->limit_smem = k->shared_bytes > TDX_PROF_SM90_SMEM_PER_CTA
                            ? 0
                            : TDX_PROF_SM90_SMEM_PER_SM / (k->shared_bytes + 1024); /* 1 KiB reserved per CTA */
    int n = TDX_PROF_SM90_MAX_CTAS_PER_SM;
    o->limiter = "ctas";
    if (o->limit_warps < n) {
        n = o->limit_warps;
        o->limiter = "warps";
    }
    if (o->limit_regs < n) {
        n = o->limit_regs;
        o->limiter = "registers";
    }
    if (o->limit_smem < n) {
        n = o->limit_smem;
        o->limiter = "shared memory";
    }
    o->ctas_per_sm = n;
    o->occupancy = (double)(n * warps) / TDX_PROF_SM90_MAX_WARPS_PER_SM;
    if (o->ctas > 0 && n > 0 && sms > 0) {
        double per_wave = (double)sms * n;
        o->waves = (double)o->ctas / per_wave;
        o->tail_efficiency = (double)o->ctas / (ceil(o->waves) * per_wave);
    }
    return TDX_OK;
}

/* The launch with the most CTAs is taken as the main kernel. */
static const tdx_prof_launch *main_launch(const tdx_prof_measure *m)
{
    const tdx_prof_launch *best = NULL;
    long best_ctas = -1;
    for (size_t i = 0; i < m->nkernels; i++) {
        const tdx_prof_launch *k = &m->kernels[i];
        long c = grid_ctas(k);
        if (c > best_ctas) {
            best = k;
            best_ctas = c;
        }
    }
    return best;
}

static tdx_finding *add(tdx_ledger *l, const tdx_prof_measure *m, const char *rule,
                        const char *kernel, double conf, const char *msg)
{
    tdx_finding *f = tdx_ledger_add(l, rule, m->task_file, m->line, m->col, "%s", msg);
    if (!f)
        return NULL;
    f->confidence = conf;
    if (kernel)
        tdx_finding_set_kernel(l, f, kernel);
    return f;
}

/* Non-zero when level 0 classed the kernel as a matmul. */
static int is_matmul(const tdx_ledger *l, const char *kernel)
{
    for (size_t i = 0; kernel && i < l->kernels.len; i++) {
        const tdx_kernel_info *ki = l->kernels.items[i];
        if (ki->name && ki->pattern && strcmp(ki->name, kernel) == 0 && strstr(ki->pattern, "matmul"))
            return 1;
    }
    return 0;
}

static void roofline_facts(tdx_ledger *l, tdx_finding *f, const tdx_prof_measure *m,
                           const tdx_prof_roofline *r)
{
    tdx_finding_fact(l, f, "median_s", "%.6g", m->median_s);
    tdx_finding_fact(l, f, "iqr_s", "%.6g", m->iqr_s);
    tdx_finding_fact(l, f, "bytes", "%.6g", m->bytes);
    if (m->out_bytes > 0)
        tdx_finding_fact(l, f, "out_bytes", "%.6g", m->out_bytes);
    tdx_finding_fact(l, f, "flops", "%.6g", m->flops);
    tdx_finding_fact(l, f, "achieved_bw", "%.6g", r->achieved_bw);
    tdx_finding_fact(l, f, "achieved_flops", "%.6g", r->achieved_flops);
    tdx_finding_fact(l, f, "floor_s", "%.6g", r->t_floor_s);
    tdx_finding_fact(l, f, "roofline_fraction", "%.4f", r->fraction);
}

tdx_status tdx_prof_diagnose(const tdx_prof_measure *m, const tdx_prof_ceilings *c,
                             tdx_ledger *l, int *dominant_id)
{
    if (dominant_id)
        *dominant_id = 0;
    tdx_prof_roofline r;
    tdx_status st = tdx_prof_roofline_of(m, c, &r);
    if (st)
        return st;
    char a[32], b[32], t[32], msg[512];
    const tdx_prof_launch *k = main_launch(m);
    const char *kname = m->kernel ? m->kernel : (k ? k->kernel : NULL);
    int sms = c->sms > 0 ? c->sms : 132;
    tdx_prof_occupancy occ = {0};
    int have_occ = k && tdx_prof_occupancy_of(k, sms, &occ) == TDX_OK;
    tdx_finding *dominant = NULL, *f;

    /* 1. Launch-bound: nothing inside the kernel matters until this is fixed. */
    double launch_limit = c->launch_s > 0 ? TDX_PROF_LAUNCH_FACTOR * c->launch_s : 0;
    if (launch_limit < TDX_PROF_LAUNCH_ABS)
        launch_limit = TDX_PROF_LAUNCH_ABS;
    int launches = m->launches > 0 ? m->launches : 1;
    if (m->median_s <= launch_limit * launches) {
        tdx_prof_fmt_time(t, sizeof t, m->median_s);
        tdx_prof_fmt_time(a, sizeof a, c->launch_s);
        snprintf(msg, sizeof msg, "launch-bound: %s per call, %d launch%s of ~%s overhead each", t,
                 launches, launches == 1 ? "" : "es", a);
        dominant = f = add(l, m, "TDX103", kname, 0.8, msg);
        if (f) {
            roofline_facts(l, f, m, &r);
            tdx_finding_set_hypothesis(l, f, "the kernels' own work is too small to outweigh the launch cost");
        }
    }
    if (launches > 1) {
        snprintf(msg, sizeof msg, "%d kernel launches per call", launches);
        f = add(l, m, "TDX104", kname, 0.6, msg);
        if (f)
            tdx_finding_fact(l, f, "launches", "%d", launches);
    }

    /* 2. The roofline position. */
    tdx_finding *bound = NULL;
    if (r.bound != TDX_PROF_LAUNCH) {
        int is_mem = r.bound == TDX_PROF_MEMORY;
        double ok = is_mem ? TDX_PROF_MEM_OK : TDX_PROF_COMPUTE_OK;
        if (r.fraction >= ok) {
            snprintf(msg, sizeof msg, "at %.0f%% of the roofline (%s-bound)", 100 * r.fraction,
                     is_mem ? "memory" : "compute");
            bound = f = add(l, m, "TDX112", kname, 0.8, msg);
            if (f)
                roofline_facts(l, f, m, &r);
        } else if (is_mem) {
            tdx_prof_fmt_rate(a, sizeof a, r.achieved_bw, "B/s");
            /* the bandwidth the floor assumes: the copy's, or the mix of read and write */
            tdx_prof_fmt_rate(b, sizeof b, r.t_mem_s > 0 ? m->bytes / r.t_mem_s : c->copy_bw, "B/s");
            snprintf(msg, sizeof msg, "memory-bound at %.0f%% of %s (achieved %s)", 100 * r.fraction,
                     b, a);
            bound = f = add(l, m, "TDX100", kname, 0.5 + 0.5 * (1 - r.fraction), msg);
            if (f) {
                roofline_facts(l, f, m, &r);
                f->expected_gain = 1.0 / (r.fraction > 0.05 ? r.fraction : 0.05) * TDX_PROF_MEM_OK;
                tdx_finding_set_hypothesis(l, f,
                                           "more bytes are moved than counted, or too few are in flight");
            }
        } else {
            tdx_prof_fmt_rate(a, sizeof a, r.achieved_flops, "FLOP/s");
            tdx_prof_fmt_rate(b, sizeof b, r.compute_ceiling, "FLOP/s");
            double fma = c->fp32_fma > 0 ? c->fp32_fma : c->mm_fp32;
            int dtype_tc = !m->dtype || strcmp(m->dtype, "fp64") != 0;
            int no_tc = dtype_tc && fma > 0 && r.achieved_flops <= 1.1 * fma;
            if (m->ncu && m->ncu->tensor_pipe_pct >= 0)
                no_tc = dtype_tc && m->ncu->tensor_pipe_pct < 1.0;
            snprintf(msg, sizeof msg, "compute-bound at %.0f%% of the %s matmul rate %s (achieved %s)",
                     100 * r.fraction, m->dtype ? m->dtype : "fp16", b, a);
            bound = f = add(l, m, no_tc ? "TDX102" : "TDX101", kname, no_tc ? 0.7 : 0.6, msg);
            if (f) {
                roofline_facts(l, f, m, &r);
                f->expected_gain = 1.0 / (r.fraction > 0.02 ? r.fraction : 0.02) * TDX_PROF_COMPUTE_OK;
                tdx_finding_set_hypothesis(l, f, no_tc ? "the dot does not run on tensor cores"
                                                       : "the matrix units are fed too slowly (tiles, "
                                                         "warps, pipelining)");
            }
        }
    }
    if (!dominant)
        dominant = bound;

    /* 3. Why it is below the roofline: grid, occupancy, spills. */
    if (have_occ && occ.ctas > 0 && occ.ctas < sms) {
        snprintf(msg, sizeof msg, "grid of %ld CTAs on %d SMs: %d SMs idle", occ.ctas, sms,
                 (int)(sms - occ.ctas));
        f = add(l, m, "TDX107", kname, 0.8, msg);
        if (f) {
            /* the output tiles of a matmul (its class at level 0) are fewer
             * than the SMs: splitting K fills them, as TDX009 says */
            if (is_matmul(l, kname))
                f->family = "split-k";
            tdx_finding_fact(l, f, "ctas", "%ld", occ.ctas);
            tdx_finding_fact(l, f, "sms", "%d", sms);
            f->expected_gain = (double)sms / (double)occ.ctas;
            if (bound)
                tdx_finding_cite(l, f, bound->id);
            /* an under-filled grid explains a low fraction better than anything else */
            if (bound && strcmp(bound->rule->id, "TDX112") != 0 && occ.ctas * 2 <= sms)
                dominant = f;
        }
    } else if (have_occ && occ.waves > 0 && occ.waves < 4 && occ.tail_efficiency < 0.75) {
        snprintf(msg, sizeof msg, "%.2f waves of CTAs: the last wave keeps %.0f%% of the SMs busy",
                 occ.waves, 100 * (occ.waves - floor(occ.waves)));
        f = add(l, m, "TDX108", kname, 0.5, msg);
        if (f) {
            tdx_finding_fact(l, f, "waves", "%.3f", occ.waves);
            tdx_finding_fact(l, f, "tail_efficiency", "%.3f", occ.tail_efficiency);
            if (bound)
                tdx_finding_cite(l, f, bound->id);
        }
    }
    /* occupancy matters for latency hiding in memory-bound kernels; a pipelined
     * matmul runs well at one CTA per SM */
    if (have_occ && r.bound == TDX_PROF_MEMORY && occ.occupancy < 0.25 &&
        (strcmp(occ.limiter, "registers") == 0 || strcmp(occ.limiter, "shared memory") == 0)) {
        snprintf(msg, sizeof msg, "occupancy %.0f%%: %d CTA%s of %d warps per SM, limited by %s",
                 100 * occ.occupancy, occ.ctas_per_sm, occ.ctas_per_sm == 1 ? "" : "s", k->num_warps,
                 occ.limiter);
        f = add(l, m, "TDX105", kname, 0.5, msg);
        if (f) {
            tdx_finding_fact(l, f, "regs", "%d", k->regs);
            tdx_finding_fact(l, f, "shared_bytes", "%d", k->shared_bytes);
            tdx_finding_fact(l, f, "occupancy", "%.3f", occ.occupancy);
            if (bound)
                tdx_finding_cite(l, f, bound->id);
        }
    }
    for (size_t i = 0; i < m->nkernels; i++) {
        const tdx_prof_launch *kk = &m->kernels[i];
        if (kk->spill_bytes > 0) {
            snprintf(msg, sizeof msg, "%d bytes of register spills with %d registers and %d warps",
                     kk->spill_bytes, kk->regs, kk->num_warps);
            f = add(l, m, "TDX106", kk->kernel, 0.8, msg);
            if (f) {
                tdx_finding_fact(l, f, "spill_bytes", "%d", kk->spill_bytes);
                if (bound)
                    tdx_finding_cite(l, f, bound->id);
            }
        }
    }

    /* 4. Nsight Compute evidence. */
    if (m->ncu) {
        const tdx_prof_ncu *n = m->ncu;
        if (n->dram_bytes > 0 && m->bytes > 0 && n->dram_bytes > 1.5 * m->bytes) {
            snprintf(msg, sizeof msg, "%.1fx the ideal DRAM traffic (%.3g MB measured, %.3g MB needed)",
                     n->dram_bytes / m->bytes, n->dram_bytes / 1e6, m->bytes / 1e6);
            f = add(l, m, "TDX109", kname, 0.8, msg);
            if (f) {
                double ratio = n->dram_bytes / m->bytes;
                tdx_finding_fact(l, f, "dram_bytes", "%.6g", n->dram_bytes);
                tdx_finding_fact(l, f, "ideal_bytes", "%.6g", m->bytes);
                tdx_finding_fact(l, f, "traffic_ratio", "%.3g", ratio);
                /* Re-read bytes cost at most the gap to the roofline. */
                f->expected_gain = r.fraction > 0 && ratio > 1.0 / r.fraction ? 1.0 / r.fraction : ratio;
                if (m->flops > 0) {
                    /* A kernel doing FLOPs re-reads its operand tiles: the bytes
                     * come back through L2 misses, which program order fixes,
                     * not a single pass over the data. */
                    f->family = "grouped-order";
                    tdx_finding_set_hypothesis(l, f, "operand tiles are fetched from DRAM again and again: "
                                                     "programs that share a tile do not run together, so L2 "
                                                     "does not keep it");
                }
                if (bound)
                    tdx_finding_cite(l, f, bound->id);
                if (bound && dominant == bound && r.bound == TDX_PROF_MEMORY)
                    dominant = f;
            }
        }
        if (n->sectors_per_request > 16.0) {
            snprintf(msg, sizeof msg, "%.1f sectors per global load request (16 is a fully coalesced 128-bit access)",
                     n->sectors_per_request);
            f = add(l, m, "TDX110", kname, 0.7, msg);
            if (f)
                tdx_finding_fact(l, f, "sectors_per_request", "%.3g", n->sectors_per_request);
            if (f && bound)
                tdx_finding_cite(l, f, bound->id);
        }
        if (n->bank_conflict_ratio > 0.5) {
            snprintf(msg, sizeof msg, "%.2f shared-memory bank conflicts per request",
                     n->bank_conflict_ratio);
            f = add(l, m, "TDX111", kname, 0.5, msg);
            if (f)
                tdx_finding_fact(l, f, "bank_conflicts_per_request", "%.3g", n->bank_conflict_ratio);
            if (f && bound)
                tdx_finding_cite(l, f, bound->id);
        }
    }
    if (dominant_id && dominant)
        *dominant_id = dominant->id;
    return TDX_OK;
}
