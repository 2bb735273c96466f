// RUN: ti-opt %s -p 'convert-offload-to-spirv{caps="spirv_has_int8+spirv_has_int64+spirv_has_float16+spirv_has_float64"}' | filecheck %s

// taichi.print on Vulkan: each print reserves 1 + (its words) words of the print buffer
// (binding 4) with one atomic add on word 0, and, when they fit below the last word,
// writes its id and its words there; otherwise it counts itself in the last word
// (65535) as dropped. Ids number the prints of the kernel across its tasks; the module's
// ti.prints lists them with the kinds the host decodes the words as (i1 as a 0/1 word, i8
// sign-extended, f16 widened to f32, 64-bit values as two words, low first).

offload.kernel @show : (i32) -> () {
  offload.serial {
    %a = offload.arg 0 : i32
    %b = spirv.INotEqual %a, %a : i32
    taichi.print "a = {} {}" %a, %b : i32, i1
  }
  offload.serial {
    %a = offload.arg 0 : i32
    %s = spirv.SConvert %a : i32 to i8
    %h = spirv.ConvertSToF %a : i32 to f16
    taichi.print "{}" %s : i8
    %w = spirv.SConvert %a : i32 to i64
    %d = spirv.ConvertSToF %a : i32 to f64
    taichi.print "{} {} {}" %h, %w, %d : f16, i64, f64
    taichi.print "end"
  }
}

// CHECK:       spirv.module {{.*}} attributes {ti.prints = {{\[}}["0", "a = {} {}\0A", "i32", "i1"]], ti.kernel = "show", ti.task = 0 : i64} {
// CHECK:         %[[Z:.*]] = spirv.Constant 0 : i32
// CHECK:         %[[PRINTS:.*]] = spirv.mlir.addressof @prints_i32
// CHECK-NEXT:    %[[C1:.*]] = spirv.Constant 1 : i32
// CHECK-NEXT:    %[[LAST:.*]] = spirv.Constant 65535 : i32
// CHECK:         %[[A:.*]] = spirv.Load "StorageBuffer" %{{.*}} : i32
// CHECK-NEXT:    %[[B:.*]] = spirv.INotEqual %[[A]], %[[A]] : i32
// CHECK-NEXT:    %[[ONE:.*]] = spirv.Constant 1 : i32
// CHECK-NEXT:    %[[ZERO:.*]] = spirv.Constant 0 : i32
// CHECK-NEXT:    %[[BW:.*]] = spirv.Select %[[B]], %[[ONE]], %[[ZERO]] : i1, i32
// CHECK-NEXT:    %[[COUNT:.*]] = spirv.AccessChain %[[PRINTS]][%[[Z]], %[[Z]]]
// CHECK-NEXT:    %[[SIZE:.*]] = spirv.Constant 3 : i32
// CHECK-NEXT:    %[[AT:.*]] = spirv.AtomicIAdd <Device> <None> %[[COUNT]], %[[SIZE]]
// CHECK-NEXT:    %[[LIMIT:.*]] = spirv.Constant 65532 : i32
// CHECK-NEXT:    %[[FITS:.*]] = spirv.SLessThan %[[AT]], %[[LIMIT]] : i32
// CHECK-NEXT:    spirv.mlir.selection {
// CHECK-NEXT:      spirv.BranchConditional %[[FITS]], ^[[THEN:.*]], ^[[DROP:.*]]
// CHECK-NEXT:    ^[[THEN]]:
// CHECK-NEXT:      %[[START:.*]] = spirv.IAdd %[[AT]], %[[C1]] : i32
// CHECK-NEXT:      %[[ID:.*]] = spirv.Constant 0 : i32
// CHECK-NEXT:      %[[O0:.*]] = spirv.Constant 0 : i32
// CHECK-NEXT:      %[[S0:.*]] = spirv.IAdd %[[START]], %[[O0]] : i32
// CHECK-NEXT:      %[[P0:.*]] = spirv.AccessChain %[[PRINTS]][%[[Z]], %[[S0]]]
// CHECK-NEXT:      spirv.Store "StorageBuffer" %[[P0]], %[[ID]] : i32
// CHECK-NEXT:      %[[O1:.*]] = spirv.Constant 1 : i32
// CHECK-NEXT:      %[[S1:.*]] = spirv.IAdd %[[START]], %[[O1]] : i32
// CHECK-NEXT:      %[[P1:.*]] = spirv.AccessChain %[[PRINTS]][%[[Z]], %[[S1]]]
// CHECK-NEXT:      spirv.Store "StorageBuffer" %[[P1]], %[[A]] : i32
// CHECK-NEXT:      %[[O2:.*]] = spirv.Constant 2 : i32
// CHECK-NEXT:      %[[S2:.*]] = spirv.IAdd %[[START]], %[[O2]] : i32
// CHECK-NEXT:      %[[P2:.*]] = spirv.AccessChain %[[PRINTS]][%[[Z]], %[[S2]]]
// CHECK-NEXT:      spirv.Store "StorageBuffer" %[[P2]], %[[BW]] : i32
// CHECK-NEXT:      spirv.Branch ^[[MERGE:.*]]
// The dropped branch counts with the same 1, from the entry block (dominating both).
// CHECK-NEXT:    ^[[DROP]]:
// CHECK-NEXT:      %[[LP:.*]] = spirv.AccessChain %[[PRINTS]][%[[Z]], %[[LAST]]]
// CHECK-NEXT:      %{{.*}} = spirv.AtomicIAdd <Device> <None> %[[LP]], %[[C1]]
// CHECK-NEXT:      spirv.Branch ^[[MERGE]]
// CHECK-NEXT:    ^[[MERGE]]:
// CHECK-NEXT:      spirv.mlir.merge
// CHECK-NEXT:    }
// CHECK-NEXT:    spirv.Return

// The second task's prints are 1, 2 and 3.
// CHECK:       spirv.module {{.*}} attributes {ti.prints = {{\[}}["1", "{}\0A", "i8"], ["2", "{} {} {}\0A", "f32", "i64", "f64"], ["3", "end\0A"]], ti.kernel = "show", ti.task = 1 : i64} {
// CHECK:         %[[PRINTS:.*]] = spirv.mlir.addressof @prints_i32
// CHECK:         %[[PRINTSF:.*]] = spirv.mlir.addressof @prints_f32
// CHECK:         %[[H:.*]] = spirv.ConvertSToF %{{.*}} : i32 to f16
// CHECK-NEXT:    %[[S8:.*]] = spirv.SConvert %{{.*}} : i8 to i32
// CHECK:         %{{.*}} = spirv.Constant 2 : i32
// CHECK:         %{{.*}} = spirv.Constant 65533 : i32
// CHECK:         %{{.*}} = spirv.IAdd
// CHECK-NEXT:    %[[ID1:.*]] = spirv.Constant 1 : i32
// CHECK:         spirv.Store "StorageBuffer" %{{.*}}, %[[ID1]] : i32
// CHECK:         spirv.Store "StorageBuffer" %{{.*}}, %[[S8]] : i32
// CHECK:         %[[HW:.*]] = spirv.FConvert %[[H]] : f16 to f32
// CHECK-NEXT:    %[[WP:.*]] = spirv.Bitcast %{{.*}} : i64 to vector<2xi32>
// CHECK-NEXT:    %[[WLO:.*]] = spirv.CompositeExtract %[[WP]][0 : i32] : vector<2xi32>
// CHECK-NEXT:    %[[WHI:.*]] = spirv.CompositeExtract %[[WP]][1 : i32] : vector<2xi32>
// CHECK-NEXT:    %[[DP:.*]] = spirv.Bitcast %{{.*}} : f64 to vector<2xi32>
// CHECK-NEXT:    %[[DLO:.*]] = spirv.CompositeExtract %[[DP]][0 : i32] : vector<2xi32>
// CHECK-NEXT:    %[[DHI:.*]] = spirv.CompositeExtract %[[DP]][1 : i32] : vector<2xi32>
// CHECK:         %{{.*}} = spirv.Constant 6 : i32
// CHECK:         %{{.*}} = spirv.Constant 65529 : i32
// CHECK:         %{{.*}} = spirv.IAdd
// CHECK-NEXT:    %[[ID2:.*]] = spirv.Constant 2 : i32
// CHECK:         spirv.Store "StorageBuffer" %{{.*}}, %[[ID2]] : i32
// CHECK:         %[[FP:.*]] = spirv.AccessChain %[[PRINTSF]][%{{.*}}, %{{.*}}]
// CHECK-NEXT:    spirv.Store "StorageBuffer" %[[FP]], %[[HW]] : f32
// CHECK:         spirv.Store "StorageBuffer" %{{.*}}, %[[WLO]] : i32
// CHECK:         spirv.Store "StorageBuffer" %{{.*}}, %[[WHI]] : i32
// CHECK:         spirv.Store "StorageBuffer" %{{.*}}, %[[DLO]] : i32
// CHECK:         spirv.Store "StorageBuffer" %{{.*}}, %[[DHI]] : i32
// CHECK:         %{{.*}} = spirv.Constant 1 : i32
// CHECK:         %{{.*}} = spirv.Constant 65534 : i32
// CHECK:         %{{.*}} = spirv.IAdd
// CHECK-NEXT:    %[[ID3:.*]] = spirv.Constant 3 : i32
// CHECK:         spirv.Store "StorageBuffer" %{{.*}}, %[[ID3]] : i32
// CHECK-NEXT:    spirv.Branch
