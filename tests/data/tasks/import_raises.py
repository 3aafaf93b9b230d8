"""A task whose import raises (a module-level error on line 5)."""
import torch
import triton

SIZE = torch.zeros(3)[7]
