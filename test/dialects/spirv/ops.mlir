// RUN: ti-opt %s | ti-opt | filecheck %s
// RUN: ti-opt %s --print-op-generic | ti-opt | filecheck %s

// Types, printed as MLIR prints them (`4 x f32`, `stride=`, `[offset, Decoration]`).
// CHECK-LABEL: func.func private @types
// CHECK-SAME:    !spirv.array<4 x f32, stride=4>, !spirv.array<2 x !spirv.array<3 x i32>>
// CHECK-SAME:    !spirv.rtarray<i32>, !spirv.rtarray<vector<4xf32>, stride=16>
// CHECK-SAME:    !spirv.struct<(f32 [0], i32 [4, NonWritable])>, !spirv.struct<()>
// CHECK-SAME:    !spirv.struct<(!spirv.rtarray<f32, stride=4> [0]), Block>
// CHECK-SAME:    !spirv.ptr<vector<4xf32>, PushConstant>, !spirv.ptr<i1, Workgroup>
func.func private @types(!spirv.array<4xf32, stride=4>, !spirv.array<2 x !spirv.array<3 x i32>>,
                         !spirv.rtarray<i32>, !spirv.rtarray<vector<4xf32>, stride = 16>,
                         !spirv.struct<(f32 [0], i32 [4, NonWritable])>, !spirv.struct<()>,
                         !spirv.struct<(!spirv.rtarray<f32, stride=4> [0]), Block>,
                         !spirv.ptr<vector<4xf32>,PushConstant>, !spirv.ptr<i1, Workgroup>)

// CHECK-LABEL: spirv.module @shader Logical GLSL450 requires #spirv.vce<v1.3, [Shader, Int64, Float64], [SPV_KHR_storage_buffer_storage_class]> attributes {foo = "bar"} {
spirv.module @shader Logical GLSL450
    requires #spirv.vce<v1.3, [Shader, Int64, Float64], [SPV_KHR_storage_buffer_storage_class]>
    attributes {foo = "bar"} {
  // Globals: a storage buffer, built-ins, a uniform, a push constant, shared memory.
  // CHECK-NEXT: spirv.GlobalVariable @buf bind(0, 1) : !spirv.ptr<!spirv.struct<(!spirv.rtarray<f32, stride=4> [0]), Block>, StorageBuffer>
  // CHECK-NEXT: spirv.GlobalVariable @ibuf bind(0, 2) : !spirv.ptr<!spirv.struct<(!spirv.rtarray<i32, stride=4> [0]), Block>, StorageBuffer>
  // CHECK-NEXT: spirv.GlobalVariable @gid built_in("GlobalInvocationId") : !spirv.ptr<vector<3xi32>, Input>
  // CHECK-NEXT: spirv.GlobalVariable @nwg built_in("NumWorkgroups") : !spirv.ptr<vector<3xi32>, Input>
  // CHECK-NEXT: spirv.GlobalVariable @lid built_in("LocalInvocationId") : !spirv.ptr<vector<3xi32>, Input>
  // CHECK-NEXT: spirv.GlobalVariable @wid built_in("WorkgroupId") : !spirv.ptr<vector<3xi32>, Input>
  // CHECK-NEXT: spirv.GlobalVariable @ubo bind(1, 0) : !spirv.ptr<!spirv.struct<(vector<4xf32> [0], f32 [16]), Block>, Uniform>
  // CHECK-NEXT: spirv.GlobalVariable @pc : !spirv.ptr<!spirv.struct<(i32 [0]), Block>, PushConstant>
  // CHECK-NEXT: spirv.GlobalVariable @shared : !spirv.ptr<!spirv.array<128 x f32>, Workgroup>
  // CHECK-NEXT: spirv.GlobalVariable @copy initializer(@shared) : !spirv.ptr<!spirv.ptr<!spirv.array<128 x f32>, Workgroup>, Private>
  spirv.GlobalVariable @buf bind(0, 1) : !spirv.ptr<!spirv.struct<(!spirv.rtarray<f32, stride=4> [0]), Block>, StorageBuffer>
  spirv.GlobalVariable @ibuf bind(0, 2) : !spirv.ptr<!spirv.struct<(!spirv.rtarray<i32, stride=4> [0]), Block>, StorageBuffer>
  spirv.GlobalVariable @gid built_in("GlobalInvocationId") : !spirv.ptr<vector<3xi32>, Input>
  spirv.GlobalVariable @nwg {built_in = "NumWorkgroups"} : !spirv.ptr<vector<3xi32>, Input>
  spirv.GlobalVariable @lid built_in("LocalInvocationId") : !spirv.ptr<vector<3xi32>, Input>
  spirv.GlobalVariable @wid built_in("WorkgroupId") : !spirv.ptr<vector<3xi32>, Input>
  spirv.GlobalVariable @ubo bind(1, 0) : !spirv.ptr<!spirv.struct<(vector<4xf32> [0], f32 [16]), Block>, Uniform>
  spirv.GlobalVariable @pc : !spirv.ptr<!spirv.struct<(i32 [0]), Block>, PushConstant>
  spirv.GlobalVariable @shared : !spirv.ptr<!spirv.array<128 x f32>, Workgroup>
  spirv.GlobalVariable @copy initializer(@shared) : !spirv.ptr<!spirv.ptr<!spirv.array<128 x f32>, Workgroup>, Private>

  // Constants, addresses, memory.
  // CHECK-LABEL: spirv.func @memory(%{{.*}}: i32) "None" {
  // CHECK-NEXT:    %[[C0:.*]] = spirv.Constant 0 : i32
  // CHECK-NEXT:    %{{.*}} = spirv.Constant true
  // CHECK-NEXT:    %{{.*}} = spirv.Constant 5.000000e-01 : f32
  // CHECK-NEXT:    %{{.*}} = spirv.Constant -7 : i64
  // CHECK-NEXT:    %{{.*}} = spirv.Constant 2.500000e-01 : f64
  // CHECK-NEXT:    %{{.*}} = spirv.Constant dense<[2, 3]> : vector<2xi32>
  // CHECK-NEXT:    %{{.*}} = spirv.Constant dense<1.000000e+00> : vector<4xf32>
  // CHECK-NEXT:    %[[BUF:.*]] = spirv.mlir.addressof @buf : !spirv.ptr<!spirv.struct<(!spirv.rtarray<f32, stride=4> [0]), Block>, StorageBuffer>
  // CHECK-NEXT:    %[[P:.*]] = spirv.AccessChain %[[BUF]][%[[C0]], %{{.*}}] : !spirv.ptr<!spirv.struct<(!spirv.rtarray<f32, stride=4> [0]), Block>, StorageBuffer>, i32, i32 -> !spirv.ptr<f32, StorageBuffer>
  // CHECK-NEXT:    %[[V:.*]] = spirv.Load "StorageBuffer" %[[P]] : f32
  // CHECK-NEXT:    %{{.*}} = spirv.Load "StorageBuffer" %[[P]] ["Volatile"] : f32
  // CHECK-NEXT:    %{{.*}} = spirv.Load "StorageBuffer" %[[P]] ["Volatile|Aligned", 4] : f32
  // CHECK-NEXT:    spirv.Store "StorageBuffer" %[[P]], %[[V]] : f32
  // CHECK-NEXT:    spirv.Store "StorageBuffer" %[[P]], %[[V]] ["Aligned", 4] : f32
  // CHECK-NEXT:    %[[VAR:.*]] = spirv.Variable : !spirv.ptr<f32, Function>
  // CHECK-NEXT:    %{{.*}} = spirv.Variable init(%[[C0]]) : !spirv.ptr<i32, Function>
  // CHECK-NEXT:    spirv.Store "Function" %[[VAR]], %[[V]] : f32
  // CHECK-NEXT:    %[[GID_P:.*]] = spirv.mlir.addressof @gid : !spirv.ptr<vector<3xi32>, Input>
  // CHECK-NEXT:    %[[GID:.*]] = spirv.Load "Input" %[[GID_P]] : vector<3xi32>
  // CHECK-NEXT:    %[[X:.*]] = spirv.CompositeExtract %[[GID]][0 : i32] : vector<3xi32>
  // CHECK-NEXT:    %{{.*}} = spirv.CompositeInsert %[[X]], %[[GID]][2 : i32] : i32 into vector<3xi32>
  // CHECK-NEXT:    %{{.*}} = spirv.CompositeConstruct %[[X]], %[[X]], %[[X]] : (i32, i32, i32) -> vector<3xi32>
  // CHECK-NEXT:    spirv.Return
  spirv.func @memory(%i: i32) "None" {
    %c0 = spirv.Constant 0 : i32
    %t = spirv.Constant true
    %h = spirv.Constant 0.5 : f32
    %l = spirv.Constant -7 : i64
    %d = spirv.Constant 0.25 : f64
    %v = spirv.Constant dense<[2, 3]> : vector<2xi32>
    %s = spirv.Constant dense<1.0> : vector<4xf32>
    %buf = spirv.mlir.addressof @buf : !spirv.ptr<!spirv.struct<(!spirv.rtarray<f32, stride=4> [0]), Block>, StorageBuffer>
    %p = spirv.AccessChain %buf[%c0, %i] : !spirv.ptr<!spirv.struct<(!spirv.rtarray<f32, stride=4> [0]), Block>, StorageBuffer>, i32, i32 -> !spirv.ptr<f32, StorageBuffer>
    %x = spirv.Load "StorageBuffer" %p : f32
    %y = spirv.Load "StorageBuffer" %p ["Volatile"] : f32
    %z = spirv.Load "StorageBuffer" %p ["Volatile|Aligned", 4] : f32
    spirv.Store "StorageBuffer" %p, %x : f32
    spirv.Store "StorageBuffer" %p, %x ["Aligned", 4] : f32
    %var = spirv.Variable : !spirv.ptr<f32, Function>
    %ivar = spirv.Variable init(%c0) : !spirv.ptr<i32, Function>
    spirv.Store "Function" %var, %x : f32
    %gid_p = spirv.mlir.addressof @gid : !spirv.ptr<vector<3xi32>, Input>
    %gid = spirv.Load "Input" %gid_p : vector<3xi32>
    %gx = spirv.CompositeExtract %gid[0 : i32] : vector<3xi32>
    %g2 = spirv.CompositeInsert %gx, %gid[2 : i32] : i32 into vector<3xi32>
    %g3 = spirv.CompositeConstruct %gx, %gx, %gx : (i32, i32, i32) -> vector<3xi32>
    spirv.Return
  }

  // Arithmetic, bitwise, shifts.
  // CHECK-LABEL: spirv.func @arithmetic(%{{.*}}: i32, %{{.*}}: i32, %{{.*}}: f32, %{{.*}}: f32, %{{.*}}: vector<4xf32>) "None" {
  // CHECK-NEXT:    spirv.IAdd %[[A:.*]], %[[B:.*]] : i32
  // CHECK-NEXT:    spirv.ISub %[[A]], %[[B]] : i32
  // CHECK-NEXT:    spirv.IMul %[[A]], %[[B]] : i32
  // CHECK-NEXT:    spirv.SDiv %[[A]], %[[B]] : i32
  // CHECK-NEXT:    spirv.UDiv %[[A]], %[[B]] : i32
  // CHECK-NEXT:    spirv.SMod %[[A]], %[[B]] : i32
  // CHECK-NEXT:    spirv.SRem %[[A]], %[[B]] : i32
  // CHECK-NEXT:    spirv.UMod %[[A]], %[[B]] : i32
  // CHECK-NEXT:    spirv.SNegate %[[A]] : i32
  // CHECK-NEXT:    spirv.FAdd %[[F:.*]], %[[G:.*]] : f32
  // CHECK-NEXT:    spirv.FSub %[[F]], %[[G]] : f32
  // CHECK-NEXT:    spirv.FMul %[[F]], %[[G]] : f32
  // CHECK-NEXT:    spirv.FDiv %[[F]], %[[G]] : f32
  // CHECK-NEXT:    spirv.FRem %[[F]], %[[G]] : f32
  // CHECK-NEXT:    spirv.FMod %[[F]], %[[G]] : f32
  // CHECK-NEXT:    spirv.FNegate %[[F]] : f32
  // CHECK-NEXT:    spirv.FMul %[[VEC:.*]], %[[VEC]] : vector<4xf32>
  // CHECK-NEXT:    spirv.BitwiseAnd %[[A]], %[[B]] : i32
  // CHECK-NEXT:    spirv.BitwiseOr %[[A]], %[[B]] : i32
  // CHECK-NEXT:    spirv.BitwiseXor %[[A]], %[[B]] : i32
  // CHECK-NEXT:    spirv.Not %[[A]] : i32
  // CHECK-NEXT:    spirv.ShiftLeftLogical %[[A]], %[[B]] : i32, i32
  // CHECK-NEXT:    spirv.ShiftRightArithmetic %[[A]], %[[B]] : i32, i32
  // CHECK-NEXT:    spirv.ShiftRightLogical %[[A]], %[[B]] : i32, i32
  // CHECK-NEXT:    spirv.BitFieldSExtract %[[A]], %[[B]], %[[B]] : i32, i32, i32
  spirv.func @arithmetic(%a: i32, %b: i32, %f: f32, %g: f32, %vec: vector<4xf32>) "None" {
    %0 = spirv.IAdd %a, %b : i32
    %1 = spirv.ISub %a, %b : i32
    %2 = spirv.IMul %a, %b : i32
    %3 = spirv.SDiv %a, %b : i32
    %4 = spirv.UDiv %a, %b : i32
    %5 = spirv.SMod %a, %b : i32
    %6 = spirv.SRem %a, %b : i32
    %7 = spirv.UMod %a, %b : i32
    %8 = spirv.SNegate %a : i32
    %9 = spirv.FAdd %f, %g : f32
    %10 = spirv.FSub %f, %g : f32
    %11 = spirv.FMul %f, %g : f32
    %12 = spirv.FDiv %f, %g : f32
    %13 = spirv.FRem %f, %g : f32
    %14 = spirv.FMod %f, %g : f32
    %15 = spirv.FNegate %f : f32
    %16 = spirv.FMul %vec, %vec : vector<4xf32>
    %17 = spirv.BitwiseAnd %a, %b : i32
    %18 = spirv.BitwiseOr %a, %b : i32
    %19 = spirv.BitwiseXor %a, %b : i32
    %20 = spirv.Not %a : i32
    %21 = spirv.ShiftLeftLogical %a, %b : i32, i32
    %22 = spirv.ShiftRightArithmetic %a, %b : i32, i32
    %23 = spirv.ShiftRightLogical %a, %b : i32, i32
    %24 = spirv.BitFieldSExtract %a, %b, %b : i32, i32, i32
    spirv.Return
  }

  // Comparisons, logical ops, select, conversions.
  // CHECK-LABEL: spirv.func @compare(%{{.*}}: i32, %{{.*}}: i32, %{{.*}}: f32, %{{.*}}: f32, %{{.*}}: vector<4xf32>) -> i1 "None" {
  // CHECK-NEXT:    %[[EQ:.*]] = spirv.IEqual %[[A:.*]], %[[B:.*]] : i32
  // CHECK-NEXT:    spirv.INotEqual %[[A]], %[[B]] : i32
  // CHECK-NEXT:    spirv.SLessThan %[[A]], %[[B]] : i32
  // CHECK-NEXT:    spirv.SLessThanEqual %[[A]], %[[B]] : i32
  // CHECK-NEXT:    spirv.SGreaterThan %[[A]], %[[B]] : i32
  // CHECK-NEXT:    spirv.SGreaterThanEqual %[[A]], %[[B]] : i32
  // CHECK-NEXT:    spirv.ULessThan %[[A]], %[[B]] : i32
  // CHECK-NEXT:    spirv.ULessThanEqual %[[A]], %[[B]] : i32
  // CHECK-NEXT:    spirv.UGreaterThan %[[A]], %[[B]] : i32
  // CHECK-NEXT:    spirv.UGreaterThanEqual %[[A]], %[[B]] : i32
  // CHECK-NEXT:    %[[LT:.*]] = spirv.FOrdLessThan %[[F:.*]], %[[G:.*]] : f32
  // CHECK-NEXT:    spirv.FOrdEqual %[[F]], %[[G]] : f32
  // CHECK-NEXT:    spirv.FOrdNotEqual %[[F]], %[[G]] : f32
  // CHECK-NEXT:    spirv.FOrdLessThanEqual %[[F]], %[[G]] : f32
  // CHECK-NEXT:    spirv.FOrdGreaterThan %[[F]], %[[G]] : f32
  // CHECK-NEXT:    spirv.FOrdGreaterThanEqual %[[F]], %[[G]] : f32
  // CHECK-NEXT:    spirv.FUnordEqual %[[F]], %[[G]] : f32
  // CHECK-NEXT:    spirv.FUnordNotEqual %[[F]], %[[G]] : f32
  // CHECK-NEXT:    spirv.FUnordLessThan %[[F]], %[[G]] : f32
  // CHECK-NEXT:    spirv.FUnordLessThanEqual %[[F]], %[[G]] : f32
  // CHECK-NEXT:    spirv.FUnordGreaterThan %[[F]], %[[G]] : f32
  // CHECK-NEXT:    spirv.FUnordGreaterThanEqual %[[F]], %[[G]] : f32
  // CHECK-NEXT:    %[[VLT:.*]] = spirv.FOrdLessThan %[[VEC:.*]], %[[VEC]] : vector<4xf32>
  // CHECK-NEXT:    spirv.IsNan %[[F]] : f32
  // CHECK-NEXT:    spirv.IsInf %[[F]] : f32
  // CHECK-NEXT:    %[[AND:.*]] = spirv.LogicalAnd %[[EQ]], %[[LT]] : i1
  // CHECK-NEXT:    spirv.LogicalOr %[[EQ]], %[[LT]] : i1
  // CHECK-NEXT:    spirv.LogicalEqual %[[EQ]], %[[LT]] : i1
  // CHECK-NEXT:    spirv.LogicalNotEqual %[[EQ]], %[[LT]] : i1
  // CHECK-NEXT:    spirv.LogicalNot %[[AND]] : i1
  // CHECK-NEXT:    spirv.Select %[[AND]], %[[F]], %[[G]] : i1, f32
  // CHECK-NEXT:    spirv.Select %[[VLT]], %[[VEC]], %[[VEC]] : vector<4xi1>, vector<4xf32>
  // CHECK-NEXT:    spirv.ConvertFToS %[[F]] : f32 to i32
  // CHECK-NEXT:    spirv.ConvertFToU %[[F]] : f32 to i32
  // CHECK-NEXT:    spirv.ConvertSToF %[[A]] : i32 to f32
  // CHECK-NEXT:    spirv.ConvertUToF %[[A]] : i32 to f64
  // CHECK-NEXT:    spirv.SConvert %[[A]] : i32 to i64
  // CHECK-NEXT:    spirv.UConvert %[[A]] : i32 to i16
  // CHECK-NEXT:    spirv.FConvert %[[F]] : f32 to f64
  // CHECK-NEXT:    spirv.Bitcast %[[F]] : f32 to i32
  // CHECK-NEXT:    spirv.Bitcast %[[VEC]] : vector<4xf32> to vector<2xi64>
  // CHECK-NEXT:    spirv.ReturnValue %[[AND]] : i1
  spirv.func @compare(%a: i32, %b: i32, %f: f32, %g: f32, %vec: vector<4xf32>) -> i1 "None" {
    %0 = spirv.IEqual %a, %b : i32
    %1 = spirv.INotEqual %a, %b : i32
    %2 = spirv.SLessThan %a, %b : i32
    %3 = spirv.SLessThanEqual %a, %b : i32
    %4 = spirv.SGreaterThan %a, %b : i32
    %5 = spirv.SGreaterThanEqual %a, %b : i32
    %6 = spirv.ULessThan %a, %b : i32
    %7 = spirv.ULessThanEqual %a, %b : i32
    %8 = spirv.UGreaterThan %a, %b : i32
    %9 = spirv.UGreaterThanEqual %a, %b : i32
    %10 = spirv.FOrdLessThan %f, %g : f32
    %11 = spirv.FOrdEqual %f, %g : f32
    %12 = spirv.FOrdNotEqual %f, %g : f32
    %13 = spirv.FOrdLessThanEqual %f, %g : f32
    %14 = spirv.FOrdGreaterThan %f, %g : f32
    %15 = spirv.FOrdGreaterThanEqual %f, %g : f32
    %16 = spirv.FUnordEqual %f, %g : f32
    %17 = spirv.FUnordNotEqual %f, %g : f32
    %18 = spirv.FUnordLessThan %f, %g : f32
    %19 = spirv.FUnordLessThanEqual %f, %g : f32
    %20 = spirv.FUnordGreaterThan %f, %g : f32
    %21 = spirv.FUnordGreaterThanEqual %f, %g : f32
    %22 = spirv.FOrdLessThan %vec, %vec : vector<4xf32>
    %23 = spirv.IsNan %f : f32
    %24 = spirv.IsInf %f : f32
    %25 = spirv.LogicalAnd %0, %10 : i1
    %26 = spirv.LogicalOr %0, %10 : i1
    %27 = spirv.LogicalEqual %0, %10 : i1
    %28 = spirv.LogicalNotEqual %0, %10 : i1
    %29 = spirv.LogicalNot %25 : i1
    %30 = spirv.Select %25, %f, %g : i1, f32
    %31 = spirv.Select %22, %vec, %vec : vector<4xi1>, vector<4xf32>
    %32 = spirv.ConvertFToS %f : f32 to i32
    %33 = spirv.ConvertFToU %f : f32 to i32
    %34 = spirv.ConvertSToF %a : i32 to f32
    %35 = spirv.ConvertUToF %a : i32 to f64
    %36 = spirv.SConvert %a : i32 to i64
    %37 = spirv.UConvert %a : i32 to i16
    %38 = spirv.FConvert %f : f32 to f64
    %39 = spirv.Bitcast %f : f32 to i32
    %40 = spirv.Bitcast %vec : vector<4xf32> to vector<2xi64>
    spirv.ReturnValue %25 : i1
  }

  // GLSL.std.450.
  // CHECK-LABEL: spirv.func @gl(%{{.*}}: f32, %{{.*}}: f32, %{{.*}}: i32, %{{.*}}: i32) "None" {
  // CHECK-NEXT:    spirv.GL.Sqrt %[[X:[^ ]*]] : f32
  // CHECK-NEXT:    spirv.GL.InverseSqrt %[[X]] : f32
  // CHECK-NEXT:    spirv.GL.Sin %[[X]] : f32
  // CHECK-NEXT:    spirv.GL.Cos %[[X]] : f32
  // CHECK-NEXT:    spirv.GL.Tan %[[X]] : f32
  // CHECK-NEXT:    spirv.GL.Exp %[[X]] : f32
  // CHECK-NEXT:    spirv.GL.Log %[[X]] : f32
  // CHECK-NEXT:    spirv.GL.Exp2 %[[X]] : f32
  // CHECK-NEXT:    spirv.GL.Log2 %[[X]] : f32
  // CHECK-NEXT:    spirv.GL.Tanh %[[X]] : f32
  // CHECK-NEXT:    spirv.GL.FAbs %[[X]] : f32
  // CHECK-NEXT:    spirv.GL.Floor %[[X]] : f32
  // CHECK-NEXT:    spirv.GL.Ceil %[[X]] : f32
  // CHECK-NEXT:    spirv.GL.FSign %[[X]] : f32
  // CHECK-NEXT:    spirv.GL.Round %[[X]] : f32
  // CHECK-NEXT:    spirv.GL.Trunc %[[X]] : f32
  // CHECK-NEXT:    spirv.GL.SAbs %[[I:[^ ]*]] : i32
  // CHECK-NEXT:    spirv.GL.SSign %[[I]] : i32
  // CHECK-NEXT:    spirv.GL.Pow %[[X]], %[[Y:[^ ]*]] : f32
  // CHECK-NEXT:    spirv.GL.FMin %[[X]], %[[Y]] : f32
  // CHECK-NEXT:    spirv.GL.FMax %[[X]], %[[Y]] : f32
  // CHECK-NEXT:    spirv.GL.Atan2 %[[X]], %[[Y]] : f32
  // CHECK-NEXT:    spirv.GL.SMin %[[I]], %[[J:[^ ]*]] : i32
  // CHECK-NEXT:    spirv.GL.SMax %[[I]], %[[J]] : i32
  // CHECK-NEXT:    spirv.GL.UMin %[[I]], %[[J]] : i32
  // CHECK-NEXT:    spirv.GL.UMax %[[I]], %[[J]] : i32
  // CHECK-NEXT:    spirv.GL.Fma %[[X]], %[[Y]], %[[X]] : f32
  spirv.func @gl(%x: f32, %y: f32, %i: i32, %j: i32) "None" {
    %0 = spirv.GL.Sqrt %x : f32
    %1 = spirv.GL.InverseSqrt %x : f32
    %2 = spirv.GL.Sin %x : f32
    %3 = spirv.GL.Cos %x : f32
    %4 = spirv.GL.Tan %x : f32
    %5 = spirv.GL.Exp %x : f32
    %6 = spirv.GL.Log %x : f32
    %7 = spirv.GL.Exp2 %x : f32
    %8 = spirv.GL.Log2 %x : f32
    %9 = spirv.GL.Tanh %x : f32
    %10 = spirv.GL.FAbs %x : f32
    %11 = spirv.GL.Floor %x : f32
    %12 = spirv.GL.Ceil %x : f32
    %13 = spirv.GL.FSign %x : f32
    %14 = spirv.GL.Round %x : f32
    %15 = spirv.GL.Trunc %x : f32
    %16 = spirv.GL.SAbs %i : i32
    %17 = spirv.GL.SSign %i : i32
    %18 = spirv.GL.Pow %x, %y : f32
    %19 = spirv.GL.FMin %x, %y : f32
    %20 = spirv.GL.FMax %x, %y : f32
    %21 = spirv.GL.Atan2 %x, %y : f32
    %22 = spirv.GL.SMin %i, %j : i32
    %23 = spirv.GL.SMax %i, %j : i32
    %24 = spirv.GL.UMin %i, %j : i32
    %25 = spirv.GL.UMax %i, %j : i32
    %26 = spirv.GL.Fma %x, %y, %x : f32
    spirv.Return
  }

  // Atomics and barriers.
  // CHECK-LABEL: spirv.func @atomics(%{{.*}}: i32, %{{.*}}: f32) "None" {
  // CHECK:         %[[P:.*]] = spirv.AccessChain
  // CHECK-NEXT:    spirv.mlir.addressof @buf
  // CHECK-NEXT:    %[[Q:.*]] = spirv.AccessChain
  // CHECK-NEXT:    spirv.AtomicIAdd <Device> <None> %[[P]], %[[V:[^ ]*]] : !spirv.ptr<i32, StorageBuffer>
  // CHECK-NEXT:    spirv.AtomicISub <Device> <AcquireRelease|UniformMemory> %[[P]], %[[V]] : !spirv.ptr<i32, StorageBuffer>
  // CHECK-NEXT:    spirv.AtomicSMin <Workgroup> <None> %[[P]], %[[V]] : !spirv.ptr<i32, StorageBuffer>
  // CHECK-NEXT:    spirv.AtomicSMax <Device> <None> %[[P]], %[[V]] : !spirv.ptr<i32, StorageBuffer>
  // CHECK-NEXT:    spirv.AtomicUMin <Device> <None> %[[P]], %[[V]] : !spirv.ptr<i32, StorageBuffer>
  // CHECK-NEXT:    spirv.AtomicUMax <Device> <None> %[[P]], %[[V]] : !spirv.ptr<i32, StorageBuffer>
  // CHECK-NEXT:    spirv.AtomicAnd <Device> <None> %[[P]], %[[V]] : !spirv.ptr<i32, StorageBuffer>
  // CHECK-NEXT:    spirv.AtomicOr <Device> <None> %[[P]], %[[V]] : !spirv.ptr<i32, StorageBuffer>
  // CHECK-NEXT:    spirv.AtomicXor <Device> <None> %[[P]], %[[V]] : !spirv.ptr<i32, StorageBuffer>
  // CHECK-NEXT:    spirv.AtomicExchange <Device> <None> %[[P]], %[[V]] : !spirv.ptr<i32, StorageBuffer>
  // CHECK-NEXT:    spirv.AtomicExchange <Device> <None> %[[Q]], %[[F:[^ ]*]] : !spirv.ptr<f32, StorageBuffer>
  // CHECK-NEXT:    spirv.AtomicCompareExchange <Device> <Release> <Acquire> %[[P]], %[[V]], %[[V]] : !spirv.ptr<i32, StorageBuffer>
  // CHECK-NEXT:    spirv.EXT.AtomicFAdd <Device> <None> %[[Q]], %[[F]] : !spirv.ptr<f32, StorageBuffer>
  // CHECK-NEXT:    spirv.ControlBarrier <Workgroup>, <Workgroup>, <AcquireRelease|WorkgroupMemory>
  // CHECK-NEXT:    spirv.MemoryBarrier <Device>, <AcquireRelease|UniformMemory>
  // CHECK-NEXT:    spirv.Return
  spirv.func @atomics(%v: i32, %f: f32) "None" {
    %c0 = spirv.Constant 0 : i32
    %ibuf = spirv.mlir.addressof @ibuf : !spirv.ptr<!spirv.struct<(!spirv.rtarray<i32, stride=4> [0]), Block>, StorageBuffer>
    %p = spirv.AccessChain %ibuf[%c0, %v] : !spirv.ptr<!spirv.struct<(!spirv.rtarray<i32, stride=4> [0]), Block>, StorageBuffer>, i32, i32 -> !spirv.ptr<i32, StorageBuffer>
    %buf = spirv.mlir.addressof @buf : !spirv.ptr<!spirv.struct<(!spirv.rtarray<f32, stride=4> [0]), Block>, StorageBuffer>
    %q = spirv.AccessChain %buf[%c0, %v] : !spirv.ptr<!spirv.struct<(!spirv.rtarray<f32, stride=4> [0]), Block>, StorageBuffer>, i32, i32 -> !spirv.ptr<f32, StorageBuffer>
    %0 = spirv.AtomicIAdd <Device> <None> %p, %v : !spirv.ptr<i32, StorageBuffer>
    %1 = spirv.AtomicISub <Device> <UniformMemory|AcquireRelease> %p, %v : !spirv.ptr<i32, StorageBuffer>
    %2 = spirv.AtomicSMin <Workgroup> <None> %p, %v : !spirv.ptr<i32, StorageBuffer>
    %3 = spirv.AtomicSMax <Device> <None> %p, %v : !spirv.ptr<i32, StorageBuffer>
    %4 = spirv.AtomicUMin <Device> <None> %p, %v : !spirv.ptr<i32, StorageBuffer>
    %5 = spirv.AtomicUMax <Device> <None> %p, %v : !spirv.ptr<i32, StorageBuffer>
    %6 = spirv.AtomicAnd <Device> <None> %p, %v : !spirv.ptr<i32, StorageBuffer>
    %7 = spirv.AtomicOr <Device> <None> %p, %v : !spirv.ptr<i32, StorageBuffer>
    %8 = spirv.AtomicXor <Device> <None> %p, %v : !spirv.ptr<i32, StorageBuffer>
    %9 = spirv.AtomicExchange <Device> <None> %p, %v : !spirv.ptr<i32, StorageBuffer>
    %10 = spirv.AtomicExchange <Device> <None> %q, %f : !spirv.ptr<f32, StorageBuffer>
    %11 = spirv.AtomicCompareExchange <Device> <Release> <Acquire> %p, %v, %v : !spirv.ptr<i32, StorageBuffer>
    %12 = spirv.EXT.AtomicFAdd <Device> <None> %q, %f : !spirv.ptr<f32, StorageBuffer>
    spirv.ControlBarrier <Workgroup>, <Workgroup>, <AcquireRelease|WorkgroupMemory>
    spirv.MemoryBarrier <Device>, <AcquireRelease|UniformMemory>
    spirv.Return
  }

  // Structured control flow, calls.
  // CHECK-LABEL: spirv.func @control(%{{.*}}: i32, %{{.*}}: i1) -> i32 "None" {
  // CHECK-NEXT:    %[[ZERO:.*]] = spirv.Constant 0 : i32
  // CHECK-NEXT:    %[[ONE:.*]] = spirv.Constant 1 : i32
  // CHECK-NEXT:    %[[VAR:.*]] = spirv.Variable init(%[[ZERO]]) : !spirv.ptr<i32, Function>
  // CHECK-NEXT:    spirv.mlir.selection {
  // CHECK-NEXT:      spirv.BranchConditional %[[C:.*]], ^[[THEN:.*]], ^[[MERGE:.*]]
  // CHECK-NEXT:    ^[[THEN]]:
  // CHECK-NEXT:      spirv.Store "Function" %[[VAR]], %[[ONE]] : i32
  // CHECK-NEXT:      spirv.Branch ^[[MERGE]]
  // CHECK-NEXT:    ^[[MERGE]]:
  // CHECK-NEXT:      spirv.mlir.merge
  // CHECK-NEXT:    }
  // CHECK-NEXT:    spirv.mlir.selection control(Flatten) {
  // CHECK-NEXT:      spirv.BranchConditional %[[C]] [5, 10], ^{{.*}}, ^{{.*}}
  // CHECK:         spirv.mlir.loop control(Unroll) {
  // CHECK-NEXT:      spirv.Branch ^[[HEADER:.*]](%[[ZERO]] : i32)
  // CHECK-NEXT:    ^[[HEADER]](%[[I:.*]]: i32):
  // CHECK-NEXT:      %[[LT:.*]] = spirv.SLessThan %[[I]], %[[N:.*]] : i32
  // CHECK-NEXT:      spirv.BranchConditional %[[LT]], ^[[BODY:.*]], ^[[LMERGE:.*]]
  // CHECK-NEXT:    ^[[BODY]]:
  // CHECK-NEXT:      spirv.Branch ^[[CONTINUE:.*]]
  // CHECK-NEXT:    ^[[CONTINUE]]:
  // CHECK-NEXT:      %[[NEXT:.*]] = spirv.IAdd %[[I]], %[[ONE]] : i32
  // CHECK-NEXT:      spirv.Branch ^[[HEADER]](%[[NEXT]] : i32)
  // CHECK-NEXT:    ^[[LMERGE]]:
  // CHECK-NEXT:      spirv.mlir.merge
  // CHECK-NEXT:    }
  // CHECK-NEXT:    %[[R:.*]] = spirv.FunctionCall @id(%[[N]]) : (i32) -> i32
  // CHECK-NEXT:    spirv.FunctionCall @nothing() : () -> ()
  // CHECK-NEXT:    spirv.ReturnValue %[[R]] : i32
  spirv.func @control(%n: i32, %c: i1) -> i32 "None" {
    %zero = spirv.Constant 0 : i32
    %one = spirv.Constant 1 : i32
    %var = spirv.Variable init(%zero) : !spirv.ptr<i32, Function>
    spirv.mlir.selection {
      spirv.BranchConditional %c, ^then, ^merge
    ^then:
      spirv.Store "Function" %var, %one : i32
      spirv.Branch ^merge
    ^merge:
      spirv.mlir.merge
    }
    spirv.mlir.selection control(Flatten) {
      spirv.BranchConditional %c [5, 10], ^then, ^else
    ^then:
      spirv.Branch ^merge
    ^else:
      spirv.Branch ^merge
    ^merge:
      spirv.mlir.merge
    }
    spirv.mlir.loop control(Unroll) {
      spirv.Branch ^header(%zero : i32)
    ^header(%i: i32):
      %lt = spirv.SLessThan %i, %n : i32
      spirv.BranchConditional %lt, ^body, ^merge
    ^body:
      spirv.Branch ^continue
    ^continue:
      %next = spirv.IAdd %i, %one : i32
      spirv.Branch ^header(%next : i32)
    ^merge:
      spirv.mlir.merge
    }
    %r = spirv.FunctionCall @id(%n) : (i32) -> i32
    spirv.FunctionCall @nothing() : () -> ()
    spirv.ReturnValue %r : i32
  }

  // CHECK-LABEL: spirv.func @id(%{{.*}}: i32) -> i32 "Inline|Pure" {
  spirv.func @id(%x: i32) -> i32 "Inline|Pure" {
    spirv.ReturnValue %x : i32
  }
  // CHECK-LABEL: spirv.func @nothing() "DontInline" {
  // CHECK-NEXT:    spirv.Unreachable
  spirv.func @nothing() "DontInline" {
    spirv.Unreachable
  }

  // CHECK: spirv.EntryPoint "GLCompute" @memory, @gid, @nwg
  // CHECK-NEXT: spirv.ExecutionMode @memory "LocalSize", 128, 1, 1
  spirv.EntryPoint "GLCompute" @memory, @gid, @nwg
  spirv.ExecutionMode @memory "LocalSize", 128, 1, 1
}

// A module with neither a name nor a VCE triple.
// CHECK-LABEL: spirv.module Logical GLSL450 {
// CHECK-NEXT:  }
spirv.module Logical GLSL450 { }

// SPIR-V ops in other function-like ops, as in MLIR's tests.
// CHECK-LABEL: func.func @in_func(%{{.*}}: i32) -> i32 {
// CHECK-NEXT:    spirv.IAdd
// CHECK-NEXT:    spirv.ReturnValue
func.func @in_func(%a: i32) -> i32 {
  %0 = spirv.IAdd %a, %a : i32
  spirv.ReturnValue %0 : i32
}

// Subgroup operations: a reduction over the active invocations, and electing one.
// CHECK-LABEL: func.func @subgroup(%{{.*}}: f32, %{{.*}}: i32) -> f32 {
// CHECK-NEXT:    %[[S:.*]] = spirv.GroupNonUniformFAdd <Subgroup> <Reduce> %{{.*}} : f32 -> f32
// CHECK-NEXT:    %{{.*}} = spirv.GroupNonUniformIAdd <Workgroup> <InclusiveScan> %{{.*}} : i32 -> i32
// CHECK-NEXT:    %{{.*}} = spirv.GroupNonUniformElect <Subgroup> : i1
// CHECK-NEXT:    spirv.ReturnValue %[[S]] : f32
func.func @subgroup(%f: f32, %i: i32) -> f32 {
  %0 = spirv.GroupNonUniformFAdd <Subgroup> <Reduce> %f : f32 -> f32
  %1 = spirv.GroupNonUniformIAdd <Workgroup> <InclusiveScan> %i : i32 -> i32
  %2 = spirv.GroupNonUniformElect <Subgroup> : i1
  spirv.ReturnValue %0 : f32
}

// The other subgroup operations of ti.simt: arithmetic, broadcasts, shuffles and votes.
// CHECK-LABEL: func.func @subgroup_more(%{{.*}}: f32, %{{.*}}: i32, %{{.*}}: i1) -> f32 {
// CHECK-NEXT:    %{{.*}} = spirv.GroupNonUniformFMin <Subgroup> <ExclusiveScan> %{{.*}} : f32 -> f32
// CHECK-NEXT:    %{{.*}} = spirv.GroupNonUniformUMax <Subgroup> <Reduce> %{{.*}} : i32 -> i32
// CHECK-NEXT:    %{{.*}} = spirv.GroupNonUniformBitwiseXor <Subgroup> <InclusiveScan> %{{.*}} : i32 -> i32
// CHECK-NEXT:    %{{.*}} = spirv.GroupNonUniformBroadcast <Subgroup> %{{.*}}, %{{.*}} : f32, i32 -> f32
// CHECK-NEXT:    %{{.*}} = spirv.GroupNonUniformShuffleDown <Subgroup> %{{.*}}, %{{.*}} : f32, i32 -> f32
// CHECK-NEXT:    %{{.*}} = spirv.GroupNonUniformShuffleXor <Subgroup> %{{.*}}, %{{.*}} : i32, i32 -> i32
// CHECK-NEXT:    %{{.*}} = spirv.GroupNonUniformBroadcastFirst <Subgroup> %{{.*}} : f32 -> f32
// CHECK-NEXT:    %{{.*}} = spirv.GroupNonUniformAny <Subgroup> %{{.*}} : i1 -> i1
// CHECK-NEXT:    %{{.*}} = spirv.GroupNonUniformAllEqual <Subgroup> %{{.*}} : f32 -> i1
func.func @subgroup_more(%f: f32, %i: i32, %c: i1) -> f32 {
  %0 = spirv.GroupNonUniformFMin <Subgroup> <ExclusiveScan> %f : f32 -> f32
  %1 = spirv.GroupNonUniformUMax <Subgroup> <Reduce> %i : i32 -> i32
  %2 = spirv.GroupNonUniformBitwiseXor <Subgroup> <InclusiveScan> %i : i32 -> i32
  %3 = spirv.GroupNonUniformBroadcast <Subgroup> %f, %i : f32, i32 -> f32
  %4 = spirv.GroupNonUniformShuffleDown <Subgroup> %f, %i : f32, i32 -> f32
  %5 = spirv.GroupNonUniformShuffleXor <Subgroup> %i, %i : i32, i32 -> i32
  %6 = spirv.GroupNonUniformBroadcastFirst <Subgroup> %f : f32 -> f32
  %7 = spirv.GroupNonUniformAny <Subgroup> %c : i1 -> i1
  %8 = spirv.GroupNonUniformAllEqual <Subgroup> %f : f32 -> i1
  spirv.ReturnValue %0 : f32
}
