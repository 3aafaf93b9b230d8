/* Level 1: profiling diagnosis (tdx_prof_*).
 *
 * Turns measured facts about one task — its median time and spread, the bytes
 * and FLOPs it must move and do, the device's measured ceilings, the launch
 * configuration and resource usage of its kernels, and optionally Nsight
 * Compute metrics — into a position on the roofline and symptom findings
 * (rules TDX100..TDX199) in the evidence ledger. It decides from numbers only:
 * the harness measured them, this module judges them.
 *
 * Ownership: inputs are borrowed for the duration of a call; findings are
 * copied into the ledger. */
#ifndef TDX_PROFILE_PROFILE_H
#define TDX_PROFILE_PROFILE_H

#include <stddef.h>

#include "base/status.h"
#include "finding/finding.h"

/* Hopper (sm_90) per-SM limits used by the occupancy model. */
enum {
    TDX_PROF_SM90_REGS_PER_SM = 65536,
    TDX_PROF_SM90_MAX_WARPS_PER_SM = 64,
    TDX_PROF_SM90_MAX_CTAS_PER_SM = 32,
    TDX_PROF_SM90_SMEM_PER_SM = 233472,   /* 228 KiB */
    TDX_PROF_SM90_SMEM_PER_CTA = 232448,  /* 227 KiB opt-in maximum */
    TDX_PROF_SM90_REG_ALLOC_UNIT = 256,   /* registers per warp, allocation granularity */
};

/* Ceilings measured on the device (harness verb `ceilings`). 0 = unknown. */
typedef struct tdx_prof_ceilings {
    const char *device;     /* e.g. "NVIDIA H200" */
    int sms;                /* multiprocessors, e.g. 132 */
    double l2_bytes;        /* e.g. 60 MB */
    double copy_bw;         /* bytes/s, read + write counted */
    double read_bw;         /* bytes/s of a read-only pass (a sum); 0 unknown */
    double mm_fp16, mm_bf16, mm_tf32, mm_fp32, mm_fp8; /* FLOP/s of a large matmul */
    double fp32_fma;        /* FLOP/s without tensor cores (0: estimated from mm_fp32) */
    double launch_s;        /* overhead of one empty launch, seconds */
} tdx_prof_ceilings;

/* One kernel launch of the task, from the capture (L2 data, used for occupancy). */
typedef struct tdx_prof_launch {
    const char *kernel;
    long grid[3];           /* 0 entries treated as 1; all 0 = unknown */
    int num_warps;          /* 0 = unknown */
    int num_stages;
    int regs;               /* registers per thread, 0 = unknown */
    int spill_bytes;        /* spill stores + loads */
    int shared_bytes;       /* static + dynamic shared memory per CTA */
} tdx_prof_launch;

/* Optional Nsight Compute metrics (negative = not measured). */
typedef struct tdx_prof_ncu {
    double dram_bytes;          /* measured DRAM bytes read + written */
    double dram_pct;            /* % of peak DRAM throughput */
    double sectors_per_request; /* global load sectors per request */
    double bank_conflict_ratio; /* shared-memory bank conflicts per request */
    double achieved_occupancy;  /* % */
    double tensor_pipe_pct;     /* % of peak tensor pipe utilisation */
} tdx_prof_ncu;

/* What the task measured (harness verb `time`). */
typedef struct tdx_prof_measure {
    const char *task_file;  /* for locations */
    int line, col;          /* location of the launch or kernel; 0 unknown */
    const char *kernel;     /* main kernel's name, may be NULL */
    double median_s;        /* median time of one launch() call */
    double iqr_s;           /* inter-quartile range */
    double bytes;           /* ideal bytes moved */
    double out_bytes;       /* of which written (the outputs); 0 unknown */
    double flops;           /* FLOPs done (0 for memory-only tasks) */
    const char *dtype;      /* compute dtype of the FLOPs: "fp16", "bf16", "fp32", "tf32", "fp8" */
    int launches;           /* kernel launches per launch() call; 0 = unknown */
    const tdx_prof_launch *kernels;
    size_t nkernels;
    const tdx_prof_ncu *ncu;/* NULL when not measured */
} tdx_prof_measure;

typedef enum tdx_prof_bound { TDX_PROF_MEMORY, TDX_PROF_COMPUTE, TDX_PROF_LAUNCH } tdx_prof_bound;

/* The roofline position. */
typedef struct tdx_prof_roofline {
    double t_mem_s;         /* bytes / copy bandwidth; with read_bw and out_bytes: the bytes
                             * read at read_bw, the written at the write rate the copy implies */
    double t_compute_s;     /* flops / matmul rate of the dtype */
    double t_floor_s;       /* max of the two (and the launch overhead) */
    double fraction;        /* t_floor / median: 1.0 = at the roofline */
    double achieved_bw;     /* bytes / median */
    double achieved_flops;  /* flops / median */
    double compute_ceiling; /* FLOP/s used for t_compute */
    tdx_prof_bound bound;
} tdx_prof_roofline;

/* Occupancy of one launch on sm_90. */
typedef struct tdx_prof_occupancy {
    int ctas_per_sm;        /* resident CTAs per SM (0 = does not fit) */
    int limit_regs, limit_smem, limit_warps; /* CTAs per SM allowed by each resource */
    double occupancy;       /* resident warps / 64 */
    const char *limiter;    /* "registers", "shared memory", "warps", "ctas", or "unknown" */
    long ctas;              /* grid size */
    double waves;           /* ctas / (sms * ctas_per_sm) */
    double tail_efficiency; /* ctas / (ceil(waves) * sms * ctas_per_sm) */
} tdx_prof_occupancy;

/* The matmul ceiling for a dtype name ("fp16", "bf16", "tf32", "fp32", "fp8"); 0 when unknown. */
double tdx_prof_compute_ceiling(const tdx_prof_ceilings *c, const char *dtype);

tdx_status tdx_prof_roofline_of(const tdx_prof_measure *m, const tdx_prof_ceilings *c,
                                tdx_prof_roofline *r);
tdx_status tdx_prof_occupancy_of(const tdx_prof_launch *k, int sms, tdx_prof_occupancy *out);

/* Level 1: add the symptom findings for one task to the ledger. The dominant
 * symptom (the one that explains most of the gap to the roofline) is added
 * first and its id returned through dominant_id (0 when none). */
tdx_status tdx_prof_diagnose(const tdx_prof_measure *m, const tdx_prof_ceilings *c,
                             tdx_ledger *ledger, int *dominant_id);

/* "4.25 TB/s", "512 GB/s", "656 TFLOP/s", "12.3 µs" style formatting into out. */
void tdx_prof_fmt_rate(char *out, size_t n, double v, const char *unit);
void tdx_prof_fmt_time(char *out, size_t n, double seconds);

/* Fill c from the harness's `ceilings` reply (docs/harness-protocol.md).
 * Strings point into j, which must outlive c. */
struct json_t;
void tdx_prof_ceilings_from_json(struct json_t *j, tdx_prof_ceilings *c);
/* Fill up to max launches from the harness's `capture` reply (grid, warps,
 * stages, registers, spill bytes, shared memory); *launches gets the number
 * of kernel launches one call of launch() makes. Strings point into j. */
size_t tdx_prof_launches_from_capture(struct json_t *j, tdx_prof_launch *k, size_t max, int *launches);
/* Fill n from the harness's `ncu` reply: the first profiled launch of each
 * kernel, DRAM bytes summed over kernels, the other metrics of the first
 * kernel; what was not measured stays negative. TDX_ERR_INPUT when the
 * reply has no kernels. */
tdx_status tdx_prof_ncu_from_json(struct json_t *j, tdx_prof_ncu *n);

#endif
