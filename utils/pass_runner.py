"""
Running a stage of an arch's pipeline on a kernel module, with what a compiler researcher
needs around each pass; shared by the CPU and Vulkan backends and AOT export.

- `print_ir`: the IR after every pass, as text `ti-opt` reads back (`print_ir_text`);
- `dump_dir`: one file per kernel and stage, `<dir>/<kernel>.<stage>.mlir`;
- `times`: (stage, seconds) of every pass (`print_pass_times`);
- `statistics`: ops before and after every pass, and which kinds of op it added or
  removed (`print_pass_statistics`, `format_pass_statistics`);
- `verify_each`: verify after every pass, so that a pass that breaks the IR is named with
  the verifier's located diagnostic (`file.py:12:9: error: ...`); on by default when a
  program changed its pipeline.

Imports xDSL only when a stage runs.
"""

from __future__ import annotations

import io
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from taichi_xdsl.utils.errors import TaichiCompilationError


def print_ir_text(module: Any, *, locations: bool = False) -> str:
    """
    `module` as MLIR text that `ti-opt` parses back (no `ModuleOp(` wrapper); with
    `locations`, each op's source position as `loc("file.py":12:9)`.
    """
    from xdsl.printer import Printer

    stream = io.StringIO()
    Printer(stream=stream, print_debuginfo=locations).print_op(module)
    return stream.getvalue().rstrip("\n") + "\n"


def op_counts(module: Any) -> Counter[str]:
    """How many ops of each name `module` holds (the module itself aside)."""
    counts: Counter[str] = Counter()
    for op in module.walk():
        if op is not module:
            counts[op.name] += 1
    return counts


@dataclass
class PassStatistic:
    """One pass run: its name, ops before and after, and the change per op name."""

    name: str
    before: int
    after: int
    delta: dict[str, int]


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


def format_pass_statistics(stats: list[PassStatistic], title: str) -> str:
    """
    A statistics report, passes in order:

        // -----// pass statistics of k (cold compile) //----- //
          ops before -> after  pass                 changes
                  17 ->    14  canonicalize         arith.constant -2, taichi.element_ptr -1
    """
    lines = [
        f"// -----// pass statistics of {title} //----- //",
        "  ops before -> after  pass                            changes",
    ]
    for s in stats:
        changes = sorted(s.delta.items(), key=lambda item: (-abs(item[1]), item[0]))
        text = ", ".join(f"{name} {count:+d}" for name, count in changes[:6])
        if len(changes) > 6:
            text += f", ... ({len(changes) - 6} more)"
        lines.append(f"  {s.before:10d} -> {s.after:5d}  {s.name:30s}  {text}")
    return "\n".join(lines)


@dataclass
class PassRunner:
    """
    Runs pass lists on kernel modules for a backend. One per backend; `times` and
    `statistics` collect the last compile's records (the backend clears them).
    """

    print_ir: bool = False
    ir_stream: IO[str] | None = None
    dump_dir: str | None = None
    collect_statistics: bool = False
    verify_each: bool = False
    times: list[tuple[str, float]] = field(default_factory=list)
    statistics: list[PassStatistic] = field(default_factory=list)

    def write(self, text: str) -> None:
        print(text, file=self.ir_stream or sys.stdout, flush=True)

    def dump(self, module: Any, kernel_name: str, stage: str, text: str | None = None) -> None:
        """Write `module` (or `text`) to `<dump_dir>/<kernel_name>.<stage>.mlir`."""
        if self.dump_dir is None:
            return
        path = Path(self.dump_dir)
        path.mkdir(parents=True, exist_ok=True)
        suffix = ".mlir" if text is None else ""
        body = print_ir_text(module, locations=True) if text is None else text
        (path / f"{kernel_name}.{stage}{suffix}").write_text(body)

    def run(
        self,
        ctx: Any,
        module: Any,
        passes: list[str] | tuple[str, ...],
        kernel_name: str,
        *,
        print_input: bool = False,
        verify: bool = True,
    ) -> None:
        """
        Run `passes` on `module` in place, then verify it (when `verify`).

        Raises:
            TaichiCompilationError: a pass failed or left invalid IR; the message names
                the pass (and, with verify_each, the op's source position).
        """
        from taichi_xdsl.utils import registry
        from taichi_xdsl.utils.diagnostics import LocatedDiagnostic, verify_located
        from xdsl.utils.exceptions import DiagnosticException, VerifyException

        passes = list(passes)
        running = [passes[0] if passes else "(none)"]
        timing = [time.perf_counter()]
        statistics = self.collect_statistics
        counts: list[Counter[str]] = [op_counts(module) if statistics else Counter()]

        def callback(previous: Any, op: Any, next_: Any) -> None:
            if previous is not None:
                self.times.append((previous.name, time.perf_counter() - timing[0]))
                if self.verify_each:
                    try:
                        verify_located(op)
                    except LocatedDiagnostic as error:
                        raise _BrokenIR(previous.name, error) from None
                if statistics:
                    now = op_counts(op)
                    delta = {
                        name: now[name] - counts[0][name]
                        for name in set(now) | set(counts[0])
                        if now[name] != counts[0][name]
                    }
                    self.statistics.append(
                        PassStatistic(
                            previous.name, sum(counts[0].values()), sum(now.values()), delta
                        )
                    )
                    counts[0] = now
            if self.print_ir and (previous is not None or print_input):
                title = "Initial IR" if previous is None else f"IR Dump After {previous.name}"
                self.write(f"// -----// {title} ({kernel_name}) //----- //\n"
                           f"{print_ir_text(op)}")  # fmt: skip
            running[0] = next_.name if next_ is not None else "the verifier"
            timing[0] = time.perf_counter()

        start = time.perf_counter()
        try:
            pipeline = registry.build_pipeline(",".join(passes), callback)
        except Exception as error:  # xDSL raises several types for a bad pass-spec
            raise TaichiCompilationError(
                f"kernel '{kernel_name}': bad pass pipeline {','.join(passes)!r}: {error}"
            ) from error
        self.times.append(("build pipeline", time.perf_counter() - start))
        try:
            pipeline.apply(ctx, module)
            if verify:
                start = time.perf_counter()
                module.verify()
                self.times.append(("verify", time.perf_counter() - start))
        except _BrokenIR as broken:
            raise TaichiCompilationError(
                f"kernel '{kernel_name}': pass '{broken.pass_name}' left invalid IR:\n"
                f"{broken.diagnostic}"
            ) from None
        except (DiagnosticException, VerifyException) as error:
            if isinstance(error, VerifyException) and running[0] == "the verifier":
                try:
                    verify_located(module)
                except LocatedDiagnostic as located:
                    error = located  # type: ignore[assignment]
            raise TaichiCompilationError(
                f"kernel '{kernel_name}': {running[0]} failed: {error}"
            ) from error


class _BrokenIR(Exception):
    """A pass left IR that fails the verifier (raised from the pipeline's callback)."""

    def __init__(self, pass_name: str, diagnostic: Exception):
        super().__init__(pass_name)
        self.pass_name = pass_name
        self.diagnostic = diagnostic


def stage_of(module: Any, kernel_name: str) -> str:
    """
    The stage `module` is in for kernel `kernel_name`: `taichi` (it holds
    `taichi.kernel @kernel_name`), `offload` (`offload.kernel @kernel_name`) or `final`
    (the target dialect's IR, with the kernel's plan in the module attribute
    `ti.launch_plans`).

    Raises:
        TaichiCompilationError: the module holds no such kernel.
    """
    for op in module.body.block.ops:
        symbol = op.attributes.get("sym_name") or getattr(op, "sym_name", None)
        name = getattr(symbol, "data", None)
        if name != kernel_name:
            continue
        if op.name == "taichi.kernel":
            return "taichi"
        if op.name == "offload.kernel":
            return "offload"
    plans = module.attributes.get("ti.launch_plans")
    if kernel_name in getattr(plans, "data", {}):
        return "final"
    raise TaichiCompilationError(
        f"no kernel '{kernel_name}' in the module: neither a taichi.kernel nor an "
        f"offload.kernel @{kernel_name}, nor its launch plan in the module attribute "
        "ti.launch_plans (which IR of the last stage carries)"
    )


def truncate(
    p: Any, first: str, stop: str | None = None
) -> list[tuple[str, tuple[str, ...]]]:
    """
    The (stage, passes) that take IR of stage `first` (stage_of) through pipeline `p`,
    ending after `stop`: a stage name (`taichi`, `offload`, `llvm`, ...) or the first
    run of a pass (`ti-offload`); None: the whole pipeline.

    Raises:
        ValueError: `stop` is neither a stage nor a pass of `p`, or lies before `first`.
    """
    from taichi_xdsl.utils.pipelines import pass_base_name

    names = [s.name for s in p.stages]
    if first == "taichi":
        start = 0
    elif first == "final":
        start = len(names)
    else:
        start = names.index(first) + 1
    todo = [(s.name, s.passes) for s in p.stages[start:]]
    if stop is None:
        return todo
    if stop == "taichi" or (first != "taichi" and stop == first) or (
        first == "final" and stop == names[-1]
    ):
        if stop == "taichi" and first != "taichi":
            raise ValueError(f"the IR is past the taichi stage (it is at {first})")
        return []
    if stop in names:
        if names.index(stop) < start:
            raise ValueError(f"stage '{stop}' lies before the IR's stage ({first})")
        return todo[: names.index(stop) - start + 1]
    for index, (stage, passes) in enumerate(todo):
        bases = [pass_base_name(q) for q in passes]
        if stop in bases:
            return todo[:index] + [(stage, passes[: bases.index(stop) + 1])]
    every = ",".join(q for s in p.stages for q in s.passes)
    raise ValueError(
        f"'{stop}' is neither a stage ({', '.join(['taichi', *names])}) nor a pass of the "
        f"{p.arch} pipeline still to run ({every})"
    )


def root_bytes(module: Any) -> int:
    """The bytes of the root buffer that the fields of `module` (`taichi.field` ops,
    byte offset + size each) occupy; 0 without fields."""
    end = 0
    for op in module.body.block.ops:
        if op.name != "taichi.field":
            continue
        field_type = op.properties["type"]
        element = field_type.element_type
        width = getattr(element, "bitwidth", None) or getattr(element, "width").data
        count = 1
        for dim in field_type.get_shape():
            count *= dim
        end = max(end, op.properties["offset"].value.data + count * max(1, width // 8))
    return end


def required_root_bytes(module: Any, kernel_name: str) -> int:
    """
    The root-buffer bytes a kernel of `module` needs: from its fields while the module
    has them, else from the `root_bytes` its launch plan recorded (PLANS_ATTRIBUTE).
    """
    import json

    if any(op.name == "taichi.field" for op in module.body.block.ops):
        return root_bytes(module)
    plans = module.attributes.get("ti.launch_plans")
    entry = getattr(plans, "data", {}).get(kernel_name)
    if entry is None:
        return 0
    return int(json.loads(entry.data).get("root_bytes", 0))
