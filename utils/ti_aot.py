"""
`ti-aot`: look into and run AOT modules, without the compiler.

    ti-aot info module.tcm                      # arch, caps, fields, kernels, graphs
    ti-aot run module.tcm fill a=x.npy s=2.5    # a kernel: ndarrays from .npy files
                                                #   (written back after the run),
                                                #   scalars as numbers; prints returns
    ti-aot run module.tcm --graph step a=x.npy s=2.5
    ti-aot run module.tcm init --field x=out.npy  # save a field after the run

Exit status 1 with a one-line message for a bad module or bad arguments.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from taichi_xdsl.utils.errors import TaichiError


def _describe(path: str) -> str:
    from taichi_xdsl.targets.aot import GfxRuntime140

    rt = GfxRuntime140.from_module(path)
    meta = rt.metadata
    lines = [f"module {path}: arch {meta.arch}, root buffer {meta.root_buffer_size} bytes"]
    caps = ", ".join(f"{k}={v!r}" for k, v in sorted(meta.required_caps.items()))
    lines.append(f"required caps: {caps}")
    for f in meta.fields:
        lines.append(f"field {f.name}: {f.dtype}{list(f.shape)} at offset {f.offset}")
    for k in meta.kernels:
        args = ", ".join(
            f"{a.name}: {a.dtype}"
            if a.kind.name == "SCALAR"
            else f"{a.name}: {a.kind.name.lower()}({a.dtype}, ndim={a.ndim})"
            for a in k.args
        )
        rets = f" -> {', '.join(k.rets)}" if k.rets else ""
        lines.append(f"kernel {k.name}({args}){rets}: {len(k.tasks)} task(s)")
    for g in rt.graphs:
        steps = "; ".join(f"{name}({', '.join(args)})" for name, args in g.dispatches)
        lines.append(f"graph {g.name}: {steps}")
    return "\n".join(lines)


def _parse_value(text: str) -> Any:
    import numpy as np

    if text.endswith(".npy"):
        return np.ascontiguousarray(np.load(text))
    try:
        return int(text)
    except ValueError:
        pass
    try:
        return float(text)
    except ValueError:
        raise TaichiError(f"ti-aot run: cannot read argument value {text!r}") from None


def _run(ns: argparse.Namespace) -> str:
    import numpy as np
    from taichi_xdsl.targets.aot import load

    mod = load(ns.module)
    values: dict[str, Any] = {}
    files: dict[str, str] = {}
    for item in ns.args:
        if "=" not in item:
            raise TaichiError(f"ti-aot run: arguments are name=value, got {item!r}")
        name, text = item.split("=", 1)
        values[name] = _parse_value(text)
        if text.endswith(".npy"):
            files[name] = text
    out = []
    if ns.graph:
        mod.get_graph(ns.target).run(values)
    else:
        result = mod.get_kernel(ns.target)(**values)
        if result is not None:
            out.append(repr(result))
    for name, path in files.items():
        np.save(path, values[name])
    for item in ns.field or []:
        name, path = item.split("=", 1)
        if name not in mod.fields:
            raise TaichiError(f"ti-aot run: the module has no field '{name}'")
        np.save(path, mod.fields[name])
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="ti-aot", description=__doc__.split("\n")[1])
    sub = parser.add_subparsers(dest="command", required=True)
    info = sub.add_parser("info", help="describe a module")
    info.add_argument("module")
    run = sub.add_parser("run", help="run a kernel or a graph of a module")
    run.add_argument("module")
    run.add_argument("target", help="kernel name (or graph name with --graph)")
    run.add_argument("args", nargs="*", help="name=value (a number or a .npy file)")
    run.add_argument("--graph", action="store_true", help="target is a graph")
    run.add_argument("--field", action="append", help="name=file.npy: save a field after")
    ns = parser.parse_args(argv)
    try:
        text = _describe(ns.module) if ns.command == "info" else _run(ns)
    except (TaichiError, KeyError, TypeError, OSError) as error:
        message = error.args[0] if isinstance(error, KeyError) and error.args else error
        print(f"ti-aot: error: {message}", file=sys.stderr)
        return 1
    if text:
        print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
