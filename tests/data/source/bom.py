# bom
import triton
