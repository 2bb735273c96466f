"""
The Vulkan task ABI: how SPIR-V tasks see a launch, shared by the offload -> spirv
conversions (which emit code that follows it) and the Vulkan backend (which binds buffers
that follow it). The CPU counterpart is utils/abi.py.

Every task N of an `offload.kernel @k` becomes its own `spirv.module` with one GLCompute
entry point `@k__taskN`:

- serial task: LocalSize 1, dispatched as one workgroup; the body runs only where
  GlobalInvocationId.x == 0;
- range_for task: LocalSize block_dim (default DEFAULT_BLOCK_DIM); a grid-stride loop
  `for (i = lower + gid.x; i < upper; i += NumWorkgroups.x * LocalSize)`, with the task's
  prologue before it and its epilogue after it, once per invocation. The host dispatches
  min(ceil(n / LocalSize), maxComputeWorkGroupCount.x) groups for constant bounds and
  DYNAMIC_GROUPS groups when a bound is a global temporary, so no dispatch ever exceeds
  the device limit;
- struct_for task: a range_for over the flattened element indices of its field.

Buffers, all storage buffers of descriptor set 0 (every task binds all of them):

    binding 0  root               fields; `taichi.field ... offset N` is a byte offset
    binding 1  global temporaries `offload.global_tmp N` is a byte offset
    binding 2  arguments          utils/abi.py's packing: a scalar takes 8 bytes (value at
                                  the start), an ndarray 8 + 8*rank (8 unused bytes, then
                                  its shape as little-endian i64; tasks read the low i32)
    binding 3  return values      8 bytes a value, value i at 8*i; i1 is stored as i32
    binding 4  print buffer       word 0: words used (atomic counter); then records
    binding 5  error record       debug mode: 4 i32 words (code, a, b, c); see below
    binding 6+i                   the i-th ndarray argument (in argument order)
    binding 6+n+j                 the j-th texture argument (n: the kernel's ndarray
                                  count): a combined image sampler for
                                  `ti.types.texture`, a storage image (explicit format)
                                  for `ti.types.rw_texture`
    binding 6+n+t+k-1             root segment k >= 1 (t: the kernel's texture count;
                                  see below)

Root segments: a device's storage-buffer binding holds at most maxStorageBufferRange
bytes (128 MiB on lavapipe), less than the fields may take together. With
`convert-offload-to-spirv{root-segment-bytes=S}` (S > 0) the root is bound as segments of
S bytes: segment k holds the root's bytes [k*S, (k+1)*S) as a buffer of its own, segment
0 at binding 0 and segment k >= 1 after the texture bindings (`root_segment_binding`).
The program lays its fields out so that none straddles a segment boundary (lang/
program.py), so a field's (segment, offset in it) is known at compile time from its root
offset: `offset // S`, `offset % S`. Each task module records in `ti.root_segments` how
many segments its kernel binds (the backend binds that many). S = 0: one root buffer.

A texture argument's slot in the argument buffer has an ndarray's layout (8 unused bytes,
then its extents as i64): `rw.shape` and a struct-for over an rw texture read them.
Texture coordinates follow Taichi: (i, j, k) is (x, y, z), i along the width; the host
keeps a texture's texels x-fastest.

A buffer is declared once per element type it is accessed as: `@root_f32` and `@root_i32`
are two `spirv.GlobalVariable`s of binding 0, each a Block struct holding a runtime array
of that type (aliasing views, as Taichi's SPIR-V codegen does). An element at byte offset
B of type T is element B / sizeof(T) of the T view: fields are 64-byte aligned and global
temporaries and arguments naturally aligned, so the division is exact.

Print records: `taichi.print` reserves 1 + (its values' words) words with an atomic add on
word 0, then writes the print's id (its position in the kernel's PrintSpec table) and its
values (32-bit values one word, 64-bit ones two, little-endian); a record that does not fit
is dropped and counted in the last word. The host decodes the records in buffer order at
sync.

Error record (debug mode, `convert-offload-to-spirv{debug=true}`): an access with an
index out of bounds is skipped (a load gives 0) and the task writes (ERROR_INDEX_OUT_OF_
BOUNDS, site << 8 | dimension, index, extent), the site the id + 1 of the access's
`file:line:column` in the kernel's `ti.asserts` table (0: none; utils/errors.py
SITE_SHIFT); a false assert writes (ERROR_ASSERTION, message id, 0, 0), the id indexing
that table. Only the invocation whose atomic
compare-exchange moves word 0 from 0 to the code writes the other words. The host reads
the record when it syncs after a debug-mode launch, raises, and clears it.

Capabilities: code is generated for declared caps (Taichi's DeviceCapability names, as
`DeviceCaps.taichi_caps()` lists them), never for the live device: 8/16/64-bit types need
`spirv_has_int8` ... `spirv_has_float64`; a float atomic add is native
(OpAtomicFAddEXT) with `spirv_has_atomic_float_add` / `spirv_has_atomic_float64_add` and a
compare-and-swap loop on the bit pattern otherwise.
"""

from __future__ import annotations

from collections.abc import Mapping

ROOT_BINDING = 0
GTMP_BINDING = 1
ARGS_BINDING = 2
RETURNS_BINDING = 3
PRINT_BINDING = 4
ERROR_BINDING = 5
FIRST_NDARRAY_BINDING = 6

BUFFER_NAMES = {
    ROOT_BINDING: "root",
    GTMP_BINDING: "gtmps",
    ARGS_BINDING: "args",
    RETURNS_BINDING: "returns",
    PRINT_BINDING: "prints",
    ERROR_BINDING: "error",
}

ERROR_INDEX_OUT_OF_BOUNDS = 1
ERROR_ASSERTION = 2
ERROR_RECORD_WORDS = 4

DEFAULT_BLOCK_DIM = 128
DYNAMIC_GROUPS = 256
"""Workgroups dispatched for a range_for whose bounds are only known on the device."""

PRINT_BUFFER_WORDS = 1 << 16
"""Words of the print buffer (word 0 is the counter)."""

RETURN_SLOT_BYTES = 8

DEFAULT_CAPS: dict[str, int] = {"spirv_has_int64": 1, "spirv_has_float64": 1}
"""What code is generated for when no caps are given: 32-bit everything, plus i64/f64."""

DEVICE_CAPABILITIES: tuple[str, ...] = (
    "spirv_version",
    "spirv_has_int8",
    "spirv_has_int16",
    "spirv_has_int64",
    "spirv_has_float16",
    "spirv_has_float64",
    "spirv_has_atomic_int64",
    "spirv_has_atomic_float16",
    "spirv_has_atomic_float16_add",
    "spirv_has_atomic_float16_minmax",
    "spirv_has_atomic_float",
    "spirv_has_atomic_float_add",
    "spirv_has_atomic_float_minmax",
    "spirv_has_atomic_float64",
    "spirv_has_atomic_float64_add",
    "spirv_has_atomic_float64_minmax",
    "spirv_has_variable_ptr",
    "spirv_has_physical_storage_buffer",
    "spirv_has_subgroup_basic",
    "spirv_has_subgroup_vote",
    "spirv_has_subgroup_arithmetic",
    "spirv_has_subgroup_ballot",
    "spirv_has_non_semantic_info",
    "spirv_has_no_integer_wrap_decoration",
)
"""The device capability names a Vulkan AOT module may declare (Taichi's
`ti.DeviceCapability`); `spirv_version` takes a number (0x10300 for SPIR-V 1.3)."""


def ndarray_binding(ndarray_position: int) -> int:
    """The binding of the `ndarray_position`-th ndarray argument."""
    return FIRST_NDARRAY_BINDING + ndarray_position


def texture_binding(num_ndarrays: int, texture_position: int) -> int:
    """The binding of the `texture_position`-th texture argument of a kernel with
    `num_ndarrays` ndarray arguments."""
    return FIRST_NDARRAY_BINDING + num_ndarrays + texture_position


TEXTURE_FORMATS: dict[str, tuple[str, int, int, str]] = {
    # Taichi ti.Format -> (SPIR-V image format, VkFormat, channels, texel channel dtype)
    "r8": ("R8", 9, 1, "unorm8"),
    "rg8": ("Rg8", 16, 2, "unorm8"),
    "rgba8": ("Rgba8", 37, 4, "unorm8"),
    "r16": ("R16", 70, 1, "unorm16"),
    "rg16": ("Rg16", 77, 2, "unorm16"),
    "rgba16": ("Rgba16", 91, 4, "unorm16"),
    "r16f": ("R16f", 76, 1, "f16"),
    "rg16f": ("Rg16f", 83, 2, "f16"),
    "rgba16f": ("Rgba16f", 97, 4, "f16"),
    "r32f": ("R32f", 100, 1, "f32"),
    "rg32f": ("Rg32f", 103, 2, "f32"),
    "rgba32f": ("Rgba32f", 109, 4, "f32"),
}
"""The texel formats textures support: normalized and float ones, read and written as
four f32 channels. (Integer formats would need integer texels; 3-channel formats are
not storage-image formats in Vulkan.)"""


def root_segment_bytes(max_storage_buffer_range: int) -> int:
    """The segment size S of a root bound on a device whose bindings hold at most
    `max_storage_buffer_range` bytes: that limit rounded down to the fields' 64-byte
    alignment (lang/program.FIELD_ALIGN), and below 2**31 (element indices are i32)."""
    return min(max_storage_buffer_range, 2**31 - 64) // 64 * 64


def root_segment_binding(segment: int, num_ndarrays: int, num_textures: int) -> int:
    """The binding of root segment `segment` of a kernel with these argument counts."""
    if segment == 0:
        return ROOT_BINDING
    return FIRST_NDARRAY_BINDING + num_ndarrays + num_textures + segment - 1


def buffer_name(binding: int) -> str:
    """The name of a binding's buffer in the IR (`root`, `arr0`, ...)."""
    if binding >= FIRST_NDARRAY_BINDING:
        return f"arr{binding - FIRST_NDARRAY_BINDING}"
    return BUFFER_NAMES[binding]


def task_symbol(kernel_name: str, task_index: int) -> str:
    """The entry point of task `task_index` of kernel `kernel_name`."""
    return f"{kernel_name}__task{task_index}"


def parse_caps(text: str) -> dict[str, int]:
    """
    Caps from a pass option: "" gives DEFAULT_CAPS, "none" nothing beyond 32-bit types,
    otherwise `name[=value]` items separated by `;` or `+` (value 1 when omitted).
    """
    text = text.strip()
    if not text:
        return dict(DEFAULT_CAPS)
    if text == "none":
        return {}
    caps: dict[str, int] = {}
    for item in text.replace("+", ";").split(";"):
        item = item.strip()
        if not item:
            continue
        name, _, value = item.partition("=")
        caps[name.strip()] = int(value, 0) if value else 1
    return caps


def format_caps(caps: Mapping[str, int]) -> str:
    """
    The pass-option form of `caps` (inverse of parse_caps for boolean caps; numeric
    ones such as spirv_version do not change the generated code and are left out).
    """
    items = [
        name
        for name, value in sorted(caps.items())
        if value and name.startswith("spirv_has")
    ]
    return "+".join(items) if items else "none"

