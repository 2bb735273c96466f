"""
CPU code for AOT modules: a kernel's module -> launch plan + relocatable object, built for
a declared CPU (never the host's), so the bytes depend only on the source and the caps.

    target = CpuTarget.from_caps({"cpu": "x86-64-v3"})
    plan, llvm_ir = lower_kernel(module, "saxpy")          # the JIT's own passes
    data = compile_kernel_object(llvm_ir, target)            # ELF bytes, deterministic
    runtime = compile_pool_object(target)                    # the thread pool's code

Loading is targets/llvm/aot_loader.py, which needs none of this.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from taichi_xdsl.targets.aot_format import AotFormatError
from taichi_xdsl.utils.errors import TaichiCompilationError

DEFAULT_TRIPLE = "x86_64-unknown-linux-gnu"
DEFAULT_CPU = "x86-64-v2"
"""The default declared CPU: any x86-64 with SSE4.2 and POPCNT (2009 and later)."""


@dataclass(frozen=True)
class CpuTarget:
    """The declared CPU of a module: LLVM triple, CPU name and feature string."""

    triple: str = DEFAULT_TRIPLE
    cpu: str = DEFAULT_CPU
    features: str = ""

    @classmethod
    def from_caps(cls, caps: Any) -> CpuTarget:
        """
        `caps` of `ti.aot.Module(ti.cpu, caps=...)`: None (the defaults), a dict with keys
        `triple`, `cpu`, `features`, or a list of strings: `+avx2` / `-avx512f` features,
        `triple=...`, `cpu=...`, or a bare CPU name.
        """
        if caps is None:
            return cls()
        triple, cpu, features = DEFAULT_TRIPLE, DEFAULT_CPU, []
        if isinstance(caps, dict):
            unknown = set(caps) - {"triple", "cpu", "features"}
            if unknown:
                raise AotFormatError(
                    f"CPU caps: unknown keys {sorted(unknown)} (triple, cpu, features)"
                )
            triple = str(caps.get("triple", triple))
            cpu = str(caps.get("cpu", cpu))
            features = [f for f in str(caps.get("features", "")).split(",") if f]
        elif isinstance(caps, list | tuple):
            for item in caps:
                item = str(item)
                if item.startswith(("+", "-")):
                    features.append(item)
                elif item.startswith("triple="):
                    triple = item.split("=", 1)[1]
                elif item.startswith("cpu="):
                    cpu = item.split("=", 1)[1]
                elif "=" not in item:
                    cpu = item
                else:
                    raise AotFormatError(f"CPU caps: cannot read {item!r}")
        else:
            raise AotFormatError(f"CPU caps must be a dict or a list, got {caps!r}")
        for feature in features:
            if not feature[1:] or not feature.startswith(("+", "-")):
                raise AotFormatError(f"CPU caps: bad feature {feature!r} (+name or -name)")
        return cls(triple, cpu, ",".join(features))

    def required_caps(self) -> dict[str, str]:
        """What metadata.json lists: exactly the target the code was built for."""
        return {
            "cpu.features": self.features,
            "cpu.name": self.cpu,
            "cpu.triple": self.triple,
        }



def _machine(target: CpuTarget, opt_level: int) -> Any:
    from taichi_xdsl.targets.llvm.jit import _llvm, host_target

    llvm = _llvm()
    host_arch = host_target().triple.split("-", 1)[0]
    if target.triple.split("-", 1)[0] != host_arch:
        raise AotFormatError(
            f"CPU caps: triple {target.triple} needs a cross compiler; this LLVM builds "
            f"for {host_arch} only"
        )
    try:
        llvm_target = llvm.Target.from_triple(target.triple)
    except RuntimeError as error:
        raise AotFormatError(f"CPU caps: unknown triple {target.triple}: {error}") from None
    return llvm_target.create_target_machine(
        cpu=target.cpu,
        features=target.features,
        opt=opt_level,
        reloc="default",
        codemodel="jitdefault",
        jit=True,
    )


def compile_object(
    llvm_ir: str, target: CpuTarget, *, opt_level: int = 3, fast_math: bool = True
) -> bytes:
    """LLVM IR text -> a relocatable object for `target` (jit.py's O3 pipeline)."""
    from taichi_xdsl.targets.llvm import jit

    llvm = jit._llvm()
    with jit._lock:
        machine = _machine(target, opt_level)
        if fast_math:
            llvm_ir = jit.add_fast_math_attributes(jit.add_fast_math_flags(llvm_ir))
        try:
            module = llvm.parse_assembly(llvm_ir)
            module.verify()
        except RuntimeError as error:
            raise TaichiCompilationError(f"invalid LLVM IR: {error}") from None
        module.triple = target.triple
        module.data_layout = str(machine.target_data)
        jit.optimize(module, opt_level, machine)
        return bytes(machine.emit_object(module))


def compile_pool_object(target: CpuTarget) -> bytes:
    """The native thread pool (targets/llvm/pool.py) compiled for `target`."""
    from taichi_xdsl.targets.llvm.pool import native_pool_ir

    return compile_object(
        native_pool_ir(target.triple), target, opt_level=2, fast_math=False
    )


def lower_kernel(
    module: Any,
    kernel_name: str,
    *,
    debug: bool = False,
    passes: Any = None,
    opt_level: int = 3,
) -> tuple[Any, str]:
    """
    `taichi.kernel @kernel_name` of `module` (left unchanged) -> (LaunchPlan, LLVM IR),
    through the same pipeline as the JIT (utils/pipelines.py, with the program's
    PipelineEdits `passes`; LLVM's `opt_level` 0 leaves out the optional passes, as
    CpuBackend does).

    Raises:
        TaichiCompilationError: a pass rejected the kernel.
    """
    from taichi_xdsl.targets.llvm.backend import CpuBackend
    from taichi_xdsl.targets.llvm.translate import to_llvm_ir
    from taichi_xdsl.utils import registry

    backend = CpuBackend(
        debug=debug, pool_kind="python", passes=passes, opt_level=opt_level
    )
    module = module.clone()
    plan, _ = backend._lower(
        registry.make_context(), module, kernel_name, backend.pipeline(), None
    )
    assert plan is not None
    try:
        llvm_ir = to_llvm_ir(module)
    except Exception as error:  # translation failures come in several types
        raise TaichiCompilationError(
            f"kernel '{kernel_name}': LLVM translation failed: {error}"
        ) from error
    return plan, llvm_ir
