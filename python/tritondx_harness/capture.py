"""`capture`: each kernel as the launch really compiles it, with its artifacts.

Two modes:
- aot (no GPU): run `launch` on CPU inputs with every `kernel[grid](...)`
  intercepted (recorded, not executed), derive the specialization those
  arguments imply with Triton's own binder for the target, and compile ahead
  of time for GPUTarget("cuda", 90, 32).
- jit (GPU): run `launch` on CUDA inputs and take each compile's ASTSource
  (signature, constexprs, attrs) from knobs.compilation.listener.
Both then compile through one path (compile.py) that writes the artifacts,
runs `ptxas -v` and optionally collects MLIR remarks, and apply at most the
counterfactual changes asked for on the command line.
"""
import os

from . import gpulock, protocol
from .common import bench_shape, parse_dtype, shape_label
from .compile import Override, compile_spec, kernel_specs_from_jit, mark_autotune_choice, target_for
from .intercept import record_launches
from .protocol import COMPILE, NO_GPU, TASK_ERROR, USAGE, HarnessError, describe_exception, where
from .taskload import interpreter, load_task


def add_args(p):
    """Options of the capture verb."""
    p.add_argument("--task", required=True)
    p.add_argument("--mode", choices=("aot", "jit"), default="aot")
    p.add_argument("--out", default="tdx-capture", help="folder for the artifacts")
    p.add_argument("--shape", help="input shape (default: SHAPES['bench'])")
    p.add_argument("--dtype", help="pass this dtype to make_inputs")
    p.add_argument("--kernel", help="capture only this kernel")
    p.add_argument("--config", type=int, default=0, help="@triton.autotune config index (default 0)")
    p.add_argument("--set-divisibility", action="append", default=[], metavar="KERNEL:ARG")
    p.add_argument("--num-warps", type=int)
    p.add_argument("--num-stages", type=int)
    p.add_argument("--constexpr", action="append", default=[], metavar="[KERNEL:]NAME=VALUE")
    p.add_argument("--remarks", action="store_true", help="collect MLIR remarks (recompiles)")
    p.add_argument("--no-ptxas", action="store_true", help="skip ptxas -v resource usage")
    p.add_argument("--no-sass", action="store_true", help="skip the SASS listing (nvdisasm)")


def parse_value(text):
    """A constexpr value from the command line: int, float, bool or string."""
    low = text.strip().lower()
    if low in ("true", "false"):
        return low == "true"
    for conv in (int, float):
        try:
            return conv(text)
        except ValueError:
            pass
    return text


def override_from_args(args):
    """The counterfactual changes asked for, checked for form."""
    ov = Override(num_warps=args.num_warps, num_stages=args.num_stages)
    for item in args.set_divisibility:
        kernel, sep, arg = item.partition(":")
        if not sep or not kernel or not arg:
            raise HarnessError(USAGE, f"--set-divisibility wants KERNEL:ARG, got {item!r}")
        ov.divisibility.append((kernel, arg))
    for item in args.constexpr:
        name, sep, value = item.partition("=")
        if not sep or not name:
            raise HarnessError(USAGE, f"--constexpr wants NAME=VALUE, got {item!r}")
        kernel, _, pname = name.rpartition(":")
        ov.constexprs.append((kernel or None, pname, parse_value(value)))
    for n, what in ((args.num_warps, "--num-warps"), (args.num_stages, "--num-stages")):
        if n is not None and n < 1:
            raise HarnessError(USAGE, f"{what} must be at least 1")
    if args.num_warps is not None and args.num_warps & (args.num_warps - 1):
        raise HarnessError(USAGE, "--num-warps must be a power of two")
    return ov


def private_cache():
    """Compile into a cache of this process's own: Triton keys its cache by
    the kernel's source, not its file, so a kernel cached from another file
    (an earlier candidate, another checkout) would bring that file's name and
    lines into the IR's locations. TDX_TRITON_CACHE=shared keeps the cache."""
    import atexit
    import shutil
    import tempfile
    if os.environ.get("TDX_TRITON_CACHE") == "shared":
        return
    d = tempfile.mkdtemp(prefix="tdx-capture-cache-")
    os.environ["TRITON_CACHE_DIR"] = d
    atexit.register(shutil.rmtree, d, True)


def run(args):
    """Capture every kernel the launch compiles; the reply dict."""
    ov = override_from_args(args)
    if args.mode == "aot":
        private_cache()
    if args.mode == "jit":
        import torch
        if not torch.cuda.is_available():
            raise HarnessError(NO_GPU, "--mode jit needs a CUDA device; use --mode aot without one")
    device = "cuda" if args.mode == "jit" else "cpu"
    with interpreter(False):
        task = load_task(args.task)
        shape = bench_shape(task, args.shape)
        try:
            inputs = task.inputs(shape, device, 0, parse_dtype(args.dtype))
        except HarnessError:
            raise
        except Exception as e:  # noqa: BLE001
            raise HarnessError(TASK_ERROR, f"make_inputs({shape!r}) raised {describe_exception(e)}") from None
        target = target_for(args.mode)
        if args.mode == "aot":
            specs = _aot_specs(task, inputs, target, args.config)
        else:
            with gpulock.shared():
                specs = _jit_specs(task, inputs)
            mark_autotune_choice(specs, task.kernels)
    if args.kernel:
        specs = [s for s in specs if s.name == args.kernel]
        if not specs:
            raise HarnessError(USAGE, f"no launch of a kernel named {args.kernel!r} was seen")
    ov.check_names({s.name for s in specs})
    out_dir = os.path.abspath(args.out)
    os.makedirs(out_dir, exist_ok=True)
    kernels = []
    failed = None
    for i, spec in enumerate(specs):
        entry = compile_spec(spec, target, ov, os.path.join(out_dir, f"{i}-{spec.name}"),
                             remarks=args.remarks, ptxas=not args.no_ptxas, sass=not args.no_sass)
        kernels.append(entry)
        if entry.get("error") and failed is None:
            failed = entry
    common = {"mode": args.mode, "task": task.path, "kind": task.kind, "shape": shape_label(shape),
              "target": {"backend": target.backend, "arch": target.arch, "warp_size": target.warp_size},
              "out": out_dir, "counterfactual": ov.describe(), "kernels": kernels}
    if not specs:
        return protocol.failure("capture", TASK_ERROR, "launch ran but launched no Triton kernel", **common)
    if failed is not None:
        err = failed["error"]
        what = f"{failed['name']} does not compile: {err[len('compile failed: '):]}" \
            if err.startswith("compile failed: ") else f"{failed['name']}: {err}"
        return protocol.failure("capture", COMPILE, what, **common)
    return protocol.result("capture", **common)


def _aot_specs(task, inputs, target, config_index):
    """Run launch with launches intercepted; one spec per distinct compile."""
    with record_launches(config_index) as launches:
        try:
            task.launch(*inputs)
        except Exception as e:  # noqa: BLE001
            if not launches:
                raise HarnessError(TASK_ERROR, f"launch raised {describe_exception(e)}{where(e)} "
                                   "before launching a kernel (with launches intercepted, kernels do "
                                   "not run, so launch must not depend on their results)") from None
            # Kernels seen before the failure are still worth capturing.
    from .compile import kernel_specs_from_launches
    return kernel_specs_from_launches(launches, target)


def _jit_specs(task, inputs):
    """Run launch on the GPU and collect what the compile listener saw."""
    import torch
    try:
        return kernel_specs_from_jit(lambda: (task.launch(*inputs), torch.cuda.synchronize()))
    except HarnessError:
        raise
    except Exception as e:  # noqa: BLE001
        raise HarnessError(TASK_ERROR, f"launch raised {describe_exception(e)}{where(e)}") from None
