/* tritondx optimize: the loop over a task file. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "diagnose/diagnose.h"
#include "diagnose/levels.h"
#include "llm/llm.h"
#include "loop/exec.h"
#include "loop/loop.h"
#include "loop/propose.h"
#include "progress.h"

static void help(FILE *f)
{
    fputs("usage: tritondx optimize [options] TASK.py\n\n"
          "Rounds of diagnose -> propose -> check -> time -> keep if faster. Writes TASK.opt.py\n"
          "and a run directory TASK.tdx/ (journal.jsonl, every candidate); TASK.py is never modified.\n\n"
          "options:\n"
          "  --rounds N          at most N rounds (default 15)\n"
          "  --candidates N      at most N candidates per round (default 8)\n"
          "  --no-stack          when two families both win a round, do not try the runner-up's\n"
          "                      rewrite on top of the winner (one more candidate), nor the\n"
          "                      family of a finding the winner opened up (a follow-up)\n"
          "  --no-confirm        report the rounds' ratios chained, without the last timing of\n"
          "                      the result side by side with the task\n"
          "  --beside-torch      in that last timing, also time the task's torch baseline (eager\n"
          "                      and torch.compile) run by run among the two (journal confirm,\n"
          "                      or torch_beside when nothing was kept)\n"
          "  --target F          stop at this fraction of the roofline (default 0.85)\n"
          "  --reach MS          a time (ms) another implementation reached on this device,\n"
          "                      e.g. torch.compile's: the target does not stop the loop while\n"
          "                      the best is more than 2 % slower than it\n"
          "  --reach-margin PCT  how much slower than --reach still counts as reaching it\n"
          "                      (default 2; 0 goes on while the other is any faster)\n"
          "  --budget SECONDS    stop after this much time\n"
          "  --max-level N       deepest diagnosis level, 0..3 (default 3)\n"
          "  --resume            continue the run recorded in the run directory\n"
          "  --out FILE          where to write the result (default TASK.opt.py)\n"
          "  --run-dir DIR       where to keep the journal and candidates (default TASK.tdx)\n"
          "  --device cuda|cpu   where candidates run (cpu: Triton's interpreter; timing then\n"
          "                      needs TDX_TEST_TIMER)\n"
          "  --llm-url URL       an OpenAI-compatible endpoint (also TRITONDX_LLM_URL)\n"
          "  --llm-model NAME    the model to ask (also TRITONDX_LLM_MODEL); the key comes from\n"
          "                      TRITONDX_LLM_KEY or OPENAI_API_KEY; --llm-timeout, --llm-retries,\n"
          "                      --llm-max-tokens, --llm-temperature also exist\n"
          "  --no-progress       no progress line on stderr\n"
          "  --quiet             only errors\n",
          f);
}

static void on_progress(const tdx_loop_progress *p, void *ud)
{
    tdx_progress *pr = ud;
    if (p->best_s > 0)
        tdx_progress_update(pr, "round %d/%d  %s %zu/%zu  best %.4g ms (%.2fx)  %.0f s", p->round,
                            p->max_rounds, p->what, p->cand_index, p->ncands, p->best_s * 1e3,
                            p->initial_s > 0 ? p->initial_s / p->best_s : 1.0, p->elapsed_s);
    else
        tdx_progress_update(pr, "round %d/%d  %s  %.0f s", p->round, p->max_rounds, p->what,
                            p->elapsed_s);
}

/* The task file unreadable, not Python, or no task (a kernel file alone):
 * says so on stderr and returns TDX_EXIT_INPUT; else 0. */
static int not_a_task(const char *path)
{
    char *text = NULL;
    size_t len = 0;
    int rc = tdx_cli_read_runnable_task(path, "optimize checks and times the kernel", &text, &len);
    free(text);
    return rc;
}

int tdx_cmd_optimize(int argc, char **argv)
{
    enum { O_ROUNDS = 1000, O_CANDS, O_TARGET, O_BUDGET, O_LEVEL, O_RESUME, O_OUT, O_RUNDIR,
           O_DEVICE, O_NOPROG, O_QUIET, O_HELP, O_LLM, O_NOSTACK, O_REACH, O_NOCONFIRM, O_REACHM, O_BESIDE };
    static const struct option longopts[] = {
        {"rounds", required_argument, 0, O_ROUNDS}, {"candidates", required_argument, 0, O_CANDS},
        {"target", required_argument, 0, O_TARGET}, {"budget", required_argument, 0, O_BUDGET},
        {"max-level", required_argument, 0, O_LEVEL}, {"resume", no_argument, 0, O_RESUME},
        {"out", required_argument, 0, O_OUT}, {"run-dir", required_argument, 0, O_RUNDIR},
        {"device", required_argument, 0, O_DEVICE}, {"no-progress", no_argument, 0, O_NOPROG},
        {"quiet", no_argument, 0, O_QUIET}, {"help", no_argument, 0, O_HELP},
        {"no-stack", no_argument, 0, O_NOSTACK}, {"reach", required_argument, 0, O_REACH},
        {"reach-margin", required_argument, 0, O_REACHM},
        {"no-confirm", no_argument, 0, O_NOCONFIRM}, {"beside-torch", no_argument, 0, O_BESIDE},
        {"llm-url", required_argument, 0, O_LLM}, {"llm-model", required_argument, 0, O_LLM},
        {"llm-key", required_argument, 0, O_LLM}, {"llm-timeout", required_argument, 0, O_LLM},
        {"llm-connect-timeout", required_argument, 0, O_LLM},
        {"llm-retries", required_argument, 0, O_LLM}, {"llm-max-tokens", required_argument, 0, O_LLM},
        {"llm-temperature", required_argument, 0, O_LLM}, {0, 0, 0, 0}};
    tdx_loop_opts o = {0};
    o.dx.max_level = 3;
    int quiet = 0, noprog = 0;
    const char *device = access("/dev/nvidiactl", F_OK) == 0 ? "cuda" : "cpu";
    tdx_llm_config llm;
    tdx_llm_config_init(&llm);
    tdx_diags d;
    tdx_diags_init(&d);
    int rc = TDX_EXIT_OK;
    tdx_llm_config_from_env(&llm, &d);
    optind = 1;
    opterr = 0;
    int c, li = 0;
    while ((c = getopt_long(argc, argv, "h", longopts, &li)) != -1) {
        switch (c) {
        case O_LLM:
            if (tdx_llm_config_set(&llm, longopts[li].name + 4, optarg, &d) != TDX_OK)
                rc = TDX_EXIT_USAGE;
            break;
        case O_ROUNDS:
            if (tdx_cli_parse_int("--rounds", optarg, 0, 1000000, &o.max_rounds))
                rc = TDX_EXIT_USAGE;
            break;
        case O_CANDS:
            if (tdx_cli_parse_int("--candidates", optarg, 0, 1000000, &o.max_cands))
                rc = TDX_EXIT_USAGE;
            break;
        case O_NOSTACK:
            o.no_stack = 1;
            break;
        case O_NOCONFIRM:
            o.no_confirm = 1;
            break;
        case O_BESIDE:
            o.beside_torch = 1;
            break;
        case O_TARGET:
            if (tdx_cli_parse_double("--target", optarg, 0, 1, &o.target_fraction))
                rc = TDX_EXIT_USAGE;
            break;
        case O_REACH: {
            double ms = 0;
            if (tdx_cli_parse_double("--reach", optarg, 0, 1e9, &ms))
                rc = TDX_EXIT_USAGE;
            o.reach_s = ms / 1e3;
            break;
        }
        case O_REACHM: {
            double pct = 0;
            if (tdx_cli_parse_double("--reach-margin", optarg, 0, 100, &pct))
                rc = TDX_EXIT_USAGE;
            o.reach_margin = 1 + pct / 100;
            break;
        }
        case O_BUDGET:
            if (tdx_cli_parse_double("--budget", optarg, 0, 1e9, &o.time_budget_s))
                rc = TDX_EXIT_USAGE;
            break;
        case O_LEVEL:
            if (tdx_cli_parse_int("--max-level", optarg, 0, 3, &o.dx.max_level))
                rc = TDX_EXIT_USAGE;
            break;
        case O_RESUME: o.resume = 1; break;
        case O_OUT: o.out_path = optarg; break;
        case O_RUNDIR: o.run_dir = optarg; break;
        case O_DEVICE: device = optarg; break;
        case O_NOPROG: noprog = 1; break;
        case O_QUIET: quiet = noprog = 1; break;
        case 'h':
        case O_HELP: help(stdout); rc = -1; break;
        default:
            tdx_cli_error("unknown option '%s' (see 'tritondx optimize --help')", argv[optind - 1]);
            rc = TDX_EXIT_USAGE;
        }
    }
    if (rc != TDX_EXIT_OK) {
        for (size_t i = 0; i < d.len; i++)
            tdx_cli_error("%s", d.items[i].msg);
        tdx_diags_free(&d);
        tdx_llm_config_free(&llm);
        return rc < 0 ? TDX_EXIT_OK : rc;
    }
    if (optind != argc - 1)
        tdx_cli_error("optimize takes exactly one task file (see 'tritondx optimize --help')"), rc = TDX_EXIT_USAGE;
    else if (o.dx.max_level < 0 || o.dx.max_level > 3 ||
             (strcmp(device, "cuda") != 0 && strcmp(device, "cpu") != 0))
        tdx_cli_error("--max-level must be 0..3 and --device cuda or cpu"), rc = TDX_EXIT_USAGE;
    else if (not_a_task(argv[optind]) != 0)
        rc = TDX_EXIT_INPUT; /* what is wrong with the file before what the machine lacks */
    else if (strcmp(device, "cpu") == 0 && !getenv("TDX_TEST_TIMER"))
        tdx_cli_error("no GPU here: optimize times candidates on a GPU (set TDX_TEST_TIMER to use a "
                      "test timer; 'tritondx diagnose' works without one)"), rc = TDX_EXIT_FAILED;
    if (rc != TDX_EXIT_OK) {
        tdx_diags_free(&d);
        tdx_llm_config_free(&llm);
        return rc;
    }
    o.task_path = argv[optind];
    tdx_dx_levels_default(&o.dx);
    tdx_loop_hx hx = {0};
    hx.device = device;
    /* the device's measured ceilings give each timing its roofline fraction */
    tdx_prof_ceilings ceil;
    tdx_hx_reply cr;
    memset(&cr, 0, sizeof cr);
    if (strcmp(device, "cuda") == 0 && !getenv("TDX_TEST_TIMER")) {
        tdx_hx_opts ho = {0};
        ho.timeout_s = 300;
        if (tdx_hx_call(&ho, "ceilings", NULL, NULL, &cr, NULL) == TDX_OK) {
            tdx_prof_ceilings_from_json(cr.json, &ceil);
            hx.ceilings = &ceil;
        } else if (!quiet) {
            fprintf(stderr, "tritondx: note: no ceilings (%s): the roofline target is not used\n", cr.reason);
        }
    }
    o.exec = tdx_loop_hx_exec(&hx);
    o.ceilings = hx.ceilings;
    tdx_loop_proposer props[2] = {{"builtin", tdx_loop_builtin_propose, NULL},
                                  {"llm", tdx_loop_llm_propose, &llm}};
    o.proposers = props;
    o.nproposers = 1;
    const char *why = NULL;
    if (tdx_llm_configured(&llm, &why))
        o.nproposers = 2;
    tdx_progress prog;
    tdx_progress_init(&prog, stderr, noprog);
    o.progress = on_progress;
    o.progress_ud = &prog;
    if (!quiet && o.nproposers == 1)
        fprintf(stderr, "tritondx: %s: proposing with the built-in families only\n",
                why ? why : "no LLM endpoint configured");
    tdx_loop_result res;
    tdx_status st = tdx_loop_run(&o, &res, &d);
    tdx_progress_done(&prog);
    /* the ceilings the run was judged against, for `tritondx report` */
    if (res.run_dir[0] && hx.ceilings && cr.json) {
        char cpath[4200];
        snprintf(cpath, sizeof cpath, "%s/ceilings.json", res.run_dir);
        if (json_dump_file(cr.json, cpath, JSON_INDENT(1)) != 0 && !quiet)
            fprintf(stderr, "tritondx: note: cannot write %s\n", cpath);
    }
    for (size_t i = 0; i < d.len; i++) {
        const tdx_diag *g = &d.items[i];
        if (quiet && g->sev != TDX_SEV_ERROR)
            continue;
        if (g->file && g->line)
            fprintf(stderr, "%s:%d:%d: %s: %s\n", g->file, g->line, g->col, tdx_severity_str(g->sev), g->msg);
        else if (g->file)
            fprintf(stderr, "%s: %s: %s\n", g->file, tdx_severity_str(g->sev), g->msg);
        else
            fprintf(stderr, "tritondx: %s: %s\n", tdx_severity_str(g->sev), g->msg);
    }
    tdx_diags_free(&d);
    tdx_llm_config_free(&llm);
    tdx_hx_reply_free(&cr);
    if (st)
        return st == TDX_ERR_ARG || st == TDX_ERR_IO || st == TDX_ERR_INPUT || st == TDX_ERR_PARSE
                   ? TDX_EXIT_INPUT
                   : TDX_EXIT_FAILED;
    if (!quiet) {
        printf("%s: %d round%s, %d candidate%s tried, %d kept%s\n", o.task_path, res.rounds,
               res.rounds == 1 ? "" : "s", res.tried, res.tried == 1 ? "" : "s", res.kept,
               res.reverted ? " (undone: not faster than the task side by side)" : "");
        if (res.initial_s > 0 && res.final_s > 0)
            printf("time: %.4g ms -> %.4g ms (%.2fx)\n", res.initial_s * 1e3, res.final_s * 1e3,
                   res.initial_s / res.final_s);
        if (res.final_fraction >= 0)
            printf("roofline: %.0f%%\n", 100 * res.final_fraction);
        printf("stopped: %s\nresult: %s\njournal: %s/journal.jsonl\n", res.stop_reason, res.out_path,
               res.run_dir);
    }
    return TDX_EXIT_OK;
}
