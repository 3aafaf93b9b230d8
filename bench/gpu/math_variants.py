"""On the GPU machine: gelu's kept kernel (the suite's autotune of the task,
rebuilt here by the binary, $TDX, default build/tritondx) runs at 72 % of the
memory roofline: the exact GELU's erf is libdevice's erff on every element.
Variants: erf as Abramowitz & Stegun 7.1.26 (|error| <= 1.5e-7: one
reciprocal, one exp2, five FMAs), and the same with the reciprocal as
tl.math.div_rn / fast division; beside torch eager and torch.compile of the
task's torch_impl. Each variant is compared with the kept kernel's output on
the bench shape and timed with triton.testing.do_bench (median ms).

    TDX=build/tritondx python3 bench/gpu/math_variants.py
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from variant_util import compile_header, kept_beside_torch, load, sub, time_variants  # noqa: E402

ERF = "tl.math.erf(x * 0.7071067811865476)"

# erf(z) = sign(z) (1 - poly(t) exp(-z^2)), t = 1 / (1 + p |z|) (A&S 7.1.26)
AS_HELPER = '''

@triton.jit
def _tdx_erf(z):
    a = tl.abs(z)
    t = 1.0 / (1.0 + 0.3275911 * a)
    p = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))))
    r = 1.0 - p * tl.exp2(-(a * a) * 1.4426950408889634)
    return tl.where(z < 0, -r, r)
'''


def with_helper(text, call):
    text = sub(text, ERF, call)
    at = text.index("@triton.autotune")
    return text[:at] + AS_HELPER.lstrip("\n") + "\n\n" + text[at:]


def main():
    compile_header()
    task = "gelu"
    kept_text, kept, ins, want, kept_ms, compile_ms = kept_beside_torch(task, ("autotune",))
    ref = kept.reference(*ins)
    var = [("erf as A&S 7.1.26", with_helper(kept_text, "_tdx_erf(x * 0.7071067811865476)")),
           ("erf as A&S 7.1.26, fast reciprocal",
            sub(with_helper(kept_text, "_tdx_erf(x * 0.7071067811865476)"),
                "t = 1.0 / (1.0 + 0.3275911 * a)", "t = tl.math.fdiv(1.0, 1.0 + 0.3275911 * a)"))]
    time_variants(task, var, ins, want, kept_ms, compile_ms)
    for name, text in var:
        out = load(text, "gelu_err").launch(*ins)
        err = ((out.double() - ref).norm() / ref.norm()).item()
        print(f"| {task} | {name}: relative error norm against reference | {err:.3g} | | | |")
    err = ((want.double() - ref).norm() / ref.norm()).item()
    print(f"| {task} | as kept: relative error norm against reference | {err:.3g} | | | |")


if __name__ == "__main__":
    main()
