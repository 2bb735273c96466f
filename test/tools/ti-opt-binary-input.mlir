// RUN: %python -c "open(r'%t.mlir', 'wb').write(b'\x7fELF\x02\x01\x01\n\x00\xd0\xfe')"
// RUN: not ti-opt %t.mlir 2>&1 | filecheck %s
// A binary file: the error names the file and where the first byte that is not UTF-8 is.

// CHECK-NOT: Traceback
// CHECK: ti-opt-binary-input.mlir.tmp.mlir:2:2: error: not UTF-8 text (byte 0xd0); is this a binary file?
