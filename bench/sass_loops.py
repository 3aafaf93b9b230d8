"""No GPU needed: what rewrites do to a kernel's loops in sm_90 SASS. Each chain of built-in
families (A+B: A's first candidate, then B's first candidate on it) is applied to the task with
`tritondx rewrite`, the result compiled ahead of time for sm_90 (the harness's `capture --mode
aot`, nvdisasm), and every loop of the kernel counted: instructions from its label to the branch
back, and the floating-point ones of the first loop by opcode. "-" is the task as given.

    python3 bench/sass_loops.py bench/tasks/attention_fp16.py - exp2 exp2+hoist-scale
"""
import collections
import json
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TDX = os.environ.get("TDX", os.path.join(ROOT, "build", "tritondx"))
OPS = ("FMUL", "FFMA", "FADD", "FMNMX", "FSETP", "FSEL", "MUFU", "F2FP", "HGMMA")


def apply_chain(task, chain, work):
    src = task
    for i, fam in enumerate(chain.split("+") if chain != "-" else []):
        out = os.path.join(work, f"{i}-{fam}")
        r = subprocess.run([TDX, "rewrite", "--family", fam, "--out-dir", out, src],
                           capture_output=True, text=True, check=False)
        lines = [ln for ln in r.stdout.splitlines() if "\t" in ln]
        if not lines:
            return None
        src = lines[0].split("\t")[0]
    return src


def loops(sass):
    ins, labels, found = [], {}, []
    with open(sass) as f:
        for line in f:
            m = re.match(r"^\s*(\.L_x_\d+):", line)
            if m:
                labels[m.group(1)] = len(ins)
                continue
            m = re.match(r"\s*/\*[0-9a-f]{4,}\*/\s+(.*?)\s*;", line)
            if m:
                ins.append(m.group(1))
                b = re.search(r"BRA\s+`\((\.L_x_\d+)\)", m.group(1))
                if b and b.group(1) in labels:
                    found.append(ins[labels[b.group(1)]:])
    return [x for x in found if len(x) > 20]


def opcode(text):
    w = text.split()
    return (w[1] if w[0].startswith("@") else w[0]).split(".")[0]


def main(argv):
    task, chains = argv[0], argv[1:] or ["-"]
    print("| chain | kernel | loops (instructions) | first loop: " + " / ".join(OPS) + " |")
    print("|---|---|---|---|")
    for chain in chains:
        work = tempfile.mkdtemp()
        src = apply_chain(task, chain, work)
        if src is None:
            print(f"| {chain} | (a family yields nothing) | | |")
            continue
        env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"), CUDA_VISIBLE_DEVICES="")
        r = subprocess.run([sys.executable, "-m", "tritondx_harness", "capture", "--mode", "aot", "--task", src,
                            "--out", os.path.join(work, "cap")], capture_output=True, text=True, env=env,
                           check=False)
        reply = json.loads(r.stdout)
        if not reply.get("ok"):
            print(f"| {chain} | compile failed: {reply.get('error')} | | |")
            continue
        for k in reply["kernels"]:
            ls = loops(k["artifacts"]["sass"])
            c = collections.Counter(opcode(t) for t in ls[0]) if ls else collections.Counter()
            print(f"| {chain} | {k['name']} | {', '.join(str(len(x)) for x in ls)} | "
                  + " / ".join(str(c[o]) for o in OPS) + " |")


if __name__ == "__main__":
    main(sys.argv[1:])
