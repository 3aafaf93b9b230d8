"""Run the triage corpus kernels on the CPU with Triton's interpreter and
compare each with a PyTorch reference, so that the corpus stays correct
Triton (the files double as runnable examples). Exit status 1 on any
mismatch or error."""
import importlib.util
import os
import sys

os.environ["TRITON_INTERPRET"] = "1"

import torch  # noqa: E402
import triton  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS = os.path.dirname(HERE)


def load(name):
    spec = importlib.util.spec_from_file_location("corpus_" + name, os.path.join(CORPUS, name + ".py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def close(got, want, tol=1e-4):
    got, want = got.double(), want.double()
    assert got.shape == want.shape, f"shape {tuple(got.shape)} != {tuple(want.shape)}"
    err = ((got - want).norm() / max(want.norm().item(), 1e-12)).item()
    assert err < tol, f"relative error {err:.3g} >= {tol:g}"


def case_elementwise():
    x, y = torch.randn(1000), torch.randn(1000)
    close(load("add").launch(x, y), x + y)
    m = load("add_tiny_block")
    close(m.launch(x, y), x + y)
    close(m.launch_scale(x, 2.0), 2 * x)
    close(load("launch_passes").launch(x), torch.nn.functional.gelu(x))
    m, xm = load("launch_relayout"), torch.randn(37, 300)
    close(m.launch(xm), xm.sum(dim=0))
    close(m.launch_fp32(xm.half()), xm.half().float().sum(dim=0), tol=1e-3)
    close(load("big_block").launch(x), x * torch.sigmoid(x))
    coef = torch.randn(4)
    close(load("polynomial").launch(x, coef), coef[0] + coef[1] * x + coef[2] * x**2 + coef[3] * x**3)
    m = load("kernelbench_model")
    xm = torch.randn(16, 300)
    close(m.ModelNew(2.0).forward(xm), m.Model(2.0).forward(xm))
    z = torch.randn(2000)
    m = load("complex_abs")
    close(m.launch(z), torch.sqrt(z[0::2] ** 2 + z[1::2] ** 2))
    close(m.launch_2d(z), torch.sqrt(z[0::2] ** 2 + z[1::2] ** 2))
    assert load("do_not_specialize").launch(x, p=0.0).allclose(x)
    s = load("autotune_heuristics")
    y2 = torch.empty_like(x)
    s.scale_kernel.fn[lambda meta: (triton.cdiv(1000, 64),)](x, y2, 0.5, 1000, BLOCK=64)
    close(y2, 0.5 * x)


def case_broadcast():
    x, w, s = torch.randn(37, 300), torch.randn(300), torch.randn(37)
    m = load("scalar_loop")
    close(m.launch(x, s), x * s[:, None])
    close(m.launch_slow(x[:3], s[:3]), x[:3] * s[:3, None])
    m = load("broadcast_bias")
    close(m.launch(x, w), x + w)
    close(m.launch_scale(x, s), x * s[:, None])
    m = load("multi_kernel_helpers")
    close(m.bias_gelu(x, w), torch.nn.functional.gelu(x + w, approximate="tanh"))
    close(m.residual_add(x, x), 2 * x)
    close(load("fused_launches").launch(x, w), (x + w) * torch.sigmoid(1.702 * (x + w)))


def case_reductions():
    x, w, b = torch.randn(37, 300), torch.randn(300), torch.randn(300)
    close(load("column_sum_strided").launch(x), x.sum(0))
    close(load("column_sum_tiled").launch(x), x.sum(0))
    close(load("column_max_size_stride").launch(x), x.amax(0))
    m = load("row_sum")
    close(m.launch(x), x.sum(1))
    vals, idx = m.launch_max(x)
    close(vals, x.max(1).values)
    assert (idx.long() == x.argmax(1)).all()
    close(load("int64_loop").launch(x), x.sum(1))
    m = load("row_reduce_in_loop")
    close(m.launch(x), x.sum(1))
    close(m.launch_max(x), x.amax(1))
    close(m.launch_bands(x), torch.nn.functional.pad(x, (0, 0, 0, 3)).view(5, 8, 300).sum((1, 2)))
    xr = x[:, :128].contiguous()  # one block a row: the running sum ends as the row's sum
    close(m.launch_running(xr), xr / xr.sum(1, keepdim=True))
    assert (m.launch_count(x).long() == (x > 0).sum(1)).all()
    close(load("softmax_fused").launch(x), torch.softmax(x, -1))
    close(load("softmax_online").launch(x), torch.softmax(x, -1))
    close(load("layernorm").launch(x, w, b), torch.nn.functional.layer_norm(x, (300,), w, b))
    m = load("rmsnorm")
    close(m.launch(x, w), m.reference(x, w))
    xs = torch.randn(10000)
    m = load("atomics")
    assert m.launch(xs, 16).sum().item() == 10000
    close(m.launch_sum(xs), xs.sum().reshape(1))


def case_scan_gather():
    a, b = torch.rand(5, 100), torch.randn(5, 100)
    m = load("scan")
    close(m.launch(b), b.cumsum(1))
    h, acc = torch.zeros_like(b), torch.zeros(5)
    for i in range(100):
        acc = acc * a[:, i] + b[:, i]
        h[:, i] = acc
    close(m.launch_recurrence(a, b), h)
    m = load("gather_scatter")
    idx, weight = torch.randint(0, 50, (20,)), torch.randn(50, 33)
    close(m.launch(idx, weight), weight[idx])
    src, perm = torch.randn(1000), torch.randperm(1000)
    dst, want = torch.zeros(1000), torch.zeros(1000)
    want[perm] = src
    close(m.launch_index_copy(src, perm, dst), want)


def case_dot():
    a, b = torch.randn(64, 96).half(), torch.randn(96, 80).half()
    ref = a.float() @ b.float()
    close(load("matmul_small_tiles").launch(a, b).float(), ref, 1e-2)
    close(load("manual_dot").launch(a.float(), b.float()), ref)
    wv = torch.randn(96)
    close(load("manual_dot").launch_gemv(a.float(), wv), a.float() @ wv)
    bias = torch.randn(80)
    close(load("matmul_block_ptr").launch(a, b, bias).float(), torch.relu(ref + bias), 1e-2)
    ab, bb = torch.randn(3, 64, 96).half(), torch.randn(3, 96, 80).half()
    close(load("batched_matmul").launch(ab, bb).float(), torch.bmm(ab.float(), bb.float()), 1e-2)
    for name in ("few_tiles_matmul", "many_tiles_matmul"):
        close(load(name).launch(a, b).float(), ref, 1e-2)
    m = load("pipelining")
    close(m.launch(a, b).float(), ref, 1e-2)
    close(m.launch_range(a, b).float(), ref, 1e-2)
    m = load("persistent_matmul")
    c = torch.empty((64, 80), dtype=torch.float16)
    m.matmul_persistent[(2,)](a, b, c, 64, 80, 96, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                              c.stride(0), c.stride(1), BLOCK_M=32, BLOCK_N=32, BLOCK_K=32,
                              GROUP_SIZE_M=2, NUM_SMS=2)
    close(c.float(), ref, 1e-2)
    m = load("matmul_autotune")
    c = torch.empty((64, 80), dtype=torch.float16)
    m.gemm_kernel.fn[(2,)](a, b, c, 64, 80, 96, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                           c.stride(0), c.stride(1), TM=32, TN=128, TK=32, GROUP=2, EPILOGUE="relu2")
    close(c.float(), torch.relu(ref) ** 2, 1e-2)


def case_attention_conv():
    q, k, v = (torch.randn(1, 2, 128, 64) for _ in range(3))
    m = load("attention_fwd")
    close(m.launch(q, k, v), m.reference(q, k, v), 1e-3)
    q, k, v = (torch.randn(1, 2, 256, 64).half() for _ in range(3))
    s = (q.float() @ k.float().transpose(-1, -2)) * 0.125
    s = s.masked_fill(torch.triu(torch.ones(256, 256, dtype=torch.bool), 1), float("-inf"))
    close(load("attention_causal_helper").launch(q, k, v).float(), torch.softmax(s, -1) @ v.float(), 2e-2)
    q, k, v = (torch.randn(1, 2, 100, 32).half() for _ in range(3))  # S not a multiple of the blocks
    s = (q.float() @ k.float().transpose(-1, -2)) * 0.125
    s = s.masked_fill(torch.triu(torch.ones(100, 100, dtype=torch.bool), 1), float("-inf"))
    m = load("masked_key_blocks")
    close(m.launch(q, k, v).float(), torch.softmax(s, -1) @ v.float(), 2e-2)
    x = torch.randn(5, 300)
    close(m.launch_row_sum(x), x.sum(1))
    m = load("conv1d")
    x, w = torch.randn(4, 500), torch.randn(4, 5)
    close(m.launch(x, w), m.reference(x, w))
    x, w = torch.randn(1, 8, 8, 16).half(), torch.randn(3, 3, 16, 32).half()
    want = torch.nn.functional.conv2d(x.float().permute(0, 3, 1, 2), w.float().permute(3, 2, 0, 1), padding=1)
    close(load("conv2d_implicit_gemm").launch(x, w).float(), want.permute(0, 2, 3, 1), 1e-2)


def main():
    torch.manual_seed(0)
    failed = 0
    for name, fn in sorted(globals().items()):
        if not name.startswith("case_"):
            continue
        try:
            fn()
            print(f"ok   {name}")
        except Exception as e:  # report every case, then fail
            failed += 1
            print(f"FAIL {name}: {type(e).__name__}: {e}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
