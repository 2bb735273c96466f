"""
The CPU backend: a `taichi.kernel` -> machine code -> a launchable `CpuKernel`.

    backend = CpuBackend(num_threads=8, debug=True)
    kernel = backend.compile(module, "saxpy")     # module: fields + taichi.kernel @saxpy
    kernel.launch(root, (2.0, x, y))              # -> tuple of return values

compile() is a recipe, as Taichi's compile_to_offloads:
1. `ti-to-offload-cpu` (utils/registry.py): the kernel becomes an `offload.kernel` of tasks;
2. the launch plan is read off the offload.kernel (`launch_plan`): tasks in order with
   their kind and bounds (a constant, or the global temporary a bound is loaded from),
   argument and return types, buffer sizes;
3. `ti-offload-to-llvm` (with `ti-lower-access{debug=true}` in debug mode): one LLVM
   function per task;
4. targets/llvm/translate.py: LLVM IR text; targets/llvm/jit.py: host machine code (O3,
   fast math);
5. a `CpuKernel` (targets/llvm/runtime.py) holds the plan and the machine code.
With `print_ir=True` the IR is printed after every pass, then the LLVM IR.

Offline cache (`offline_cache=OfflineCache(...)`, utils/cache.py and
targets/llvm/cache.py): before step 1 the kernel's module is printed and hashed with the
arch, caps, options and compiler version; a hit loads the cached launch plan and object
code (steps 1-4 skipped); a miss compiles through an object file and stores it.

Pass timing (`print_pass_times=True`): every stage (frontend aside) is timed, each pass of
the pipelines on its own, and a report is printed after each kernel:

    // -----// pass times of saxpy (cold compile) //----- //
      ms      %   stage
    14.20  31.2%  ti-mem2reg
    ...
"""

from __future__ import annotations

import sys
import time
from typing import IO, TYPE_CHECKING, Any

from taichi_xdsl.targets.llvm import jit
from taichi_xdsl.targets.llvm.jit import JitModule, compile_ir
from taichi_xdsl.targets.llvm.runtime import (
    ArgSpec,
    Bound,
    Kernel,
    LaunchPlan,
    NdarrayArg,
    ScalarArg,
    TaskSpec,
)
from taichi_xdsl.utils import abi, registry
from taichi_xdsl.utils.cache import OfflineCache
from taichi_xdsl.utils.errors import TaichiCompilationError

if TYPE_CHECKING:
    from taichi_xdsl.dialects import offload
    from xdsl.dialects.builtin import ModuleOp
    from xdsl.ir import Attribute, SSAValue
    from xdsl.passes import ModulePass

# xDSL and our dialects are imported where a kernel is compiled, not at module load:
# an offline-cache hit needs none of them (the frontend has already loaded the few
# dialects it builds the IR with).

OFFLOAD_PIPELINE = "ti-to-offload-cpu"
LLVM_PIPELINE = "ti-offload-to-llvm"


class CpuKernel(Kernel):
    """
    A kernel compiled for the CPU: `launch(root, args) -> tuple` (see runtime.Kernel).

    Attributes:
        plan: the launch plan read from the offload.kernel.
        llvm_ir: the LLVM IR text given to the JIT.
        jit_module: the machine code (kept alive by the kernel).
    """

    def __init__(
        self,
        plan: LaunchPlan,
        jit_module: JitModule,
        llvm_ir: str,
        *,
        num_threads: int | None = None,
        pool_kind: str = "native",
    ):
        super().__init__(
            plan,
            jit_module.address,
            keepalive=jit_module,
            num_threads=num_threads,
            pool_kind=pool_kind,
        )
        self.jit_module = jit_module
        self.llvm_ir = llvm_ir


class CpuBackend:
    """
    Compiles taichi-dialect kernels for the host CPU.

    Args:
        num_threads: threads that run parallel loops (None: every CPU of the process).
        debug: bounds checks and asserts (TaichiIndexError / TaichiAssertionError).
        print_ir: print the IR after every pass, then the LLVM IR (to `ir_stream`).
        fast_math: fast-math flags and function attributes on the generated code
            (targets/llvm/jit.py), Taichi's default.
        opt_level: LLVM optimisation level, 0 to 3.
        pool_kind: "native" (default) or "python" thread pool (targets/llvm/pool.py).
        ir_stream: where print_ir writes; None: sys.stdout at the time of printing.
        offline_cache: where compiled kernels are kept across processes (None: nowhere).
        print_pass_times: print the time of each pass and stage after each compile.

    Attributes:
        pass_times: (stage, seconds) of the last compile, in order.
        cache_hits, cache_misses: kernels loaded from / compiled into the offline cache.
    """

    def __init__(
        self,
        *,
        num_threads: int | None = None,
        debug: bool = False,
        print_ir: bool = False,
        fast_math: bool = True,
        opt_level: int = 3,
        pool_kind: str = "native",
        ir_stream: IO[str] | None = None,
        offline_cache: OfflineCache | None = None,
        print_pass_times: bool = False,
    ):
        self.num_threads = num_threads
        self.debug = debug
        self.print_ir = print_ir
        self.fast_math = fast_math
        self.opt_level = opt_level
        self.pool_kind = pool_kind
        self.ir_stream = ir_stream
        self.offline_cache = offline_cache
        if offline_cache is not None and pool_kind == "native":
            from taichi_xdsl.targets.llvm import pool

            pool.use_offline_cache(offline_cache)  # the pool's code too
        self.print_pass_times = print_pass_times
        self.pass_times: list[tuple[str, float]] = []
        self.cache_hits = 0
        self.cache_misses = 0

    def compile(
        self, module: ModuleOp, kernel_name: str, *, source_key: str | None = None
    ) -> CpuKernel:
        """
        Compile `taichi.kernel @kernel_name` of `module` (which is left unchanged), or
        load it from the offline cache. With `source_key` (`source_cache_key`), the
        offline cache also maps that key to this kernel's entry (`load_by_source`).

        Raises:
            TaichiCompilationError: a pass rejected the kernel, or the IR is invalid.
        """
        self.pass_times = []
        key = None
        if self.offline_cache is not None and not self.print_ir:
            start = time.perf_counter()
            key = self.cache_key(module)
            self._time("offline cache key", start)
            start = time.perf_counter()
            kernel = self._load_cached(key, kernel_name)
            self._time("offline cache load", start)
            if kernel is not None:
                self.cache_hits += 1
                self._store_source_key(source_key, key, kernel_name)
                self._report(kernel_name, "offline cache hit")
                return kernel
            self.cache_misses += 1
        start = time.perf_counter()
        module = module.clone()
        ctx = registry.make_context()
        self._time("clone + context", start)
        # The frontend verified its module and the final llvm-dialect module is verified
        # below; verifying in between (a tenth of a large kernel's compile time) is for
        # debug mode, where it names the pipeline that broke the IR.
        self._run(
            ctx,
            module,
            offload_pipeline(),
            kernel_name,
            print_input=True,
            verify=self.debug or self.print_ir,
        )
        start = time.perf_counter()
        plan = launch_plan(_find_kernel(module, kernel_name))
        self._time("launch plan", start)
        self._run(ctx, module, llvm_pipeline(debug=self.debug), kernel_name)
        start = time.perf_counter()
        from taichi_xdsl.targets.llvm.translate import to_llvm_ir

        try:
            llvm_ir = to_llvm_ir(module)
        except Exception as error:  # translation failures come in several types
            raise TaichiCompilationError(
                f"kernel '{kernel_name}': LLVM translation failed: {error}"
            ) from error
        self._time("translate to LLVM IR", start)
        if self.print_ir:
            self._print(f"// -----// LLVM IR of {kernel_name} //----- //\n{llvm_ir}")
        start = time.perf_counter()
        try:
            if key is None:
                jit_module = compile_ir(
                    llvm_ir, opt_level=self.opt_level, fast_math=self.fast_math
                )
            else:
                # Through an object file, so that a later hit runs this very code.
                code = jit.compile_object(
                    llvm_ir, opt_level=self.opt_level, fast_math=self.fast_math
                )
                jit_module = jit.load_object(code)
        except RuntimeError as error:
            raise TaichiCompilationError(f"kernel '{kernel_name}': {error}") from error
        self._time("LLVM O3 + codegen", start)
        if key is not None and self.offline_cache is not None:
            from taichi_xdsl.targets.llvm.cache import plan_to_json

            start = time.perf_counter()
            meta = {"kernel": kernel_name, "plan": plan_to_json(plan)}
            if self.offline_cache.store(key, meta, code):
                self._store_source_key(source_key, key, kernel_name)
            self._time("offline cache store", start)
        self._report(kernel_name, "cold compile")
        return CpuKernel(
            plan,
            jit_module,
            llvm_ir,
            num_threads=self.num_threads,
            pool_kind=self.pool_kind,
        )

    # -- the offline cache ---------------------------------------------------------------

    def _target_parts(self) -> dict[str, str]:
        """The arch, caps and config parts of this backend's cache keys."""
        host = jit.host_target()
        config = (
            f"debug={self.debug};fast_math={self.fast_math};opt_level={self.opt_level};"
            f"offload={','.join(offload_pipeline())};"
            f"llvm={','.join(llvm_pipeline(debug=self.debug))}"
        )
        return {
            "arch": f"cpu:{host.triple}",
            "caps": f"{host.cpu};{host.features}",
            "config": config,
        }

    def cache_key(self, module: ModuleOp) -> str:
        """The offline-cache key of `module` compiled by this backend (deterministic)."""
        from taichi_xdsl.targets.llvm.cache import kernel_key

        return kernel_key(str(module), **self._target_parts())

    def source_cache_key(self, parts: dict[str, str]) -> str | None:
        """
        The first-level offline-cache key of a kernel instance from the frontend's
        `parts` (frontends/python/lang/source_key.py), computed without xDSL; None when the
        offline cache is off (or print_ir asks for the IR).
        """
        if self.offline_cache is None or self.print_ir:
            return None
        from taichi_xdsl.targets.llvm.cache import source_kernel_key

        return source_kernel_key(parts, **self._target_parts())

    def load_by_source(self, source_key: str, kernel_name: str) -> CpuKernel | None:
        """
        The kernel that `source_key` maps to in the offline cache, or None (a miss):
        no xDSL, no frontend. A mapping to a missing or bad entry is dropped.
        """
        if self.offline_cache is None:
            return None
        self.pass_times = []
        start = time.perf_counter()
        entry = self.offline_cache.load(source_key)
        ir_key = entry.meta.get("ir_key") if entry is not None else None
        if entry is not None and (
            not isinstance(ir_key, str) or entry.meta.get("kernel") != kernel_name
        ):
            self.offline_cache.discard(source_key)
            ir_key = None
        kernel = self._load_cached(ir_key, kernel_name) if ir_key is not None else None
        self._time("offline cache load (source key)", start)
        if kernel is None:
            if ir_key is not None:
                self.offline_cache.discard(source_key)
            return None
        self.cache_hits += 1
        self._report(kernel_name, "offline cache hit")
        return kernel

    def _store_source_key(self, source_key: str | None, key: str, kernel_name: str) -> None:
        if source_key is not None and self.offline_cache is not None:
            self.offline_cache.store(
                source_key, {"ir_key": key, "kernel": kernel_name}, b""
            )

    def _load_cached(self, key: str, kernel_name: str) -> CpuKernel | None:
        """The cached kernel of `key`, or None (a miss; a bad entry is dropped)."""
        assert self.offline_cache is not None
        entry = self.offline_cache.load(key)
        if entry is None:
            return None
        from taichi_xdsl.targets.llvm.cache import plan_from_json

        try:
            plan = plan_from_json(entry.meta["plan"])
            if plan.name != kernel_name or entry.meta.get("kernel") != kernel_name:
                raise ValueError(f"entry is for kernel '{plan.name}'")
            jit_module = jit.load_object(entry.payload)
            kernel = CpuKernel(
                plan,
                jit_module,
                "",
                num_threads=self.num_threads,
                pool_kind=self.pool_kind,
            )
        except (KeyError, ValueError, RuntimeError, TypeError):
            self.offline_cache.discard(key)
            return None
        return kernel

    # -- pass timing ---------------------------------------------------------------------

    def _time(self, stage: str, start: float) -> None:
        self.pass_times.append((stage, time.perf_counter() - start))

    def _report(self, kernel_name: str, what: str) -> None:
        if not self.print_pass_times:
            return
        self._print(format_pass_times(self.pass_times, f"{kernel_name} ({what})"))

    def _run(
        self,
        ctx: Any,
        module: ModuleOp,
        passes: list[str],
        kernel_name: str,
        *,
        print_input: bool = False,
        verify: bool = True,
    ) -> None:
        """Run `passes` on `module`, printing after each when print_ir, then verify."""
        from xdsl.utils.exceptions import DiagnosticException, VerifyException

        running: list[str] = [passes[0] if passes else "(none)"]
        timing = [time.perf_counter()]

        def callback(previous: ModulePass | None, op: ModuleOp, next_: ModulePass | None):
            if previous is not None:
                self._time(previous.name, timing[0])
            if self.print_ir and (previous is not None or print_input):
                title = (
                    "Initial IR" if previous is None else f"IR Dump After {previous.name}"
                )
                self._print(f"// -----// {title} ({kernel_name}) //----- //\n{op}\n")
            running[0] = next_.name if next_ is not None else "the verifier"
            timing[0] = time.perf_counter()

        start = time.perf_counter()
        pipeline = registry.build_pipeline(",".join(passes), callback)
        self._time("build pipeline", start)
        try:
            pipeline.apply(ctx, module)
            if verify:
                start = time.perf_counter()
                module.verify()
                self._time("verify", start)
        except (DiagnosticException, VerifyException) as error:
            raise TaichiCompilationError(
                f"kernel '{kernel_name}': {running[0]} failed: {error}"
            ) from error

    def _print(self, text: str) -> None:
        stream = self.ir_stream or sys.stdout
        print(text, file=stream, flush=True)


def format_pass_times(times: list[tuple[str, float]], title: str) -> str:
    """
    A pass-timing report, stages in order (a pass run twice, such as canonicalize, gets
    one line per run):

        // -----// pass times of saxpy (cold compile) //----- //
             ms       %  stage
           3.10   10.2%  ti-mem2reg
           ...
          30.40  100.0%  total
    """
    total = sum(seconds for _, seconds in times) or 1e-12
    lines = [f"// -----// pass times of {title} //----- //", "       ms       %  stage"]
    for stage, seconds in times:
        lines.append(f"  {seconds * 1e3:7.2f}  {seconds / total:6.1%}  {stage}")
    lines.append(f"  {total * 1e3:7.2f}  {1:6.1%}  total")
    return "\n".join(lines)


# -- pipelines -----------------------------------------------------------------------------


def expand_pipeline(spec: str) -> list[str]:
    """
    The passes of a pass-spec string, named pipelines expanded (so that print_ir sees
    every pass): "ti-to-llvm" -> ["ti-mem2reg", "canonicalize", ...].
    """
    passes: list[str] = []
    for item in _split_spec(spec):
        if item in registry.PIPELINES:
            passes.extend(expand_pipeline(registry.PIPELINES[item]))
        else:
            passes.append(item)
    return passes


def offload_pipeline() -> list[str]:
    """`ti-to-offload-cpu`, expanded."""
    return expand_pipeline(OFFLOAD_PIPELINE)


def llvm_pipeline(*, debug: bool = False) -> list[str]:
    """`ti-offload-to-llvm`, expanded; in debug mode with `ti-lower-access{debug=true}`."""
    passes = expand_pipeline(LLVM_PIPELINE)
    if debug:
        passes = [
            "ti-lower-access{debug=true}" if p == "ti-lower-access" else p for p in passes
        ]
    return passes


def _split_spec(spec: str) -> list[str]:
    """Split a pass-spec at top-level commas (`a{x=1,y=2},b` -> [`a{x=1,y=2}`, `b`])."""
    items: list[str] = []
    depth, start = 0, 0
    for index, char in enumerate(spec):
        if char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
        elif char == "," and depth == 0:
            items.append(spec[start:index].strip())
            start = index + 1
    items.append(spec[start:].strip())
    return [item for item in items if item]


# -- the launch plan -----------------------------------------------------------------------


def _find_kernel(module: ModuleOp, name: str) -> offload.KernelOp:
    from taichi_xdsl.dialects import offload

    for op in module.walk():
        if isinstance(op, offload.KernelOp) and op.sym_name.data == name:
            return op
    raise TaichiCompilationError(f"no offload.kernel @{name} after {OFFLOAD_PIPELINE}")


def launch_plan(kernel: offload.KernelOp) -> LaunchPlan:
    """
    Read what the runtime needs off an `offload.kernel`:

        offload.kernel @k : (f32, memref<?xf32>) -> () {      args: f32, ndarray(f32, 1)
          %n = offload.global_tmp 0 : memref<i32>             gtmp_bytes: 4
          offload.serial { ... }                              task 0: serial
          %lo = arith.constant 0 : i32
          %hi = memref.load %n[] : memref<i32>
          offload.range_for %i = %lo to %hi : i32 { ... }     task 1: [0, gtmp 0)
        }
    """
    from taichi_xdsl.dialects import offload

    name = kernel.sym_name.data
    function_type = kernel.function_type
    args = tuple(_arg_spec(name, index, t) for index, t in enumerate(function_type.inputs))
    returns = tuple(_scalar_type(name, t) for t in function_type.outputs)
    tasks: list[TaskSpec] = []
    for index, task in enumerate(kernel.tasks):
        symbol = abi.task_symbol(name, index)
        if isinstance(task, offload.SerialTask):
            tasks.append(TaskSpec(symbol, "serial"))
        elif isinstance(task, offload.RangeForTask):
            block_dim = task.block_dim.value.data if task.block_dim is not None else None
            tasks.append(
                TaskSpec(
                    symbol,
                    "range_for",
                    _bound(name, task.lower),
                    _bound(name, task.upper),
                    block_dim=block_dim or None,
                )
            )
        else:
            raise TaichiCompilationError(
                f"kernel '{name}': task {index} ({task.name}) has no CPU lowering; "
                "struct_for tasks must be demoted to range_for before the backend"
            )
    gtmp_bytes = max(
        (_slot_end(op) for op in kernel.walk() if isinstance(op, offload.GlobalTmpOp)),
        default=0,
    )
    tls_bytes = max(
        (_slot_end(op) for op in kernel.walk() if isinstance(op, offload.ThreadLocalOp)),
        default=0,
    )
    return LaunchPlan(
        name=name,
        args=args,
        returns=returns,
        tasks=tuple(tasks),
        gtmp_bytes=gtmp_bytes,
        thread_local_bytes=tls_bytes,
    )


def _bound(kernel_name: str, value: SSAValue) -> Bound:
    from taichi_xdsl.dialects import offload
    from xdsl.dialects import arith, memref
    from xdsl.dialects.builtin import IntegerAttr

    owner = value.owner
    if isinstance(owner, arith.ConstantOp) and isinstance(owner.value, IntegerAttr):
        return Bound(
            value=owner.value.value.data, dtype=_scalar_type(kernel_name, value.type)
        )
    if isinstance(owner, memref.LoadOp) and isinstance(
        owner.memref.owner, offload.GlobalTmpOp
    ):
        offset = owner.memref.owner.offset.value.data
        return Bound(gtmp_offset=offset, dtype=_scalar_type(kernel_name, value.type))
    raise TaichiCompilationError(
        f"kernel '{kernel_name}': a range_for bound must be a constant or a global "
        f"temporary, got {owner}"
    )


def _slot_end(op: offload.GlobalTmpOp | offload.ThreadLocalOp) -> int:
    from xdsl.dialects.builtin import MemRefType

    result_type = op.result.type
    assert isinstance(result_type, MemRefType)
    return op.offset.value.data + _byte_size(result_type.element_type)


def _byte_size(element_type: Attribute) -> int:
    from xdsl.dialects.builtin import (
        Float16Type,
        Float32Type,
        Float64Type,
        IndexType,
        IntegerType,
    )

    if isinstance(element_type, IntegerType):
        return max(1, element_type.width.data // 8)
    if isinstance(element_type, IndexType):
        return 8
    if isinstance(element_type, Float16Type | Float32Type | Float64Type):
        return element_type.bitwidth // 8
    return 8


_FLOAT_NAMES = {"Float16Type": "f16", "Float32Type": "f32", "Float64Type": "f64"}


def _scalar_type(kernel_name: str, t: Attribute) -> str:
    from xdsl.dialects.builtin import IndexType, IntegerType

    if isinstance(t, IntegerType):
        return f"i{t.width.data}"
    if isinstance(t, IndexType):
        return "i64"
    name = _FLOAT_NAMES.get(type(t).__name__)
    if name is None:
        raise TaichiCompilationError(f"kernel '{kernel_name}': unsupported scalar type {t}")
    return name


def _arg_spec(kernel_name: str, index: int, t: Attribute) -> ArgSpec:
    from xdsl.dialects.builtin import MemRefType

    if isinstance(t, MemRefType):
        return NdarrayArg(_scalar_type(kernel_name, t.element_type), t.get_num_dims())
    return ScalarArg(_scalar_type(kernel_name, t))
