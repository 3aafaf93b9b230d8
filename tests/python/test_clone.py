"""Input copies (check and time) keep strides and storage offsets, so a
misaligned check shape stays misaligned in every copy."""
import torch

from tritondx_harness.check import _clone
from tritondx_harness.timing import clone_inputs


def test_copies_keep_offset_and_strides():
    base = torch.randn(101)
    view = base[1:]
    mat = torch.randn(8, 9)[:, 1:]
    for copy in (_clone, clone_inputs):
        a, b, n = copy((view, mat, 7))
        assert a.storage_offset() == 1 and torch.equal(a, view)
        assert a.data_ptr() != view.data_ptr()
        assert b.stride() == mat.stride() and b.storage_offset() == 1 and torch.equal(b, mat)
        assert n == 7
