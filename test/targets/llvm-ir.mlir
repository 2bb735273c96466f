// RUN: ti-opt %s -t llvm | filecheck %s
// RUN: ti-opt %s -t llvm | %python -c "import sys, llvmlite.binding as b; b.parse_assembly(sys.stdin.read()).verify()"

// CHECK: target triple = "x86_64-unknown-linux-gnu"
builtin.module attributes {llvm.target_triple = "x86_64-unknown-linux-gnu"} {

// A printf format string: a constant global, passed as an opaque `ptr @fmt`.
// CHECK: @"fmt" = internal constant [7 x i8] c"x = %d\00"
llvm.mlir.global internal constant @fmt("x = %d\00") {addr_space = 0 : i32}

// A global without a value: zero-initialised unless external.
// CHECK: @"counter" = internal global i64 0
llvm.mlir.global internal @counter() {addr_space = 0 : i32} : i64

// CHECK: declare i32 @"printf"(ptr {{.*}}, ...)
// CHECK: declare float @"tanf"(float {{.*}})
llvm.func @printf(!llvm.ptr, ...) -> i32
llvm.func @tanf(f32) -> f32

// The llvm_ext conversions and atomics become the LLVM instructions of their name.
// CHECK-LABEL: define i32 @"ext_ops"(ptr %"p", float %"x", i32 %"i")
// CHECK-NEXT:  {
// CHECK-NEXT:  entry:
// CHECK-NEXT:    %"s" = fptosi float %"x" to i32
// CHECK-NEXT:    %"u" = fptoui float %"x" to i64
// CHECK-NEXT:    %"f" = uitofp i32 %"i" to double
// CHECK-NEXT:    %"old" = atomicrmw add ptr %"p", i32 %"i" monotonic
// CHECK-NEXT:    %"oldf" = atomicrmw fadd ptr %"p", float %"x" seq_cst
// CHECK-NEXT:    %"oldmax" = atomicrmw fmax ptr %"p", float %"x" monotonic
// CHECK-NEXT:    %"oldu" = atomicrmw umin ptr %"p", i32 %"i" monotonic
// CHECK-NEXT:    %"pair" = cmpxchg ptr %"p", i32 %"i", i32 %"s" seq_cst monotonic
// CHECK-NEXT:    %"prev" = extractvalue {i32, i1} %"pair", 0
// CHECK-NEXT:    fence seq_cst
// CHECK-NEXT:    fence syncscope("singlethread") acquire
// CHECK-NEXT:    ret i32 %"prev"
llvm.func @ext_ops(%p: !llvm.ptr, %x: f32, %i: i32) -> i32 {
  %s = llvm_ext.fptosi %x : f32 to i32
  %u = llvm_ext.fptoui %x : f32 to i64
  %f = llvm_ext.uitofp %i : i32 to f64
  %old = llvm_ext.atomicrmw add %p, %i monotonic : !llvm.ptr, i32
  %oldf = llvm_ext.atomicrmw fadd %p, %x seq_cst : !llvm.ptr, f32
  %oldmax = llvm_ext.atomicrmw fmax %p, %x monotonic : !llvm.ptr, f32
  %oldu = llvm_ext.atomicrmw umin %p, %i monotonic : !llvm.ptr, i32
  %pair = llvm_ext.cmpxchg %p, %i, %s seq_cst monotonic : !llvm.ptr, i32
  %prev = llvm.extractvalue %pair[0] : !llvm.struct<(i32, i1)>
  llvm_ext.fence seq_cst
  llvm_ext.fence syncscope("singlethread") acquire
  llvm.return %prev : i32
}

// Fast-math flags reach every floating-point instruction and call; intrinsic names carry
// their overload suffix; a variadic call names its function type.
// CHECK-LABEL: define float @"fast_math"(float %"x", float %"y", ptr %"p")
// CHECK-NEXT:  {
// CHECK-NEXT:  entry:
// CHECK-NEXT:    %"a" = fadd fast float %"x", %"y"
// CHECK-NEXT:    %"m" = fmul contract reassoc float %"a", %"y"
// CHECK-NEXT:    %"r" = call fast float @"llvm.sqrt.f32"(float %"m")
// CHECK-NEXT:    %"t" = call fast float @"tanf"(float %"r")
// CHECK-NEXT:    %"fma" = call contract float @"llvm.fma.f32"(float %"t", float %"x", float %"y")
// CHECK-NEXT:    %"mn" = call fast float @"llvm.minimum.f32"(float %"fma", float %"x")
// CHECK-NEXT:    %"c" = fcmp fast olt float %"mn", %"y"
// CHECK-NEXT:    %"fmt" = getelementptr i8, ptr @"fmt", i32 0
// CHECK-NEXT:    %"n" = fptosi float %"mn" to i32
// CHECK-NEXT:    %"w" = call i32 (ptr, ...) @"printf"(ptr %"fmt", i32 %"n")
// CHECK-NEXT:    %"v" = load atomic float, ptr %"p" acquire, align 4
// CHECK-NEXT:    store atomic float %"v", ptr %"p" release, align 4
// CHECK-NEXT:    ret float %"mn"
llvm.func @fast_math(%x: f32, %y: f32, %p: !llvm.ptr) -> f32 {
  %a = llvm.fadd %x, %y {fastmathFlags = #llvm.fastmath<fast>} : f32
  %m = llvm.fmul %a, %y {fastmathFlags = #llvm.fastmath<reassoc,contract>} : f32
  %r = llvm.intr.sqrt(%m) {fastmathFlags = #llvm.fastmath<fast>} : (f32) -> f32
  %t = llvm.call @tanf(%r) {fastmathFlags = #llvm.fastmath<fast>} : (f32) -> f32
  %fma = llvm.intr.fma(%t, %x, %y) {fastmathFlags = #llvm.fastmath<contract>} : (f32, f32, f32) -> f32
  %mn = llvm.call_intrinsic "llvm.minimum.f32"(%fma, %x) {fastmathFlags = #llvm.fastmath<fast>} : (f32, f32) -> f32
  %c = llvm.fcmp "olt" %mn, %y {fastmathFlags = #llvm.fastmath<fast>} : f32
  %g = llvm.mlir.addressof @fmt : !llvm.ptr
  %fmt = llvm.getelementptr %g[0] : (!llvm.ptr) -> !llvm.ptr, i8
  %n = llvm_ext.fptosi %mn : f32 to i32
  %w = llvm.call @printf(%fmt, %n) vararg(!llvm.func<i32 (!llvm.ptr, ...)>) : (!llvm.ptr, i32) -> i32
  %v = llvm.load %p atomic acquire {alignment = 4 : i64} : !llvm.ptr -> f32
  "llvm.store"(%v, %p) <{ordering = 5 : i64, alignment = 4 : i64}> : (f32, !llvm.ptr) -> ()
  llvm.return %mn : f32
}

// Block arguments are phis; blocks are translated in dominance order, so a value
// defined in a block placed after its user's block is ready when the phi needs it.
// CHECK-LABEL: define i32 @"blocks_out_of_order"(i32 %"n")
// CHECK-NEXT:  {
// CHECK-NEXT:  entry:
// CHECK-NEXT:    br label %"bb2"
// CHECK-NEXT:  bb1:
// CHECK-NEXT:    %"r" = phi i32 [%"d", %"bb2"]
// CHECK-NEXT:    ret i32 %"r"
// CHECK-NEXT:  bb2:
// CHECK-NEXT:    %"d" = mul i32 %"n", %"n"
// CHECK-NEXT:    br label %"bb1"
llvm.func @blocks_out_of_order(%n: i32) -> i32 {
  llvm.br ^def
^use(%r: i32):
  llvm.return %r : i32
^def:
  %d = llvm.mul %n, %n : i32
  llvm.br ^use(%d : i32)
}

// Unreachable blocks are dropped (their arguments would be phis with no incoming value).
// CHECK-LABEL: define i32 @"unreachable_block"(i32 %"n")
// CHECK-NEXT:  {
// CHECK-NEXT:  entry:
// CHECK-NEXT:    ret i32 %"n"
// CHECK-NEXT:  }
llvm.func @unreachable_block(%n: i32) -> i32 {
  llvm.return %n : i32
^dead(%x: i32):
  llvm.return %x : i32
}


// An alloca is an opaque pointer: a byte buffer can hold a float (a task's thread-local
// buffer does).
// CHECK-LABEL: define void @"byte_buffer"(float %"x")
// CHECK-NEXT:  {
// CHECK-NEXT:  entry:
// CHECK-NEXT:    %"buf" = alloca i8, i64 8, align 16
// CHECK-NEXT:    %"at4" = getelementptr i8, ptr %"buf", i32 4
// CHECK-NEXT:    store float %"x", ptr %"at4"
// CHECK-NEXT:    ret void
// CHECK-NEXT:  }
llvm.func @byte_buffer(%x: f32) {
  %size = llvm.mlir.constant(8 : i64) : i64
  %buf = llvm.alloca %size x i8 {alignment = 16 : i64} : (i64) -> !llvm.ptr
  %at4 = llvm.getelementptr %buf[4] : (!llvm.ptr) -> !llvm.ptr, i8
  llvm.store %x, %at4 : f32, !llvm.ptr
  llvm.return
}

}
