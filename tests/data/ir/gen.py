#!/usr/bin/env python3
"""Regenerate the IR fixtures: AOT-compile each case for sm_90 with the
specialization a real launch would get, and write its stages.

Usage: CUDA_VISIBLE_DEVICES= python3 gen.py [CASE...]   (run from anywhere)
       python3 gen.py --check CASE...   compile into a temporary folder and
                                        compare with the committed files

Writes <case>/{k.ttir,k.ttgir,k.ptx,k.sass,k.ptxas.txt,meta.json}. Kernel
files are imported by a path relative to this folder so that the locations in
the IR read "kernels/<file>.py" on every machine. expected.txt is written by
hand and never touched here.

Per case, `div` names the arguments a launch proves divisible by 16 (16-byte
aligned pointers, ints that are multiples of 16); the others get nothing, as
with do_not_specialize or values that are not multiples of 16.
"""
import importlib.util
import json
import os
import subprocess
import sys
import tempfile

# Compile afresh: Triton's cache is keyed by the kernel's source, not its path,
# so a cached compile of the same kernel from another checkout would carry that
# checkout's file names into the IR.
os.environ["TRITON_CACHE_DIR"] = tempfile.mkdtemp(prefix="tdx-ir-gen-")

HERE = os.path.dirname(os.path.abspath(__file__))


def normalize(text):
    """Make paths machine-independent: the kernels folder becomes relative
    and Triton's own library files read "triton/..."."""
    import triton
    return text.replace(HERE + "/", "").replace(os.path.dirname(triton.__file__) + "/", "triton/")


CASES = {
    # name: (file, kernel, signature, constexprs, div, num_warps, num_stages)
    "add_v4": ("elementwise", "add_kernel",
               {"x_ptr": "*fp32", "y_ptr": "*fp32", "z_ptr": "*fp32", "n": "i32"},
               {"BLOCK": 1024}, ["x_ptr", "y_ptr", "z_ptr", "n"], 4, 3),
    "add_mask_nodiv": ("elementwise", "add_kernel",
                       {"x_ptr": "*fp32", "y_ptr": "*fp32", "z_ptr": "*fp32", "n": "i32"},
                       {"BLOCK": 1024}, ["x_ptr", "y_ptr", "z_ptr"], 4, 3),
    "add_nodiv": ("elementwise", "add_kernel",
                  {"x_ptr": "*fp32", "y_ptr": "*fp32", "z_ptr": "*fp32", "n": "i32"},
                  {"BLOCK": 1024}, [], 4, 3),
    "gelu_fp16": ("elementwise", "gelu_kernel",
                  {"x_ptr": "*fp16", "z_ptr": "*fp16", "n": "i32"},
                  {"BLOCK": 1024}, ["x_ptr", "z_ptr", "n"], 4, 3),
    "gelu_fp16_b256": ("elementwise", "gelu_kernel",
                       {"x_ptr": "*fp16", "z_ptr": "*fp16", "n": "i32"},
                       {"BLOCK": 256}, ["x_ptr", "z_ptr", "n"], 4, 3),
    "channel_gather": ("elementwise", "channel_scale_kernel",
                       {"x_ptr": "*fp32", "s_ptr": "*fp32", "z_ptr": "*fp32", "n": "i32", "HW": "i32",
                        "C": "i32"},
                       {"BLOCK": 1024}, ["x_ptr", "s_ptr", "z_ptr", "n", "HW", "C"], 4, 3),
    "rows_scale_eq": ("elementwise", "rows_scale_kernel",
                      {"x_ptr": "*fp32", "s_ptr": "*fp32", "z_ptr": "*fp32", "n_cols": "i32"},
                      {"ROWS": 128, "BLOCK": 128}, ["x_ptr", "s_ptr", "z_ptr", "n_cols"], 4, 3),
    "scale_rows_lostdiv": ("elementwise", "scale_rows_kernel",
                           {"x_ptr": "*fp16", "z_ptr": "*fp16", "stride": "i32", "ncols": "i32",
                            "scale": "fp32"},
                           {"BLOCK": 1024}, ["x_ptr", "z_ptr", "ncols"], 4, 3),
    "index64": ("elementwise", "index64_kernel",
                {"x_ptr": "*fp32", "z_ptr": "*fp32", "stride": "i64", "n": "i32"},
                {"BLOCK": 512}, ["x_ptr", "z_ptr", "stride", "n"], 4, 3),
    "branch_while": ("elementwise", "branch_kernel",
                     {"x_ptr": "*fp32", "z_ptr": "*fp32", "n": "i32", "flag": "i32"},
                     {"BLOCK": 256}, ["x_ptr", "z_ptr", "n"], 4, 3),
    "softmax": ("reduce", "softmax_kernel",
                {"x_ptr": "*fp32", "y_ptr": "*fp32", "stride": "i32", "ncols": "i32"},
                {"BLOCK": 1024}, ["x_ptr", "y_ptr", "stride"], 4, 3),
    "layernorm": ("reduce", "layernorm_kernel",
                  {"x_ptr": "*fp16", "w_ptr": "*fp16", "b_ptr": "*fp16", "y_ptr": "*fp16",
                   "stride": "i32", "ncols": "i32", "eps": "fp32"},
                  {"BLOCK": 1024}, ["x_ptr", "w_ptr", "b_ptr", "y_ptr", "stride", "ncols"], 4, 3),
    "colsum": ("reduce", "colsum_kernel",
               {"x_ptr": "*fp32", "y_ptr": "*fp32", "stride": "i32"},
               {"BLOCK_M": 64, "BLOCK_N": 64}, ["x_ptr", "y_ptr", "stride"], 4, 3),
    "rowsum_loop": ("reduce", "rowsum_loop_kernel",
                    {"x_ptr": "*fp32", "y_ptr": "*fp32", "stride": "i32", "ncols": "i32"},
                    {"BLOCK": 512}, ["x_ptr", "y_ptr", "stride", "ncols"], 4, 3),
    "bigblock_spill": ("reduce", "bigblock_kernel",
                       {"x_ptr": "*fp32", "y_ptr": "*fp32", "n": "i32"},
                       {"BLOCK": 4096}, ["x_ptr", "y_ptr", "n"], 1, 3),
    "dot_fp32_ieee": ("matmul", "matmul_kernel",
                      {"a_ptr": "*fp32", "b_ptr": "*fp32", "c_ptr": "*fp32", "M": "i32", "N": "i32",
                       "K": "i32", "stride_am": "i32", "stride_bk": "i32", "stride_cm": "i32"},
                      {"BLOCK_M": 32, "BLOCK_N": 32, "BLOCK_K": 16, "PRECISION": "ieee"},
                      ["a_ptr", "b_ptr", "c_ptr", "M", "N", "K", "stride_am", "stride_bk", "stride_cm"],
                      4, 3),
    "dot_fp32_tf32": ("matmul", "matmul_kernel",
                      {"a_ptr": "*fp32", "b_ptr": "*fp32", "c_ptr": "*fp32", "M": "i32", "N": "i32",
                       "K": "i32", "stride_am": "i32", "stride_bk": "i32", "stride_cm": "i32"},
                      {"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 32, "PRECISION": "tf32"},
                      ["a_ptr", "b_ptr", "c_ptr", "M", "N", "K", "stride_am", "stride_bk", "stride_cm"],
                      4, 3),
    "dot_fp32_tf32_kmajor": ("matmul", "matmul_bk_kernel",
                             {"a_ptr": "*fp32", "b_ptr": "*fp32", "c_ptr": "*fp32", "M": "i32", "N": "i32",
                              "K": "i32", "stride_am": "i32", "stride_bn": "i32", "stride_cm": "i32"},
                             {"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 32},
                             ["a_ptr", "b_ptr", "c_ptr", "M", "N", "K", "stride_am", "stride_bn", "stride_cm"],
                             4, 3),
    "dot_fp16_mma2": ("matmul", "matmul_kernel",
                      {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp16", "M": "i32", "N": "i32",
                       "K": "i32", "stride_am": "i32", "stride_bk": "i32", "stride_cm": "i32"},
                      {"BLOCK_M": 32, "BLOCK_N": 32, "BLOCK_K": 32, "PRECISION": "ieee"},
                      ["a_ptr", "b_ptr", "c_ptr", "M", "N", "K", "stride_am", "stride_bk", "stride_cm"],
                      2, 3),
    "dot_fp16_wgmma_s3": ("matmul", "matmul_kernel",
                          {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp16", "M": "i32", "N": "i32",
                           "K": "i32", "stride_am": "i32", "stride_bk": "i32", "stride_cm": "i32"},
                          {"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64, "PRECISION": "ieee"},
                          ["a_ptr", "b_ptr", "c_ptr", "M", "N", "K", "stride_am", "stride_bk",
                           "stride_cm"], 4, 3),
    "dot_fp16_wgmma_s1": ("matmul", "matmul_kernel",
                          {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp16", "M": "i32", "N": "i32",
                           "K": "i32", "stride_am": "i32", "stride_bk": "i32", "stride_cm": "i32"},
                          {"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64, "PRECISION": "ieee"},
                          ["a_ptr", "b_ptr", "c_ptr", "M", "N", "K", "stride_am", "stride_bk",
                           "stride_cm"], 4, 1),
    "matmul_outer_loop": ("matmul", "matmul_outer_kernel",
                          {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp16", "K": "i32",
                           "stride_am": "i32", "stride_bk": "i32", "stride_cm": "i32", "REPEAT": "i32"},
                          {"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 32},
                          ["a_ptr", "b_ptr", "c_ptr", "K", "stride_am", "stride_bk", "stride_cm"], 4, 3),
    "matmul_tma": ("matmul", "matmul_tma_kernel",
                   {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp16", "M": "i32", "N": "i32",
                    "K": "i32"},
                   {"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64},
                   ["a_ptr", "b_ptr", "c_ptr", "M", "N", "K"], 4, 3),
}


def tool(name):
    import triton
    return os.path.join(os.path.dirname(triton.__file__), "backends", "nvidia", "bin", name)


def load_kernel(file, kernel):
    rel = os.path.join("kernels", file + ".py")
    spec = importlib.util.spec_from_file_location("tdx_fixture_" + file, rel)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return getattr(mod, kernel)


def build(name, root=HERE):
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource

    file, kernel, sig, consts, div, warps, stages = CASES[name]
    fn = load_kernel(file, kernel)
    signature = dict(sig)
    for k in consts:
        signature[k] = "constexpr"
    attrs = {(fn.arg_names.index(a), ): [["tt.divisibility", 16]] for a in div}
    src = ASTSource(fn, signature=signature, constexprs=dict(consts), attrs=attrs)
    k = triton.compile(src, target=GPUTarget("cuda", 90, 32),
                       options={"num_warps": warps, "num_stages": stages})
    out = os.path.join(root, name)
    os.makedirs(out, exist_ok=True)
    for ext in ("ttir", "ttgir", "ptx"):
        with open(os.path.join(out, "k." + ext), "w") as f:
            f.write(normalize(k.asm[ext]))
    with tempfile.TemporaryDirectory() as tmp:
        ptx = os.path.join(tmp, "k.ptx")
        cubin = os.path.join(tmp, "k.cubin")
        with open(ptx, "w") as f:
            f.write(k.asm["ptx"])
        log = subprocess.run([tool("ptxas"), "-v", "-lineinfo", "--gpu-name=sm_90a", ptx,
                              "-o", cubin], capture_output=True, text=True, check=True)
        with open(os.path.join(out, "k.ptxas.txt"), "w") as f:
            # ptxas may name its temporary input: keep the base name only. The
            # compile time differs on every run: drop it.
            text = (log.stdout + log.stderr).replace(tmp + "/", "")
            f.write("".join(l for l in text.splitlines(True) if "Compile time" not in l))
        with open(cubin, "wb") as f:
            f.write(k.asm["cubin"])
        sass = subprocess.run([tool("nvdisasm"), "-g", "-c", cubin], capture_output=True, text=True,
                              check=True).stdout
        with open(os.path.join(out, "k.sass"), "w") as f:
            f.write(normalize(sass))
    meta = {
        "case": name, "file": "kernels/%s.py" % file, "kernel": kernel,
        "signature": sig, "constexprs": consts, "divisibility_16": div,
        "num_warps": warps, "num_stages": stages, "target": "cuda:90",
        "triton": triton.__version__,
        "shared": k.metadata.shared,
    }
    with open(os.path.join(out, "meta.json"), "w") as f:
        json.dump(meta, f, indent=1, sort_keys=True)
        f.write("\n")


def comparable(name, text):
    """The text as compared by --check: PTX without its DWARF sections, which
    encode the compile directory's path length and so differ per checkout."""
    if name.endswith(".ptx"):
        cut = text.find("\t.section\t.debug_")
        return text[:cut] if cut >= 0 else text
    return text


def check(names):
    """Regenerate names into a temporary folder; 1 when any file differs."""
    bad = 0
    with tempfile.TemporaryDirectory() as tmp:
        for n in names:
            build(n, tmp)
            for f in sorted(os.listdir(os.path.join(tmp, n))):
                with open(os.path.join(tmp, n, f)) as a, open(os.path.join(HERE, n, f)) as b:
                    if comparable(f, a.read()) != comparable(f, b.read()):
                        print("%s/%s differs from the committed file" % (n, f))
                        bad = 1
    return bad


def main(argv):
    os.chdir(HERE)
    os.environ.setdefault("CUDA_VISIBLE_DEVICES", "")
    if argv[:1] == ["--check"]:
        sys.exit(check(argv[1:] or ["add_v4"]))
    names = argv or sorted(CASES)
    for n in names:
        if n not in CASES:
            sys.exit("unknown case %s" % n)
        build(n)
        print(n)


if __name__ == "__main__":
    main(sys.argv[1:])
