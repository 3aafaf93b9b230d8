from __future__ import annotations
import torch, triton as tr
from .kernels import (add_kernel as add, mul_kernel,)
from ... import x
from os.path import *

WARPS = 4


class Runner(object, metaclass=Meta):
    """Launches the kernel."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)

    async def run(self, x, /, y=None):
        global WARPS
        with torch.no_grad(), open("f") as fh:
            out = await self.go(x)
        try:
            pass
        except (ValueError, KeyError) as e:
            raise RuntimeError("bad") from e
        except Exception:
            raise
        else:
            del out
        finally:
            return None


def launch(x, y):
    n = x.numel()
    grid = lambda meta: (triton.cdiv(n, meta['BLOCK']),)
    add_kernel[grid](x, y, n, BLOCK=1024, num_warps=4)
    add_kernel[(n // 128, 1)](x, *[y], **opts)
    sizes = [s for s in x.shape]
    return y
