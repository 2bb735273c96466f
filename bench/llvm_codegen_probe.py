"""
Where the LLVM part of a CPU kernel's cold compile goes: for each `.ll` file (the LLVM IR
that `ti.init(arch=ti.cpu, dump_ir=DIR)` writes as `DIR/<kernel>.ll`), the CPU time of
parse + fast-math + O3 (targets/llvm/jit.py, as a compile runs them) and of machine-code
emission (`emit_object`, what a compile with the offline cache runs), medians of
`--rounds`, and the code generator's most expensive passes (LLVM's `-time-passes` report
of one emission).

    python bench/llvm_codegen_probe.py DIR/*.ll [--rounds 5] [--llvm-option=-disable-lsr]

`--llvm-option` sets an LLVM command-line option for this process only (an experiment:
the option is global to every llvmlite user of a process, so the compiler sets none).
"""

from __future__ import annotations

import argparse
import re
import statistics
import time
from pathlib import Path


def probe(path: Path, rounds: int, llvm: object) -> str:
    from taichi_xdsl.targets.llvm import jit

    ir = path.read_text()
    optimise, emit = [], []
    obj = b""
    for _ in range(rounds):
        machine = jit.new_target_machine(3)
        start = time.process_time()
        module = jit._optimized_module(ir, 3, True, machine)
        optimise.append(time.process_time() - start)
        start = time.process_time()
        obj = machine.emit_object(module)
        emit.append(time.process_time() - start)
    llvm.set_time_passes(True)  # type: ignore[attr-defined]
    machine.emit_object(module)
    report = llvm.report_and_reset_timings()  # type: ignore[attr-defined]
    llvm.set_time_passes(False)  # type: ignore[attr-defined]
    by_pass: dict[str, float] = {}
    for line in report.splitlines():
        # user, system, user+system, wall: "  0.0562 ( 73.8%) ... 0.0911 ( 69.1%)  Name #3"
        match = re.match(r"\s+(?:[\d.]+ \(\s*[\d.]+%\)\s+){2}([\d.]+) \(.*?\)\s+\S+ \(.*?\)\s+(.+)$", line)
        if match and match[2] != "Total":
            name = re.sub(r" #\d+$", "", match[2])
            by_pass[name] = by_pass.get(name, 0.0) + float(match[1])
    total = sum(by_pass.values()) or 1.0
    top = sorted(by_pass.items(), key=lambda item: -item[1])[:3]
    passes = [f"{name} {1e3 * t:.1f} ms ({100 * t / total:.0f}%)" for name, t in top]
    return (
        f"{path.name:24s} parse+O3 {1e3 * statistics.median(optimise):6.1f} ms  "
        f"emit {1e3 * statistics.median(emit):6.1f} ms  object {len(obj):6d} B  "
        f"| {'; '.join(passes)}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="+", type=Path)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--llvm-option", action="append", default=[])
    options = parser.parse_args()
    from taichi_xdsl.targets.llvm import jit

    llvm = jit._llvm()
    for option in options.llvm_option:
        llvm.set_option("", option)
    for path in options.files:
        print(probe(path, options.rounds, llvm), flush=True)


if __name__ == "__main__":
    main()
