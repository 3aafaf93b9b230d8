"""Compiling a kernel with a given specialization, and reporting it.

A `Spec` is one compile as the launch asks for it: the JITFunction, its
signature ({"x_ptr": "*fp32", ...}), constexprs ({(i,): value}), attrs
({(i,): [["tt.divisibility", 16]]}) and backend options. compile_spec()
applies the counterfactual `Override`, compiles, writes the artifacts and
returns the kernel's JSON entry.

Specialization in AOT mode comes from Triton's own binder
(runtime/jit.py create_function_from_signature + JITFunction._pack_args),
built for the AOT target's backend, so the rules are exactly the JIT's:
pointers with data_ptr() % 16 == 0 and ints with value % 16 == 0 get
tt.divisibility 16 (BaseBackend.get_tensor/int_specialization, only when
`align`), ints equal to 1 become constexpr 1 (native_specialize_impl),
do_not_specialize turns both off, do_not_specialize_on_alignment only the
divisibility; annotated fp/bool params are never specialized.
"""
import os
import re
import shutil
import subprocess
import tempfile
import time

from .protocol import USAGE, HarnessError, capture_fd2, describe_exception, one_line

ARTIFACTS = ("ttir", "ttgir", "llir", "ptx", "cubin")


def target_for(mode):
    """GPUTarget("cuda", 90, 32) for aot; the visible device's for jit."""
    if mode == "aot":
        from triton.backends.compiler import GPUTarget
        return GPUTarget("cuda", 90, 32)
    from triton.runtime import driver
    return driver.active.get_current_target()


class Spec:
    """One distinct compile of one kernel."""

    def __init__(self, fn, signature, constexprs, attrs, options, args=None, grid=None, config=None):
        self.fn = fn
        self.name = fn.__name__
        self.signature = dict(signature)
        self.constexprs = dict(constexprs)
        self.attrs = {k: [list(a) for a in v] for k, v in attrs.items()}
        self.options = options
        self.args = args or {}
        self.grid = grid
        self.config = config
        self.launch_count = 1

    def key(self):
        """What makes two launches one compile."""
        return (id(self.fn), repr(sorted(self.signature.items())), repr(sorted(self.constexprs.items())),
                repr(sorted(self.attrs.items())), repr(self.options))


class Override:
    """The counterfactual: at most these changes to what the launch asked for."""

    def __init__(self, num_warps=None, num_stages=None):
        self.num_warps = num_warps
        self.num_stages = num_stages
        self.divisibility = []   # (kernel, arg)
        self.constexprs = []     # (kernel or None, name, value)

    def empty(self):
        """Whether nothing is changed."""
        return not (self.num_warps or self.num_stages or self.divisibility or self.constexprs)

    def describe(self):
        """The changes as JSON, or None when there are none."""
        if self.empty():
            return None
        out = {}
        if self.divisibility:
            out["set_divisibility"] = [f"{k}:{a}" for k, a in self.divisibility]
        if self.num_warps:
            out["num_warps"] = self.num_warps
        if self.num_stages:
            out["num_stages"] = self.num_stages
        if self.constexprs:
            out["constexpr"] = {(f"{k}:{n}" if k else n): v for k, n, v in self.constexprs}
        return out

    def check_names(self, names):
        """Reject changes aimed at kernels the launch never ran."""
        for k, _ in self.divisibility:
            if k not in names:
                raise HarnessError(USAGE, f"--set-divisibility: no launch of a kernel named {k!r} was seen")
        for k, _, _ in self.constexprs:
            if k is not None and k not in names:
                raise HarnessError(USAGE, f"--constexpr: no launch of a kernel named {k!r} was seen")

    def apply(self, spec):
        """A new (signature, constexprs, attrs, options) with the changes made."""
        import dataclasses
        names = spec.fn.arg_names
        sig, cx = dict(spec.signature), dict(spec.constexprs)
        attrs = {k: [list(a) for a in v] for k, v in spec.attrs.items()}
        for k, arg in self.divisibility:
            if k != spec.name:
                continue
            if arg not in names:
                raise HarnessError(USAGE, f"--set-divisibility: {k} has no argument {arg!r}")
            ty = sig[arg]
            if ty == "constexpr":
                raise HarnessError(USAGE, f"--set-divisibility: {k}:{arg} is a constant in this "
                                   "specialization, divisibility does not apply")
            if not (ty.startswith("*") or ty[:1] in ("i", "u")):
                raise HarnessError(USAGE, f"--set-divisibility: {k}:{arg} is {ty}, not a pointer or integer")
            path = (names.index(arg),)
            cur = attrs.setdefault(path, [])
            if ["tt.divisibility", 16] not in cur:
                cur.append(["tt.divisibility", 16])
        for k, name, value in self.constexprs:
            if k is not None and k != spec.name:
                continue
            if name not in names:
                if k is None:
                    continue  # a bare NAME applies to the kernels that have it
                raise HarnessError(USAGE, f"--constexpr: {k} has no parameter {name!r}")
            if sig[name] != "constexpr":
                raise HarnessError(USAGE, f"--constexpr: {spec.name}:{name} is not a constexpr "
                                   "in this specialization")
            cx[(names.index(name),)] = value
        options = spec.options
        changes = {}
        if self.num_warps:
            changes["num_warps"] = self.num_warps
        if self.num_stages:
            changes["num_stages"] = self.num_stages
        if changes:
            options = dataclasses.replace(options, **changes)
        return sig, cx, attrs, options


def describe_arg(value):
    """A JSON summary of one launch argument, as the specialization sees it."""
    import torch
    if isinstance(value, torch.Tensor):
        return {"kind": "tensor", "dtype": str(value.dtype).replace("torch.", ""),
                "shape": list(value.shape), "stride": list(value.stride()),
                "data_ptr_mod16": value.data_ptr() % 16}
    if isinstance(value, bool):
        return {"kind": "bool", "value": value}
    if isinstance(value, int):
        return {"kind": "int", "value": value, "mod16": value % 16}
    if isinstance(value, float):
        return {"kind": "float", "value": value}
    if value is None:
        return {"kind": "none"}
    return {"kind": type(value).__name__, "value": one_line(repr(value), 200)}


def _grid_of(grid, bound):
    """The launch grid as a list of ints when it can be worked out."""
    try:
        g = grid(bound) if callable(grid) else grid
        g = tuple(g) if isinstance(g, (tuple, list)) else (g,)
        return [int(x) for x in g]
    except Exception:  # noqa: BLE001 - the grid is informative only
        return None


def kernel_specs_from_launches(launches, target):
    """Specs for recorded launches, using Triton's binder for `target`."""
    from triton import knobs
    from triton.compiler import make_backend
    from triton.runtime.jit import create_function_from_signature

    backend = make_backend(target)
    binders = {}
    specs = {}
    for ln in launches:
        fn = ln.fn
        if id(fn) not in binders:
            binders[id(fn)] = create_function_from_signature(fn.signature, fn.params, backend)
        kwargs = dict(ln.kwargs)
        # as JITFunction.run does before binding
        kwargs["debug"] = kwargs.get("debug", fn.debug) or knobs.runtime.debug
        kwargs["instrumentation_mode"] = knobs.compilation.instrumentation_mode
        try:
            bound, specialization, opts = binders[id(fn)](*ln.args, **kwargs)
            options, signature, constexprs, attrs = fn._pack_args(backend, kwargs, bound, specialization, opts)
        except Exception as e:  # noqa: BLE001
            raise HarnessError(USAGE, f"{fn.__name__}: the launch arguments do not bind: "
                               f"{describe_exception(e)}") from None
        spec = Spec(fn, signature, constexprs, attrs, options,
                    args={k: describe_arg(v) for k, v in bound.items()},
                    grid=_grid_of(ln.grid, bound), config=ln.config)
        k = spec.key()
        if k in specs:
            specs[k].launch_count += 1
        else:
            specs[k] = spec
    return list(specs.values())


def kernel_specs_from_jit(run_launch, target=None):
    """Run the launch on the GPU and build specs from the compile listener
    (knobs.compilation.listener gets the ASTSource of every compile, cache
    hits included). `target` defaults to the visible device's."""
    from triton import knobs
    from triton.compiler import make_backend
    from triton.runtime import driver

    seen = []

    def listener(*, src, metadata, metadata_group, times, cache_hit):
        """knobs.compilation.listener: keep each compile's source and metadata."""
        if hasattr(src, "fn"):
            seen.append((src, dict(metadata)))

    old = knobs.compilation.listener
    knobs.compilation.listener = listener
    try:
        run_launch()
    finally:
        knobs.compilation.listener = old
    backend = make_backend(target or driver.active.get_current_target())
    specs = {}
    for src, md in seen:
        fields = backend.parse_options({}).__dict__
        opts = backend.parse_options({k: md[k] for k in fields if k in md and k not in
                                      ("extern_libs", "supported_fp8_dtypes", "deprecated_fp8_dot_operand_dtypes",
                                       "allowed_dot_input_precisions", "arch", "backend_name")})
        spec = Spec(src.fn, src.signature, src.constants, src.attrs, opts)
        specs.setdefault(spec.key(), spec)
    return list(specs.values())


def matches_config(spec, config):
    """Whether a compile is the one an autotune Config describes: every
    config kwarg equals the compile's constexpr of that name, and its
    num_warps / num_stages (when set) equal the compile's options."""
    names = spec.fn.arg_names
    for k, v in config.kwargs.items():
        if k not in names or spec.constexprs.get((names.index(k),), object()) != v:
            return False
    for opt in ("num_warps", "num_stages", "num_ctas"):
        want = getattr(config, opt, None)
        if want is not None and getattr(spec.options, opt, None) != want:
            return False
    return True


def mark_autotune_choice(specs, kernels):
    """After a real (GPU) run: set spec.config for compiles of an autotuned
    kernel, saying which one the autotuner kept (Autotuner.best_config).
    `kernels` is Task.kernels: (name, object, line)."""
    from triton.runtime.autotuner import Autotuner

    from .taskload import jit_function
    for _, obj, _ in kernels:
        best = getattr(obj, "best_config", None) if isinstance(obj, Autotuner) else None
        if best is None:
            continue
        inner = jit_function(obj)
        for spec in specs:
            if spec.fn is inner:
                spec.config = {"selected": matches_config(spec, best), "best": str(best),
                               "count": len(obj.configs)}


def compile_spec(spec, target, override, folder, remarks=False, ptxas=True, sass=True):
    """Compile one spec (with the override applied) and describe it."""
    import triton
    from triton.compiler import ASTSource

    fn = spec.fn
    names = fn.arg_names
    entry = {"name": spec.name, "file": None, "line": None, "launch_count": spec.launch_count,
             "grid": spec.grid, "autotune_config": spec.config}
    try:
        import inspect
        entry["file"] = inspect.getsourcefile(fn.fn)
        entry["line"] = inspect.getsourcelines(fn.fn)[1]
    except (OSError, TypeError):
        pass
    try:
        sig, cx, attrs, options = override.apply(spec)
    except HarnessError as e:
        raise e
    entry.update(describe_specialization(fn, sig, cx, attrs, spec.args))
    entry["as_launched"] = None if override.empty() else describe_specialization(
        fn, spec.signature, spec.constexprs, spec.attrs, spec.args)
    entry["num_warps"] = options.num_warps
    entry["num_stages"] = options.num_stages
    entry["num_ctas"] = options.num_ctas
    entry["options"] = {k: getattr(options, k, None) for k in
                        ("maxnreg", "enable_fp_fusion", "launch_cooperative_grid", "debug")}
    env_saved = {}
    if remarks:
        for k, v in (("MLIR_ENABLE_DIAGNOSTICS", "remarks"), ("TRITON_ALWAYS_COMPILE", "1")):
            env_saved[k] = os.environ.get(k)
            os.environ[k] = v
    t0 = time.monotonic()
    text = []
    try:
        src = ASTSource(fn, sig, cx, attrs)
        if remarks:
            with capture_fd2() as text:
                kernel = triton.compile(src, target=target, options=options.__dict__)
        else:
            kernel = triton.compile(src, target=target, options=options.__dict__)
    except Exception as e:  # noqa: BLE001
        entry["error"] = f"compile failed: {describe_exception(e)}"
        if remarks and text:
            entry["remarks"] = parse_remarks(text[0])
        return entry
    finally:
        for k, v in env_saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    entry["compile_seconds"] = round(time.monotonic() - t0, 3)
    entry["error"] = None
    entry["artifacts"] = write_artifacts(kernel, folder, spec.name)
    md = kernel.metadata
    entry["metadata"] = {"name": md.name, "hash": md.hash, "shared": md.shared,
                         "num_warps": md.num_warps, "arch": getattr(md, "arch", None)}
    if remarks:
        entry["remarks"] = parse_remarks(text[0] if text else "")
        entry["remarks_text"] = text[0] if text else ""
    if sass and "cubin" in entry["artifacts"]:
        path, err = write_sass(entry["artifacts"]["cubin"])
        if path:
            entry["artifacts"]["sass"] = path
        else:
            entry["sass_error"] = err
    if ptxas and "ptx" in kernel.asm:
        entry["resources"] = ptxas_resources(entry["artifacts"]["ptx"], target.arch,
                                             getattr(options, "enable_fp_fusion", True))
        entry["resources"]["shared"] = md.shared
    return entry


def describe_specialization(fn, sig, cx, attrs, args):
    """Signature, constexprs, which args got divisibility 16, which ints
    became constants, and per-argument detail."""
    names = fn.arg_names
    declared = {p.name for p in fn.params if p.is_constexpr}
    div = [names[k[0]] for k, v in attrs.items() if len(k) == 1 and ["tt.divisibility", 16] in v]
    constants = {names[k[0]]: v for k, v in cx.items() if len(k) == 1 and names[k[0]] not in declared}
    constexprs = {names[k[0]] if len(k) == 1 else repr(k): v for k, v in cx.items()}
    per_arg = []
    for i, p in enumerate(fn.params):
        per_arg.append({
            "index": i, "name": p.name, "type": sig.get(p.name),
            "declared_constexpr": p.is_constexpr,
            "divisibility": 16 if p.name in div else None,
            "specialized_constant": p.name in constants,
            "do_not_specialize": bool(p.do_not_specialize),
            "do_not_specialize_on_alignment": bool(p.do_not_specialize_on_alignment),
            "value": args.get(p.name),
        })
    return {"signature": sig, "constexprs": constexprs, "divisibility_16": sorted(div, key=names.index),
            "constants": constants, "args": per_arg}


def write_artifacts(kernel, folder, name):
    """Write ttir/ttgir/llir/ptx/cubin (those present) under `folder`."""
    os.makedirs(folder, exist_ok=True)
    paths = {}
    for ext in ARTIFACTS:
        data = kernel.asm.get(ext)
        if data is None:
            continue
        path = os.path.join(folder, f"{name}.{ext}")
        mode = "wb" if isinstance(data, (bytes, bytearray)) else "w"
        with open(path, mode) as f:
            f.write(data)
        paths[ext] = path
    return paths


def write_sass(cubin_path):
    """SASS of the cubin with source lines (`nvdisasm -g -c`: each block
    under `//## File "...", line N`), next to it as .sass; (path, error)."""
    try:
        from triton import knobs
        exe = knobs.nvidia.nvdisasm.path
    except Exception:  # noqa: BLE001
        exe = shutil.which("nvdisasm")
    if not exe:
        return None, "nvdisasm not found"
    try:
        p = subprocess.run([exe, "-g", "-c", cubin_path], capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired) as e:
        return None, f"nvdisasm failed: {describe_exception(e)}"
    if p.returncode != 0:
        return None, f"nvdisasm exited {p.returncode}: {one_line(p.stderr, 300)}"
    path = os.path.splitext(cubin_path)[0] + ".sass"
    with open(path, "w") as f:
        f.write(p.stdout)
    return path, None


_REG = re.compile(r"Used (\d+) registers")
_SPILL = re.compile(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads")
_SMEM = re.compile(r"(\d+) bytes smem")


def parse_ptxas_log(text):
    """Registers, spill bytes, stack frame and smem from `ptxas -v` output."""
    out = {"registers": None, "spill_stores": None, "spill_loads": None, "stack_frame": None,
           "smem_static": None}
    m = _REG.search(text)
    if m:
        out["registers"] = int(m.group(1))
    m = _SPILL.search(text)
    if m:
        out["stack_frame"], out["spill_stores"], out["spill_loads"] = (int(g) for g in m.groups())
    m = _SMEM.search(text)
    if m:
        out["smem_static"] = int(m.group(1))
    return out


def ptxas_path(arch):
    """The ptxas Triton itself uses for `arch`."""
    try:
        from triton.backends.nvidia.compiler import get_ptxas
        return get_ptxas(arch).path
    except Exception:  # noqa: BLE001
        return shutil.which("ptxas")


def ptxas_resources(ptx_path, arch, fp_fusion=True):
    """Run `ptxas -v` the way Triton's make_cubin does and parse its log."""
    from triton.backends.nvidia.compiler import sm_arch_from_capability
    exe = ptxas_path(arch)
    if not exe:
        return {"error": "ptxas not found"}
    with tempfile.TemporaryDirectory() as tmp:
        cmd = [exe, "-lineinfo", "-v"] + ([] if fp_fusion else ["--fmad=false"]) + \
              [f"--gpu-name={sm_arch_from_capability(arch)}", ptx_path, "-o", os.path.join(tmp, "k.o")]
        try:
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
        except (OSError, subprocess.TimeoutExpired) as e:
            return {"error": f"ptxas failed: {describe_exception(e)}"}
    log = p.stdout + p.stderr
    out = parse_ptxas_log(log)
    out["ptxas_log"] = log
    if p.returncode != 0:
        out["error"] = f"ptxas exited {p.returncode}"
    return out


_REMARK = re.compile(r"^(?P<file>[^\n]*?):(?P<line>\d+):(?P<col>\d+): (?P<kind>remark|warning|error|note): "
                     r"(?P<msg>.*)$")


def parse_remarks(text):
    """MLIR diagnostics as [{file, line, col, kind, message}], in order, each
    distinct one once (a pass that runs twice repeats its remarks)."""
    out = []
    for ln in text.splitlines():
        m = _REMARK.match(ln.strip())
        if m:
            item = {"file": m.group("file"), "line": int(m.group("line")), "col": int(m.group("col")),
                    "kind": m.group("kind"), "message": m.group("msg").strip()}
            if item not in out:
                out.append(item)
    return out
