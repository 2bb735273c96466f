"""
The llvmlite JIT: LLVM IR text -> optimised machine code for the host CPU.

    engine = compile_ir(ir_text)                # parse, verify, O3, MCJIT
    address = engine.address("k__task0")        # int, callable through ctypes

llvmlite is imported and initialised on first use (importing this module is cheap). One
TargetMachine describes the host (triple, CPU name, CPU features, -O3, JIT code model);
every module gets LLVM's O3 module pipeline with loop and SLP vectorisation, the
equivalent of `opt -O3` (llvmlite's new pass manager: PipelineTuningOptions + PassBuilder).
A module where SLP made a loop-carried recurrence move vector lanes on every iteration
(slp_guard.py) is optimised again without SLP: LLVM's SLP cost model counts throughput,
such a loop runs at the latency of its recurrence.

Fast math (Taichi's default): with `fast_math=True` every floating-point instruction and
call gets the `fast` flag unless it already carries fast-math flags (what lets LLVM
reassociate reductions and vectorise them), and every function the fast-math function
attributes that some code generators still read ("unsafe-fp-math" and friends), as
clang -ffast-math does.

`compile_object` / `load_object` do the same through an object file, for AOT modules that
must run without the compiler (and for a CPU named explicitly rather than the host).

A `JitModule` owns its MCJIT engine: the machine code lives as long as the JitModule, so
whoever calls its functions (a CpuKernel) keeps a reference to it.
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Any

from taichi_xdsl.targets.llvm.slp_guard import cross_lane_recurrences

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
    """A shared TargetMachine for the host CPU (pass pipelines, assembly dumps)."""
    return new_target_machine(opt_level)


def new_target_machine(
    opt_level: int = 3, cpu: str | None = None, features: str | None = None
) -> llvm.TargetMachine:
    """
    A fresh TargetMachine, suitable for MCJIT, for the host CPU or for `cpu` (an LLVM CPU
    name such as "x86-64-v3") with `features` ("+avx2,+fma"; "" for the CPU's own). An
    MCJIT engine takes ownership of (and frees) the machine it is built with, so every
    engine gets its own.
    """
    llvm = _llvm()
    host = host_target()
    target = llvm.Target.from_triple(host.triple)
    return target.create_target_machine(
        cpu=host.cpu if cpu is None else cpu,
        features=(host.features if cpu is None else "") if features is None else features,
        opt=opt_level,
        reloc="default",
        codemodel="jitdefault",
        jit=True,
    )


def optimize(
    module: llvm.ModuleRef, opt_level: int = 3, machine: Any = None, slp: bool = True
) -> None:
    """Run LLVM's default module pipeline at `opt_level` (O3: loop + SLP vectorisation;
    `slp=False` leaves the SLP vectoriser out)."""
    if opt_level == 0:
        return
    llvm = _llvm()
    pto = llvm.create_pipeline_tuning_options(speed_level=opt_level)
    vectorize = opt_level >= 2
    pto.loop_vectorization = vectorize
    pto.slp_vectorization = vectorize and slp
    pto.loop_interleaving = vectorize
    pto.loop_unrolling = True
    pass_builder = llvm.create_pass_builder(machine or target_machine(opt_level), pto)
    pass_builder.getModulePassManager().run(module, pass_builder)


def add_fast_math_attributes(ir: str) -> str:
    """
    Give every function definition of `ir` the fast-math function attributes, through one
    attribute group appended to the module (the `{` may end the line or be the next one,
    as llvmlite.ir prints it):

        define void @f(ptr %0) {        ~>   define void @f(ptr %0) #1000000 {
                                              ...
                                              attributes #1000000 = { "unsafe-fp-math"="true" ... }
    """
    group = "#1000000"
    if f"attributes {group}" in ir:
        return ir
    lines = ir.splitlines()
    changed = False
    for index, line in enumerate(lines):
        if not line.startswith("define "):
            continue
        stripped = line.rstrip()
        body = _body_brace(stripped)
        lines[index] = f"{stripped[:body].rstrip()} {group} {stripped[body:]}".rstrip()
        changed = True
    if not changed:
        return ir
    attributes = " ".join(
        f'"{key}"="{value}"' for key, value in FAST_MATH_FUNCTION_ATTRIBUTES
    )
    lines.append(f"attributes {group} = {{ {attributes} }}")
    return "\n".join(lines) + "\n"


def _body_brace(define: str) -> int:
    """Where the body's `{` is on a `define` line (its length when on the next line)."""
    if define.endswith("{"):
        return len(define) - 1
    if not define.endswith("}"):
        return len(define)
    depth = 0
    for index in range(len(define) - 1, -1, -1):  # a one-line function: match the `}`
        depth += {"}": 1, "{": -1}.get(define[index], 0)
        if depth == 0:
            return index
    return len(define)


_FLAG = r"(?:fast|reassoc|nnan|ninf|nsz|arcp|contract|afn)\b"
_FP_TYPE = r"(?:half|float|double|<\d+ x (?:half|float|double)>)"
_FP_OPS = re.compile(rf"(= (?:fadd|fsub|fmul|fdiv|frem|fneg|fcmp) )(?!{_FLAG})")
_FP_CALLS = re.compile(rf"(\bcall )(?!{_FLAG})(?={_FP_TYPE} )")


def add_fast_math_flags(ir: str) -> str:
    """
    Put the `fast` flag on every floating-point instruction and floating-point call of
    `ir` that carries no fast-math flag yet: what lets LLVM reassociate (and so vectorise)
    floating-point reductions and contract multiply-adds.

        %r = fadd float %a, %b            ~>   %r = fadd fast float %a, %b
        %s = call float @llvm.sqrt.f32(..) ~>  %s = call fast float @llvm.sqrt.f32(..)
    """
    lines = ir.splitlines(keepends=True)
    for index, line in enumerate(lines):
        # Instructions are indented; globals (string constants among them) are not.
        if line[:1] in (" ", "\t") and ("= f" in line or "call " in line):
            lines[index] = _FP_CALLS.sub(r"\1fast ", _FP_OPS.sub(r"\1fast ", line))
    return "".join(lines)


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
        if self._module is None:
            raise ValueError("a module loaded from an object file has no IR to print")
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
        fast_math: `fast` flags on floating-point instructions and calls that have no
            fast-math flags, and the fast-math function attributes on every function.
        keep_ir: keep the optimised IR text on the result (`optimized_ir`).

    Returns:
        The compiled module; look functions up with `address(name)`.

    Raises:
        RuntimeError: llvmlite rejects the IR (parse or verifier error).
    """
    llvm = _llvm()
    with _lock:
        module = _optimized_module(ir, opt_level, fast_math, target_machine(opt_level))
        optimized_ir = str(module) if keep_ir else None
        engine = llvm.create_mcjit_compiler(module, new_target_machine(opt_level))
        engine.finalize_object()
        engine.run_static_constructors()
    return JitModule(engine, module, optimized_ir)


def compile_object(
    ir: str,
    *,
    opt_level: int = 3,
    fast_math: bool = True,
    cpu: str | None = None,
    features: str | None = None,
) -> bytes:
    """
    Compile LLVM IR text to a relocatable object file (ELF on Linux) for `cpu` (None: the
    host; see `new_target_machine`), to be loaded later with `load_object` (AOT modules).
    """
    with _lock:
        machine = new_target_machine(opt_level, cpu, features)
        module = _optimized_module(ir, opt_level, fast_math, machine)
        return machine.emit_object(module)


def load_object(data: bytes) -> JitModule:
    """Load an object file from `compile_object` into a fresh MCJIT engine."""
    llvm = _llvm()
    with _lock:
        empty = llvm.parse_assembly("")
        empty.triple = host_target().triple
        engine = llvm.create_mcjit_compiler(empty, new_target_machine())
        engine.add_object_file(llvm.ObjectFileRef.from_data(data))
        engine.finalize_object()
        engine.run_static_constructors()
    return JitModule(engine, None, None)


def _optimized_module(ir: str, opt_level: int, fast_math: bool, machine: Any) -> Any:
    """
    Parse and verify `ir`, set the target of `machine` on it, optimise it. A module in
    which the SLP vectoriser made a loop-carried recurrence move lanes on every iteration
    (slp_guard: julia's complex square, 1.6x slower) is optimised again without SLP.
    """
    if fast_math:
        ir = add_fast_math_attributes(add_fast_math_flags(ir))
    module = _parsed_module(ir, machine)
    optimize(module, opt_level, machine)
    if opt_level >= 2 and cross_lane_recurrences(str(module)):
        module = _parsed_module(ir, machine)
        optimize(module, opt_level, machine, slp=False)
    return module


def _parsed_module(ir: str, machine: Any) -> Any:
    llvm = _llvm()
    try:
        module = llvm.parse_assembly(ir)
        module.verify()
    except RuntimeError as error:
        raise RuntimeError(f"invalid LLVM IR: {error}\n{_numbered(ir)}") from None
    module.triple = host_target().triple
    module.data_layout = str(machine.target_data)
    return module


def _numbered(text: str) -> str:
    return "\n".join(f"{n:4d}  {line}" for n, line in enumerate(text.splitlines(), 1))
