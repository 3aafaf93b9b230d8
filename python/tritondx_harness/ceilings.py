"""`ceilings` (GPU): what this device can do, measured: copy bandwidth
(device-to-device copy, bytes read + written), matmul rate per dtype
(torch.matmul on 8192x8192 random data), launch overhead (an empty Triton
kernel). Cached per device name as JSON in --cache DIR."""
import json
import os
import re
import time

from . import gpulock, protocol
from .gpu import device_info, require_cuda, time_interleaved
from .stats import summarize

MATMUL_DTYPES = ("float16", "bfloat16", "tf32", "float32")


def add_args(p):
    """Options of the ceilings verb."""
    p.add_argument("--cache", default=os.path.join(os.path.expanduser("~"), ".cache", "tritondx"))
    p.add_argument("--refresh", action="store_true", help="measure again even when cached")
    p.add_argument("--matmul-n", type=int, default=8192)
    p.add_argument("--copy-bytes", type=int, default=1 << 30)


def cache_path(cache_dir, device_name):
    """The cache file for one device: ceilings-<name as a slug>.json."""
    slug = re.sub(r"[^A-Za-z0-9]+", "-", device_name).strip("-").lower() or "device"
    return os.path.join(cache_dir, f"ceilings-{slug}.json")


def load_cached(path):
    """The cached measurement, or None when absent or unreadable."""
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
        return data if isinstance(data, dict) and "copy_bytes_per_s" in data and "read_bytes_per_s" in data else None
    except (OSError, ValueError):
        return None


def save_cached(path, data):
    """Write the measurement atomically (a temp file renamed in place)."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    tmp = f"{path}.{os.getpid()}.tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(data, f, indent=1)
    os.replace(tmp, path)


def run(args):
    """Cached or freshly measured ceilings of the visible device."""
    require_cuda()
    info = device_info()
    path = cache_path(args.cache, info["name"])
    if not args.refresh:
        cached = load_cached(path)
        if cached is not None:
            return protocol.result("ceilings", cached=True, cache_file=path, **cached)
    data = measure(args.copy_bytes, args.matmul_n)
    data["device"] = info
    data["measured_at"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    try:
        save_cached(path, data)
    except OSError as e:
        data["cache_error"] = protocol.describe_exception(e)
    return protocol.result("ceilings", cached=False, cache_file=path, **data)


def measure(copy_bytes, n):
    """Run the three measurements; each reports its median and IQR. Nothing
    else runs on the GPU meanwhile (gpulock), the launch rate included."""
    with gpulock.exclusive():
        return _measure(copy_bytes, n)


def _measure(copy_bytes, n):
    torch = require_cuda()
    out = {}
    src = torch.empty(copy_bytes, dtype=torch.uint8, device="cuda")
    dst = torch.empty_like(src)
    s = summarize(time_interleaved({"copy": lambda: dst.copy_(src)}, 30, 5)["copy"])
    out["copy"] = s
    out["copy_bytes_per_s"] = 2 * copy_bytes / (s["median_ms"] / 1e3)
    # read-only: sums over the same buffer (a reduction reads and hardly
    # writes), torch's and a streaming Triton kernel's; the faster counts
    from .read_kernel import partial_sums_into, runs
    words = src.view(torch.float32)
    partial = torch.empty(runs(words.numel()), dtype=torch.float32, device="cuda")
    times = time_interleaved({"read": lambda: words.sum(),
                              "read_triton": lambda: partial_sums_into(words, partial)}, 30, 5)
    for name in ("read", "read_triton"):
        out[name] = summarize(times[name])
    out["read_bytes_per_s"] = copy_bytes / (min(out[n]["median_ms"] for n in ("read", "read_triton")) / 1e3)
    del src, dst
    out["matmul"] = {}
    old_tf32 = torch.backends.cuda.matmul.allow_tf32
    try:
        for name in MATMUL_DTYPES:
            dt = torch.float32 if name in ("tf32", "float32") else getattr(torch, name)
            torch.backends.cuda.matmul.allow_tf32 = name == "tf32"
            a = torch.randn(n, n, device="cuda", dtype=dt)
            b = torch.randn(n, n, device="cuda", dtype=dt)
            s = summarize(time_interleaved({"mm": lambda: torch.matmul(a, b)}, 10, 3)["mm"])
            s["flops_per_s"] = 2 * n ** 3 / (s["median_ms"] / 1e3)
            out["matmul"][name] = s
            del a, b
    finally:
        torch.backends.cuda.matmul.allow_tf32 = old_tf32
    out["launch"] = launch_overhead()
    return out


def launch_overhead(runs=2000):
    """Wall-clock time per launch of an empty Triton kernel, back to back."""
    torch = require_cuda()
    from .empty_kernel import launch_empty
    for _ in range(20):
        launch_empty()
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(runs):
        launch_empty()
    torch.cuda.synchronize()
    per = (time.perf_counter() - t0) / runs
    ev = summarize(time_interleaved({"k": launch_empty}, 200, 5)["k"])
    return {"wall_us_per_launch": per * 1e6, "event_median_us": ev["median_ms"] * 1e3}
