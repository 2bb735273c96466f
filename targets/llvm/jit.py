"""
The llvmlite JIT: LLVM IR text -> optimised machine code for the host CPU.

    engine = compile_ir(ir_text)                # parse, verify, O3, MCJIT
    address = engine.address("k__task0")        # int, callable through ctypes

llvmlite is imported and initialised on first use (importing this module is cheap). One
TargetMachine describes the host (triple, CPU name, CPU features, -O3, JIT code model);
every module gets LLVM's O3 module pipeline with loop and SLP vectorisation, the
equivalent of `opt -O3` (llvmlite's new pass manager: PipelineTuningOptions + PassBuilder).

Fast math: the translator puts fast-math flags on the floating-point instructions, which is
what lets LLVM reassociate reductions and vectorise them. With `fast_math=True` the JIT
also sets the function attributes that some code generators still read
("unsafe-fp-math" and friends), as clang -ffast-math does.

A `JitModule` owns its MCJIT engine: the machine code lives as long as the JitModule, so
whoever calls its functions (a CpuKernel) keeps a reference to it.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from llvmlite import binding as llvm

_lock = threading.RLock()
"""LLVM's global state (pass builders, engines) is not safe to use from several threads."""

FAST_MATH_FUNCTION_ATTRIBUTES = (
    ("unsafe-fp-math", "true"),
    ("no-infs-fp-math", "true"),
    ("no-nans-fp-math", "true"),
    ("no-signed-zeros-fp-math", "true"),
    ("approx-func-fp-math", "true"),
)


@dataclass(frozen=True)
class HostTarget:
    """The host CPU as LLVM names it."""

    triple: str
    cpu: str
    features: str


@cache
def _llvm() -> Any:
    """Import llvmlite.binding and initialise the native target, once."""
    from llvmlite import binding as llvm

    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()
    llvm.initialize_native_asmparser()
    return llvm


@cache
def host_target() -> HostTarget:
    """The host's triple, CPU name and CPU features (e.g. `+avx2,+fma,...`)."""
    llvm = _llvm()
    return HostTarget(
        triple=llvm.get_process_triple(),
        cpu=llvm.get_host_cpu_name(),
        features=llvm.get_host_cpu_features().flatten(),
    )


@cache
def target_machine(opt_level: int = 3) -> llvm.TargetMachine:
    """A TargetMachine for the host CPU, suitable for MCJIT."""
    llvm = _llvm()
    host = host_target()
    target = llvm.Target.from_triple(host.triple)
    return target.create_target_machine(
        cpu=host.cpu,
        features=host.features,
        opt=opt_level,
        reloc="default",
        codemodel="jitdefault",
        jit=True,
    )


def optimize(module: llvm.ModuleRef, opt_level: int = 3) -> None:
    """Run LLVM's default module pipeline at `opt_level` (O3: loop + SLP vectorisation)."""
    if opt_level == 0:
        return
    llvm = _llvm()
    pto = llvm.create_pipeline_tuning_options(speed_level=opt_level)
    vectorize = opt_level >= 2
    pto.loop_vectorization = vectorize
    pto.slp_vectorization = vectorize
    pto.loop_interleaving = vectorize
    pto.loop_unrolling = True
    pass_builder = llvm.create_pass_builder(target_machine(opt_level), pto)
    pass_builder.getModulePassManager().run(module, pass_builder)


def add_fast_math_attributes(ir: str) -> str:
    """
    Give every function definition of `ir` the fast-math function attributes, through one
    attribute group appended to the module:

        define void @f(ptr %0) {        ~>   define void @f(ptr %0) #1000000 {
                                              ...
                                              attributes #1000000 = { "unsafe-fp-math"="true" ... }
    """
    group = "#1000000"
    if group in ir:
        return ir
    lines = ir.splitlines()
    changed = False
    for index, line in enumerate(lines):
        if line.startswith("define ") and line.rstrip().endswith("{"):
            lines[index] = line.rstrip()[:-1].rstrip() + f" {group} {{"
            changed = True
    if not changed:
        return ir
    attributes = " ".join(f'"{key}"="{value}"' for key, value in FAST_MATH_FUNCTION_ATTRIBUTES)
    lines.append(f"attributes {group} = {{ {attributes} }}")
    return "\n".join(lines) + "\n"


class JitModule:
    """
    One LLVM module compiled to machine code. Holds the MCJIT engine, so the code stays
    valid as long as this object lives.
    """

    def __init__(self, engine: Any, module: Any, optimized_ir: str | None):
        self._engine = engine
        self._module = module
        self.optimized_ir = optimized_ir
        self._addresses: dict[str, int] = {}

    def address(self, name: str) -> int:
        """
        The machine-code address of function `name`.

        Raises:
            KeyError: the module defines no function `name`.
        """
        address = self._addresses.get(name)
        if address is None:
            with _lock:
                address = self._engine.get_function_address(name)
            if not address:
                raise KeyError(f"the JIT module defines no function '{name}'")
            self._addresses[name] = address
        return address

    def assembly(self) -> str:
        """The host assembly of the module (for inspection and tests)."""
        with _lock:
            return target_machine().emit_assembly(self._module)


def compile_ir(
    ir: str,
    *,
    opt_level: int = 3,
    fast_math: bool = True,
    keep_ir: bool = False,
) -> JitModule:
    """
    Parse, verify, optimise and JIT-compile LLVM IR text for the host CPU.

    Args:
        ir: a whole LLVM module as text.
        opt_level: 0..3, for both the IR pipeline and the code generator.
        fast_math: also mark every function with the fast-math function attributes.
        keep_ir: keep the optimised IR text on the result (`optimized_ir`).

    Returns:
        The compiled module; look functions up with `address(name)`.

    Raises:
        RuntimeError: llvmlite rejects the IR (parse or verifier error).
    """
    llvm = _llvm()
    if fast_math:
        ir = add_fast_math_attributes(ir)
    with _lock:
        try:
            module = llvm.parse_assembly(ir)
            module.verify()
        except RuntimeError as error:
            raise RuntimeError(f"invalid LLVM IR: {error}\n{_numbered(ir)}") from None
        machine = target_machine(opt_level)
        module.triple = host_target().triple
        module.data_layout = str(machine.target_data)
        optimize(module, opt_level)
        optimized_ir = str(module) if keep_ir else None
        engine = llvm.create_mcjit_compiler(module, machine)
        engine.finalize_object()
        engine.run_static_constructors()
    return JitModule(engine, module, optimized_ir)


def _numbered(text: str) -> str:
    return "\n".join(f"{n:4d}  {line}" for n, line in enumerate(text.splitlines(), 1))
