/* test_sim_ptx.c — hand-written PTX for integer, float and conversion edge cases, each result
 * stored to out[k] and compared bit for bit with the value the PTX ISA defines. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "tests/sim/harness.h"

/* One case: the PTX lines computing %r9 (b32) from nothing but immediates, and the expected
 * 32-bit result. */
typedef struct ptx_case {
    const char *code;
    uint32_t want;
} ptx_case;

static const ptx_case cases[] = {
    {"mov.u32 %r1, -7; mul.hi.s32 %r9, %r1, 3;", 0xffffffffu},
    {"mov.u32 %r1, -1; mul.hi.u32 %r9, %r1, -1;", 0xfffffffeu},
    {"mov.u32 %r1, -2; mul.wide.s32 %rd9, %r1, 3; cvt.u32.u64 %r9, %rd9;", (uint32_t)-6},
    {"mov.u32 %r1, -2; mul.wide.s32 %rd9, %r1, 3; shr.u64 %rd9, %rd9, 32; cvt.u32.u64 %r9, %rd9;", 0xffffffffu},
    {"mov.u32 %r1, 0; div.u32 %r9, 77, %r1;", 0xffffffffu},
    {"mov.u32 %r1, 0; rem.u32 %r9, 77, %r1;", 77},
    {"mov.u32 %r1, -2147483648; div.s32 %r9, %r1, -1;", 0x80000000u},
    {"mov.u32 %r1, 1; shl.b32 %r9, %r1, 40;", 0},
    {"mov.u32 %r1, -8; shr.s32 %r9, %r1, 40;", 0xffffffffu},
    {"mov.u32 %r1, -8; shr.u32 %r9, %r1, 40;", 0},
    {"mov.u32 %r1, -252645136; bfe.u32 %r9, %r1, 4, 8;", 0x0f},
    {"mov.u32 %r1, 3840; bfe.s32 %r9, %r1, 8, 4;", 0xffffffffu},
    {"mov.u32 %r1, 0; bfi.b32 %r9, 255, %r1, 8, 4;", 0xf00},
    {"mov.u32 %r1, 857870592; prmt.b32 %r9, %r1, 2003195204, 30001;", 0x77553311u},
    {"mov.u32 %r1, 857870720; prmt.b32 %r9, %r1, 2003195204, 8;", 0x808080ffu},
    {"mov.u32 %r1, 12345; lop3.b32 %r9, %r1, 999, 424242, 150;", 12345u ^ 999u ^ 424242u},
    {"mov.u32 %r1, 0; clz.b32 %r9, %r1;", 32},
    {"mov.u32 %r1, 0; bfind.u32 %r9, %r1;", 0xffffffffu},
    {"mov.u32 %r1, 16; bfind.shiftamt.u32 %r9, %r1;", 27},
    {"mov.u32 %r1, -1; bfind.s32 %r9, %r1;", 0xffffffffu},
    {"mov.u32 %r1, -2147483648; neg.s32 %r9, %r1;", 0x80000000u},
    {"mov.u32 %r1, -2147483648; abs.s32 %r9, %r1;", 0x80000000u},
    {"mov.u32 %r1, 2147483647; add.sat.s32 %r9, %r1, 1;", 0x7fffffffu},
    {"mov.u32 %r1, -2147483647; sub.sat.s32 %r9, %r1, 5;", 0x80000000u},
    {"mov.u32 %r1, 300; cvt.sat.u8.s32 %rs1, %r1; cvt.u32.u16 %r9, %rs1;", 255},
    {"mov.u32 %r1, -5; cvt.sat.u8.s32 %rs1, %r1; cvt.u32.u16 %r9, %rs1;", 0},
    {"mov.u32 %r1, 70000; cvt.u16.u32 %rs1, %r1; cvt.s32.s16 %r9, %rs1;", 4464},
    {"mov.u32 %r1, 40000; cvt.u16.u32 %rs1, %r1; cvt.s32.s16 %r9, %rs1;", (uint32_t)(40000 - 65536)},
    {"mov.f32 %f1, 0f40200000; cvt.rni.s32.f32 %r9, %f1;", 2},
    {"mov.f32 %f1, 0fC0200000; cvt.rni.s32.f32 %r9, %f1;", (uint32_t)-2},
    {"mov.f32 %f1, 0f40600000; cvt.rni.s32.f32 %r9, %f1;", 4},
    {"mov.f32 %f1, 0f7FC00000; cvt.rzi.s32.f32 %r9, %f1;", 0},
    {"mov.f32 %f1, 0f501502F9; cvt.rzi.s32.f32 %r9, %f1;", 0x7fffffffu},
    {"mov.f32 %f1, 0fD01502F9; cvt.rzi.s32.f32 %r9, %f1;", 0x80000000u},
    {"mov.f32 %f1, 0fC0000000; cvt.rzi.u32.f32 %r9, %f1;", 0},
    {"mov.f32 %f1, 0f3FC00000; cvt.rmi.f32.f32 %f9, %f1; mov.b32 %r9, %f9;", 0x3f800000u},
    {"mov.f32 %f1, 0f3FC00000; cvt.rpi.f32.f32 %f9, %f1; mov.b32 %r9, %f9;", 0x40000000u},
    {"mov.f32 %f1, 0f40200000; cvt.rni.f32.f32 %f9, %f1; mov.b32 %r9, %f9;", 0x40000000u},
    {"mov.f32 %f1, 0f40000000; cvt.sat.f32.f32 %f9, %f1; mov.b32 %r9, %f9;", 0x3f800000u},
    {"mov.f32 %f1, 0f478CA000; cvt.rn.f16.f32 %rs1, %f1; cvt.u32.u16 %r9, %rs1;", 0x7c00},
    {"mov.f32 %f1, 0f478CA000; cvt.rz.f16.f32 %rs1, %f1; cvt.u32.u16 %r9, %rs1;", 0x7bff},
    {"mov.f32 %f1, 0f3DCCCCCD; cvt.rn.f16.f32 %rs1, %f1; cvt.u32.u16 %r9, %rs1;", 0x2e66},
    {"mov.f32 %f1, 0f33800000; cvt.rn.f16.f32 %rs1, %f1; cvt.u32.u16 %r9, %rs1;", 0x0001},
    {"mov.f32 %f1, 0f3DCCCCCD; cvt.rn.bf16.f32 %rs1, %f1; cvt.u32.u16 %r9, %rs1;", 0x3dcd},
    {"mov.b16 %rs1, 15360; cvt.f32.f16 %f9, %rs1; mov.b32 %r9, %f9;", 0x3f800000u},
    {"mov.b16 %rs1, 1; cvt.f32.f16 %f9, %rs1; mov.b32 %r9, %f9;", 0x33800000u},
    {"mov.u32 %r1, 16777217; cvt.rn.f32.s32 %f9, %r1; mov.b32 %r9, %f9;", 0x4b800000u},
    {"mov.u32 %r1, 16777217; cvt.rp.f32.s32 %f9, %r1; mov.b32 %r9, %f9;", 0x4b800001u},
    {"mov.u32 %r1, -1; cvt.rz.f32.u32 %f9, %r1; mov.b32 %r9, %f9;", 0x4f7fffffu},
    {"mov.f32 %f1, 0f7FC00000; min.f32 %f9, %f1, 0f3F800000; mov.b32 %r9, %f9;", 0x3f800000u},
    {"mov.f32 %f1, 0f80000000; max.f32 %f9, %f1, 0f00000000; mov.b32 %r9, %f9;", 0x00000000u},
    {"mov.f32 %f1, 0f80000000; min.f32 %f9, %f1, 0f00000000; mov.b32 %r9, %f9;", 0x80000000u},
    {"mov.f32 %f1, 0f7FC00000; setp.lt.f32 %p1, %f1, 0f3F800000; selp.u32 %r9, 1, 0, %p1;", 0},
    {"mov.f32 %f1, 0f7FC00000; setp.ltu.f32 %p1, %f1, 0f3F800000; selp.u32 %r9, 1, 0, %p1;", 1},
    {"mov.f32 %f1, 0f000116C2; add.ftz.f32 %f9, %f1, 0f00000000; mov.b32 %r9, %f9;", 0},
    {"mov.f32 %f1, 0f000116C2; add.f32 %f9, %f1, 0f00000000; mov.b32 %r9, %f9;", 0x000116c2u},
    {"mov.f32 %f1, 0f40000000; mul.sat.f32 %f9, %f1, 0f40400000; mov.b32 %r9, %f9;", 0x3f800000u},
    {"mov.f32 %f1, 0f3F800000; div.rn.f32 %f9, %f1, 0f40400000; mov.b32 %r9, %f9;", 0x3eaaaaabu},
    {"mov.f32 %f1, 0f3F800000; div.rz.f32 %f9, %f1, 0f40400000; mov.b32 %r9, %f9;", 0x3eaaaaaau},
    {"mov.f32 %f1, 0f3F800000; add.rp.f32 %f9, %f1, 0f33800000; mov.b32 %r9, %f9;", 0x3f800001u},
    {"mov.f32 %f1, 0f3F800000; add.rm.f32 %f9, %f1, 0fB3800000; mov.b32 %r9, %f9;", 0x3f7fffffu},
    {"mov.f32 %f1, 0fBF800000; copysign.f32 %f9, %f1, 0f40000000; mov.b32 %r9, %f9;", 0xc0000000u},
    {"mov.u32 %r1, -1; mad.lo.cc.u32 %r2, %r1, 2, 5; madc.hi.u32 %r9, %r1, 2, 0;", 2},
    {"mov.u32 %r1, 0; sub.cc.u32 %r2, %r1, 1; subc.u32 %r9, 10, 0;", 9},
    {"mov.u32 %r1, -1; add.cc.u32 %r2, %r1, 1; addc.cc.u32 %r3, 0, 0; addc.u32 %r9, %r3, 7;", 8},
    {"mov.b64 %rd1, -1; popc.b64 %r9, %rd1;", 64},
    {"mov.b64 %rd1, 1; clz.b64 %r9, %rd1;", 63},
    {"mov.u32 %r1, 5; mov.u32 %r2, 9; mov.b64 %rd1, {%r1, %r2}; shr.u64 %rd1, %rd1, 32; cvt.u32.u64 %r9, %rd1;", 9},
    {"mov.b64 %rd1, 77309411333; mov.b64 {%r1, %r2}, %rd1; add.u32 %r9, %r1, %r2;", 23},
    {"mov.u32 %r1, 7; mul24.lo.u32 %r9, %r1, 16777217;", 7},
    {"mov.f64 %fd1, 0d3FF0000000000000; rcp.rn.f64 %fd2, %fd1; cvt.rn.f32.f64 %f9, %fd2; mov.b32 %r9, %f9;", 0x3f800000u},
    {"mov.f64 %fd1, 0d4000000000000000; sqrt.rn.f64 %fd2, %fd1; mov.b64 %rd1, %fd2; shr.u64 %rd1, %rd1, 32; cvt.u32.u64 %r9, %rd1;", 0x3ff6a09eu},
    {"mov.f32 %f1, 0f3F800000; ex2.approx.ftz.f32 %f9, %f1; mov.b32 %r9, %f9;", 0x40000000u},
    {"mov.f32 %f1, 0f41000000; lg2.approx.f32 %f9, %f1; mov.b32 %r9, %f9;", 0x40400000u},
    {"mov.u32 %r1, 6; isspacep.global %p1, %rd0; selp.u32 %r9, 1, 0, %p1;", 1},
    /* memory forms of the floor: const (initialized), shared, local, global, param vectors */
    {"ld.const.f32 %f1, [cdata+8]; mov.b32 %r9, %f1;", 0x3f800000u},
    {"ld.const.u64 %rd2, [cdata+24]; cvt.u32.u64 %r9, %rd2;", 5},
    {"ld.const.f64 %fd1, [cdata+16]; cvt.rzi.s32.f64 %r9, %fd1;", 1},
    {"ld.const.v2.u32 {%r1, %r2}, [cdata]; add.s32 %r9, %r1, %r2;", 3},
    {"mov.f64 %fd1, 0d4004000000000000; st.shared.f64 [sdata+8], %fd1; ld.shared.f64 %fd2, [sdata+8]; cvt.rni.s32.f64 %r9, %fd2;", 2},
    {"st.shared.v2.f32 [sdata+16], {%f1, %f1}; ld.shared.v2.f32 {%f2, %f3}, [sdata+16]; add.f32 %f4, %f2, %f3; mov.b32 %r9, %f4;", 0x40000000u},
    {"mov.u32 %r1, 0x1234; st.shared.u32 [sdata+24], %r1; ld.shared.u8 %rs1, [sdata+25]; cvt.u32.u16 %r9, %rs1;", 0x12},
    {"mov.u32 %r1, sdata; atom.shared.or.b32 %r2, [%r1+24], 0x10000; ld.shared.u32 %r9, [sdata+24];", 0x11234},
    /* a negative 32-bit offset, zero-extended, plus a positive one: shared addresses wrap at 32 bits */
    {"mov.u32 %r1, sdata; st.shared.u32 [%r1+12], 4321; mov.u32 %r2, -4; cvt.u64.u32 %rd2, %r2; mov.u64 %rd3, sdata; add.s64 %rd3, %rd3, 16; add.s64 %rd3, %rd3, %rd2; ld.shared.u32 %r9, [%rd3];", 4321},
    {"mov.u64 %rd2, ldata; mov.u32 %r1, 7; mov.u32 %r2, 9; st.local.v2.u32 [%rd2], {%r1, %r2}; ld.local.v2.u32 {%r3, %r4}, [%rd2]; mul.lo.s32 %r9, %r3, %r4;", 63},
    {"mov.u64 %rd2, ldata; mov.b64 %rd3, -3; st.local.u64 [%rd2+8], %rd3; ld.local.u64 %rd4, [%rd2+8]; cvt.u32.u64 %r9, %rd4;", (uint32_t)-3},
    {"mov.u64 %rd2, ldata; cvta.local.u64 %rd3, %rd2; st.u32 [%rd3+16], 77; ld.local.u32 %r9, [%rd2+16];", 77},
    {"ld.param.u64 %rd2, [buf]; ld.global.s32 %r9, [%rd2];", (uint32_t)-5},
    {"ld.param.u64 %rd2, [buf]; ld.global.nc.f32 %f1, [%rd2+4]; mov.b32 %r9, %f1;", 0x40400000u},
    {"ld.param.u64 %rd2, [buf]; ld.global.nc.v2.f64 {%fd1, %fd2}, [%rd2+16]; add.rn.f64 %fd3, %fd1, %fd2; cvt.rzi.s32.f64 %r9, %fd3;", 7},
    {"ld.param.u64 %rd2, [buf]; ld.global.nc.v2.f32 {%f1, %f2}, [%rd2+8]; mul.rn.f32 %f3, %f1, %f2; mov.b32 %r9, %f3;", 0x41400000u},
    {"ld.param.u64 %rd2, [buf]; ld.global.v2.f32 {%f1, %f2}, [%rd2+8]; st.global.v2.f32 [%rd2+40], {%f2, %f1}; ld.global.u32 %r9, [%rd2+40];", 0x40c00000u},
    {"ld.param.u64 %rd2, [buf]; ld.global.nc.u64 %rd3, [%rd2+32]; shr.u64 %rd3, %rd3, 32; cvt.u32.u64 %r9, %rd3;", 0xabcdu},
    {"ld.param.u64 %rd2, [buf]; ld.global.nc.f64 %fd1, [%rd2+16]; mul.rn.f64 %fd2, %fd1, %fd1; cvt.rzi.s32.f64 %r9, %fd2;", 6},
    {"ld.param.u64 %rd2, [buf]; mov.u16 %rs1, 200; st.global.u8 [%rd2+48], %rs1; st.u8 [%rd2+49], %rs1; ld.global.u16 %rs2, [%rd2+48]; cvt.u32.u16 %r9, %rs2;", 0xc8c8},
    {"ld.param.v2.u32 {%r1, %r2}, [pairp]; sub.s32 %r9, %r1, %r2;", 30},
    {"mov.u32 %r1, -7; setp.ge.u32 %p1, %r1, 5; selp.u32 %r9, 1, 0, %p1;", 1},
    {"mov.u32 %r1, 5; setp.ne.u32 %p1, %r1, 5; selp.u32 %r9, 1, 0, %p1;", 0},
    {"mov.b64 %rd2, -1; setp.lt.s64 %p1, %rd2, 0; setp.lt.u64 %p2, %rd2, 0; and.pred %p3, %p1, %p2; xor.pred %p3, %p3, %p1; selp.u32 %r9, 1, 0, %p3;", 1},
    {"mov.b64 %rd2, 5; setp.ge.s64 %p1, %rd2, 5; setp.gt.s64 %p2, %rd2, 5; setp.le.s64 %p3, %rd2, 4; selp.u32 %r1, 4, 0, %p1; selp.u32 %r2, 2, 0, %p2; selp.u32 %r3, 1, 0, %p3; or.b32 %r9, %r1, %r2; or.b32 %r9, %r9, %r3;", 4},
    {"mov.u16 %rs1, -3; setp.ne.s16 %p1, %rs1, -3; setp.eq.s16 %p2, %rs1, -3; selp.u32 %r1, 2, 0, %p1; selp.u32 %r2, 1, 0, %p2; or.b32 %r9, %r1, %r2;", 1},
    {"mov.f32 %f1, 0f7FC00000; setp.geu.f32 %p1, %f1, 0f3F800000; setp.leu.f32 %p2, %f1, 0f3F800000; setp.gtu.f32 %p3, %f1, 0f3F800000; and.pred %p1, %p1, %p2; and.pred %p1, %p1, %p3; selp.u32 %r9, 1, 0, %p1;", 1},
    {"mov.f32 %f1, 0f3F800000; setp.eq.f32 %p1, %f1, 0f3F800000; setp.neu.f32 %p2, %f1, 0f3F800000; selp.u32 %r1, 2, 0, %p1; selp.u32 %r2, 1, 0, %p2; or.b32 %r9, %r1, %r2;", 2},
    {"mov.f64 %fd1, 0d3FF0000000000000; setp.lt.f64 %p1, %fd1, 0d4000000000000000; setp.ge.f64 %p2, %fd1, 0d4000000000000000; setp.le.f64 %p3, %fd1, 0d3FF0000000000000; selp.u32 %r1, 4, 0, %p1; selp.u32 %r2, 2, 0, %p2; selp.u32 %r3, 1, 0, %p3; or.b32 %r9, %r1, %r2; or.b32 %r9, %r9, %r3;", 5},
    {"mov.f64 %fd1, 0d7FF8000000000000; setp.eq.f64 %p1, %fd1, %fd1; setp.gtu.f64 %p2, %fd1, 0d0000000000000000; setp.neu.f64 %p3, %fd1, %fd1; setp.ltu.f64 %p4, %fd1, 0d0000000000000000; and.pred %p2, %p2, %p3; and.pred %p2, %p2, %p4; selp.u32 %r1, 2, 0, %p1; selp.u32 %r2, 1, 0, %p2; or.b32 %r9, %r1, %r2;", 1},
    {"mov.f64 %fd1, 0d4000000000000000; setp.gt.f64 %p1, %fd1, 0d3FF0000000000000; selp.f64 %fd2, 0d4008000000000000, 0d0000000000000000, %p1; cvt.rzi.s32.f64 %r9, %fd2;", 3},
    {"mov.f32 %f1, 0f40000000; setp.lt.f32 %p1, %f1, 0f3F800000; selp.f32 %f2, 0f3F800000, 0f40400000, %p1; mov.b32 %r9, %f2;", 0x40400000u},
    {"mov.b64 %rd2, 0x100000002; setp.eq.b32 %p1, %r9, %r9; selp.b64 %rd3, %rd2, 0, %p1; selp.u64 %rd3, %rd3, 1, %p1; shr.u64 %rd3, %rd3, 32; cvt.u32.u64 %r9, %rd3;", 1},
    {"mov.u32 %r1, -4; min.s32 %r2, %r1, 3; min.u32 %r3, %r1, 3; max.u32 %r4, %r1, 3; add.s32 %r9, %r2, %r3; xor.b32 %r9, %r9, %r4;", (uint32_t)((-4 + 3) ^ -4)},
    {"mov.f64 %fd1, 0d4000000000000000; neg.f64 %fd2, %fd1; sub.f64 %fd3, %fd2, %fd1; cvt.rzi.s32.f64 %r9, %fd3;", (uint32_t)-4},
    {"mov.b64 %rd2, 5; neg.s64 %rd3, %rd2; cvt.u32.u64 %r9, %rd3;", (uint32_t)-5},
    {"mov.f32 %f1, 0f40400000; rcp.rn.f32 %f2, %f1; mov.b32 %r9, %f2;", 0x3eaaaaabu},
    {"mov.f32 %f1, 0f40000000; rcp.approx.ftz.f32 %f2, %f1; mov.b32 %r9, %f2;", 0x3f000000u},
    {"mov.f64 %fd1, 0d4000000000000000; rcp.approx.ftz.f64 %fd2, %fd1; mov.b64 %rd2, %fd2; shr.u64 %rd2, %rd2, 32; cvt.u32.u64 %r9, %rd2;", 0x3fe00000u},
    {"mov.f32 %f1, 0f40C00000; div.approx.f32 %f2, %f1, 0f40400000; mov.b32 %r9, %f2;", 0x40000000u},
    {"mov.f32 %f1, 0f00000000; cos.approx.f32 %f2, %f1; mov.b32 %r9, %f2;", 0x3f800000u},
    {"mov.f32 %f1, 0f3F800000; fma.rm.f32 %f2, %f1, 0f3F800000, 0fB3800000; mov.b32 %r9, %f2;", 0x3f7fffffu},
    {"mov.f32 %f1, 0f3F800000; fma.rz.f32 %f2, %f1, 0f3F800000, 0f33000000; mov.b32 %r9, %f2;", 0x3f800000u},
    {"mov.u32 %r1, 0x80; cvt.s32.s8 %r9, %r1;", 0xffffff80u},
    {"mov.u16 %rs1, 0xfffe; cvt.u64.u16 %rd2, %rs1; cvt.u32.u64 %r9, %rd2;", 0xfffe},
    {"mov.u32 %r1, -1; cvt.rn.f32.u32 %f1, %r1; mov.b32 %r9, %f1;", 0x4f800000u},
    {"mov.f32 %f1, 0fC0300000; cvt.rzi.f32.f32 %f2, %f1; mov.b32 %r9, %f2;", 0xc0000000u},
    {"mov.u32 %r1, -1; mad.lo.cc.u32 %r2, %r1, %r1, 0; madc.hi.cc.u32 %r3, %r1, %r1, 0; madc.lo.cc.u32 %r4, 0, 0, 0; add.u32 %r9, %r3, %r4;", 0xfffffffeu},
    {"mov.u32 %r1, 0; sub.cc.u32 %r2, %r1, 1; subc.cc.u32 %r3, %r1, 0; subc.u32 %r9, 5, 0;", 4},
    {"mov.u32 %r1, 42; shfl.sync.bfly.b32 %r9|%p1, %r1, 0, 31, 1;", 42},
    /* half precision through f32: 1.0 + 2^-11 ties to even (1.0); 1.5*1.5 = 2.25 */
    {"mov.b16 %rs1, 0x3c00; mov.b16 %rs2, 0x1000; add.f16 %rs3, %rs1, %rs2; cvt.u32.u16 %r9, %rs3;", 0x3c00},
    {"mov.b16 %rs1, 0x3e00; mul.f16 %rs3, %rs1, %rs1; cvt.u32.u16 %r9, %rs3;", 0x4080},
    {"mov.b16 %rs1, 0x3e00; fma.rn.f16 %rs3, %rs1, %rs1, %rs1; cvt.u32.u16 %r9, %rs3;", 0x4380},
    {"mov.b16 %rs1, 0x3e00; neg.f16 %rs3, %rs1; abs.f16 %rs2, %rs3; sub.f16 %rs3, %rs3, %rs2; cvt.u32.u16 %r9, %rs3;", 0xc200},
    {"mov.b16 %rs1, 0x3e00; mov.b16 %rs2, 0xbc00; min.f16 %rs3, %rs1, %rs2; cvt.u32.u16 %r9, %rs3;", 0xbc00},
    {"mov.b16 %rs1, 0x3f80; mov.b16 %rs2, 0x3f80; add.bf16 %rs3, %rs1, %rs2; cvt.u32.u16 %r9, %rs3;", 0x4000},
    {"mov.b16 %rs1, 0x3e00; setp.lt.f16 %p1, %rs1, 0x4000; selp.u32 %r9, 1, 0, %p1;", 1},
    {"ld.param.u64 %rd2, [buf]; mov.b16 %rs1, 0x3c00; st.global.u16 [%rd2+56], %rs1; atom.global.add.noftz.f16 %rs2, [%rd2+56], %rs1; ld.global.u16 %rs3, [%rd2+56]; cvt.u32.u16 %r1, %rs2; cvt.u32.u16 %r2, %rs3; shl.b32 %r2, %r2, 16; or.b32 %r9, %r1, %r2;", 0x40003c00u},
    {"ld.param.u64 %rd2, [buf]; cp.async.ca.shared.global [sdata+32], [%rd2], 4; cp.async.commit_group; cp.async.wait_group 0; ld.shared.u32 %r9, [sdata+32];", (uint32_t)-5},
    {"ld.param.u64 %rd2, [buf]; cp.async.cg.shared.global [sdata+48], [%rd2+16], 16, 8; cp.async.wait_all; ld.shared.v4.u32 {%r1, %r2, %r3, %r4}, [sdata+48]; add.u32 %r9, %r1, %r2; add.u32 %r9, %r9, %r3; add.u32 %r9, %r9, %r4;", 0x40040000u},
    {"membar.gl; fence.acq_rel.gpu; membar.cta; nanosleep.u32 100; activemask.b32 %r9;", 1},
    {"mov.u32 %r1, 1; bar.warp.sync %r1; vote.sync.ballot.b32 %r9, 1, %r1;", 1},
    {"mov.u32 %r1, 77; match.any.sync.b32 %r2, %r1, 1; redux.sync.add.u32 %r3, %r1, 1; add.u32 %r9, %r2, %r3;", 78},
    {"setp.eq.u32 %p1, %r9, %r9; bar.red.popc.u32 %r1, 0, %p1; bar.red.or.pred %p2, 1, %p1; selp.u32 %r2, 10, 0, %p2; barrier.sync 2; add.u32 %r9, %r1, %r2;", 11},
};

static char *build_ptx(void) {
    size_t n = sizeof cases / sizeof cases[0], cap = 65536;
    char *p = malloc(cap);
    cr_assert(p);
    size_t len = (size_t)snprintf(p, cap,
                                  ".version 8.5\n.target sm_90\n.address_size 64\n"
                                  ".const .align 8 .b8 cdata[32] = {1, 0, 0, 0, 2, 0, 0, 0, 0, 0, 128, 63, "
                                  "0, 0, 0, 64, 0, 0, 0, 0, 0, 0, 240, 63, 5, 0, 0, 0, 0, 0, 0, 0};\n"
                                  ".shared .align 8 .b8 sdata[64];\n"
                                  ".visible .entry edge(.param .u64 out, .param .u64 buf, "
                                  ".param .align 8 .b8 pairp[8])\n{\n"
                                  "  .local .align 8 .b8 ldata[32];\n"
                                  "  .reg .pred %%p<6>;\n  .reg .b16 %%rs<4>;\n  .reg .b32 %%r<10>;\n"
                                  "  .reg .b64 %%rd<10>;\n  .reg .f32 %%f<10>;\n  .reg .f64 %%fd<4>;\n"
                                  "  ld.param.u64 %%rd0, [out];\n  cvta.to.global.u64 %%rd0, %%rd0;\n");
    for (size_t i = 0; i < n; i++)
        len += (size_t)snprintf(p + len, cap - len, "  %s\n  st.global.u32 [%%rd0+%zu], %%r9;\n",
                                cases[i].code, i * 4);
    snprintf(p + len, cap - len, "  ret;\n}\n");
    return p;
}

Test(sim_ptx, integer_float_conversion_edge_cases) {
    simt t;
    memset(&t, 0, sizeof t);
    char *ptx = build_ptx();
    gr_error err = GR_ERROR_INIT;
    bool ok = simt_open_ptx(&t, ptx, &err);
    if (!ok) gr_error_print(&err, stderr);
    cr_assert(ok);
    size_t n = sizeof cases / sizeof cases[0];
    uint32_t got[256];
    cr_assert_leq(n, 256);
    uint64_t out = simt_buf(&t, NULL, n * 4);
    /* buf: -5, 3.0f, {2.0f, 6.0f}, {2.5, 4.5}, 0xabcd00000000, then 16 scratch bytes */
    uint8_t buf[64];
    memset(buf, 0, sizeof buf);
    int32_t m5 = -5;
    float f3 = 3.0f, f2[2] = {2.0f, 6.0f};
    double d2[2] = {2.5, 4.5};
    uint64_t big = 0xabcd00000000ull;
    memcpy(buf, &m5, 4);
    memcpy(buf + 4, &f3, 4);
    memcpy(buf + 8, f2, 8);
    memcpy(buf + 16, d2, 16);
    memcpy(buf + 32, &big, 8);
    uint64_t dbuf = simt_buf(&t, buf, sizeof buf);
    uint32_t pair[2] = {40, 10};
    simt_arg_ptr(&t, out);
    simt_arg_ptr(&t, dbuf);
    simt_arg(&t, pair, sizeof pair);
    cr_assert_eq(simt_run(&t, "edge", D3(1, 1, 1), D3(1, 1, 1), 0), GR_EXEC_OK);
    simt_read(&t, out, got, n * 4);
    int bad = 0;
    for (size_t i = 0; i < n; i++)
        if (got[i] != cases[i].want) {
            fprintf(stderr, "case %zu: %s\n  got 0x%08x, want 0x%08x\n", i, cases[i].code, got[i],
                    cases[i].want);
            bad++;
        }
    cr_assert_eq(bad, 0, "%d of %zu edge cases wrong", bad, n);
    simt_close(&t);
    free(ptx);
}

/* The same launch twice under one schedule value gives the same interleaving: same output of
 * a racy kernel and the same statistics. Different seeds may differ; all finish. */
static const char racy_ptx[] =
    ".version 8.5\n.target sm_90\n.address_size 64\n"
    ".visible .entry racy(.param .u64 out)\n{\n"
    "  .reg .b32 %r<6>;\n  .reg .b64 %rd<4>;\n"
    "  ld.param.u64 %rd1, [out];\n"
    "  mov.u32 %r1, %tid.x;\n"
    "  ld.global.u32 %r2, [%rd1];\n"
    "  mul.lo.u32 %r3, %r2, 31;\n"
    "  add.u32 %r4, %r3, %r1;\n"
    "  st.global.u32 [%rd1], %r4;\n"
    "  ret;\n}\n";

Test(sim_ptx, schedules_are_deterministic) {
    static const char *scheds[] = {"rr:1", "random:7", "random:8", "pct:3:4", "serial", "reverse:2"};
    for (int k = 0; k < 6; k++) {
        uint32_t results[2];
        uint64_t insns[2];
        for (int rep = 0; rep < 2; rep++) {
            simt t;
            memset(&t, 0, sizeof t);
            gr_error err = GR_ERROR_INIT;
            cr_assert(simt_open_ptx(&t, racy_ptx, &err));
            cr_assert(gr_schedule_parse(scheds[k], &t.launch.schedule, &err));
            uint64_t out = simt_buf(&t, NULL, 4);
            simt_arg_ptr(&t, out);
            cr_assert_eq(simt_run(&t, "racy", D3(2, 1, 1), D3(96, 1, 1), 0), GR_EXEC_OK);
            simt_read(&t, out, &results[rep], 4);
            insns[rep] = t.res.warp_steps;
            simt_close(&t);
        }
        cr_assert_eq(results[0], results[1], "schedule %s not deterministic", scheds[k]);
        cr_assert_eq(insns[0], insns[1]);
    }
    gr_schedule s;
    gr_error err = GR_ERROR_INIT;
    cr_assert_not(gr_schedule_parse("bogus", &s, &err));
    gr_error_clear(&err);
    cr_assert(gr_schedule_parse("pct:5:2", &s, &err));
    cr_assert(s.kind == GR_SCHED_PCT && s.seed == 5 && s.depth == 2);
}

/* div and rem of 32-bit integers, signed and unsigned, by a divisor the whole warp shares, by
 * one only some lanes use (a guarded rem), and by a per-lane divisor (the simulator divides in
 * doubles unless a lane's divisor is 0 or -1): all against C's / and %, and the GPU's results
 * for a zero divisor and for INT_MIN / -1. */
static const char div_ptx[] =
    ".version 8.5\n.target sm_90\n.address_size 64\n"
    ".visible .entry divs(.param .u64 in, .param .u64 out, .param .u32 d)\n{\n"
    "  .reg .pred %p<2>;\n  .reg .b32 %r<12>;\n  .reg .b64 %rd<8>;\n"
    "  ld.param.u64 %rd1, [in];\n  ld.param.u64 %rd2, [out];\n  ld.param.u32 %r2, [d];\n"
    "  cvta.to.global.u64 %rd1, %rd1;\n  cvta.to.global.u64 %rd2, %rd2;\n"
    "  mov.u32 %r1, %tid.x;\n"
    "  mul.wide.u32 %rd3, %r1, 4;\n  add.s64 %rd4, %rd1, %rd3;\n  ld.global.u32 %r3, [%rd4];\n"
    "  div.s32 %r4, %r3, %r2;\n  rem.s32 %r5, %r3, %r2;\n"
    "  div.u32 %r6, %r3, %r2;\n  rem.u32 %r7, %r3, %r2;\n"
    "  mov.u32 %r8, 0;\n  setp.lt.u32 %p1, %r1, 20;\n  @%p1 rem.s32 %r8, %r3, %r2;\n"
    "  add.u32 %r9, %r2, %r1;\n  div.s32 %r10, %r3, %r9;\n  rem.u32 %r11, %r3, %r9;\n"
    "  mul.wide.u32 %rd5, %r1, 28;\n  add.s64 %rd6, %rd2, %rd5;\n"
    "  st.global.u32 [%rd6], %r4;\n  st.global.u32 [%rd6+4], %r5;\n"
    "  st.global.u32 [%rd6+8], %r6;\n  st.global.u32 [%rd6+12], %r7;\n"
    "  st.global.u32 [%rd6+16], %r8;\n  st.global.u32 [%rd6+20], %r10;\n"
    "  st.global.u32 [%rd6+24], %r11;\n"
    "  ret;\n}\n";

/* What the PTX ISA gives (the GPU's answer for a zero divisor, two's complement wrap). */
static uint32_t div_want(uint32_t a, uint32_t b, bool sig, bool rem) {
    if (!sig) return b == 0 ? (rem ? a : 0xffffffffu) : rem ? a % b : a / b;
    int64_t x = (int32_t)a, y = (int32_t)b;
    if (y == 0) return rem ? a : 0xffffffffu;
    return (uint32_t)(rem ? x % y : x / y);
}

Test(sim_ptx, division_by_a_divisor_the_warp_shares) {
    simt t;
    memset(&t, 0, sizeof t);
    gr_error err = GR_ERROR_INIT;
    bool ok = simt_open_ptx(&t, div_ptx, &err);
    if (!ok) gr_error_print(&err, stderr);
    cr_assert(ok);
    const uint32_t divisors[] = {0, 1, 0xffffffffu, 2, 3, 7, 10, 64, 641, 1000000007u, 0x7fffffffu,
                                 0x80000000u, 0x80000001u, 0xfffffffeu, 0xfffffff9u, 0xc0000000u};
    uint32_t in[32];
    const uint32_t edge[] = {0, 1, 0xffffffffu, 0x80000000u, 0x7fffffffu, 0x80000001u, 0xfffffffeu,
                             6, 7, 8, 1000000006u, 1000000007u, 2000000014u};
    uint64_t s = 0x243f6a8885a308d3ull;
    for (int l = 0; l < 32; l++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        in[l] = l < 13 ? edge[l] : (uint32_t)(s >> 32);
    }
    uint64_t din = simt_buf(&t, in, sizeof in), dout = simt_buf(&t, NULL, 32 * 28);
    int bad = 0;
    for (size_t k = 0; k < sizeof divisors / sizeof divisors[0]; k++) {
        uint32_t d = divisors[k], got[32 * 7];
        simt_arg_ptr(&t, din);
        simt_arg_ptr(&t, dout);
        simt_arg_u32(&t, d);
        cr_assert_eq(simt_run(&t, "divs", D3(1, 1, 1), D3(32, 1, 1), 0), GR_EXEC_OK);
        simt_read(&t, dout, got, sizeof got);
        for (uint32_t l = 0; l < 32; l++) {
            uint32_t a = in[l], want[7] = {div_want(a, d, true, false), div_want(a, d, true, true),
                                           div_want(a, d, false, false), div_want(a, d, false, true),
                                           l < 20 ? div_want(a, d, true, true) : 0,
                                           div_want(a, d + l, true, false), div_want(a, d + l, false, true)};
            for (int j = 0; j < 7; j++)
                if (got[l * 7 + j] != want[j] && bad++ < 10)
                    fprintf(stderr, "divisor 0x%08x, lane %u, dividend 0x%08x, result %d: got 0x%08x, "
                            "want 0x%08x\n", d, l, a, j, got[l * 7 + j], want[j]);
        }
    }
    cr_assert_eq(bad, 0, "%d wrong quotients or remainders", bad);
    simt_close(&t);
}
