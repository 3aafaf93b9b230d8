#blocked = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>
#dot = #ttg.dot_op<{opIdx = 1, parent = #mma, kWidth = 2}>
#sw = #ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>
#lin = #ttg.linear<{register = [[0, 1], [0, 2]], lane = [[1, 0]], warp = [], block = []}>
#loc = loc("k.py":3:0)
module attributes {"ttg.num-warps" = 8 : i32, ttg.target = "cuda:90", "ttg.num-ctas" = 1 : i32, "ttg.threads-per-warp" = 32 : i32, foo.bar} {
  tt.func public @k(%p: !tt.ptr<f16> {tt.divisibility = 16 : i32, tt.pointer_range = 32 : i32} loc("p"(#loc)), %n: i32 loc("n"(#loc))) attributes {noinline = false} {
    %0 = tt.get_program_id x : i32 loc(#loc9)
    %r = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 0, parent = #blocked}>> loc(#loc2)
    %m:2 = "my.unknown"(%0, %r) <{weird = [1, [2, 3]], s = "a{b}c"}> ({
    ^bb0(%a: i32 loc(unknown), %b: i32 loc(unknown)):
      %s = arith.addi %a, %b : i32 loc(#loc3)
      "my.yield"(%s) : (i32) -> () loc(#loc3)
    }) {extra = 1 : i64} : (i32, tensor<64xi32, #ttg.slice<{dim = 0, parent = #blocked}>>) -> (i32, i32) loc(fused[#loc3, "k.py":9:1])
    %x = ttg.local_alloc : () -> !ttg.memdesc<2x64x32xf16, #sw, #smem, mutable> loc(#loc4)
    %c = arith.constant dense<1> : tensor<64x32xi64, #blocked> loc(unknown)
    %d = arith.muli %c, %c : tensor<64x32xi64, #blocked> loc(#loc4)
    %e = ttg.convert_layout %d : tensor<64x32xi64, #blocked> -> tensor<64x32xi64, #lin> loc(#loc4)
    tt.return loc(#loc)
  } loc(#loc)
} loc(#loc)
#loc1 = loc("k.py":4:10)
#loc2 = loc("r"(#loc1))
#loc5 = loc("lib/standard.py":100:7)
#loc6 = loc("k.py":6:12)
#loc3 = loc(callsite(#loc5 at #loc6))
#loc4 = loc("x"("k.py":7:3))
#loc9 = loc("pid"(callsite("helper.py":1:2 at callsite("k.py":5:5 at "k.py":8:8))))
{-#
  dialect_resources: { builtin: { blob: "0x04" } }
#-}
