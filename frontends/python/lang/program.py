"""
The Program: what `ti.init` sets up. It holds the configuration, the root buffer where
every field lives, and the backend that compiles kernels (loaded on the first compile,
so that `import taichi_xdsl` imports no xDSL and no llvmlite).

The root buffer is one NumPy uint8 array. Each field sits at a 64-byte-aligned byte
offset that never changes; a field added after the buffer exists grows it (a larger
array, the old bytes copied over). Python-scope field access uses NumPy views of it.
"""

from __future__ import annotations

import mmap
import os
import platform
import warnings
from dataclasses import dataclass
from dataclasses import field as dataclass_field
from typing import TYPE_CHECKING, Any

import numpy as np
from taichi_xdsl.utils.errors import TaichiError

from . import direct_call, dtypes
from .dtypes import DataType

if TYPE_CHECKING:
    from .field import Field

FIELD_ALIGN = 64


class Arch:
    """A target architecture: `ti.cpu`, `ti.vulkan`, ..."""

    __slots__ = ("name",)

    def __init__(self, name: str):
        self.name = name

    def __repr__(self) -> str:
        return self.name


cpu = Arch("x64")
x64 = cpu
arm64 = Arch("arm64")
vulkan = Arch("vulkan")
gpu = Arch("gpu")
cuda = Arch("cuda")
metal = Arch("metal")
opengl = Arch("opengl")

_CPU_ARCHS = {"x64": cpu, "cpu": cpu, "arm64": arm64}
_ARCHS_BY_NAME = {a.name: a for a in (cpu, arm64, vulkan, gpu, cuda, metal, opengl)} | {
    "cpu": cpu
}

# Every option Taichi 1.7.4's ti.init accepts (its CompileConfig and the options its
# Python layer reads itself). Those taichi-xdsl acts on are read in init(); any other is
# accepted and recorded in Config.ignored, with one warning per option name.
TAICHI_INIT_OPTIONS = frozenset(
    {
        # CompileConfig
        "opt_level", "print_ir", "print_preprocessed_ir", "print_ir_dbg_info", "debug",
        "cfg_optimization", "check_out_of_bound", "print_accessor_ir", "use_llvm",
        "print_struct_llvm_ir", "print_kernel_llvm_ir", "print_kernel_llvm_ir_optimized",
        "print_kernel_asm", "print_kernel_amdgcn", "simplify_before_lower_access",
        "simplify_after_lower_access", "lower_access", "move_loop_invariant_outside_if",
        "cache_loop_invariant_global_vars", "default_cpu_block_dim",
        "cpu_block_dim_adaptive", "default_gpu_block_dim", "gpu_max_reg",
        "saturating_grid_dim", "max_block_dim", "cpu_max_num_threads", "random_seed",
        "verbose_kernel_launches", "verbose", "demote_dense_struct_fors",
        "kernel_profiler", "timeline", "device_memory_GB", "device_memory_fraction",
        "fast_math", "advanced_optimization", "ad_stack_size", "flatten_if",
        "make_thread_local", "make_block_local", "detect_read_only",
        "real_matrix_scalarize", "force_scalarize_matrix", "half2_vectorization",
        "make_cpu_multithreading_loop", "quant_opt_store_fusion",
        "quant_opt_atomic_demotion", "allow_nv_shader_extension", "make_mesh_block_local",
        "mesh_localize_to_end_mapping", "mesh_localize_from_end_mapping",
        "optimize_mesh_reordered_mapping", "mesh_localize_all_attr_mappings",
        "demote_no_access_mesh_fors", "experimental_auto_mesh_local",
        "auto_mesh_local_default_occupacy", "offline_cache", "offline_cache_file_path",
        "offline_cache_cleaning_policy", "offline_cache_max_size_of_files",
        "offline_cache_cleaning_factor", "num_compile_threads", "vk_api_version",
        "cuda_stack_limit",
        # read by Taichi's Python layer
        "log_level", "gdb_trigger", "short_circuit_operators", "print_full_traceback",
        "unrolling_limit", "excepthook", "packed", "dynamic_index", "debug_info",
        "use_mesh", "external_optimization_level", "experimental_auto_mixed_precision",
        "device_type", "cpu_block_dim",
    }
)  # fmt: skip

# Taichi 1.7.4's value of each ti.init option when neither an argument nor $TI_<OPTION>
# sets it (read from its CompileConfig on x64, and its Python layer's own options).
# `Config.<option>` shows it for an option not given; $TI_<OPTION> is read as a value of
# the default's type (booleans as 0/1).
OPTION_DEFAULTS: dict[str, Any] = {
    "ad_stack_size": 0, "advanced_optimization": True, "allow_nv_shader_extension": True,
    "auto_mesh_local_default_occupacy": 4, "cache_loop_invariant_global_vars": True,
    "cfg_optimization": True, "check_out_of_bound": False, "cpu_block_dim_adaptive": True,
    "cuda_stack_limit": 0, "debug": False, "default_cpu_block_dim": 32,
    "default_gpu_block_dim": 128, "demote_dense_struct_fors": True,
    "demote_no_access_mesh_fors": True, "detect_read_only": True, "device_memory_GB": 1.0,
    "device_memory_fraction": 0.0, "experimental_auto_mesh_local": False,
    "fast_math": True, "flatten_if": False, "force_scalarize_matrix": False,
    "gpu_max_reg": 0, "half2_vectorization": False, "kernel_profiler": False,
    "lower_access": True, "make_block_local": True, "make_cpu_multithreading_loop": True,
    "make_mesh_block_local": True, "make_thread_local": True, "max_block_dim": 1024,
    "mesh_localize_all_attr_mappings": False, "mesh_localize_from_end_mapping": False,
    "mesh_localize_to_end_mapping": True, "move_loop_invariant_outside_if": False,
    "num_compile_threads": 4, "optimize_mesh_reordered_mapping": True,
    "print_accessor_ir": False, "print_ir": False, "print_ir_dbg_info": True,
    "print_kernel_amdgcn": False, "print_kernel_asm": False,
    "print_kernel_llvm_ir": False, "print_kernel_llvm_ir_optimized": False,
    "print_preprocessed_ir": False, "print_struct_llvm_ir": False,
    "quant_opt_atomic_demotion": True, "quant_opt_store_fusion": True, "random_seed": 0,
    "real_matrix_scalarize": True, "saturating_grid_dim": 0,
    "simplify_after_lower_access": True, "simplify_before_lower_access": True,
    "timeline": False, "use_llvm": True, "verbose": True, "verbose_kernel_launches": False,
    "vk_api_version": "",
    # read by Taichi's Python layer
    "log_level": "info", "gdb_trigger": False, "short_circuit_operators": True,
    "print_full_traceback": False, "unrolling_limit": 32,
}  # fmt: skip


def _options_from_environment(given: dict[str, Any]) -> dict[str, Any]:
    """
    `given` (the options passed to ti.init) plus each option of OPTION_DEFAULTS that
    only $TI_<OPTION> sets, as Taichi reads them: `TI_DEBUG=1`, `TI_FAST_MATH=0`,
    `TI_LOG_LEVEL=warn`. An argument wins over the environment.
    """
    options = dict(given)
    for key, default in OPTION_DEFAULTS.items():
        raw = os.environ.get("TI_" + key.upper(), "")
        if key in options or not raw:
            continue
        if isinstance(default, bool):
            options[key] = bool(int(raw))
        else:
            options[key] = type(default)(raw)
    return options


_ACTED_ON = frozenset(
    {
        "debug",
        "device_memory_GB",  # sizes sparse pools (lang/pools.py)
        "check_out_of_bound",
        "cpu_max_num_threads",
        "print_ir",
        "random_seed",
        "fast_math",
        "opt_level",
        "print_pass_times",
        "log_level",
        "ad_stack_size",  # ti-auto-diff's adstacks (lowering/auto_diff.py)
        "kernel_profiler",  # lang/profiler.py times each launch
        # `and`/`or` always short-circuit here, and give the same values either way
        "short_circuit_operators",
    }
)

_WARNED_OPTIONS: set[str] = set()

# Taichi's log levels (ti.init(log_level=ti.DEBUG), ti.set_logging_level): the level of
# the "taichi_xdsl" logger of Python's logging module.
TRACE, DEBUG, INFO, WARN, ERROR, CRITICAL = (
    "trace", "debug", "info", "warn", "error", "critical",
)  # fmt: skip
_LOG_LEVELS = {
    "trace": 5, "debug": 10, "info": 20, "warn": 30, "warning": 30, "error": 40,
    "critical": 50,
}  # fmt: skip


ROOT_BYTES_LIMIT = 2**31 - 1
"""The largest root: kernels address fields with 32-bit signed byte offsets."""

LAZY_ROOT_BYTES = 1 << 28
"""A CPU root of this many bytes or more takes memory only where it is written."""

STAGGER_FIELD_BYTES = 1 << 16
STAGGER_STEP = 17 * FIELD_ALIGN
"""On CPU the k-th field of STAGGER_FIELD_BYTES or more starts k * STAGGER_STEP bytes
(mod 4 KiB) past a multiple of 4 KiB of the root (`Program._staggered`); 17 lines make
64 different residues before one repeats."""

HUGE_PAGE_FIELD_BYTES = 1 << 22
"""A dense field of this many bytes or more in a lazy root asks for transparent huge
pages, as NumPy does for each array of 4 MiB or more (`_advise_huge_pages`)."""


def _zeroed_bytes(nbytes: int, lazy: bool) -> np.ndarray:
    """
    `nbytes` zero bytes. `lazy`: reserved address space (Linux: an anonymous private
    mapping with MAP_NORESERVE) whose pages take memory when first written, as Taichi's
    CPU runtime reserves its sparse pools: a pool of every cell of a large sparse field
    costs what the program activates, not its full size. Elsewhere, numpy's zeros.
    """
    if lazy:
        flags = mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS | getattr(mmap, "MAP_NORESERVE", 0)
        try:
            return np.frombuffer(mmap.mmap(-1, nbytes, flags=flags), dtype=np.uint8)
        except (OSError, ValueError, OverflowError):
            pass  # no such mapping here: commit it as numpy does
    return np.zeros(nbytes, dtype=np.uint8)


def llvm_opt_level(opt_level: int) -> int:
    """LLVM's -O level for ti.init's opt_level: Taichi's 0 turns its optimisations off,
    any other level (1 by default) runs them all, so -O0 or -O3."""
    return 0 if opt_level <= 0 else 3


def set_logging_level(level: str) -> None:
    """Set the level of the taichi_xdsl logger (ti.TRACE ... ti.ERROR)."""
    import logging

    name = str(level).lower()
    if name not in _LOG_LEVELS:
        raise ValueError(f"unknown log level {level!r}: use ti.TRACE, ti.DEBUG, ti.INFO, ti.WARN, ti.ERROR or ti.CRITICAL")
    logging.getLogger("taichi_xdsl").setLevel(_LOG_LEVELS[name])


def _warn_ignored(name: str) -> None:
    """One warning per option name per process: the option has no effect here."""
    if name in _WARNED_OPTIONS:
        return
    _WARNED_OPTIONS.add(name)
    warnings.warn(
        f"ti.init({name}=...): taichi-xdsl does not implement this option; it is ignored",
        stacklevel=3,
    )


@dataclass
class Config:
    """The options of `ti.init` that taichi-xdsl acts on."""

    arch: Arch = cpu
    default_fp: DataType = dtypes.f32
    default_ip: DataType = dtypes.i32
    debug: bool = False
    cpu_max_num_threads: int | None = None
    print_ir: bool = False
    random_seed: int = 0
    fast_math: bool = True
    opt_level: int = 1
    """Taichi's meaning: 0 optimises nothing, 1 (the default) or more optimises fully."""
    offline_cache: bool = True
    offline_cache_file_path: str | None = None
    offline_cache_max_size_of_files: int = 100 * 1024 * 1024
    offline_cache_cleaning_policy: str = "lru"
    offline_cache_cleaning_factor: float = 0.25
    print_pass_times: bool = False
    passes: Any = None  # utils/pipelines.PipelineEdits: the program's pipeline edits
    dump_ir: str | None = None
    print_pass_statistics: bool = False
    ignored: dict[str, Any] = dataclass_field(default_factory=dict)
    options: dict[str, Any] = dataclass_field(default_factory=dict)
    """Every option ti.init was given (arguments and $TI_<OPTION>), as given."""

    def __getattr__(self, name: str) -> Any:
        """A Taichi option taichi-xdsl keeps no field for (`cfg.verbose`,
        `cfg.kernel_profiler`): its given value, else Taichi's default."""
        if not name.startswith("__"):
            options = self.__dict__.get("options", {})
            if name in options:
                return options[name]
            if name in OPTION_DEFAULTS:
                return OPTION_DEFAULTS[name]
        raise AttributeError(f"'Config' object has no attribute '{name}'")


class Program:
    """
    One `ti.init` session: configuration, fields and their root buffer, the backend.

    Kernels cache their compiled instances per program (`generation` tells them apart).
    """

    _next_generation = 0

    def __init__(self, config: Config):
        self.config = config
        Program._next_generation += 1
        self.generation = Program._next_generation
        direct_call.program_changed()  # no armed kernel runs on an old program's root
        self.fields: list[Field] = []
        self.unplaced_fields: list[Field] = []
        """Fields created without a shape: each must be placed before a kernel runs."""
        self.root_size = 0
        self._large_fields = 0
        """Fields of STAGGER_FIELD_BYTES or more placed so far (`_staggered`)."""
        self._root: np.ndarray | None = None
        self._root_storage: np.ndarray | None = None
        self._huge_advised = 0
        """Fields already given `_advise_huge_pages`' advice (a prefix of `fields`)."""
        self.materialized = False
        self.layout_settled = False
        self._backend: Any = None
        self.symbols: set[str] = set()
        self.compiled_kernels = 0
        """Kernel instances compiled (or loaded from the offline cache) so far."""

    # -- fields ----------------------------------------------------------------------

    def place_field(self, f: Field, name: str | None) -> None:
        """Give `f` its byte offset and symbol name; grow the root if it exists."""
        f.symbol = self.unique_symbol(name or f"field{len(self.fields)}")
        self._put(f)
        self.fields.append(f)
        if self.materialized:
            self._grow()

    def _put(self, f: Field) -> None:
        """Place `f` at the end of the root (on CPU staggered: `_staggered`; on Vulkan,
        at the next root segment where it would straddle one: utils/spirv_abi.py)."""
        offset = self._staggered(-(-self.root_size // FIELD_ALIGN) * FIELD_ALIGN, f.nbytes)
        segment = self.root_segment_bytes
        if segment and f.nbytes <= segment and (offset + f.nbytes - 1) // segment > offset // segment:
            offset = -(-offset // segment) * segment
        if offset + f.nbytes > ROOT_BYTES_LIMIT:
            raise TaichiError(
                f"placing a field of shape {tuple(getattr(f, 'shape', ()))} takes the fields "
                f"to {(offset + f.nbytes) / 2**30:.2f} GiB: taichi-xdsl addresses its fields "
                f"with 32-bit byte offsets, so all fields together hold at most "
                f"{ROOT_BYTES_LIMIT / 2**30:.0f} GiB"
            )
        if segment and f.nbytes > segment and self.layout_settled and not f.spans_segments:
            _too_large(f, segment)
        f.offset = offset
        self.root_size = f.offset + max(f.nbytes, 1)

    def _staggered(self, offset: int, nbytes: int) -> int:
        """
        CPU: `offset`, moved on (by less than 4 KiB) so that the k-th large field of the
        root starts k * STAGGER_STEP bytes past a multiple of 4 KiB. Fields of 2^k
        bytes packed end to end sit an exact power of two apart, and a loop that reads
        one and writes the other at the same index then maps both to the same cache
        sets: a 2048^2 stencil over two such fields took 212 us on the 16-core H100
        host, 86-88 us with the second field 4 KiB or 1088 B further on (both pads
        help alike, so it is the power-of-two distance, not 4K aliasing alone;
        bench/cpu_stencil_probe.py, bench/results/h100-s7-cpu-stencil-probe.txt).
        Vulkan keeps Taichi's packed layout.
        """
        if nbytes < STAGGER_FIELD_BYTES or self.config.arch is vulkan:
            return offset
        residue = self._large_fields * STAGGER_STEP % 4096
        self._large_fields += 1
        return offset + (residue - offset) % 4096

    @property
    def root_segment_bytes(self) -> int:
        """Vulkan: the size of the root's segments, each bound as a storage buffer of
        its own (no field may straddle one); 0 elsewhere."""
        if self.config.arch is not vulkan:
            return 0
        if "segment_bytes" not in self.__dict__:
            self.__dict__["segment_bytes"] = self.backend.root_segment_bytes
        return self.__dict__["segment_bytes"]

    def unique_symbol(self, name: str) -> str:
        """A symbol name for the IR, made unique within this program."""
        base = "".join(c if c.isalnum() or c == "_" else "_" for c in name) or "sym"
        if base[0].isdigit():
            base = "_" + base
        candidate, n = base, 0
        while candidate in self.symbols:
            n += 1
            candidate = f"{base}_{n}"
        self.symbols.add(candidate)
        return candidate

    def materialize(self) -> None:
        """Allocate the root buffer (once fields exist); later fields grow it."""
        self.settle_layout()
        self.materialized = True
        self._grow()

    def settle_layout(self) -> None:
        """Before the first kernel is built or the root allocated: size the sparse pools
        from the arrays placed in them (lang/pools.py) and give every field its offset
        again. Fields placed later go at the end, where they are."""
        if self.layout_settled:
            return
        self.layout_settled = True
        if self.__dict__.get("pools"):
            from .pools import size_pools

            size_pools(self)
            self.root_size = self._large_fields = 0
            for f in self.fields:
                self._put(f)
        segment = self.root_segment_bytes
        for f in self.fields:  # placed before the layout settled
            if segment and f.nbytes > segment and not f.spans_segments:
                _too_large(f, segment)

    @property
    def root(self) -> np.ndarray | None:
        """The root buffer (allocated on first use), None while there are no fields."""
        if not self.materialized:
            self.materialize()
        return self._root

    def _grow(self) -> None:
        if self.root_size == 0:
            return
        old = self._root
        if old is not None and old.size >= self.root_size:
            return
        capacity = max(self.root_size, 2 * old.size if old is not None else 0)
        limit = self.__dict__.get("root_limit")  # a device's largest buffer (pools.py)
        if limit is not None:
            capacity = max(self.root_size, min(capacity, limit))
        storage = self._root_storage
        if old is not None and storage is not None:
            start = old.ctypes.data - storage.ctypes.data
            if start + capacity <= storage.size:  # reserved room: grow in place, no copy
                self._root = storage[start : start + capacity]
                direct_call.invalidate()  # armed kernels point at the old root object
                self._advise_huge_pages()
                return
        # A large CPU root is reserved address space, twice what it needs so it can grow
        # in place (a copy would touch every page of a sparse pool); over-allocate so
        # the buffer itself starts on a 64-byte boundary.
        lazy = self.config.arch is not vulkan and capacity >= LAZY_ROOT_BYTES
        storage = _zeroed_bytes((2 * capacity if lazy else capacity) + FIELD_ALIGN, lazy)
        start = (-storage.ctypes.data) % FIELD_ALIGN
        root = storage[start : start + capacity]
        if old is not None:
            root[: old.size] = old
        self._root_storage, self._root = storage, root
        direct_call.invalidate()
        self._huge_advised = 0
        self._advise_huge_pages()

    def _advise_huge_pages(self) -> None:
        """
        Ask for transparent huge pages (madvise MADV_HUGEPAGE) under each dense field of
        4 MiB or more in a lazy root. NumPy asks for them on every array that large, so
        a field in a plain root (np.zeros) and an ndarray get 2 MiB pages, but a lazy
        root (an mmap, for the sparse pools) got 4 KiB ones: a 4096^2 stencil over two
        such fields took 14-15 ms a step against 10.3-10.6 ms on 2 MiB pages (one
        thread of the 2-core VM; docs/cpu-speed/stream.md).
        Pools and the hidden arrays of sparse SNodes keep 4 KiB pages, so that they
        still take memory only where a cell is written. A no-op where the OS or Python
        lacks the advice (Linux only).
        """
        storage, advice = self._root_storage, getattr(mmap, "MADV_HUGEPAGE", None)
        view = getattr(storage, "base", None)  # np.frombuffer's memoryview of the mmap
        mapping = getattr(view, "obj", None)
        if storage is None or self._root is None or advice is None:
            return
        if not isinstance(mapping, mmap.mmap):
            return  # np.zeros: NumPy has advised it already
        root = self._root.ctypes.data - storage.ctypes.data
        page = mmap.PAGESIZE
        for f in self.fields[self._huge_advised :]:
            if f.hidden or f.pool_owner is not None or f.nbytes < HUGE_PAGE_FIELD_BYTES:
                continue
            lo = -(-(root + f.offset) // page) * page
            hi = (root + f.offset + f.nbytes) // page * page
            try:
                mapping.madvise(advice, lo, hi - lo)
            except OSError:
                return  # a kernel built without transparent huge pages
        self._huge_advised = len(self.fields)

    # -- compilation -----------------------------------------------------------------

    @property
    def backend(self) -> Any:
        """The CPU backend, created (and llvmlite loaded) on first use."""
        if self._backend is None and self.config.arch is vulkan:
            from taichi_xdsl.targets.vulkan.backend import VulkanBackend

            from .ndarray import owner_of

            cfg = self.config
            self._backend = VulkanBackend(
                print_ir=cfg.print_ir,
                debug=cfg.debug,
                ndarray_owner=owner_of,
                fast_math=cfg.fast_math,
                opt_level=cfg.opt_level,
                passes=cfg.passes,
                dump_ir=cfg.dump_ir,
                print_pass_times=cfg.print_pass_times,
                print_pass_statistics=cfg.print_pass_statistics,
                offline_cache=offline_cache(cfg),
            )
        if self._backend is None:
            from taichi_xdsl.targets.llvm.backend import CpuBackend

            cfg = self.config
            self._backend = CpuBackend(
                num_threads=cfg.cpu_max_num_threads,
                debug=cfg.debug,
                print_ir=cfg.print_ir,
                fast_math=cfg.fast_math,
                opt_level=llvm_opt_level(cfg.opt_level),
                offline_cache=offline_cache(cfg),
                print_pass_times=cfg.print_pass_times,
                passes=cfg.passes,
                dump_ir=cfg.dump_ir,
                print_pass_statistics=cfg.print_pass_statistics,
            )
        return self._backend

    def finish(self) -> None:
        """
        The program ends (`ti.reset()`, the next `ti.init()`): its offline cache writes
        what it compiled and cleans itself (utils/cache.py), even when no kernel ran.
        """
        cache = getattr(self._backend, "offline_cache", None)
        if cache is None and self.config.offline_cache:
            cache = offline_cache(self.config)
        if cache is not None:
            cache.flush()

    def host_access(self, lo: int = 0, hi: int | None = None) -> None:
        """
        Python-scope access of root bytes [lo, hi) (`hi` None: to the end) is about to
        happen: a device backend (Vulkan) brings them up to date on the host and uploads
        them again before its next launch. A program with sparse pools then checks that
        no kernel found one exhausted.
        """
        backend = self._backend
        if backend is not None and hasattr(backend, "read_root"):
            backend.read_root(self._root, lo, hi)
            backend.root_changed_on_host(lo, hi)
            self.check_device_pools()

    def host_read(self, lo: int, hi: int) -> None:
        """Root bytes [lo, hi) are about to be read (not written) in Python scope."""
        backend = self._backend
        if backend is not None and hasattr(backend, "read_root"):
            backend.read_root(self._root, lo, hi)

    def host_zero(self, starts: np.ndarray, sizes: np.ndarray) -> None:
        """Zero the root's byte ranges [starts[i], starts[i] + sizes[i]) (sorted,
        disjoint) in Python scope: on the host and, on Vulkan, on the device too (no
        download of what was there)."""
        backend = self._backend
        if backend is not None and hasattr(backend, "zero_root"):
            backend.zero_root(self.root, starts, sizes)
        else:
            for lo, n in zip(starts, sizes):
                self.root[lo : lo + n] = 0

    def check_device_pools(self) -> None:
        """Vulkan: raise if a kernel found a sparse pool exhausted (reads each pool's
        state words from the device)."""
        pools = self.__dict__.get("pools")
        backend = self._backend
        if not pools or backend is None or not hasattr(backend, "read_root"):
            return
        launches = backend.root_launches
        if launches == self.__dict__.get("_pools_checked_at"):
            return  # no kernel ran since the last check: the state words are as read
        from .pools import check_pools

        for pool in pools:
            state = pool.state
            backend.read_root(self._root, state.offset, state.offset + state.nbytes)
        check_pools(self, self._root)
        self._pools_checked_at = launches


def _too_large(f: Field, segment: int) -> None:
    raise TaichiError(
        f"field '{f.symbol}' of shape {tuple(getattr(f, 'shape', ()))} takes {f.nbytes} "
        f"bytes: a storage buffer on this Vulkan device holds at most {segment} bytes "
        "(maxStorageBufferRange), and a field is not split across buffers; use several "
        "smaller fields, or sparse SNodes"
    )


def offline_cache(cfg: Config) -> Any:
    """The OfflineCache that `cfg` asks for (utils/cache.py), or None when it is off."""
    if not cfg.offline_cache:
        return None
    from taichi_xdsl.utils.cache import OfflineCache

    return OfflineCache(
        cfg.offline_cache_file_path,
        max_bytes=cfg.offline_cache_max_size_of_files,
        cleaning_policy=cfg.offline_cache_cleaning_policy,
        cleaning_factor=cfg.offline_cache_cleaning_factor,
    )


_current: Program | None = None


def get_program() -> Program:
    """The current program; `ti.init()` with defaults if there is none yet."""
    if _current is None:
        init()
    assert _current is not None
    return _current


class Extension:
    """An optional feature of an arch: `ti.extension.data64`, ..."""

    __slots__ = ("name",)

    def __init__(self, name: str):
        self.name = name

    def __repr__(self) -> str:
        return f"extension.{self.name}"


class _Extensions:
    """`ti.extension`: Taichi's extension names."""

    def __init__(self) -> None:
        for name in (
            "sparse", "quant", "quant_basic", "data64", "adstack", "bls", "assertion",
            "extfunc", "mesh", "dynamic_index",
        ):  # fmt: skip
            setattr(self, name, Extension(name))


extension = _Extensions()

# What each arch does, as taichi-xdsl's tests show it (others add theirs as they land):
# i64/f64 (data64) and assert (assertion) on both; the autodiff stack (adstack) on the
# CPU. Vulkan's data64 also needs a device with 64-bit floats and integers.
_EXTENSIONS: dict[str, set[str]] = {
    "x64": {"data64", "assertion", "adstack", "sparse", "quant_basic", "quant"},
    "arm64": {"data64", "assertion", "adstack", "sparse", "quant_basic", "quant"},
    "vulkan": {"data64", "assertion", "sparse", "quant_basic", "quant"},
}


def is_extension_supported(arch: Any, ext: Any) -> bool:
    """Whether `arch` (ti.cpu, ti.vulkan, ...) has the extension `ext` here."""
    name = getattr(ext, "name", str(ext)).split(".")[-1]
    arch_name = getattr(arch, "name", str(arch))
    if arch_name in ("cpu", "x64"):
        arch_name = "x64"
    if arch_name not in _EXTENSIONS:
        return False
    if arch_name == "vulkan":
        if not _supported(vulkan):
            return False
        if name == "data64":  # the device summary says "f64=1 i64=1" when it has both
            from taichi_xdsl.targets.vulkan import vulkan_available

            summary = vulkan_available()[1]
            return "f64=1" in summary and "i64=1" in summary
    return name in _EXTENSIONS[arch_name]


def _supported(arch: Arch) -> bool:
    """Whether this machine can run `arch` (Taichi's is_arch_supported)."""
    if arch.name == "x64":
        return True
    if arch.name == "arm64":
        return platform.machine().lower() in ("arm64", "aarch64")
    if arch.name in ("vulkan", "gpu"):
        from taichi_xdsl.targets.vulkan import vulkan_available

        return vulkan_available()[0]
    return False


def _resolve_arch(arch: Any, enable_fallback: bool = True) -> Arch:
    """
    The arch to run on, as Taichi picks it: the first supported arch of `arch` (one arch,
    or a list in order of preference; ti.gpu is any GPU backend, here Vulkan); when none
    is, the CPU with a warning, or with `enable_fallback=False` a RuntimeError.
    """
    if arch is None:
        env = os.environ.get("TI_ARCH")
        arch = _ARCHS_BY_NAME.get(env, cpu) if env else cpu
    candidates = list(arch) if isinstance(arch, list | tuple) else [arch]
    resolved = []
    for a in candidates:
        if isinstance(a, str):
            a = _ARCHS_BY_NAME.get(a, Arch(a))
        if not isinstance(a, Arch):
            raise TaichiError(f"ti.init(arch={a!r}): not an arch (use ti.cpu)")
        resolved.append(a)
    for a in resolved:
        if _supported(a):
            if a.name == "arm64":
                return arm64
            return vulkan if a.name in ("vulkan", "gpu") else cpu
    names = resolved[0].name if len(resolved) == 1 else [a.name for a in resolved]
    if not enable_fallback:
        raise RuntimeError(f"Arch={names} is not supported")
    if not all(a.name == "gpu" for a in resolved):  # ti.gpu falls back quietly
        warnings.warn(f"Arch={names} is not supported, falling back to CPU", stacklevel=3)
    return cpu


def init(
    arch: Any = None,
    default_fp: Any = None,
    default_ip: Any = None,
    _test_mode: bool = False,
    enable_fallback: bool = True,
    require_version: str | None = None,
    debug: bool | None = None,
    cpu_max_num_threads: int | None = None,
    print_ir: bool | None = None,
    random_seed: int | None = None,
    **kwargs: Any,
) -> Config | None:
    """
    Start a new program (Taichi's `ti.init`): fields and compiled kernels of the previous
    one are dropped.

    Args:
        arch: ti.cpu (ti.x64), ti.vulkan, ti.gpu, or a list of them in order of
            preference; an arch this machine lacks falls back to the CPU with a warning
            (RuntimeError with `enable_fallback=False`).
        default_fp: the type of float literals and `float` annotations (ti.f32);
            $TI_DEFAULT_FP=32/64 sets it when not given.
        default_ip: the type of integer literals and `int` annotations (ti.i32);
            $TI_DEFAULT_IP=32/64 likewise.
        require_version: a Taichi version ("1.7.0") the program needs; taichi-xdsl
            follows Taichi 1.7.4.
        debug: bounds checks and asserts in kernels.
        cpu_max_num_threads: worker threads of the CPU backend (default: all cores).
        print_ir: print the IR of each kernel after every pass.
        random_seed: the seed of ti.random.
        offline_cache (keyword): keep compiled kernels on disk for later processes (on by
            default; TI_OFFLINE_CACHE=0 turns the default off); offline_cache_file_path,
            offline_cache_max_size_of_files, offline_cache_cleaning_policy ("lru", "version",
            "fifo", "never") and offline_cache_cleaning_factor tune it (utils/cache.py).
        print_pass_times (keyword): print the time of every compiler pass per kernel.
        fast_math, opt_level, check_out_of_bound (keywords): as in Taichi.
        passes (keyword): changes to the arch's compiler pipeline (`ti.compiler.pipeline
            (arch)`), e.g. `{"after": {"ti-offload": "my-pass{opt=1}"}}`; keys
            "before", "after", "replace" (pass name -> pass-spec string), "drop" (pass
            names), "stages" (stage name -> pass-spec string); see
            ti.compiler.PipelineEdits. Every pass is then verified after it runs.
        dump_ir (keyword): a folder; each kernel's IR at each stage is written to
            `<kernel>.<stage>.mlir` there (taichi, offload, llvm or spirv; `.ll` on cpu),
            text that `ti-opt` and `ti.compile_ir` read back.
        print_pass_statistics (keyword): print, per kernel, the ops each pass added
            and removed.

        Every other option of Taichi's ti.init is accepted with a warning (once per
        name) that taichi-xdsl ignores it.

    Raises:
        KeyError: an option Taichi does not have (as Taichi), or default_up.
        RuntimeError: no supported arch with enable_fallback=False; a require_version
            newer than 1.7.4.
        ValueError: `passes` names a pass or stage the arch's pipeline lacks.
    """
    global _current
    if "default_up" in kwargs:
        raise KeyError(
            "'default_up' is always the unsigned type of 'default_ip'. Please set "
            "'default_ip' instead."
        )
    unknown = set(kwargs) - TAICHI_INIT_OPTIONS - _CACHE_OPTIONS - _RESEARCH_OPTIONS
    if unknown:
        raise KeyError(
            f"Unrecognized keyword argument(s) for ti.init: {', '.join(sorted(unknown))}"
        )
    if require_version is not None:
        _check_version(require_version)
    named = {"debug": debug, "cpu_max_num_threads": cpu_max_num_threads,
             "print_ir": print_ir, "random_seed": random_seed}  # fmt: skip
    options = _options_from_environment(
        {**{k: v for k, v in named.items() if v is not None}, **kwargs}
    )
    kwargs = {k: v for k, v in options.items() if k not in named}
    debug = options.get("debug", False)
    cpu_max_num_threads = options.get("cpu_max_num_threads")
    print_ir = options.get("print_ir", False)
    random_seed = options.get("random_seed", 0)
    default_fp = default_fp or _env_default("TI_DEFAULT_FP", dtypes.f32, dtypes.f64)
    default_ip = default_ip or _env_default("TI_DEFAULT_IP", dtypes.i32, dtypes.i64)
    fp = dtypes.cook_dtype(default_fp, dtypes.i32, dtypes.f32) if default_fp else dtypes.f32
    ip = dtypes.cook_dtype(default_ip, dtypes.i32, dtypes.f32) if default_ip else dtypes.i32
    if not fp.is_float or not ip.is_int or ip is dtypes.u1:
        raise TypeError(f"ti.init: bad default types default_fp={fp}, default_ip={ip}")
    ignored = {
        k: v
        for k, v in kwargs.items()
        if k not in _ACTED_ON and k not in _CACHE_OPTIONS and k not in _RESEARCH_OPTIONS
    }
    for name, value in ignored.items():
        if value is not False and value is not None:  # turning a feature off is moot
            _warn_ignored(name)
    if "log_level" in kwargs:
        set_logging_level(kwargs["log_level"])
    config = Config(
        arch=_resolve_arch(arch, enable_fallback),
        default_fp=fp,
        default_ip=ip,
        debug=bool(debug) or bool(kwargs.get("check_out_of_bound", False)),
        cpu_max_num_threads=cpu_max_num_threads,
        print_ir=bool(print_ir),
        random_seed=int(random_seed),
        fast_math=bool(kwargs.get("fast_math", True)),
        opt_level=int(kwargs.get("opt_level", 1)),
        **_cache_options(kwargs),
        **_research_options(kwargs),
        ignored=ignored,
        options=options,
    )
    if config.passes is not None:
        from taichi_xdsl.utils.pipelines import pipeline

        config.passes.apply(pipeline(config.arch))  # a pass the arch lacks: error now
    if _current is not None:
        _current.finish()
    from . import profiler

    profiler.reset()  # a program's profile starts empty, as Taichi's
    _current = Program(config)
    return config if _test_mode else None  # Taichi returns its options in test mode


TAICHI_VERSION = (1, 7, 4)
"""The Taichi release whose behaviour taichi-xdsl follows."""


def _check_version(required: str) -> None:
    parts = required.lstrip("v").split(".")
    try:
        want = tuple(int(p) for p in parts)
    except ValueError:
        raise ValueError(f"ti.init(require_version={required!r}): not a version") from None
    if want > TAICHI_VERSION[: len(want)]:
        raise RuntimeError(
            f"Taichi version mismatch: required v{required}, this is taichi-xdsl "
            "following Taichi v1.7.4"
        )


def _env_default(var: str, bits32: DataType, bits64: DataType) -> DataType | None:
    value = os.environ.get(var)
    if not value:
        return None
    if value not in ("32", "64"):
        raise ValueError(f"Invalid {var}={value}, should be 32 or 64")
    return bits32 if value == "32" else bits64


_CACHE_OPTIONS = frozenset(
    {
        "offline_cache",
        "offline_cache_file_path",
        "offline_cache_max_size_of_files",
        "offline_cache_cleaning_policy",
        "offline_cache_cleaning_factor",
        "print_pass_times",
    }
)


_RESEARCH_OPTIONS = frozenset({"passes", "dump_ir", "print_pass_statistics"})


def _research_options(kwargs: dict[str, Any]) -> dict[str, Any]:
    """`passes`, `dump_ir` and `print_pass_statistics` of `ti.init`, as Config fields
    (a bad `passes` raises here, naming what is wrong)."""
    from taichi_xdsl.utils.pipelines import PipelineEdits

    edits = PipelineEdits.parse(kwargs.get("passes"))
    dump = kwargs.get("dump_ir")
    return {
        "passes": edits or None,
        "dump_ir": None if dump is None else os.fspath(dump),
        "print_pass_statistics": bool(kwargs.get("print_pass_statistics", False)),
    }


def _cache_options(kwargs: dict[str, Any]) -> dict[str, Any]:
    """
    The offline-cache and pass-timing options of `ti.init`, as Config fields. The cache is
    on unless `offline_cache=False` or the environment sets TI_OFFLINE_CACHE=0; its
    directory defaults to $TI_OFFLINE_CACHE_FILE_PATH or ~/.cache/taichi_xdsl/ticache.
    """
    default_on = os.environ.get("TI_OFFLINE_CACHE", "1").strip() not in ("0", "false", "")
    options: dict[str, Any] = {
        "offline_cache": bool(kwargs.get("offline_cache", default_on)),
        "print_pass_times": bool(kwargs.get("print_pass_times", False)),
        "offline_cache_cleaning_policy": str(
            kwargs.get("offline_cache_cleaning_policy", "lru")
        ).lower(),
        "offline_cache_cleaning_factor": float(
            kwargs.get("offline_cache_cleaning_factor", 0.25)
        ),
        "offline_cache_max_size_of_files": int(
            kwargs.get("offline_cache_max_size_of_files", 100 * 1024 * 1024)
        ),
    }
    path = kwargs.get("offline_cache_file_path")
    options["offline_cache_file_path"] = None if path is None else os.fspath(path)
    if options["offline_cache_cleaning_policy"] not in ("lru", "fifo", "version", "never"):
        raise ValueError(
            "ti.init(offline_cache_cleaning_policy=...) must be 'lru', 'fifo', 'version' "
            "or 'never', "
            f"got {kwargs['offline_cache_cleaning_policy']!r}"
        )
    return options


def reset() -> None:
    """Drop the current program (its fields and compiled kernels)."""
    global _current
    if _current is not None:
        _current.finish()
    _current = None
    direct_call.program_changed()


def sync() -> None:
    """Wait for launched kernels (CPU kernels run synchronously: nothing to do)."""
    backend = _current._backend if _current is not None else None
    if backend is not None and hasattr(backend, "sync"):
        backend.sync()


def cfg() -> Config:
    """The current configuration."""
    return get_program().config
