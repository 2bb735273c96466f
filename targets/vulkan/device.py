"""
Vulkan device discovery, selection and creation, on the `vulkan` Python package (cffi).

    ok, reason = vulkan_available()          # (False, "...") instead of an exception
    for caps in list_devices(): print(caps.summary())
    dev = VulkanDevice(device=None)          # discrete > integrated > virtual > cpu
    dev.caps.max_compute_work_group_count    # DeviceCaps: what code generation may use
    dev.close()

Choosing a device: the `device` argument (an index into Vulkan's enumeration order, a
case-insensitive substring of the device name, or a device type: "discrete", "integrated",
"virtual", "cpu"), else the `TI_VULKAN_DEVICE` environment variable (same syntax; e.g.
TI_VULKAN_DEVICE=cpu picks lavapipe on a machine with a GPU), else the best-ranked device: a discrete GPU first, then an
integrated one, then a virtual one, then a CPU implementation such as Mesa's lavapipe.

Nothing here crashes the interpreter for a missing binding, loader, driver or device: every
such case raises `VulkanUnavailable` with the reason, and every failing VkResult raises
`VulkanError` naming the call and the result. This module imports neither xdsl nor
llvmlite (AOT modules run Vulkan kernels in a process that never loads the compiler).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

ENV_DEVICE = "TI_VULKAN_DEVICE"
ENV_VALIDATION = "TI_VULKAN_VALIDATION"  # "1": enable the Khronos validation layer
# VK_WHOLE_SIZE is ~0ULL; the binding spells it -1, which cffi will not pass as uint64.
WHOLE_SIZE = (1 << 64) - 1

_DEVICE_TYPES = {0: "other", 1: "integrated", 2: "discrete", 3: "virtual", 4: "cpu"}
_TYPE_RANK = {"discrete": 0, "integrated": 1, "virtual": 2, "other": 3, "cpu": 4}
_SUBGROUP_OPS = (
    "basic",
    "vote",
    "arithmetic",
    "ballot",
    "shuffle",
    "shuffle_relative",
    "clustered",
    "quad",
)

# The highest Vulkan API version we ask for; newer drivers still run 1.3 applications.
_MAX_API = (1, 3, 0)


class VulkanUnavailable(RuntimeError):
    """No usable Vulkan here: the binding, the loader, a driver or a device is missing."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


class VulkanError(RuntimeError):
    """A Vulkan call returned a failing VkResult (`result`, `result_name`)."""

    def __init__(self, call: str, result: int, result_name: str):
        super().__init__(f"{call} failed: {result_name} ({result})")
        self.call = call
        self.result = result
        self.result_name = result_name


# ---------------------------------------------------------------------------------------
# The binding

_binding: Any = None
_binding_error: VulkanUnavailable | None = None


def load_vulkan() -> Any:
    """
    Import the `vulkan` package (which dlopens libvulkan.so.1) once.

    Raises:
        VulkanUnavailable: the package or the Vulkan loader is missing.
    """
    global _binding, _binding_error
    if _binding is not None:
        return _binding
    if _binding_error is not None:
        raise _binding_error
    try:
        import vulkan  # optional dependency, loaded on first use
    except ImportError as exc:
        _binding_error = VulkanUnavailable(f"the `vulkan` Python package is missing: {exc}")
    except OSError as exc:
        _binding_error = VulkanUnavailable(
            f"the Vulkan loader (libvulkan.so.1) could not be loaded: {exc}"
        )
    except Exception as exc:  # noqa: BLE001 - a broken binding must not end the interpreter
        _binding_error = VulkanUnavailable(
            f"the `vulkan` package failed to import: {exc!r}"
        )
    if _binding_error is not None:
        raise _binding_error
    _binding = vulkan
    return vulkan


_result_names: dict[int, str] = {}


def error_code(vk: Any, name: str) -> int:
    """The VkResult of a VK_ERROR_* name. Every error code is negative, but the `vulkan`
    binding gives some promoted from extensions with the sign lost
    (VK_ERROR_OUT_OF_POOL_MEMORY is 1000069000 there; drivers return -1000069000)."""
    return -abs(getattr(vk, name))


def result_name(result: int) -> str:
    """The VK_* name of a VkResult value."""
    if not _result_names:
        vk = load_vulkan()
        for name in (
            "VK_SUCCESS",
            "VK_NOT_READY",
            "VK_TIMEOUT",
            "VK_EVENT_SET",
            "VK_EVENT_RESET",
            "VK_INCOMPLETE",
        ):
            _result_names[getattr(vk, name)] = name
        for name in dir(vk):
            if name.startswith("VK_ERROR_"):
                if isinstance(getattr(vk, name), int):
                    _result_names.setdefault(error_code(vk, name), name)
    return _result_names.get(result, "unknown VkResult")


def check(result: int, call: str) -> None:
    """Raise VulkanError unless `result` is VK_SUCCESS."""
    if result != 0:
        raise VulkanError(call, result, result_name(result))


def _enumerate(
    vk: Any, call: str, ctype: str, *args: Any, convert: Any = None
) -> list[Any]:
    """
    The two-call enumeration idiom (count, then array) with VkResult checks; `convert`
    maps each element to a Python value while the array is still alive (cffi items of a
    struct array do not keep the array alive).
    """
    ffi, fn = vk.ffi, getattr(vk.lib, call)
    count = ffi.new("uint32_t*")
    while True:
        check(fn(*args, count, ffi.NULL), call)
        array = ffi.new(f"{ctype}[]", count[0])
        result = fn(*args, count, array)
        if result == vk.VK_INCOMPLETE:  # the set grew between the two calls
            continue
        check(result, call)
        return [convert(array[i]) if convert else array[i] for i in range(count[0])]


def _version_tuple(version: int) -> tuple[int, int, int]:
    return ((version >> 22) & 0x7F, (version >> 12) & 0x3FF, version & 0xFFF)


def _make_version(major: int, minor: int, patch: int) -> int:
    return (major << 22) | (minor << 12) | patch


# ---------------------------------------------------------------------------------------
# Capabilities


@dataclass(frozen=True)
class DeviceCaps:
    """
    What one Vulkan physical device offers, as code generation needs it.

    Limits come from VkPhysicalDeviceLimits; the booleans are features that the runtime
    enables on the logical device whenever the device has them (so generated code may use
    exactly what is True here).
    """

    index: int
    name: str
    device_type: str  # "discrete", "integrated", "virtual", "cpu" or "other"
    vendor_id: int
    device_id: int
    api_version: tuple[int, int, int]
    driver_version: int
    max_compute_work_group_count: tuple[int, int, int]
    max_compute_work_group_size: tuple[int, int, int]
    max_compute_work_group_invocations: int
    max_compute_shared_memory_size: int
    max_storage_buffer_range: int
    max_push_constants_size: int
    max_bound_descriptor_sets: int
    max_per_stage_descriptor_storage_buffers: int
    min_storage_buffer_offset_alignment: int
    non_coherent_atom_size: int
    subgroup_size: int = 0
    subgroup_operations: frozenset[str] = frozenset()
    # Memory: every device-local memory type is also host-visible (CPU or UMA devices).
    host_visible_device_memory: bool = False
    device_local_bytes: int = 0
    # Core features
    shader_float64: bool = False
    shader_int64: bool = False
    shader_int16: bool = False
    # Vulkan 1.1 / 1.2 (or their KHR extensions)
    shader_int8: bool = False
    shader_float16: bool = False
    storage_buffer_8bit_access: bool = False
    storage_buffer_16bit_access: bool = False
    variable_pointers: bool = False
    shader_buffer_int64_atomics: bool = False
    # VK_EXT_shader_atomic_float / VK_EXT_shader_atomic_float2
    shader_buffer_float32_atomics: bool = False
    shader_buffer_float32_atomic_add: bool = False
    shader_buffer_float32_atomic_min_max: bool = False
    shader_buffer_float64_atomics: bool = False
    shader_buffer_float64_atomic_add: bool = False
    shader_buffer_float64_atomic_min_max: bool = False
    shader_buffer_float16_atomics: bool = False
    shader_buffer_float16_atomic_add: bool = False
    shader_buffer_float16_atomic_min_max: bool = False
    # VkPhysicalDeviceFloatControlsProperties (Vulkan 1.2 or VK_KHR_shader_float_controls):
    # the SignedZeroInfNanPreserve execution mode may be declared for that width.
    signed_zero_inf_nan_preserve_float16: bool = False
    signed_zero_inf_nan_preserve_float32: bool = False
    signed_zero_inf_nan_preserve_float64: bool = False
    extensions: frozenset[str] = field(default=frozenset(), repr=False)

    @property
    def spirv_version(self) -> int:
        """The highest SPIR-V version to target, as Taichi 1.7 chooses it (0x10500 = 1.5)."""
        if self.api_version >= (1, 2, 0):
            return 0x10500
        if self.api_version >= (1, 1, 0):
            return 0x10300
        return 0x10000

    def taichi_caps(self) -> dict[str, int]:
        """
        Taichi's DeviceCapability names (taichi/inc/rhi_constants.inc.h) with their
        values, listing only what the device has. 8- and 16-bit types count only when
        storage buffers can hold them too, since generated code loads them from buffers.
        """
        has = {
            "spirv_has_int8": self.shader_int8 and self.storage_buffer_8bit_access,
            "spirv_has_int16": self.shader_int16 and self.storage_buffer_16bit_access,
            "spirv_has_int64": self.shader_int64,
            "spirv_has_float16": self.shader_float16 and self.storage_buffer_16bit_access,
            "spirv_has_float64": self.shader_float64,
            "spirv_has_atomic_int64": self.shader_buffer_int64_atomics,
            "spirv_has_atomic_float16": self.shader_buffer_float16_atomics,
            "spirv_has_atomic_float16_add": self.shader_buffer_float16_atomic_add,
            "spirv_has_atomic_float16_minmax": self.shader_buffer_float16_atomic_min_max,
            "spirv_has_atomic_float": self.shader_buffer_float32_atomics,
            "spirv_has_atomic_float_add": self.shader_buffer_float32_atomic_add,
            "spirv_has_atomic_float_minmax": self.shader_buffer_float32_atomic_min_max,
            "spirv_has_atomic_float64": self.shader_buffer_float64_atomics,
            "spirv_has_atomic_float64_add": self.shader_buffer_float64_atomic_add,
            "spirv_has_atomic_float64_minmax": self.shader_buffer_float64_atomic_min_max,
            "spirv_has_variable_ptr": self.variable_pointers,
            "spirv_has_subgroup_basic": "basic" in self.subgroup_operations,
            "spirv_has_subgroup_vote": "vote" in self.subgroup_operations,
            "spirv_has_subgroup_arithmetic": "arithmetic" in self.subgroup_operations,
            "spirv_has_subgroup_ballot": "ballot" in self.subgroup_operations,
            "spirv_has_subgroup_shuffle": "shuffle" in self.subgroup_operations,
            "spirv_has_subgroup_shuffle_relative": "shuffle_relative"
            in self.subgroup_operations,
            "spirv_has_non_semantic_info": "VK_KHR_shader_non_semantic_info"
            in self.extensions
            or self.api_version >= (1, 3, 0),
        }
        caps = {"spirv_version": self.spirv_version}
        caps.update({name: 1 for name, value in has.items() if value})
        return caps

    def summary(self) -> str:
        """One line for logs and test-skip reasons."""
        major, minor, patch = self.api_version
        return (
            f"[{self.index}] {self.name} ({self.device_type}, Vulkan {major}.{minor}.{patch}, "
            f"max groups {self.max_compute_work_group_count}, "
            f"f64={int(self.shader_float64)} i64={int(self.shader_int64)} "
            f"i16={int(self.shader_int16)} i8={int(self.shader_int8)} "
            f"atomic_f32_add={int(self.shader_buffer_float32_atomic_add)})"
        )


# Optional feature structures: (C type, sType, fields -> DeviceCaps attribute,
# the API version that made it core or None, the extension that provides it before).
_FEATURE_STRUCTS: tuple[
    tuple[str, int, dict[str, str], tuple[int, int] | None, str | None], ...
] = (
    (
        "VkPhysicalDevice16BitStorageFeatures",
        1000083000,
        {"storageBuffer16BitAccess": "storage_buffer_16bit_access"},
        (1, 1),
        None,
    ),
    (
        "VkPhysicalDeviceVariablePointersFeatures",
        1000120000,
        {"variablePointersStorageBuffer": "variable_pointers"},
        (1, 1),
        None,
    ),
    (
        "VkPhysicalDevice8BitStorageFeatures",
        1000177000,
        {"storageBuffer8BitAccess": "storage_buffer_8bit_access"},
        (1, 2),
        "VK_KHR_8bit_storage",
    ),
    (
        "VkPhysicalDeviceShaderFloat16Int8Features",
        1000082000,
        {"shaderFloat16": "shader_float16", "shaderInt8": "shader_int8"},
        (1, 2),
        "VK_KHR_shader_float16_int8",
    ),
    (
        "VkPhysicalDeviceShaderAtomicInt64Features",
        1000180000,
        {"shaderBufferInt64Atomics": "shader_buffer_int64_atomics"},
        (1, 2),
        "VK_KHR_shader_atomic_int64",
    ),
    (
        "VkPhysicalDeviceShaderAtomicFloatFeaturesEXT",
        1000260000,
        {
            "shaderBufferFloat32Atomics": "shader_buffer_float32_atomics",
            "shaderBufferFloat32AtomicAdd": "shader_buffer_float32_atomic_add",
            "shaderBufferFloat64Atomics": "shader_buffer_float64_atomics",
            "shaderBufferFloat64AtomicAdd": "shader_buffer_float64_atomic_add",
        },
        None,
        "VK_EXT_shader_atomic_float",
    ),
    (
        "VkPhysicalDeviceShaderAtomicFloat2FeaturesEXT",
        1000273000,
        {
            "shaderBufferFloat16Atomics": "shader_buffer_float16_atomics",
            "shaderBufferFloat16AtomicAdd": "shader_buffer_float16_atomic_add",
            "shaderBufferFloat16AtomicMinMax": "shader_buffer_float16_atomic_min_max",
            "shaderBufferFloat32AtomicMinMax": "shader_buffer_float32_atomic_min_max",
            "shaderBufferFloat64AtomicMinMax": "shader_buffer_float64_atomic_min_max",
        },
        None,
        "VK_EXT_shader_atomic_float2",
    ),
)
_CORE_FEATURES = {
    "shaderFloat64": "shader_float64",
    "shaderInt64": "shader_int64",
    "shaderInt16": "shader_int16",
}
# Extensions enabled whenever the device has them (besides those of _FEATURE_STRUCTS).
_OPTIONAL_EXTENSIONS = ("VK_KHR_shader_non_semantic_info",)


def _usable_feature_structs(api: tuple[int, int, int], extensions: frozenset[str]):
    """The feature structures this device can take, with the extension each needs."""
    if api < (1, 1, 0):
        return []
    usable = []
    for ctype, stype, fields, core, ext in _FEATURE_STRUCTS:
        if core is not None and api[:2] >= core:
            usable.append((ctype, stype, fields, None))
        elif ext is not None and ext in extensions:
            usable.append((ctype, stype, fields, ext))
    return usable


def _feature_chain(vk: Any, structs, values: dict[str, bool] | None):
    """
    A VkPhysicalDeviceFeatures2 with the given structures chained behind it; with
    `values`, each field is set from it (for device creation), else zero (for a query).
    Returns (root, keepalive list).
    """
    ffi = vk.ffi
    root = ffi.new("VkPhysicalDeviceFeatures2*")
    root.sType = vk.VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2
    keep: list[Any] = [root]
    tail = root
    for ctype, stype, fields, _ext in structs:
        try:
            node = ffi.new(f"{ctype}*")
        except ffi.error:  # the binding predates this structure: leave it out
            continue
        node.sType = stype
        if values is not None:
            for c_field, attr in fields.items():
                setattr(node, c_field, int(values.get(attr, False)))
        tail.pNext = node
        tail = node
        keep.append(node)
    if values is not None:
        for c_field, attr in _CORE_FEATURES.items():
            setattr(root.features, c_field, int(values.get(attr, False)))
    return root, keep


def _read_chain(keep: list[Any], structs) -> dict[str, bool]:
    values: dict[str, bool] = {}
    root = keep[0]
    for c_field, attr in _CORE_FEATURES.items():
        values[attr] = bool(getattr(root.features, c_field))
    by_stype = {int(node.sType): node for node in keep[1:]}
    for _ctype, stype, fields, _ext in structs:
        node = by_stype.get(stype)
        if node is None:
            continue
        for c_field, attr in fields.items():
            values[attr] = bool(getattr(node, c_field))
    return values


@dataclass
class PhysicalDevice:
    """A physical device as enumerated: its handle, capabilities and compute queue family."""

    handle: Any
    caps: DeviceCaps
    queue_family: int  # -1 when the device has no compute queue
    feature_structs: list[Any]
    features: dict[str, bool]


def _query_physical_device(vk: Any, handle: Any, index: int) -> PhysicalDevice:
    ffi, lib = vk.ffi, vk.lib
    props = ffi.new("VkPhysicalDeviceProperties*")
    lib.vkGetPhysicalDeviceProperties(handle, props)
    api = _version_tuple(props.apiVersion)
    limits = props.limits

    extensions = frozenset(
        _enumerate(
            vk,
            "vkEnumerateDeviceExtensionProperties",
            "VkExtensionProperties",
            handle,
            ffi.NULL,
            convert=lambda e: ffi.string(e.extensionName).decode(),
        )
    )

    subgroup_size, subgroup_ops = 0, frozenset()
    preserve: dict[str, bool] = {}
    structs = _usable_feature_structs(api, extensions)
    if api >= (1, 1, 0):
        sub = ffi.new("VkPhysicalDeviceSubgroupProperties*")
        sub.sType = vk.VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES
        props2 = ffi.new("VkPhysicalDeviceProperties2*")
        props2.sType = vk.VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2
        props2.pNext = sub
        float_controls = None
        if api >= (1, 2, 0) or "VK_KHR_shader_float_controls" in extensions:
            float_controls = ffi.new("VkPhysicalDeviceFloatControlsProperties*")
            float_controls.sType = (
                vk.VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FLOAT_CONTROLS_PROPERTIES
            )
            sub.pNext = float_controls
        lib.vkGetPhysicalDeviceProperties2(handle, props2)
        if float_controls is not None:
            preserve = {
                f"signed_zero_inf_nan_preserve_float{width}": bool(
                    getattr(float_controls, f"shaderSignedZeroInfNanPreserveFloat{width}")
                )
                for width in (16, 32, 64)
            }
        subgroup_size = int(sub.subgroupSize)
        subgroup_ops = frozenset(
            name
            for bit, name in enumerate(_SUBGROUP_OPS)
            if sub.supportedOperations >> bit & 1
        )
        root, keep = _feature_chain(vk, structs, None)
        lib.vkGetPhysicalDeviceFeatures2(handle, root)
        features = _read_chain(keep, structs)
    else:
        core = ffi.new("VkPhysicalDeviceFeatures*")
        lib.vkGetPhysicalDeviceFeatures(handle, core)
        features = {attr: bool(getattr(core, c)) for c, attr in _CORE_FEATURES.items()}

    mem = ffi.new("VkPhysicalDeviceMemoryProperties*")
    lib.vkGetPhysicalDeviceMemoryProperties(handle, mem)
    local = vk.VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT
    visible = (
        vk.VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | vk.VK_MEMORY_PROPERTY_HOST_COHERENT_BIT
    )
    local_types = [
        mem.memoryTypes[i].propertyFlags
        for i in range(mem.memoryTypeCount)
        if mem.memoryTypes[i].propertyFlags & local
    ]
    device_local_bytes = sum(
        int(mem.memoryHeaps[i].size)
        for i in range(mem.memoryHeapCount)
        if mem.memoryHeaps[i].flags & vk.VK_MEMORY_HEAP_DEVICE_LOCAL_BIT
    )

    queue_family = -1
    families = ffi.new("uint32_t*")
    lib.vkGetPhysicalDeviceQueueFamilyProperties(handle, families, ffi.NULL)
    family_props = ffi.new("VkQueueFamilyProperties[]", families[0])
    lib.vkGetPhysicalDeviceQueueFamilyProperties(handle, families, family_props)
    for i in range(families[0]):
        if (
            family_props[i].queueFlags & vk.VK_QUEUE_COMPUTE_BIT
            and family_props[i].queueCount
        ):
            queue_family = i
            break

    caps = DeviceCaps(
        index=index,
        name=ffi.string(props.deviceName).decode(errors="replace"),
        device_type=_DEVICE_TYPES.get(int(props.deviceType), "other"),
        vendor_id=int(props.vendorID),
        device_id=int(props.deviceID),
        api_version=api,
        driver_version=int(props.driverVersion),
        max_compute_work_group_count=tuple(int(v) for v in limits.maxComputeWorkGroupCount),
        max_compute_work_group_size=tuple(int(v) for v in limits.maxComputeWorkGroupSize),
        max_compute_work_group_invocations=int(limits.maxComputeWorkGroupInvocations),
        max_compute_shared_memory_size=int(limits.maxComputeSharedMemorySize),
        max_storage_buffer_range=int(limits.maxStorageBufferRange),
        max_push_constants_size=int(limits.maxPushConstantsSize),
        max_bound_descriptor_sets=int(limits.maxBoundDescriptorSets),
        max_per_stage_descriptor_storage_buffers=int(
            limits.maxPerStageDescriptorStorageBuffers
        ),
        min_storage_buffer_offset_alignment=int(limits.minStorageBufferOffsetAlignment),
        non_coherent_atom_size=int(limits.nonCoherentAtomSize),
        subgroup_size=subgroup_size,
        subgroup_operations=subgroup_ops,
        host_visible_device_memory=bool(local_types)
        and all(flags & visible == visible for flags in local_types),
        device_local_bytes=device_local_bytes,
        extensions=extensions,
        **features,
        **preserve,
    )
    return PhysicalDevice(handle, caps, queue_family, structs, features)


# ---------------------------------------------------------------------------------------
# Instance and selection


def _instance_layers_and_extensions(vk: Any) -> tuple[set[str], set[str]]:
    ffi = vk.ffi
    layers = _enumerate(
        vk,
        "vkEnumerateInstanceLayerProperties",
        "VkLayerProperties",
        convert=lambda p: ffi.string(p.layerName).decode(),
    )
    exts = _enumerate(
        vk,
        "vkEnumerateInstanceExtensionProperties",
        "VkExtensionProperties",
        ffi.NULL,
        convert=lambda e: ffi.string(e.extensionName).decode(),
    )
    return set(layers), set(exts)


class Instance:
    """A VkInstance (no window-system extensions) and its enumerated physical devices."""

    def __init__(self, *, validation: bool = False):
        vk = load_vulkan()
        ffi, lib = vk.ffi, vk.lib
        self.vk = vk
        self.handle: Any = None
        loader_version = _make_version(1, 0, 0)
        try:
            version = ffi.new("uint32_t*")
            if lib.vkEnumerateInstanceVersion(version) == 0:
                loader_version = int(version[0])
        except AttributeError:  # a Vulkan 1.0 loader lacks the entry point
            pass
        self.api_version = min(loader_version, _make_version(*_MAX_API))

        try:
            layers, extensions = _instance_layers_and_extensions(vk)
        except VulkanError as exc:
            raise VulkanUnavailable(
                f"the Vulkan loader cannot list extensions: {exc}"
            ) from None
        keep: list[Any] = []
        enabled_layers = (
            ["VK_LAYER_KHRONOS_validation"]
            if (validation and "VK_LAYER_KHRONOS_validation" in layers)
            else []
        )
        enabled_exts, flags = [], 0
        if "VK_KHR_portability_enumeration" in extensions:  # MoltenVK and friends
            enabled_exts.append("VK_KHR_portability_enumeration")
            flags |= 0x1  # VK_INSTANCE_CREATE_ENUMERATE_PORTABILITY_BIT_KHR

        def c_strings(names: list[str]) -> Any:
            strings = [ffi.new("char[]", n.encode()) for n in names]
            keep.extend(strings)
            return ffi.new("char*[]", strings) if strings else ffi.NULL

        name = ffi.new("char[]", b"taichi-xdsl")
        app = ffi.new(
            "VkApplicationInfo*",
            {
                "sType": vk.VK_STRUCTURE_TYPE_APPLICATION_INFO,
                "pApplicationName": name,
                "applicationVersion": 1,
                "pEngineName": name,
                "engineVersion": 1,
                "apiVersion": self.api_version,
            },
        )
        layer_array, ext_array = c_strings(enabled_layers), c_strings(enabled_exts)
        info = ffi.new(
            "VkInstanceCreateInfo*",
            {
                "sType": vk.VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
                "flags": flags,
                "pApplicationInfo": app,
                "enabledLayerCount": len(enabled_layers),
                "ppEnabledLayerNames": layer_array,
                "enabledExtensionCount": len(enabled_exts),
                "ppEnabledExtensionNames": ext_array,
            },
        )
        out = ffi.new("VkInstance*")
        result = lib.vkCreateInstance(info, ffi.NULL, out)
        if result != 0:
            raise VulkanUnavailable(
                f"vkCreateInstance failed: {result_name(result)} ({result}); "
                "no Vulkan driver (ICD) is installed or it cannot start"
            )
        self.handle = out[0]
        try:
            handles = _enumerate(
                vk, "vkEnumeratePhysicalDevices", "VkPhysicalDevice", self.handle
            )
            self.devices = [_query_physical_device(vk, h, i) for i, h in enumerate(handles)]
        except VulkanError as exc:
            self.close()
            raise VulkanUnavailable(
                f"the Vulkan driver cannot list its devices: {exc}"
            ) from None
        except Exception:
            self.close()
            raise

    def select(self, request: int | str | None = None) -> PhysicalDevice:
        """
        The device to use: `request` (index or name substring), else $TI_VULKAN_DEVICE,
        else the best-ranked compute-capable device.

        Raises:
            VulkanUnavailable: no device, or none matching the request.
        """
        usable = [d for d in self.devices if d.queue_family >= 0]
        if not usable:
            listing = ", ".join(d.caps.name for d in self.devices) or "none"
            raise VulkanUnavailable(
                f"no Vulkan device with a compute queue (devices: {listing})"
            )
        source = "device argument"
        if request is None or request == "":
            request, source = os.environ.get(ENV_DEVICE) or None, ENV_DEVICE
        if request is None:
            return min(usable, key=lambda d: (_TYPE_RANK[d.caps.device_type], d.caps.index))
        if isinstance(request, int) or str(request).strip().isdigit():
            wanted = int(request)
            matches = [d for d in usable if d.caps.index == wanted]
        else:
            text = str(request).strip().lower()
            matches = [
                d
                for d in usable
                if text in d.caps.name.lower() or text == d.caps.device_type
            ]
        if not matches:
            listing = "; ".join(d.caps.summary() for d in self.devices)
            raise VulkanUnavailable(
                f"no Vulkan device matches {source}={request!r} (devices: {listing})"
            )
        return min(matches, key=lambda d: (_TYPE_RANK[d.caps.device_type], d.caps.index))

    def close(self) -> None:
        if self.handle is not None:
            self.vk.lib.vkDestroyInstance(self.handle, self.vk.ffi.NULL)
            self.handle = None


def list_devices() -> list[DeviceCaps]:
    """Every physical device Vulkan enumerates (raises VulkanUnavailable without Vulkan)."""
    instance = Instance()
    try:
        return [d.caps for d in instance.devices]
    finally:
        instance.close()


_available: dict[str, tuple[bool, str]] = {}


def vulkan_available(device: int | str | None = None) -> tuple[bool, str]:
    """
    Whether a Vulkan device can be used here, and why (not): (True, device summary) or
    (False, reason). Honours `device` and $TI_VULKAN_DEVICE; cached per request.
    """
    key = f"{device!r}/{os.environ.get(ENV_DEVICE, '')}"
    if key not in _available:
        try:
            instance = Instance()
            try:
                _available[key] = (True, instance.select(device).caps.summary())
            finally:
                instance.close()
        except VulkanUnavailable as exc:
            _available[key] = (False, exc.reason)
        except VulkanError as exc:
            _available[key] = (False, str(exc))
    return _available[key]


# ---------------------------------------------------------------------------------------
# Logical device


class VulkanDevice:
    """
    A logical device with one compute queue, created with every feature of DeviceCaps
    that the physical device has (and the extensions those need).

    Args:
        device: index or name substring; None means $TI_VULKAN_DEVICE, then the best.
        validation: enable VK_LAYER_KHRONOS_validation when it is installed (also when
            $TI_VULKAN_VALIDATION is 1; its messages go to stdout).

    Raises:
        VulkanUnavailable: no usable device; VulkanError: device creation failed.
    """

    def __init__(self, device: int | str | None = None, *, validation: bool = False):
        validation = validation or os.environ.get(ENV_VALIDATION, "") == "1"
        self.instance = Instance(validation=validation)
        self.handle: Any = None
        try:
            self.physical = self.instance.select(device)
            self._create()
        except Exception:
            self.close()
            raise

    @property
    def caps(self) -> DeviceCaps:
        return self.physical.caps

    def _create(self) -> None:
        vk = self.vk = self.instance.vk
        ffi, lib = vk.ffi, vk.lib
        phys = self.physical
        api = phys.caps.api_version
        extensions = [ext for _c, _s, _f, ext in phys.feature_structs if ext]
        if "VK_EXT_shader_atomic_float2" in extensions and (
            "VK_EXT_shader_atomic_float" not in extensions
        ):
            extensions.remove("VK_EXT_shader_atomic_float2")
        extensions += [
            e
            for e in _OPTIONAL_EXTENSIONS
            if e in phys.caps.extensions and e not in extensions
        ]
        self.enabled_extensions = tuple(extensions)

        priority = ffi.new("float[]", [1.0])
        queue_info = ffi.new(
            "VkDeviceQueueCreateInfo*",
            {
                "sType": vk.VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
                "queueFamilyIndex": phys.queue_family,
                "queueCount": 1,
                "pQueuePriorities": priority,
            },
        )
        ext_names = [ffi.new("char[]", e.encode()) for e in extensions]
        ext_array = ffi.new("char*[]", ext_names) if ext_names else ffi.NULL
        info = ffi.new(
            "VkDeviceCreateInfo*",
            {
                "sType": vk.VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
                "queueCreateInfoCount": 1,
                "pQueueCreateInfos": queue_info,
                "enabledExtensionCount": len(ext_names),
                "ppEnabledExtensionNames": ext_array,
            },
        )
        if api >= (1, 1, 0):
            root, keep = _feature_chain(vk, phys.feature_structs, phys.features)
            info.pNext = root
        else:
            keep = [
                ffi.new(
                    "VkPhysicalDeviceFeatures*",
                    {
                        c: int(phys.features.get(attr, False))
                        for c, attr in _CORE_FEATURES.items()
                    },
                )
            ]
            info.pEnabledFeatures = keep[0]
        out = ffi.new("VkDevice*")
        check(lib.vkCreateDevice(phys.handle, info, ffi.NULL, out), "vkCreateDevice")
        del keep
        self.handle = out[0]
        queue = ffi.new("VkQueue*")
        lib.vkGetDeviceQueue(self.handle, phys.queue_family, 0, queue)
        self.queue = queue[0]
        self.queue_family = phys.queue_family
        self.memory_properties = ffi.new("VkPhysicalDeviceMemoryProperties*")
        lib.vkGetPhysicalDeviceMemoryProperties(phys.handle, self.memory_properties)
        self.pipeline_cache_uuid = bytes(ffi.buffer(self._properties().pipelineCacheUUID))

    def _properties(self) -> Any:
        props = self.vk.ffi.new("VkPhysicalDeviceProperties*")
        self.vk.lib.vkGetPhysicalDeviceProperties(self.physical.handle, props)
        return props

    def close(self) -> None:
        """Destroy the device and the instance (idempotent)."""
        if self.handle is not None:
            self.vk.lib.vkDeviceWaitIdle(self.handle)
            self.vk.lib.vkDestroyDevice(self.handle, self.vk.ffi.NULL)
            self.handle = None
        if self.instance is not None:
            self.instance.close()

    def describe(self) -> str:
        return self.caps.summary()


__all__: Sequence[str] = (
    "ENV_DEVICE",
    "ENV_VALIDATION",
    "WHOLE_SIZE",
    "DeviceCaps",
    "Instance",
    "PhysicalDevice",
    "VulkanDevice",
    "VulkanError",
    "VulkanUnavailable",
    "check",
    "list_devices",
    "load_vulkan",
    "result_name",
    "vulkan_available",
)
