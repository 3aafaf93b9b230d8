/* Targeted tests of the ir parsers on odd syntax: locations defined after
 * use, call sites and fused locations, generic-form ops, unknown dialects,
 * every layout kind, malformed and hostile input, PTX inline-asm blocks and
 * inlined-at comments, cuobjdump SASS, multi-function ptxas logs, and the
 * query API on a fixture. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <stdio.h>

#include "base/file.h"
#include "ir/ir.h"

// The nth op with a name, in pre-order.
static const tdx_ir_op *find_op(const tdx_ir_module *m, const char *name, int nth)
{
    for (size_t i = 0; i < m->ops.len; i++) {
        const tdx_ir_op *op = m->ops.items[i];
        if (op->name && strcmp(op->name, name) == 0 && nth-- == 0)
            return op;
    }
    return NULL;
}

static const char MLIR_ODD[] =
    "#blocked = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>\n"
    "#mma = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>\n"
    "#dot = #ttg.dot_op<{opIdx = 1, parent = #mma, kWidth = 2}>\n"
    "#sw = #ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>\n"
    "#lin = #ttg.linear<{register = [[0, 1], [0, 2]], lane = [[1, 0]], warp = [], block = []}>\n"
    "#loc = loc(\"k.py\":3:0)\n"
    "module attributes {\"ttg.num-warps\" = 8 : i32, ttg.target = \"cuda:90\", \"ttg.num-ctas\" = 1 : i32, \"ttg.threads-per-warp\" = 32 : i32, foo.bar} {\n"
    "  tt.func public @k(%p: !tt.ptr<f16> {tt.divisibility = 16 : i32, tt.pointer_range = 32 : i32} loc(\"p\"(#loc)), %n: i32 loc(\"n\"(#loc))) attributes {noinline = false} {\n"
    "    %0 = tt.get_program_id x : i32 loc(#loc9)\n"
    "    %r = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 0, parent = #blocked}>> loc(#loc2)\n"
    "    %m:2 = \"my.unknown\"(%0, %r) <{weird = [1, [2, 3]], s = \"a{b}c\"}> ({\n"
    "    ^bb0(%a: i32 loc(unknown), %b: i32 loc(unknown)):\n"
    "      %s = arith.addi %a, %b : i32 loc(#loc3)\n"
    "      \"my.yield\"(%s) : (i32) -> () loc(#loc3)\n"
    "    }) {extra = 1 : i64} : (i32, tensor<64xi32, #ttg.slice<{dim = 0, parent = #blocked}>>) -> (i32, i32) loc(fused[#loc3, \"k.py\":9:1])\n"
    "    %x = ttg.local_alloc : () -> !ttg.memdesc<2x64x32xf16, #sw, #smem, mutable> loc(#loc4)\n"
    "    %c = arith.constant dense<1> : tensor<64x32xi64, #blocked> loc(unknown)\n"
    "    %d = arith.muli %c, %c : tensor<64x32xi64, #blocked> loc(#loc4)\n"
    "    %e = ttg.convert_layout %d : tensor<64x32xi64, #blocked> -> tensor<64x32xi64, #lin> loc(#loc4)\n"
    "    tt.return loc(#loc)\n"
    "  } loc(#loc)\n"
    "} loc(#loc)\n"
    "#loc1 = loc(\"k.py\":4:10)\n"
    "#loc2 = loc(\"r\"(#loc1))\n"
    "#loc5 = loc(\"lib/standard.py\":100:7)\n"
    "#loc6 = loc(\"k.py\":6:12)\n"
    "#loc3 = loc(callsite(#loc5 at #loc6))\n"
    "#loc4 = loc(\"x\"(\"k.py\":7:3))\n"
    "#loc9 = loc(\"pid\"(callsite(\"helper.py\":1:2 at callsite(\"k.py\":5:5 at \"k.py\":8:8))))\n"
    "{-#\n  dialect_resources: { builtin: { blob: \"0x04\" } }\n#-}\n";

// Aliases after use, call sites, fused locations, generic ops, every layout kind.
static void mlir_odd_syntax(void **state)
{
    (void)state;
    tdx_arena a;
    tdx_arena_init(&a, 0);
    tdx_diags d;
    tdx_diags_init(&d);
    tdx_ir_module *m = NULL;
    assert_int_equal(tdx_ir_mlir_parse(MLIR_ODD, sizeof MLIR_ODD - 1, &a, &m, &d), TDX_OK);
    assert_int_equal(d.len, 0);
    assert_int_equal(m->num_warps, 8);
    assert_int_equal(m->num_ctas, 1);
    assert_int_equal(m->threads_per_warp, 32);
    assert_string_equal(m->target, "cuda:90");
    assert_string_equal(m->kernel_file, "k.py");
    assert_int_equal(m->funcs.len, 1);
    const tdx_ir_func *f = m->funcs.items[0];
    assert_string_equal(f->name, "k");
    assert_int_equal(f->nargs, 2);
    assert_int_equal(f->args[0].divisibility, 16);
    assert_int_equal(f->args[0].type.kind, TDX_IR_TYPE_PTR);
    assert_string_equal(f->args[0].type.pointee, "f16");
    assert_int_equal(f->args[1].divisibility, 0);

    /* Layouts, including a dot_op whose parent is an alias. */
    const tdx_ir_layout *mma = tdx_ir_layout_find(m, "mma");
    assert_non_null(mma);
    assert_int_equal(mma->version_major, 2);
    assert_int_equal(mma->ninstr, 2);
    const tdx_ir_layout *dot = tdx_ir_layout_find(m, "dot");
    assert_int_equal(dot->kind, TDX_IR_LAYOUT_DOT_OP);
    assert_ptr_equal(dot->parent, mma);
    assert_int_equal(dot->op_idx, 1);
    assert_int_equal(dot->k_width, 2);
    const tdx_ir_layout *sw = tdx_ir_layout_find(m, "sw");
    assert_int_equal(sw->kind, TDX_IR_LAYOUT_SWIZZLED_SHARED);
    assert_int_equal(sw->vec, 8);
    assert_int_equal(sw->max_phase, 8);
    assert_int_equal(tdx_ir_layout_find(m, "lin")->kind, TDX_IR_LAYOUT_LINEAR);

    /* A name location wrapping a call-site chain: innermost frame first. */
    const tdx_ir_op *pid = find_op(m, "tt.get_program_id", 0);
    assert_non_null(pid);
    assert_string_equal(pid->loc.name, "pid");
    assert_int_equal(pid->loc.nframes, 3);
    assert_string_equal(pid->loc.frames[0].file, "helper.py");
    assert_int_equal(pid->loc.site.line, 5);
    assert_int_equal(pid->loc.site.col, 5);

    /* Slice of the blocked layout along dim 0: the fastest remaining dim is 1. */
    const tdx_ir_op *mr = find_op(m, "tt.make_range", 0);
    assert_int_equal(mr->loc.site.line, 4);
    const tdx_ir_type *t = tdx_ir_op_type(mr);
    assert_int_equal(t->kind, TDX_IR_TYPE_TENSOR);
    assert_int_equal(t->layout->kind, TDX_IR_LAYOUT_SLICE);
    assert_int_equal(tdx_ir_layout_contig(t->layout), 8);

    /* Generic form: quoted name, properties, region, trailing attributes, fused loc. */
    const tdx_ir_op *u = find_op(m, "my.unknown", 0);
    assert_non_null(u);
    assert_int_equal(u->nresults, 1);
    assert_string_equal(u->results[0], "%m");
    assert_int_equal(u->noperands, 2);
    assert_int_equal(u->nregions, 1);
    assert_int_equal(u->regions[0].nops, 2);
    assert_int_equal(u->nin, 2);
    assert_int_equal(u->nout, 2);
    assert_non_null(tdx_ir_op_attr(u, "weird"));
    assert_non_null(tdx_ir_op_attr(u, "s"));
    assert_int_equal(tdx_ir_op_attr_int(u, "extra", 0), 1);
    assert_int_equal(u->loc.site.line, 6); /* fused: first part, brought to k.py */
    const tdx_ir_op *add = u->regions[0].ops[0];
    assert_string_equal(add->name, "arith.addi");
    assert_ptr_equal(add->parent, u);
    assert_int_equal(add->depth, u->depth + 1);
    assert_string_equal(add->loc.frames[0].file, "lib/standard.py");
    assert_int_equal(add->loc.site.line, 6);
    assert_int_equal(add->loc.site.col, 12);

    /* Memdesc type and def lookup. */
    const tdx_ir_op *al = find_op(m, "ttg.local_alloc", 0);
    assert_int_equal(al->nout, 1);
    assert_int_equal(al->out_types[0].kind, TDX_IR_TYPE_MEMDESC);
    assert_int_equal(al->out_types[0].rank, 3);
    assert_int_equal(al->out_types[0].shape[0], 2);
    assert_true(al->out_types[0].mutable_);
    assert_ptr_equal(al->out_types[0].layout, sw);
    assert_ptr_equal(tdx_ir_def(m, "%x"), al);
    assert_ptr_equal(tdx_ir_def(m, "%m#1"), u);
    assert_null(tdx_ir_def(m, "%nope"));

    tdx_diags_free(&d);
    tdx_arena_free(&a);
}

// Parse text with a throwaway arena; the module must exist even on error.
static tdx_status parse_text(const char *text, size_t len, tdx_diags *d)
{
    tdx_arena a;
    tdx_arena_init(&a, 0);
    tdx_ir_module *m = NULL;
    tdx_status st = tdx_ir_mlir_parse(text, len, &a, &m, d);
    assert_non_null(m);
    tdx_arena_free(&a);
    return st;
}

// Errors are values: unterminated regions, deep nesting, garbage, cycles.
static void mlir_malformed(void **state)
{
    (void)state;
    tdx_diags d;
    tdx_diags_init(&d);
    assert_int_equal(parse_text("", 0, &d), TDX_OK);
    static const char unterminated[] = "module {\n  tt.func @f() {\n    tt.return\n";
    assert_int_equal(parse_text(unterminated, sizeof unterminated - 1, &d), TDX_ERR_PARSE);
    assert_true(d.nerrors > 0);
    /* Nesting past the bound is an error, not a stack overflow. */
    tdx_buf b;
    tdx_buf_init(&b, 0);
    for (int i = 0; i < 200; i++)
        tdx_buf_adds(&b, "scf.if %c {\n");
    assert_int_equal(parse_text(b.data, b.len, &d), TDX_ERR_PARSE);
    tdx_buf_free(&b);
    /* Garbage: unbalanced brackets, stray closers, NUL bytes, bad locs. */
    static const char junk[] = "}}}\n%a = = \"x\n#loc = loc(callsite(#loc at\n%b = tt.load %a : tensor<<<x\n"
                               "#q = #ttg.blocked<{order = [1, \n\0\0%c = \"(\"\n^bb9\n{-# \n";
    assert_true(parse_text(junk, sizeof junk - 1, &d) == TDX_OK ||
                d.nerrors > 0);
    /* Self-referencing location aliases terminate. */
    static const char cyc[] = "module {\n  %a = foo.bar loc(#loc1)\n} loc(#loc1)\n"
                              "#loc1 = loc(#loc2)\n#loc2 = loc(\"n\"(#loc1))\n";
    assert_int_equal(parse_text(cyc, sizeof cyc - 1, &d), TDX_OK);
    tdx_diags_free(&d);
}

static const char PTX[] =
    ".version 8.7\n.target sm_90a\n.address_size 64\n"
    ".visible .entry kern(\n\t.param .u64 kern_param_0\n)\n{\n"
    "\t.reg .pred %p<3>;\n"
    "\t.loc\t1 12 5  // k.py:12:5\n"
    "\t@%p1 ld.global.v4.b32 { %r1, %r2, %r3, %r4 }, [ %rd1 + 0 ];\n"
    "\t@!%p2 st.global.L1::no_allocate.v2.b32 [ %rd2 + 0 ], { %r1, %r2 };\n"
    "\t{ .reg .b32 tmp; mov.b32 tmp, 0; st.shared.b32 [%r9], tmp; }\n"
    "\t.loc\t2 263 15  // standard.py:263:15 @[ k.py:14:9 ]\n"
    "\tld.shared.b32 %r5, [%r9];\n"
    "\tfma.rn.f32 %f1, %f2, %f3, %f4;\n"
    "\t.loc\t2 10 1, function_name $L__info_string0, inlined_at 1 20 3  // h.py:10:1 @[ mid.py:3:3 @[ k.py:20:3 ] ]\n"
    "\tcp.async.cg.shared.global [ %r1 + 0 ], [ %rd1 + 0 ], 0x10, %r2;\n"
    "\tld.local.b32 %r6, [%rd5];\n"
    "\tst.local.v2.b32 [%rd5], {%r1, %r2};\n"
    "\twgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {%f1}, %rd1, %rd2, p, 1, 1, 0, 1;\n"
    "\tmma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f1}, {%r1}, {%r2}, {%f2};\n"
    "\tbar.sync \t0;\n"
    "$L__BB0_1:\n"
    "\t.loc\t2 11 4, function_name $L__info_string1, inlined_at 1 30 7\n"
    "\tadd.s32 %r1, %r2, %r3;\n"
    "\tret;\n}\n"
    "\t.file\t1 \"/abs/k.py\"\n\t.file\t2 \"triton/language/standard.py\", 0, 0\n"
    "\t.section\t.debug_info\n\t{\n.b8 1\n.b32 .debug_abbrev\n\t}\n";

// Predicates, inline-asm blocks, inlined-at comments, classes, the file table.
static void ptx_parse(void **state)
{
    (void)state;
    tdx_arena a;
    tdx_arena_init(&a, 0);
    tdx_diags d;
    tdx_diags_init(&d);
    tdx_ir_ptx *x = NULL;
    assert_int_equal(tdx_ir_ptx_parse(PTX, sizeof PTX - 1, &a, &x, &d), TDX_OK);
    assert_string_equal(x->entry, "kern");
    assert_string_equal(x->target, "sm_90a");
    assert_int_equal(x->nfiles, 3);
    assert_string_equal(x->files[1], "/abs/k.py");
    assert_string_equal(x->files[2], "triton/language/standard.py");
    assert_int_equal(x->ninsns, 14);
    const tdx_ir_ptx_insn *in = x->insns;
    assert_string_equal(in[0].opcode, "ld.global.v4.b32");
    assert_int_equal(in[0].cls, TDX_PTX_LD_GLOBAL);
    assert_int_equal(in[0].vec, 4);
    assert_int_equal(in[0].bits, 32);
    assert_string_equal(in[0].pred, "%p1");
    assert_int_equal(in[0].line, 12);
    assert_int_equal(in[0].col, 5);
    assert_int_equal(in[1].cls, TDX_PTX_ST_GLOBAL);
    assert_int_equal(in[1].pred_neg, 1);
    assert_int_equal(in[1].vec, 2);
    assert_string_equal(in[2].opcode, "mov.b32");
    assert_int_equal(in[3].cls, TDX_PTX_ST_SHARED);
    assert_int_equal(in[4].cls, TDX_PTX_LD_SHARED);
    assert_int_equal(in[4].file, 2);
    assert_int_equal(in[4].site_line, 14);
    assert_int_equal(in[4].site_col, 9);
    assert_string_equal(in[4].site_file, "k.py");
    assert_int_equal(in[5].cls, TDX_PTX_FMA_F32);
    assert_int_equal(in[6].cls, TDX_PTX_CP_ASYNC);
    assert_int_equal(in[6].bytes, 16);
    assert_int_equal(in[6].site_line, 20); /* the outermost frame */
    assert_int_equal(in[7].cls, TDX_PTX_LD_LOCAL);
    assert_int_equal(in[8].cls, TDX_PTX_ST_LOCAL);
    assert_int_equal(in[9].cls, TDX_PTX_WGMMA);
    assert_int_equal(in[10].cls, TDX_PTX_MMA);
    assert_int_equal(in[11].cls, TDX_PTX_BAR);
    assert_string_equal(in[12].opcode, "add.s32");
    assert_int_equal(in[12].line, 11);
    assert_int_equal(in[12].site_line, 30); /* from inlined_at, no comment */
    assert_int_equal(in[12].site_col, 7);
    assert_string_equal(in[12].site_file, "/abs/k.py");
    assert_string_equal(in[13].opcode, "ret");
    tdx_diags_free(&d);
    tdx_arena_free(&a);
}

static const char SASS_NVDISASM[] =
    "\t.headerflags\t@\"EF_CUDA_SM90\"\n"
    "//--------------------- .text.kern --------------------------\n"
    "kern:\n.text.kern:\n"
    "\t//## File \"k.py\", line 12\n"
    "        /*0000*/                   LDC R1, c[0x0][0x28] ;\n"
    "        /*0010*/              @!P0 LDG.E.128 R4, desc[UR4][R2.64] ;\n"
    "        /*0020*/                   LDG.E.64 R8, desc[UR4][R2.64+0x10] ;\n"
    "\t//## File \"k.py\", line 14, inlined at \"k.py\", line 20\n"
    "        /*0030*/               @P1 STG.E.U16 desc[UR4][R2.64], R5 ;\n"
    "        /*0040*/                   HGMMA.64x128x16.F32 R24, gdesc[UR4], RZ ;\n"
    "        /*0050*/                   STL [R1+0x4], R3 ;\n"
    "        /*0060*/                   EXIT ;\n"
    ".L_x_0:\n"
    "        /*0070*/                   BRA `(.L_x_0);\n";

static const char SASS_CUOBJDUMP[] =
    "\tcode for sm_90a\n\t\tFunction : kern\n"
    "\t.headerflags    @\"EF_CUDA_TEXMODE_UNIFIED\"\n"
    "        /*0000*/                   LDC R1, c[0x0][0x28] ;                  /* 0x00000a00ff017b82 */\n"
    "                                                                           /* 0x000fe40000000800 */\n"
    "        /*0010*/                   LDG.E R2, desc[UR4][R2.64] ;            /* 0x0000000402027981 */\n"
    "                                                                           /* 0x000ea2000c1e1900 */\n"
    "        /*0020*/                   EXIT ;                                  /* 0x000000000000794d */\n";

// nvdisasm with line comments and cuobjdump with encodings.
static void sass_parse(void **state)
{
    (void)state;
    tdx_arena a;
    tdx_arena_init(&a, 0);
    tdx_ir_sass *s = NULL;
    assert_int_equal(tdx_ir_sass_parse(SASS_NVDISASM, sizeof SASS_NVDISASM - 1, &a, &s, NULL), TDX_OK);
    assert_string_equal(s->function, "kern");
    assert_int_equal(s->ninsns, 8);
    assert_string_equal(s->insns[1].opcode, "LDG.E.128");
    assert_string_equal(s->insns[1].base, "LDG");
    assert_string_equal(s->insns[1].pred, "P0");
    assert_int_equal(s->insns[1].pred_neg, 1);
    assert_int_equal(s->insns[1].width, 128);
    assert_int_equal(s->insns[1].addr, 0x10);
    assert_int_equal(s->insns[1].line, 12);
    assert_int_equal(s->insns[2].width, 64);
    assert_int_equal(s->insns[3].width, 16);
    assert_int_equal(s->insns[3].line, 14);
    assert_int_equal(s->insns[0].width, 0); /* LDC is not a memory access here */
    assert_int_equal(tdx_ir_sass_count(s, 12, "LDG"), 2);
    assert_int_equal(tdx_ir_sass_count(s, 0, "LDG.E"), 2);
    assert_int_equal(tdx_ir_sass_count(s, 14, "HGMMA"), 1);
    assert_int_equal(tdx_ir_sass_count(s, 14, "STL"), 1);
    assert_int_equal(tdx_ir_sass_count(s, 0, "BRA"), 1);

    tdx_ir_sass *c = NULL;
    assert_int_equal(tdx_ir_sass_parse(SASS_CUOBJDUMP, sizeof SASS_CUOBJDUMP - 1, &a, &c, NULL), TDX_OK);
    assert_string_equal(c->function, "kern");
    assert_int_equal(c->ninsns, 3);
    assert_string_equal(c->insns[1].opcode, "LDG.E");
    assert_int_equal(c->insns[1].width, 32);
    assert_int_equal(c->insns[1].line, 0);
    tdx_arena_free(&a);
}

static const char PTXAS[] =
    "ptxas info    : 0 bytes gmem\n"
    "ptxas info    : Compiling entry function 'a_kernel' for 'sm_90a'\n"
    "ptxas info    : Function properties for a_kernel\n"
    "    64 bytes stack frame, 60 bytes spill stores, 84 bytes spill loads\n"
    "ptxas info    : Used 255 registers, used 1 barriers, 4704 bytes cumulative stack size\n"
    "ptxas warning : Registers are spilled to local memory in function 'a_kernel'\n"
    "ptxas info    : Compiling entry function 'b_kernel' for 'sm_80'\n"
    "ptxas info    : Function properties for b_kernel\n"
    "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
    "ptxas info    : Used 40 registers, 16384 bytes smem, 400 bytes cmem[0]\n";

// Two functions, warnings, smem and cmem, figures in any order.
static void ptxas_parse(void **state)
{
    (void)state;
    tdx_arena a;
    tdx_arena_init(&a, 0);
    tdx_ir_ptxas *x = NULL;
    assert_int_equal(tdx_ir_ptxas_parse(PTXAS, sizeof PTXAS - 1, &a, &x, NULL), TDX_OK);
    assert_int_equal(x->nfuncs, 2);
    assert_int_equal(x->nwarnings, 1);
    assert_string_equal(x->funcs[0].name, "a_kernel");
    assert_string_equal(x->funcs[0].arch, "sm_90a");
    assert_int_equal(x->funcs[0].registers, 255);
    assert_int_equal(x->funcs[0].barriers, 1);
    assert_int_equal(x->funcs[0].stack, 64);
    assert_int_equal(x->funcs[0].spill_stores, 60);
    assert_int_equal(x->funcs[0].spill_loads, 84);
    assert_int_equal(x->funcs[0].cumulative_stack, 4704);
    assert_int_equal(x->funcs[1].registers, 40);
    assert_int_equal(x->funcs[1].smem, 16384);
    assert_int_equal(x->funcs[1].cmem0, 400);
    assert_string_equal(x->funcs[1].arch, "sm_80");
    tdx_arena_free(&a);
}

// Without PTX, whether a conversion goes through shared memory is judged
// from the two layouts alone.
static void join_without_ptx(void **state)
{
    (void)state;
    static const char ttgir[] =
        "#b0 = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>\n"
        "#b1 = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>\n"
        "#b2 = #ttg.blocked<{sizePerThread = [4, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]}>\n"
        "module attributes {\"ttg.num-warps\" = 4 : i32} {\n"
        "  tt.func @f(%p: !tt.ptr<f32>) {\n"
        "    %a = tt.splat %p : !tt.ptr<f32> -> tensor<32x32x!tt.ptr<f32>, #b0> loc(\"f.py\":2:1)\n"
        "    %x = tt.load %a : tensor<32x32x!tt.ptr<f32>, #b0> loc(\"f.py\":3:1)\n"
        "    %y = ttg.convert_layout %x : tensor<32x32xf32, #b0> -> tensor<32x32xf32, #b1> loc(\"f.py\":4:1)\n"
        "    %z = ttg.convert_layout %x : tensor<32x32xf32, #b0> -> tensor<32x32xf32, #b2> loc(\"f.py\":5:1)\n"
        "    tt.return loc(\"f.py\":6:1)\n"
        "  } loc(\"f.py\":1:1)\n"
        "}\n";
    tdx_ir_kernel k;
    tdx_ir_kernel_init(&k);
    assert_int_equal(tdx_ir_kernel_add(&k, TDX_IR_TTGIR, ttgir, sizeof ttgir - 1, NULL), TDX_OK);
    assert_int_equal(tdx_ir_kernel_join(&k, NULL), TDX_OK);
    assert_string_equal(k.name, "f");
    assert_string_equal(k.file, "f.py");
    assert_int_equal(k.num_warps, 4);
    assert_int_equal(k.nmems, 1);
    assert_int_equal(k.mems[0].contig, 4);
    assert_int_equal(k.mems[0].ptx_vec, 0); /* no PTX to tell */
    assert_int_equal(k.ncvts, 2);
    assert_int_equal(k.cvts[0].smem, 0); /* same warps and order: warp shuffles */
    assert_int_equal(k.cvts[1].smem, 1); /* order and warps differ */
    assert_int_equal(k.cvts[1].smem_by_ptx, 0);
    tdx_buf b;
    tdx_buf_init(&b, 0);
    assert_int_equal(tdx_ir_kernel_dump(&k, &b), TDX_OK);
    assert_non_null(strstr(tdx_buf_str(&b), "cvt line=5 col=1 src=blocked dst=blocked smem=1 shfl=0 by=layout"));
    tdx_buf_free(&b);
    tdx_ir_kernel_free(&k);
}

// Queries and JSON on real fixtures; a missing folder is an error.
// A noinline helper printed before the kernel: the public function names
// the kernel and its file.
static void public_function_is_the_kernel(void **state)
{
    (void)state;
    static const char ttir[] =
        "module {\n"
        "  tt.func private @helper(%x: f32 loc(\"lib.py\":2:0)) -> f32 attributes {noinline = true} {\n"
        "    tt.return %x : f32 loc(\"lib.py\":3:4)\n"
        "  } loc(\"lib.py\":1:0)\n"
        "  tt.func public @kern(%p: !tt.ptr<f32>) attributes {noinline = false} {\n"
        "    %v = tt.load %p : !tt.ptr<f32> loc(\"k.py\":5:8)\n"
        "    %w = tt.call @helper(%v) : (f32) -> f32 loc(callsite(\"lib.py\":3:4 at \"k.py\":6:8))\n"
        "    tt.return loc(\"k.py\":7:4)\n"
        "  } loc(\"k.py\":4:0)\n"
        "}\n";
    tdx_ir_kernel k;
    tdx_ir_kernel_init(&k);
    assert_int_equal(tdx_ir_kernel_add(&k, TDX_IR_TTIR, ttir, sizeof ttir - 1, NULL), TDX_OK);
    assert_int_equal(tdx_ir_kernel_join(&k, NULL), TDX_OK);
    assert_string_equal(k.name, "kern");
    assert_string_equal(k.file, "k.py");
    assert_int_equal(k.ttir->funcs.len, 2);
    assert_int_equal(k.nmems, 1);
    assert_int_equal(k.mems[0].loc.site.line, 5);
    assert_int_equal(k.mems[0].elem_bits, 32);
    assert_int_equal(k.mems[0].masked, 0);
    const tdx_ir_op *call = find_op(k.ttir, "tt.call", 0);
    assert_int_equal(call->loc.site.line, 6);
    tdx_ir_kernel_free(&k);

    /* SASS without line information (cuobjdump) is kept but says so. */
    tdx_ir_kernel_init(&k);
    tdx_diags d;
    tdx_diags_init(&d);
    assert_int_equal(tdx_ir_kernel_add(&k, TDX_IR_TTIR, ttir, sizeof ttir - 1, NULL), TDX_OK);
    assert_int_equal(tdx_ir_kernel_add(&k, TDX_IR_SASS, SASS_CUOBJDUMP, sizeof SASS_CUOBJDUMP - 1,
                                       NULL), TDX_OK);
    assert_int_equal(tdx_ir_kernel_join(&k, &d), TDX_OK);
    assert_int_equal(d.len, 1);
    assert_int_equal(d.items[0].sev, TDX_SEV_WARNING);
    assert_non_null(strstr(d.items[0].msg, "sass"));
    tdx_diags_free(&d);
    tdx_ir_kernel_free(&k);
}

// Regions of real TTGIR: tt.reduce's combiner, scf.if's two branches,
// scf.while's before/after regions, scf.for's body.
static void regions_on_fixtures(void **state)
{
    (void)state;
    tdx_ir_kernel k;
    tdx_ir_kernel_init(&k);
    assert_int_equal(tdx_ir_kernel_load_dir(&k, TDX_TEST_DATA "/ir/colsum", NULL), TDX_OK);
    const tdx_ir_op *red = find_op(k.ttgir, "tt.reduce", 0);
    assert_non_null(red);
    assert_int_equal(red->nregions, 1);
    assert_int_equal(red->regions[0].nops, 2);
    assert_string_equal(red->regions[0].ops[0]->name, "arith.addf");
    assert_string_equal(red->regions[0].ops[1]->name, "tt.reduce.return");
    assert_int_equal(tdx_ir_op_attr_int(red, "axis", -1), 0);
    assert_int_equal(red->loc.site.line, 42);      /* the tl.sum call */
    assert_string_equal(red->loc.frames[0].file, "triton/language/standard.py");
    tdx_ir_kernel_free(&k);

    tdx_ir_kernel_init(&k);
    assert_int_equal(tdx_ir_kernel_load_dir(&k, TDX_TEST_DATA "/ir/branch_while", NULL), TDX_OK);
    const tdx_ir_op *ifop = find_op(k.ttgir, "scf.if", 0);
    assert_int_equal(ifop->nregions, 2);
    assert_string_equal(ifop->regions[0].ops[0]->name, "arith.mulf");
    assert_string_equal(ifop->regions[1].ops[0]->name, "arith.subf");
    const tdx_ir_op *wh = find_op(k.ttgir, "scf.while", 0);
    assert_int_equal(wh->nregions, 2);
    assert_string_equal(wh->regions[0].ops[wh->regions[0].nops - 1]->name, "scf.condition");
    assert_string_equal(wh->regions[1].ops[wh->regions[1].nops - 1]->name, "scf.yield");
    assert_int_equal(wh->nout, 2);
    tdx_ir_kernel_free(&k);

    tdx_ir_kernel_init(&k);
    assert_int_equal(tdx_ir_kernel_load_dir(&k, TDX_TEST_DATA "/ir/dot_fp16_wgmma_s3", NULL), TDX_OK);
    const tdx_ir_op *loop = find_op(k.ttgir, "scf.for", 0);
    assert_int_equal(loop->nregions, 1);
    assert_int_equal(loop->nout, 9); /* %acc_50:9 */
    assert_int_equal(loop->nresults, 1);
    assert_string_equal(loop->results[0], "%acc_50");
    const tdx_ir_op *wgd = find_op(k.ttgir, "ttng.warp_group_dot", 0);
    assert_ptr_equal(wgd->parent, loop);
    assert_int_equal(wgd->nin, 2); /* A * B */
    assert_int_equal(wgd->in_types[0].kind, TDX_IR_TYPE_MEMDESC);
    assert_int_equal(wgd->out_types[0].layout->kind, TDX_IR_LAYOUT_NVIDIA_MMA);
    assert_int_equal(wgd->out_types[0].layout->instr_shape[1], 128);
    const tdx_ir_func *f = k.ttgir->funcs.items[0];
    assert_int_equal(f->nargs, 9);
    assert_int_equal(f->args[0].divisibility, 16);
    tdx_ir_kernel_free(&k);
}

// Text with CRLF line ends (a file that went through Windows) parses to the
// same records.
static void crlf_same_records(void **state)
{
    (void)state;
    static const char *const files[TDX_IR_NSTAGES] = {"k.ttir", "k.ttgir", "k.ptx", "k.sass",
                                                      "k.ptxas.txt"};
    tdx_ir_kernel a, b;
    tdx_ir_kernel_init(&a);
    tdx_ir_kernel_init(&b);
    for (int st = 0; st < TDX_IR_NSTAGES; st++) {
        char path[512];
        snprintf(path, sizeof path, "%s/ir/colsum/%s", TDX_TEST_DATA, files[st]);
        char *text = NULL;
        size_t len = 0;
        assert_int_equal(tdx_file_read(path, TDX_IR_MAX_INPUT, &text, &len), TDX_OK);
        char *crlf = malloc(2 * len + 1);
        size_t n = 0;
        for (size_t i = 0; i < len; i++) {
            if (text[i] == '\n')
                crlf[n++] = '\r';
            crlf[n++] = text[i];
        }
        assert_int_equal(tdx_ir_kernel_add(&a, (tdx_ir_stage)st, text, len, NULL), TDX_OK);
        assert_int_equal(tdx_ir_kernel_add(&b, (tdx_ir_stage)st, crlf, n, NULL), TDX_OK);
        free(text);
        free(crlf);
    }
    assert_int_equal(tdx_ir_kernel_join(&a, NULL), TDX_OK);
    assert_int_equal(tdx_ir_kernel_join(&b, NULL), TDX_OK);
    tdx_buf da, db;
    tdx_buf_init(&da, 0);
    tdx_buf_init(&db, 0);
    assert_int_equal(tdx_ir_kernel_dump(&a, &da), TDX_OK);
    assert_int_equal(tdx_ir_kernel_dump(&b, &db), TDX_OK);
    assert_true(da.len > 100);
    assert_string_equal(tdx_buf_str(&da), tdx_buf_str(&db));
    tdx_buf_free(&da);
    tdx_buf_free(&db);
    tdx_ir_kernel_free(&a);
    tdx_ir_kernel_free(&b);
}

// Counterfactual compiles as diffs: divisibility makes loads v4, num_stages
// 3 pipelines the loop; a kernel against itself has no differences.
static void diff_counterfactuals(void **state)
{
    (void)state;
    tdx_ir_kernel a, b;
    tdx_buf out;
    size_t n = 0;
    tdx_ir_kernel_init(&a);
    tdx_ir_kernel_init(&b);
    tdx_buf_init(&out, 0);
    assert_int_equal(tdx_ir_kernel_load_dir(&a, TDX_TEST_DATA "/ir/add_nodiv", NULL), TDX_OK);
    assert_int_equal(tdx_ir_kernel_load_dir(&b, TDX_TEST_DATA "/ir/add_v4", NULL), TDX_OK);
    assert_int_equal(tdx_ir_kernel_diff(&a, &a, &out, &n), TDX_OK);
    assert_int_equal(n, 0);
    assert_int_equal(out.len, 0);
    assert_int_equal(tdx_ir_kernel_diff(&a, &b, &out, &n), TDX_OK);
    const char *d = tdx_buf_str(&out);
    assert_non_null(strstr(d, "load line=18 col=16 name=x: contig 1 -> 4, n 8 -> 2, vec 1 -> 4, "
                              "pbits 32 -> 128"));
    assert_non_null(strstr(d, "res: regs 30 -> 26\n"));
    assert_true(n >= 4);
    tdx_ir_kernel_free(&a);
    tdx_ir_kernel_free(&b);

    tdx_buf_reset(&out);
    tdx_ir_kernel_init(&a);
    tdx_ir_kernel_init(&b);
    assert_int_equal(tdx_ir_kernel_load_dir(&a, TDX_TEST_DATA "/ir/dot_fp16_wgmma_s1", NULL), TDX_OK);
    assert_int_equal(tdx_ir_kernel_load_dir(&b, TDX_TEST_DATA "/ir/dot_fp16_wgmma_s3", NULL), TDX_OK);
    assert_int_equal(tdx_ir_kernel_diff(&a, &b, &out, &n), TDX_OK);
    d = tdx_buf_str(&out);
    assert_non_null(strstr(d, "loop line=19 col=25: pipelined 0 -> 1, bufs 1 -> 3, loads 2 -> 0, "
                              "copies 0 -> 2, waits 0 -> 1\n"));
    assert_non_null(strstr(d, "- load line=20 col=20 name=a\n"));
    assert_non_null(strstr(d, "+ copy line=20 col=20 name=a\n"));
    tdx_buf_free(&out);
    tdx_ir_kernel_free(&a);
    tdx_ir_kernel_free(&b);
}

static void queries_on_fixture(void **state)
{
    (void)state;
    tdx_ir_kernel k;
    tdx_ir_kernel_init(&k);
    assert_int_equal(tdx_ir_kernel_load_dir(&k, TDX_TEST_DATA "/ir/add_v4", NULL), TDX_OK);
    const tdx_ir_mem *m[4];
    assert_int_equal(tdx_ir_kernel_loads_at(&k, 18, m, 4), 1);
    assert_int_equal(m[0]->ptx_vec, 4);
    assert_int_equal(tdx_ir_kernel_stores_at(&k, 20, NULL, 0), 1);
    assert_int_equal(tdx_ir_kernel_loads_at(&k, 20, NULL, 0), 0);
    assert_int_equal(tdx_ir_kernel_sass_count(&k, 18, "LDG"), 2);
    assert_null(tdx_ir_kernel_dot_at(&k, 18));
    assert_int_equal(tdx_ir_guess_stage(MLIR_ODD, sizeof MLIR_ODD - 1), TDX_IR_TTGIR);
    assert_int_equal(tdx_ir_guess_stage(PTX, sizeof PTX - 1), TDX_IR_PTX);
    assert_int_equal(tdx_ir_guess_stage(SASS_NVDISASM, sizeof SASS_NVDISASM - 1), TDX_IR_SASS);
    assert_int_equal(tdx_ir_guess_stage(SASS_CUOBJDUMP, sizeof SASS_CUOBJDUMP - 1), TDX_IR_SASS);
    assert_int_equal(tdx_ir_guess_stage(PTXAS, sizeof PTXAS - 1), TDX_IR_PTXAS);
    static const char ttir[] = "module {\n  tt.func public @f() {\n    tt.return\n  }\n}\n";
    assert_int_equal(tdx_ir_guess_stage(ttir, sizeof ttir - 1), TDX_IR_TTIR);
    assert_int_equal(tdx_ir_guess_stage("hello", 5), TDX_IR_NSTAGES);
    assert_int_equal(tdx_ir_guess_stage("ptx", 2), TDX_IR_NSTAGES);
    json_t *j = tdx_ir_kernel_to_json(&k);
    assert_non_null(j);
    assert_string_equal(json_string_value(json_object_get(j, "name")), "add_kernel");
    assert_int_equal(json_integer_value(json_object_get(json_object_get(j, "resources"), "registers")), 26);
    json_t *recs = json_object_get(j, "records");
    assert_int_equal(json_array_size(recs), 3);
    json_t *r0 = json_array_get(recs, 0);
    assert_string_equal(json_string_value(json_object_get(r0, "kind")), "load");
    assert_int_equal(json_integer_value(json_object_get(json_object_get(r0, "loc"), "line")), 18);
    assert_string_equal(json_string_value(json_object_get(json_object_get(r0, "loc"), "name")), "x");
    assert_int_equal(json_integer_value(json_object_get(r0, "ptx_vec")), 4);
    assert_non_null(strstr(json_string_value(json_object_get(r0, "ir")), "tt.load"));
    char *dumped = json_dumps(j, JSON_COMPACT);
    assert_non_null(dumped);
    free(dumped);
    json_decref(j);
    tdx_ir_kernel_free(&k);

    tdx_ir_kernel_init(&k);
    assert_int_equal(tdx_ir_kernel_load_dir(&k, TDX_TEST_DATA "/ir/dot_fp16_wgmma_s3", NULL), TDX_OK);
    const tdx_ir_dot *dot = tdx_ir_kernel_dot_at(&k, 22);
    assert_non_null(dot);
    assert_int_equal(dot->path, TDX_IR_DOT_WGMMA);
    assert_int_equal(dot->ptx_path, TDX_IR_DOT_WGMMA);
    const tdx_ir_loop *loop = tdx_ir_kernel_loop_at(&k, 19);
    assert_non_null(loop);
    assert_true(loop->pipelined);
    assert_int_equal(loop->bufs, 3);
    assert_true(tdx_ir_kernel_sass_count(&k, 0, "HGMMA") >= 1);
    tdx_ir_opcount h[8];
    size_t nh = tdx_ir_kernel_sass_hist(&k, 20, h, 8);
    assert_true(nh >= 1);
    assert_string_equal(h[0].base, "LDGSTS"); /* the a tile's async copies dominate line 20 */
    assert_int_equal(h[0].count, (int)tdx_ir_kernel_sass_count(&k, 20, "LDGSTS"));
    for (size_t i = 1; i < (nh < 8 ? nh : 8); i++)
        assert_true(h[i - 1].count >= h[i].count);
    tdx_ir_kernel_free(&k);

    tdx_ir_kernel_init(&k);
    tdx_diags d;
    tdx_diags_init(&d);
    assert_int_equal(tdx_ir_kernel_load_dir(&k, TDX_TEST_DATA "/ir/no-such-case", &d), TDX_ERR_NOTFOUND);
    assert_true(d.nerrors > 0);
    tdx_diags_free(&d);
    tdx_ir_kernel_free(&k);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(mlir_odd_syntax),  cmocka_unit_test(mlir_malformed),
        cmocka_unit_test(ptx_parse),        cmocka_unit_test(sass_parse),
        cmocka_unit_test(ptxas_parse),      cmocka_unit_test(join_without_ptx),
        cmocka_unit_test(public_function_is_the_kernel), cmocka_unit_test(regions_on_fixtures),
        cmocka_unit_test(crlf_same_records),     cmocka_unit_test(diff_counterfactuals),
        cmocka_unit_test(queries_on_fixture),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
