# RUN: %python %s | filecheck %s
# ti.append under a pointer SNode activates each pooled cell once: the length word and
# the element share the pointer cell above the list, so the store reuses the block the
# length's activation took (a claim: atomic_cas, then pool_alloc; a second activation
# of the same cell would only find it active, but costs the whole claim-and-wait code,
# which lavapipe runs for every invocation). The chunk of the element is claimed once.

import taichi_xdsl as ti

ti.init(arch=ti.cpu)

x = ti.field(ti.i32, name="x")
ti.root.pointer(ti.i, 4).dynamic(ti.j, 64, chunk_size=16).place(x)


@ti.kernel
def push(i: ti.i32) -> ti.i32:
    return ti.append(x.parent(), i, 7)


# CHECK-LABEL:  taichi.kernel @push
# CHECK:          %[[CLAIM:.*]] = taichi.atomic_cas
# CHECK:          taichi.pool_alloc
# CHECK:          taichi.append
# CHECK:          %[[CHUNK:.*]] = taichi.atomic_cas
# CHECK:          taichi.pool_alloc
# CHECK-NOT:      taichi.atomic_cas
# CHECK-NOT:      taichi.pool_alloc
# CHECK:          taichi.return
print(push.get_ir(1))
