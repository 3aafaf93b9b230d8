"""What the GPU variant scripts share: a kernel's text loaded as a module,
and a text edit that must apply."""
import importlib.util
import os
import tempfile


def load(text, name):
    """The module whose source is text, written to a fresh temporary folder."""
    d = tempfile.mkdtemp()
    path = os.path.join(d, name + ".py")
    with open(path, "w") as f:
        f.write(text)
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def sub(text, old, new):
    """text with old replaced by new; exits when old is not there."""
    if old not in text:
        raise SystemExit(f"variant edit not found: {old!r}")
    return text.replace(old, new)
