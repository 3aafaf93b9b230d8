"""Entry point: python3 -m tritondx_harness VERB --task FILE [options].

Prints exactly one JSON object on stdout and exits 0 once it is written,
whatever happened to the task; a non-zero exit means even that failed.
"""
import argparse
import importlib
import os
import sys
import traceback

from . import protocol
from .protocol import HarnessError

# verb -> module (one module per verb; `time` lives in timing.py so that it
# never shadows the standard library's time module).
VERBS = {
    "validate": "validate",
    "check": "check",
    "capture": "capture",
    "time": "timing",
    "ceilings": "ceilings",
    "ncu": "ncu",
    "launch": "launch_once",
    "trial": "trial",
    "baselines": "baselines",
}


class _Parser(argparse.ArgumentParser):
    """argparse that raises instead of printing and exiting."""

    def error(self, message):
        """Report a parse error as a usage failure."""
        raise HarnessError(protocol.USAGE, message)

    def exit(self, status=0, message=None):
        """Never exit from inside the parser (help included)."""
        if status:
            raise HarnessError(protocol.USAGE, message or "bad command line")
        raise HarnessError(protocol.USAGE, "help requested: see docs/harness-protocol.md")


def build_parser():
    """The command line: one subcommand per verb, each module adding its options."""
    p = _Parser(prog="python3 -m tritondx_harness", add_help=False)
    sub = p.add_subparsers(dest="verb", parser_class=_Parser)
    for verb, modname in VERBS.items():
        mod = importlib.import_module(f".{modname}", __package__)
        sp = sub.add_parser(verb, add_help=False)
        mod.add_args(sp)
        sp.set_defaults(_module=mod)
    return p


def dispatch(argv):
    """Run one verb and return its reply dict (never raises)."""
    verb = argv[0] if argv else None
    try:
        args = build_parser().parse_args(argv)
        if not getattr(args, "verb", None):
            raise HarnessError(protocol.USAGE, f"expected a verb: {', '.join(VERBS)}")
        return args._module.run(args)
    except HarnessError as e:
        fields = {k: v for k, v in e.extra.items() if k not in ("ok", "verb", "protocol")}
        return protocol.failure(verb if verb in VERBS else None, e.kind, str(e), **fields)
    except SystemExit as e:
        return protocol.failure(verb if verb in VERBS else None, protocol.TASK_ERROR,
                                f"the task called exit({e.code!r})")
    except Exception as e:  # noqa: BLE001 - a harness bug is still a JSON reply
        traceback.print_exc(file=sys.stderr)
        return protocol.failure(verb if verb in VERBS else None, protocol.INTERNAL,
                                f"harness error: {protocol.describe_exception(e)}")


def sandbox_caches():
    """Under tritondx's sandbox (TDX_SANDBOX=1: the child may write only in
    its private TMPDIR) Triton's cache and home move into that directory, so
    compiles work and no run can leave compiled kernels for the next."""
    if os.environ.get("TDX_SANDBOX") != "1" or not os.environ.get("TMPDIR"):
        return
    tmp = os.environ["TMPDIR"]
    os.environ["TRITON_HOME"] = tmp
    os.environ["TRITON_CACHE_DIR"] = os.path.join(tmp, "triton-cache")


def main(argv=None):
    """Run the verb with stdout guarded and write the reply; 0 once written."""
    argv = list(sys.argv[1:] if argv is None else argv)
    sandbox_caches()
    guard = protocol.StdoutGuard()
    with guard:
        reply = dispatch(argv)
        sys.stderr.flush()
        guard.emit(reply)
    return 0


if __name__ == "__main__":
    sys.exit(main())
