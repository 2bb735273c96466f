"""
The CPU backend: a `taichi.kernel` -> machine code -> a launchable `CpuKernel`.

    backend = CpuBackend(num_threads=8, debug=True)
    kernel = backend.compile(module, "saxpy")     # module: fields + taichi.kernel @saxpy
    kernel.launch(root, (2.0, x, y))              # -> tuple of return values

compile() is a recipe, as Taichi's compile_to_offloads; the pipeline's stages are defined
in utils/pipelines.py (`pipeline("cpu")`) and a program may edit them (`passes=`):
1. the `offload` stage (`ti-to-offload-cpu`): the kernel becomes an `offload.kernel` of tasks;
2. the launch plan is read off the offload.kernel (`launch_plan`): tasks in order with
   their kind and bounds (a constant, or the global temporary a bound is loaded from),
   argument and return types, buffer sizes;
3. the `llvm` stage (`ti-offload-to-llvm`, with `ti-lower-access{debug=true}` in debug
   mode): one LLVM function per task; the plan rides along as the module attribute
   `ti.launch_plans`, so IR of this stage can be compiled again (`compile` starts at
   whatever stage its module is in: taichi, offload or llvm);
4. targets/llvm/translate.py: LLVM IR text; targets/llvm/jit.py: host machine code (O3,
   fast math);
5. a `CpuKernel` (targets/llvm/runtime.py) holds the plan and the machine code.
With `print_ir=True` the IR is printed after every pass, then the LLVM IR; `dump_ir=dir`
writes each kernel's IR at each stage to `dir/<kernel>.<stage>.mlir` (and `.ll`);
`print_pass_statistics=True` reports the ops each pass added and removed
(utils/pass_runner.py).

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
from dataclasses import replace
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
from taichi_xdsl.utils.pass_runner import (
    PassRunner,
    format_pass_statistics,
    format_pass_times,
)
from taichi_xdsl.utils.pipelines import Pipeline, PipelineEdits, pipeline
from taichi_xdsl.utils.errors import TaichiCompilationError

if TYPE_CHECKING:
    from taichi_xdsl.dialects import offload
    from taichi_xdsl.targets.llvm.serial_forms import SerialForms
    from xdsl.dialects.builtin import ModuleOp
    from xdsl.ir import Attribute, SSAValue
    from xdsl.passes import ModulePass

# xDSL and our dialects are imported where a kernel is compiled, not at module load:
# an offline-cache hit needs none of them (the frontend has already loaded the few
# dialects it builds the IR with).

PLANS_ATTRIBUTE = "ti.launch_plans"
"""Module attribute: kernel name -> launch plan (JSON text), set after the offload stage."""


class CpuKernel(Kernel):
    """
    A kernel compiled for the CPU: `launch(root, args) -> tuple` (see runtime.Kernel).

    Attributes:
        plan: the launch plan read from the offload.kernel.
        llvm_ir: the LLVM IR text given to the JIT (the serial forms aside).
        jit_module: the machine code (kept alive by the kernel).
        serial_forms: the tasks' serial forms, compiled on first use (serial_forms.py),
            or None (none, or they are in `jit_module`).
    """

    def __init__(
        self,
        plan: LaunchPlan,
        jit_module: JitModule,
        llvm_ir: str,
        *,
        num_threads: int | None = None,
        pool_kind: str = "native",
        serial_forms: SerialForms | None = None,
    ):
        self.jit_module = jit_module
        self.llvm_ir = llvm_ir
        self.serial_forms = serial_forms
        super().__init__(
            plan,
            self._address_of,
            keepalive=jit_module,
            num_threads=num_threads,
            pool_kind=pool_kind,
        )

    def _address_of(self, symbol: str) -> int:
        forms = self.serial_forms
        if forms is not None and symbol in forms.symbols:
            return forms.address(symbol)
        return self.jit_module.address(symbol)


class CpuBackend:
    """
    Compiles taichi-dialect kernels for the host CPU.

    Args:
        num_threads: threads that run parallel loops (None: every CPU of the process).
        debug: bounds checks and asserts (TaichiIndexError / TaichiAssertionError).
        print_ir: print the IR after every pass, then the LLVM IR (to `ir_stream`).
        fast_math: fast-math flags and function attributes on the generated code
            (targets/llvm/jit.py), Taichi's default.
        opt_level: LLVM optimisation level, 0 to 3; 0 also leaves out our optional passes
            (utils/pipelines.OPTIONAL_PASSES).
        pool_kind: "native" (default) or "python" thread pool (targets/llvm/pool.py).
        ir_stream: where print_ir writes; None: sys.stdout at the time of printing.
        offline_cache: where compiled kernels are kept across processes (None: nowhere).
        print_pass_times: print the time of each pass and stage after each compile.
        passes: edits to the arch's pipeline (utils/pipelines.py PipelineEdits).
        dump_ir: a folder: each kernel's IR at each stage goes to `<kernel>.<stage>.mlir`.
        print_pass_statistics: print the ops each pass added and removed, per compile.
        verify_each: verify after every pass (None: when `passes` edits the pipeline).

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
        passes: PipelineEdits | None = None,
        dump_ir: str | None = None,
        print_pass_statistics: bool = False,
        verify_each: bool | None = None,
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
        self.print_pass_statistics = print_pass_statistics
        self.passes = passes
        self.dump_ir = dump_ir
        self.verify_each = verify_each
        self.runner = PassRunner(
            print_ir=print_ir,
            ir_stream=ir_stream,
            dump_dir=dump_ir,
            collect_statistics=print_pass_statistics,
        )
        self.pass_times = self.runner.times
        self.cache_hits = 0
        self.cache_misses = 0

    def pipeline(self, passes: PipelineEdits | None = None) -> Pipeline:
        """
        The pipeline this backend runs: the arch's, with this backend's options (debug
        mode), its edits and then `passes` (a kernel's own edits).
        """
        p = pipeline("cpu").with_options("ti-lower-access", "debug=true" if self.debug else "")
        if self.opt_level == 0:  # ti.init(opt_level=0): no optimisation, ours or LLVM's
            p = p.unoptimised()
        edits = self.passes.merged(passes) if self.passes is not None else passes
        return p.edited(edits)

    def _edited(self, passes: PipelineEdits | None) -> bool:
        return bool(self.passes) or bool(passes)

    def compile(
        self,
        module: ModuleOp,
        kernel_name: str,
        *,
        source_key: str | None = None,
        passes: PipelineEdits | None = None,
        in_place: bool = False,
    ) -> CpuKernel:
        """
        Compile kernel `kernel_name` of `module` (which is left unchanged), or load it
        from the offline cache. The module may be at any stage of the pipeline: a
        `taichi.kernel` (the frontend's), an `offload.kernel` or llvm-dialect IR with its
        `ti.launch_plans` attribute (stage_of). `passes`: this kernel's own pipeline
        edits, after the backend's. With `source_key` (`source_cache_key`), the offline
        cache also maps that key to this kernel's entry (`load_by_source`). With
        `in_place`, the passes lower `module` itself, not a copy: for a caller that
        built it for this compile alone (a copy is 1-4% of a kernel's compile).

        Raises:
            TaichiCompilationError: a pass rejected the kernel, or the IR is invalid.
        """
        self.pass_times.clear()
        self.runner.statistics.clear()
        key = None
        if self.offline_cache is not None and not self.print_ir and self.dump_ir is None:
            start = time.perf_counter()
            key = self.cache_key(module, passes=passes)
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
        if not in_place:
            module = module.clone()
        ctx = registry.make_context()
        self._time("context" if in_place else "clone + context", start)
        plan, apart = self._lower(
            ctx, module, kernel_name, self.pipeline(passes), passes, serial_forms_apart=True
        )
        assert plan is not None
        serial_forms = None
        if apart is not None:
            from taichi_xdsl.targets.llvm.serial_forms import SerialForms
            from taichi_xdsl.utils.pass_runner import truncate

            serial_forms = SerialForms(
                self,
                kernel_name,
                [t.serial_symbol for t in plan.tasks if t.serial_symbol is not None],
                truncate(self.pipeline(passes), "offload"),
                self.runner.verify_each,
                module=apart,
                cache_key=key,
            )
        start = time.perf_counter()
        from taichi_xdsl.targets.llvm.translate import kernel_llvm_ir

        llvm_ir = kernel_llvm_ir(module, f"kernel '{kernel_name}'")
        self._time("translate to LLVM IR", start)
        if self.print_ir:
            self._print(f"// -----// LLVM IR of {kernel_name} //----- //\n{llvm_ir}")
        self.runner.dump(module, kernel_name, "ll", llvm_ir)
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
            if serial_forms is not None:
                meta["serial_forms"] = serial_forms.to_json()
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
            serial_forms=serial_forms,
        )

    def lower(
        self,
        module: ModuleOp,
        kernel_name: str,
        stop: str,
        *,
        passes: PipelineEdits | None = None,
    ) -> ModuleOp:
        """
        A copy of `module` lowered until `stop`: a stage (`taichi`, `offload`, `llvm`)
        or a pass of the pipeline (the IR right after its first run).

        Raises:
            ValueError: the pipeline has no such stage or pass.
            TaichiCompilationError: a pass rejected the kernel.
        """
        module = module.clone()
        ctx = registry.make_context()
        self.pass_times.clear()
        self.runner.statistics.clear()
        dump_dir, self.runner.dump_dir = self.runner.dump_dir, None  # a query: no dumps
        try:
            self._lower(ctx, module, kernel_name, self.pipeline(passes), passes, stop=stop)
        finally:
            self.runner.dump_dir = dump_dir
        return module

    def _lower(
        self,
        ctx: Any,
        module: ModuleOp,
        kernel_name: str,
        p: Pipeline,
        passes: PipelineEdits | None,
        *,
        stop: str | None = None,
        serial_forms_apart: bool = False,
    ) -> tuple[LaunchPlan | None, ModuleOp | None]:
        """
        Run `p` on `module` from its stage (until `stop`); return the launch plan (None
        when stopped before it exists) and, with `serial_forms_apart`, the module of the
        serial forms moved out of `module` before the stages after `offload`
        (serial_forms.py; None: there are none, or `module` is past that point).
        """
        from taichi_xdsl.utils.pass_runner import stage_of, truncate

        self.runner.verify_each = (
            self.verify_each if self.verify_each is not None else self._edited(passes)
        )
        first = stage_of(module, kernel_name)
        stages = truncate(p, first, stop)
        plan: LaunchPlan | None = None
        if first == "taichi":
            self.runner.dump(module, kernel_name, "taichi")
        if first == "offload":  # IR given at the offload stage: read its plan now
            plan = launch_plan(_find_kernel(module, kernel_name))
            _set_plan(module, plan)
        apart = None
        for stage, stage_passes in stages:
            if serial_forms_apart and plan is not None:  # past the offload stage, once
                from taichi_xdsl.targets.llvm.serial_forms import split_serial_forms

                apart = split_serial_forms(module, kernel_name)
                serial_forms_apart = False
            # The final llvm-dialect module is verified; verifying the frontend's module
            # and in between (a tenth of a large kernel's compile time each) is for debug
            # mode, where it names who broke the IR.
            self.runner.run(
                ctx,
                module,
                stage_passes,
                kernel_name,
                print_input=stage == "offload",
                verify=stage != "offload" or self.debug or self.print_ir,
            )
            if stage == "offload" and len(stage_passes) == len(p.stage(stage).passes):
                start = time.perf_counter()
                plan = launch_plan(_find_kernel(module, kernel_name))
                _set_plan(module, plan)
                self._time("launch plan", start)
            self.runner.dump(module, kernel_name, stage)
        if plan is None and (stop is None or first == p.stages[-1].name):
            plan = _plan_attribute(module, kernel_name)
        return plan, apart

    # -- the offline cache ---------------------------------------------------------------

    def _target_parts(self, passes: PipelineEdits | None = None) -> dict[str, str]:
        """The arch, caps and config parts of this backend's cache keys (the pipeline,
        edits included, is part of the config)."""
        from taichi_xdsl.utils.cache_keys import pipeline_config

        host = jit.host_target()
        config = pipeline_config(
            self.pipeline(passes),
            edited=self._edited(passes),
            options=f"debug={self.debug};fast_math={self.fast_math};"
            f"opt_level={self.opt_level};",
        )
        return {
            "arch": f"cpu:{host.triple}",
            "caps": f"{host.cpu};{host.features}",
            "config": config,
        }

    def cache_key(self, module: ModuleOp, *, passes: PipelineEdits | None = None) -> str:
        """The offline-cache key of `module` compiled by this backend (deterministic)."""
        from taichi_xdsl.targets.llvm.cache import KEYS

        return KEYS.kernel_key(str(module), **self._target_parts(passes))

    def source_cache_key(
        self, parts: dict[str, str], *, passes: PipelineEdits | None = None
    ) -> str | None:
        """
        The first-level offline-cache key of a kernel instance from the frontend's
        `parts` (frontends/python/lang/source_key.py), computed without xDSL; None when the
        offline cache is off (or print_ir asks for the IR).
        """
        if self.offline_cache is None or self.print_ir or self.dump_ir is not None:
            return None
        from taichi_xdsl.targets.llvm.cache import KEYS

        return KEYS.source_kernel_key(parts, **self._target_parts(passes))

    def load_by_source(self, source_key: str, kernel_name: str) -> CpuKernel | None:
        """
        The kernel that `source_key` maps to in the offline cache, or None (a miss):
        no xDSL, no frontend. A mapping to a missing or bad entry is dropped.
        """
        if self.offline_cache is None:
            return None
        self.pass_times.clear()
        start = time.perf_counter()
        link = self.offline_cache.linked(source_key)
        ir_key = link[0] if link is not None and link[1] == kernel_name else None
        if link is not None and ir_key is None:
            self.offline_cache.unlink(source_key)
        kernel = self._load_cached(ir_key, kernel_name) if ir_key is not None else None
        self._time("offline cache load (source key)", start)
        if kernel is None:
            if ir_key is not None:
                self.offline_cache.unlink(source_key)
            return None
        self.cache_hits += 1
        self._report(kernel_name, "offline cache hit")
        return kernel

    def _store_source_key(self, source_key: str | None, key: str, kernel_name: str) -> None:
        if source_key is not None and self.offline_cache is not None:
            self.offline_cache.link(source_key, key, kernel_name)

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
            serial_forms = None
            if "serial_forms" in entry.meta:  # compiled on first use
                from taichi_xdsl.targets.llvm.serial_forms import SerialForms

                serial_forms = SerialForms.from_json(
                    entry.meta["serial_forms"], self, kernel_name, key
                )
            kernel = CpuKernel(
                plan,
                jit_module,
                "",
                num_threads=self.num_threads,
                pool_kind=self.pool_kind,
                serial_forms=serial_forms,
            )
        except (KeyError, ValueError, RuntimeError, TypeError):
            self.offline_cache.discard(key)
            return None
        return kernel

    # -- pass timing ---------------------------------------------------------------------

    def _time(self, stage: str, start: float) -> None:
        self.pass_times.append((stage, time.perf_counter() - start))

    def _report(self, kernel_name: str, what: str) -> None:
        if self.print_pass_times:
            self._print(format_pass_times(self.pass_times, f"{kernel_name} ({what})"))
        if self.print_pass_statistics and self.runner.statistics:
            self._print(
                format_pass_statistics(self.runner.statistics, f"{kernel_name} ({what})")
            )

    def _print(self, text: str) -> None:
        stream = self.ir_stream or sys.stdout
        print(text, file=stream, flush=True)


# -- the launch plan -----------------------------------------------------------------------


def _find_kernel(module: ModuleOp, name: str) -> offload.KernelOp:
    from taichi_xdsl.dialects import offload

    for op in module.walk():
        if isinstance(op, offload.KernelOp) and op.sym_name.data == name:
            return op
    raise TaichiCompilationError(f"no offload.kernel @{name} after the offload stage")


def _set_plan(module: ModuleOp, plan: LaunchPlan) -> None:
    """Record `plan` in `module`'s PLANS_ATTRIBUTE (JSON text per kernel)."""
    import json

    from taichi_xdsl.targets.llvm.cache import plan_to_json
    from xdsl.dialects.builtin import DictionaryAttr, StringAttr

    from taichi_xdsl.utils.pass_runner import root_bytes

    plans = dict(module.attributes.get(PLANS_ATTRIBUTE, DictionaryAttr({})).data)  # type: ignore[union-attr]
    data = {**plan_to_json(plan), "root_bytes": root_bytes(module)}
    plans[plan.name] = StringAttr(json.dumps(data, sort_keys=True))
    module.attributes[PLANS_ATTRIBUTE] = DictionaryAttr(plans)


def _plan_attribute(module: ModuleOp, kernel_name: str) -> LaunchPlan:
    """The launch plan that `_set_plan` recorded in `module` for `kernel_name`."""
    import json

    from taichi_xdsl.targets.llvm.cache import plan_from_json

    plans = module.attributes.get(PLANS_ATTRIBUTE)
    entry = getattr(plans, "data", {}).get(kernel_name)
    if entry is None:
        raise TaichiCompilationError(
            f"kernel '{kernel_name}': llvm-dialect IR without its launch plan (the "
            f"module attribute {PLANS_ATTRIBUTE} that the offload stage records)"
        )
    return plan_from_json(json.loads(entry.data))


def launch_plan(kernel: offload.KernelOp) -> LaunchPlan:
    """
    Read what the runtime needs off an `offload.kernel`:

        offload.kernel @k : (f32, memref<?xf32>) -> () {      args: f32, ndarray(f32, 1)
          %n = offload.global_tmp 0 : memref<i32>             gtmp_bytes: 4
          offload.serial { ... }                              task 0: serial
          %lo = arith.constant 0 : i32
          %hi = memref.load %n[] : memref<i32>
          offload.range_for %i = %lo to %hi : i32 { ... }     task 1: [0, gtmp 0)
          offload.range_for %i = ... { ... } {serial_form}     task 1's serial form
        }
    """
    from taichi_xdsl.dialects import offload

    name = kernel.sym_name.data
    function_type = kernel.function_type
    args = tuple(_arg_spec(name, index, t) for index, t in enumerate(function_type.inputs))
    returns = tuple(_scalar_type(name, t) for t in function_type.outputs)
    tasks: list[TaskSpec] = []
    for task in kernel.tasks:
        index = len(tasks)
        symbol = abi.task_symbol(name, index)
        if isinstance(task, offload.RangeForTask) and task.serial_form is not None:
            # The task before this one, in another form (ti-add-serial-forms).
            serial_symbol = abi.serial_form_symbol(name, index - 1)
            tasks[-1] = replace(tasks[-1], serial_symbol=serial_symbol)
        elif isinstance(task, offload.SerialTask):
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
                    index_cost=_index_cost(task.body),
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


_MAX_INDEX_COST = 1 << 24
_RUNTIME_TRIPS = 512
"""The trip count assumed for an inner loop whose bounds are known only at run time: a
whole minimum chunk (adaptive_grain's 512), so that every index of such a loop may go
to a thread of its own. Such loops are how a kernel hands each index a slice of work
(the blocks of a radix sort, the rows of a CSR matrix): counting them as nothing ran
64 blocks of 2^18 keys on one thread. Guessing high costs little when the loop is
short: a long range still gets chunks of 128 indices (one atomic hand-out each)."""


def _index_cost(region: Any) -> int:
    """
    Iterations that one index of a range_for task runs: 1, plus for each outermost inner
    `taichi.range_for` its trip count times the cost of its body (ti-split-parallel-loop's
    rows, an n-body's loop over every body); a loop of bounds known only at run time
    counts as _RUNTIME_TRIPS iterations.
    """
    from xdsl.dialects import arith
    from xdsl.dialects.builtin import IntegerAttr

    from taichi_xdsl.dialects import taichi

    def constant(value: Any) -> int | None:
        owner = value.owner
        if isinstance(owner, arith.ConstantOp) and isinstance(owner.value, IntegerAttr):
            return owner.value.value.data
        return None

    def cost(region: Any) -> int:
        total = 1
        for block in region.blocks:
            for op in block.ops:
                if isinstance(op, taichi.RangeForOp):
                    lo, hi = constant(op.lower), constant(op.upper)
                    if lo is None or hi is None:
                        total += _RUNTIME_TRIPS * cost(op.body)
                    elif hi > lo:
                        total += (hi - lo) * cost(op.body)
                else:
                    for inner in op.regions:
                        total += cost(inner) - 1
                if total >= _MAX_INDEX_COST:
                    return _MAX_INDEX_COST
        return total

    return cost(region)


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
