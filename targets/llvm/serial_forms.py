"""
Lazy serial forms: a range_for's form without atomics (ti-add-serial-forms) is lowered to
LLVM and compiled the first time the runtime runs it, not with its kernel.

The runtime runs a serial form only when the calling thread runs a whole range alone (one
thread, a range of one chunk) or when SerialOrParallel probes it (runtime.py); a kernel
whose ranges always go to the pool never does. Compiled with the kernel, mpm88's substep
lowered and optimised its particle-to-grid loop twice: the serial form was a third of the
llvm stage's ops and of LLVM's work.

After the offload stage (and the launch plan, which names each serial form's symbol),
the backend moves the serial forms out of the kernel into a module of their own:

    offload.kernel @k {                              offload.kernel @k {     (compiled now)
      offload.range_for ... { atomics }                offload.range_for ... { atomics }
      offload.range_for ... { plain } {serial_form}    offload.range_for ... { ... }
      offload.range_for ... { ... }            ~>    }
    }
                                                     offload.kernel @k {     (on first use)
                                                       offload.range_for ... { plain }
                                                     }

In the second module each range_for stands alone (the `serial_form` mark goes), so the
llvm stage names the j-th of them `@k__task<j>`; those functions are then renamed to
the serial symbols of the plan (`@k__task<N>_serial`, utils/abi.py), the names the runtime
asks for. The fields and real functions are copied into it; the bounds' kernel-level ops
(constants, loads of global temporaries) too.

With the offline cache, the kernel's entry keeps the serial forms' offload-stage IR as
text; compiling them stores their object code under a key derived from the kernel's, so
that a later process loads it (`SerialForms.address`). AOT modules compile the serial
forms with the kernel (aot.py: `lower_kernel` leaves them in) and list them in
metadata.json.
"""

from __future__ import annotations

import gc
import hashlib
import threading
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from taichi_xdsl.utils import abi
from taichi_xdsl.utils.errors import TaichiCompilationError

if TYPE_CHECKING:
    from xdsl.dialects.builtin import ModuleOp
    from xdsl.ir import SSAValue

    from taichi_xdsl.targets.llvm.backend import CpuBackend
    from taichi_xdsl.targets.llvm.jit import JitModule

STAGE_PREFIX = "serial_forms"
"""Dumps of the serial forms' module: `<kernel>.serial_forms.llvm.mlir` and `.ll`."""


def split_serial_forms(module: ModuleOp, kernel_name: str) -> ModuleOp | None:
    """
    Move the serial forms of `offload.kernel @kernel_name` out of `module` (in place) into
    a module of their own (module docstring), or return None when it has none.
    """
    from xdsl.dialects.builtin import ModuleOp
    from xdsl.ir import Block

    from taichi_xdsl.dialects import offload
    from taichi_xdsl.targets.llvm.backend import PLANS_ATTRIBUTE

    kernel = next(
        op
        for op in module.body.block.ops
        if isinstance(op, offload.KernelOp) and op.sym_name.data == kernel_name
    )
    forms = [
        task
        for task in kernel.tasks
        if isinstance(task, offload.RangeForTask) and task.serial_form is not None
    ]
    if not forms:
        return None
    body = Block()
    copies: dict[SSAValue, SSAValue] = {}

    def copied(value: SSAValue) -> SSAValue:
        """`value`'s kernel-level op (a bound), copied into `body` once."""
        if value not in copies:
            owner = value.owner
            for operand in owner.operands:  # type: ignore[union-attr]
                copied(operand)
            body.add_op(owner.clone(value_mapper=copies))  # type: ignore[union-attr]
        return copies[value]

    for task in forms:
        bounds = [copied(value) for value in task.operands]
        task.detach()
        task.operands = bounds
        del task.properties["serial_form"]
        body.add_op(task)
    attributes = dict(kernel.attributes)
    alone = offload.KernelOp(kernel_name, kernel.function_type, body, attributes)
    alone.location = kernel.location  # pyright: ignore[reportAttributeAccessIssue]
    tops = [  # the fields, real functions, ...; not the kernel's plan
        alone if op is kernel else op.clone()
        for op in module.body.block.ops
        if op is kernel or not isinstance(op, offload.KernelOp)
    ]
    apart = ModuleOp(tops)
    apart.attributes.update(
        (name, value)
        for name, value in module.attributes.items()
        if name != PLANS_ATTRIBUTE
    )
    return apart


def name_serial_functions(
    module: ModuleOp, kernel_name: str, symbols: Sequence[str]
) -> None:
    """After the llvm stage: `@k__task<j>` of the serial forms' module -> `symbols[j]`."""
    from xdsl.dialects import llvm
    from xdsl.dialects.builtin import StringAttr

    names = {abi.task_symbol(kernel_name, j): symbol for j, symbol in enumerate(symbols)}
    for op in module.body.block.ops:
        if isinstance(op, llvm.FuncOp) and op.sym_name.data in names:
            op.properties["sym_name"] = StringAttr(names.pop(op.sym_name.data))
    if names:
        raise RuntimeError(f"the serial forms' module lacks {sorted(names)}")


def serial_cache_key(kernel_key: str) -> str:
    """The offline-cache key of a kernel's serial forms, derived from the kernel's."""
    return hashlib.sha256(f"{kernel_key}/serial-forms".encode()).hexdigest()


class SerialForms:
    """
    The serial forms of one compiled kernel, lowered and compiled on first use:
    `address(symbol)` compiles them all (once, under a lock) and returns one's address.

    Args:
        backend: the CpuBackend that compiled the kernel (pipeline, options, cache).
        kernel_name: the kernel's symbol.
        symbols: the serial symbols in task order (the plan's `serial_symbol`s).
        stages: the (stage, passes) after `offload` that compiled the kernel.
        verify_each: whether they verified after every pass (an edited pipeline).
        module: the serial forms' offload-stage module (`split_serial_forms`), or
        text: the same printed (an offline-cache entry's, `to_json`).
        cache_key: the kernel's offline-cache key (None: no offline cache).
    """

    def __init__(
        self,
        backend: CpuBackend,
        kernel_name: str,
        symbols: Sequence[str],
        stages: Sequence[tuple[str, Sequence[str]]],
        verify_each: bool,
        *,
        module: ModuleOp | None = None,
        text: str | None = None,
        cache_key: str | None = None,
    ):
        assert module is not None or text is not None
        self.backend = backend
        self.kernel_name = kernel_name
        self.symbols = tuple(symbols)
        self._module = module
        self._text = text
        self.stages = tuple((stage, tuple(passes)) for stage, passes in stages)
        self.verify_each = verify_each
        self._cache_key = cache_key
        self._lock = threading.Lock()
        self.jit_module: JitModule | None = None
        self.pass_times: list[tuple[str, float]] = []
        """(stage, seconds) of their compile, once compiled (as CpuBackend.pass_times)."""

    @property
    def compiled(self) -> bool:
        return self.jit_module is not None

    def address(self, symbol: str) -> int:
        """
        The machine-code address of serial form `symbol`, compiling them first.

        Raises:
            TaichiCompilationError: a pass or LLVM rejected them.
        """
        with self._lock:
            if self.jit_module is None:
                # The cycle collector off, as for a kernel's compile (frontends/python/
                # lang/kernel.py, _no_cycle_collection): reference counting frees the IR.
                enabled = gc.isenabled()
                gc.disable()
                try:
                    self.jit_module = self._compile()
                finally:
                    if enabled:
                        gc.enable()
                self._module = self._text = None
        return self.jit_module.address(symbol)

    def _compile(self) -> JitModule:
        from taichi_xdsl.targets.llvm import jit

        backend = self.backend
        cache = backend.offline_cache if self._cache_key is not None else None
        key = serial_cache_key(self._cache_key) if self._cache_key is not None else None
        if cache is not None and key is not None:
            start = time.perf_counter()
            loaded = self._load_cached(cache, key)
            self._time("offline cache load", start)
            if loaded is not None:
                self._report("offline cache hit")
                return loaded
        llvm_ir = self._lower()
        start = time.perf_counter()
        options = {"opt_level": backend.opt_level, "fast_math": backend.fast_math}
        try:
            if cache is None or key is None:
                jit_module = jit.compile_ir(llvm_ir, **options)
            else:
                code = jit.compile_object(llvm_ir, **options)
                jit_module = jit.load_object(code)
                meta = {"kernel": self.kernel_name, "serial_forms": list(self.symbols)}
                cache.store(key, meta, code)
        except RuntimeError as error:
            raise TaichiCompilationError(
                f"kernel '{self.kernel_name}' (serial forms): {error}"
            ) from error
        self._time("LLVM O3 + codegen", start)
        self._report("cold compile")
        return jit_module

    def _load_cached(self, cache: Any, key: str) -> JitModule | None:
        from taichi_xdsl.targets.llvm import jit

        entry = cache.load(key)
        if entry is None:
            return None
        try:
            if entry.meta.get("serial_forms") != list(self.symbols):
                raise ValueError("an entry of other serial forms")
            return jit.load_object(entry.payload)
        except (ValueError, RuntimeError, TypeError):
            cache.discard(key)
            return None

    def _lower(self) -> str:
        """The serial forms' module through the stages after `offload`, as LLVM IR text."""
        from taichi_xdsl.targets.llvm.translate import kernel_llvm_ir
        from taichi_xdsl.utils import registry
        from taichi_xdsl.utils.pass_runner import PassRunner

        backend = self.backend
        start = time.perf_counter()
        ctx = registry.make_context()
        module = self._module
        if module is None:
            from xdsl.parser import Parser

            assert self._text is not None
            try:
                module = Parser(ctx, self._text).parse_module()
            except Exception as error:  # xDSL's parse errors come in several types
                raise TaichiCompilationError(
                    f"kernel '{self.kernel_name}': the offline cache's serial forms do "
                    f"not parse: {error}"
                ) from error
        self._time("parse" if self._module is None else "context", start)
        runner = PassRunner(
            print_ir=backend.print_ir,
            ir_stream=backend.ir_stream,
            dump_dir=backend.dump_ir,
            collect_statistics=False,
        )
        runner.verify_each = self.verify_each
        runner.times = self.pass_times
        label = f"{self.kernel_name} serial forms"
        for index, (stage, passes) in enumerate(self.stages):
            runner.run(ctx, module, passes, label)
            if index == len(self.stages) - 1:  # the llvm dialect's functions
                name_serial_functions(module, self.kernel_name, self.symbols)
            runner.dump(module, self.kernel_name, f"{STAGE_PREFIX}.{stage}")
        start = time.perf_counter()
        llvm_ir = kernel_llvm_ir(module, f"kernel '{self.kernel_name}' (serial forms)")
        self._time("translate to LLVM IR", start)
        if backend.print_ir:
            runner.write(f"// -----// LLVM IR of {label} //----- //\n{llvm_ir}")
        runner.dump(module, self.kernel_name, f"{STAGE_PREFIX}.ll", llvm_ir)
        return llvm_ir

    def to_json(self) -> dict[str, Any]:
        """What an offline-cache entry keeps of them (`from_json` reverses it): the
        offload-stage IR as text, the passes after it, the symbols."""
        from taichi_xdsl.utils.pass_runner import print_ir_text

        if self._text is None:
            assert self._module is not None
            self._text = print_ir_text(self._module, locations=True)
        return {
            "ir": self._text,
            "stages": [[stage, list(passes)] for stage, passes in self.stages],
            "verify_each": self.verify_each,
            "symbols": list(self.symbols),
        }

    @classmethod
    def from_json(
        cls, data: Any, backend: CpuBackend, kernel_name: str, cache_key: str
    ) -> SerialForms:
        """
        The serial forms of a cache entry's `to_json` data.

        Raises:
            ValueError: not such data.
        """
        try:
            text, symbols = data["ir"], data["symbols"]
            stages = [
                (str(stage), [str(name) for name in passes])
                for stage, passes in data["stages"]
            ]
            verify_each = bool(data["verify_each"])
        except (KeyError, TypeError, ValueError) as error:
            raise ValueError(f"malformed serial forms: {error}") from None
        if not isinstance(text, str) or not all(isinstance(s, str) for s in symbols):
            raise ValueError("malformed serial forms")
        return cls(
            backend,
            kernel_name,
            symbols,
            stages,
            verify_each,
            text=text,
            cache_key=cache_key,
        )

    def _time(self, stage: str, start: float) -> None:
        self.pass_times.append((stage, time.perf_counter() - start))

    def _report(self, what: str) -> None:
        if self.backend.print_pass_times:
            from taichi_xdsl.utils.pass_runner import format_pass_times

            title = f"{self.kernel_name} serial forms ({what}, on first use)"
            self.backend._print(format_pass_times(self.pass_times, title))
