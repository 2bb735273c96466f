"""
The source of a decorated function: its AST, where it came from, and located errors.

Every frontend error names the file and line and shows the source line:

    TaichiSyntaxError: /path/kernel.py:12: unsupported syntax 'lambda'
        y = lambda t: t
            ^
"""

from __future__ import annotations

import ast
import inspect
import linecache
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from taichi_xdsl.utils.errors import TaichiCompilationError, TaichiSyntaxError


@dataclass
class FunctionSource:
    """A function's AST with the mapping from AST lines back to its file."""

    fn: Callable[..., Any]
    tree: ast.FunctionDef
    filename: str
    lines: list[str]
    first_line: int  # file line of lines[0]
    line_shift: int  # AST line L is lines[L - 1 + line_shift]

    def file_line(self, node: ast.AST) -> int:
        return self.first_line + getattr(node, "lineno", 1) - 1 + self.line_shift

    def source_line(self, node: ast.AST) -> str:
        index = getattr(node, "lineno", 1) - 1 + self.line_shift
        return self.lines[index].rstrip("\n") if 0 <= index < len(self.lines) else ""

    def located(self, cls: type[Exception], node: ast.AST, message: str) -> Exception:
        """An exception of `cls` whose message starts with `file:line:`."""
        text = self.source_line(node)
        stripped = text.lstrip()
        col = getattr(node, "col_offset", 0) - (len(text) - len(stripped))
        caret = " " * max(col, 0) + "^"
        err = cls(
            f"{self.filename}:{self.file_line(node)}: {message}\n    {stripped}\n"
            f"    {caret}"
        )
        err.located = True  # type: ignore[attr-defined]
        return err


def parse_function(fn: Callable[..., Any]) -> FunctionSource:
    """
    Parse the source of `fn` (decorators included) keeping the original columns.

    Raises:
        TaichiSyntaxError: the source cannot be found or parsed.
    """
    name = getattr(fn, "__qualname__", repr(fn))
    if getattr(fn, "__name__", "") == "<lambda>":
        return _parse_lambda(fn)
    try:
        lines, first_line = inspect.getsourcelines(fn)
        filename = inspect.getsourcefile(fn) or fn.__code__.co_filename
    except (OSError, TypeError) as e:
        raise TaichiSyntaxError(
            f"cannot read the source of '{name}' ({e}); kernels and ti.funcs must be "
            "defined in a file"
        ) from None
    source = "".join(lines)
    indent = len(lines[0]) - len(lines[0].lstrip())
    try:
        if indent:
            # Parse under an `if` so that columns stay those of the file.
            module = ast.parse("if 1:\n" + source)
            tree = module.body[0].body[0]  # type: ignore[attr-defined]
            shift = -1
        else:
            tree = ast.parse(source).body[0]
            shift = 0
    except SyntaxError as e:
        raise TaichiSyntaxError(f"cannot parse the source of '{name}': {e}") from None
    if not isinstance(tree, ast.FunctionDef):
        raise TaichiSyntaxError(f"'{name}' is not a plain function (def)")
    return FunctionSource(fn, tree, filename, lines, first_line, shift)


def _parse_lambda(fn: Callable[..., Any]) -> FunctionSource:
    """
    A lambda as the function `def <lambda>(args): return body` (Taichi calls a Python
    lambda with Taichi values inside a kernel). Its line must hold it whole, and no
    other lambda of the same parameters (which one ran could not be told apart).

    Raises:
        TaichiSyntaxError: the lambda cannot be found unambiguously in its source.
    """
    code = fn.__code__  # type: ignore[attr-defined]
    filename = code.co_filename
    line = linecache.getline(filename, code.co_firstlineno)
    params = list(code.co_varnames[: code.co_argcount])
    found: list[ast.Lambda] = []
    try:
        module = ast.parse("if 1:\n" + line)
        found = [
            n
            for n in ast.walk(module)
            if isinstance(n, ast.Lambda) and [a.arg for a in n.args.args] == params
        ]
    except SyntaxError:
        pass
    if len(found) != 1:
        raise TaichiSyntaxError(
            f"{filename}:{code.co_firstlineno}: cannot find this lambda in its source "
            "line (a kernel calls it); write it on one line of its own, or as a @ti.func"
        )
    lam = found[0]
    tree = ast.FunctionDef(
        name="_lambda",
        args=lam.args,
        body=[ast.copy_location(ast.Return(lam.body), lam.body)],
        decorator_list=[],
        returns=None,
        type_params=[],
    )
    ast.copy_location(tree, lam)
    ast.fix_missing_locations(tree)
    return FunctionSource(fn, tree, filename, [line], code.co_firstlineno, -1)


def closure_vars(fn: Callable[..., Any]) -> dict[str, Any]:
    """The current values of the variables `fn` closes over."""
    code = getattr(fn, "__code__", None)
    cells = getattr(fn, "__closure__", None) or ()
    if code is None:
        return {}
    out: dict[str, Any] = {}
    for name, cell in zip(code.co_freevars, cells):
        try:
            out[name] = cell.cell_contents
        except ValueError:
            pass  # an empty cell: the name is not bound yet
    return out


def is_located(err: BaseException) -> bool:
    return bool(getattr(err, "located", False))


__all__ = [
    "FunctionSource",
    "TaichiCompilationError",
    "closure_vars",
    "is_located",
    "parse_function",
]


def bind_arguments(
    sig: Any, args: Any, kwargs: dict[str, Any], describe: Any = None
) -> Any:
    """
    `sig.bind(*args, **kwargs)` with defaults applied, failing as Taichi does: a
    TaichiSyntaxError naming the missing, unexpected or doubled parameter, or saying
    "Too many arguments". `describe(name)` renders a parameter ("a : i32").
    """
    import inspect

    from taichi_xdsl.utils.errors import TaichiSyntaxError

    params = list(sig.parameters.values())
    positional = [
        p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
    ]
    has_varargs = any(p.kind == p.VAR_POSITIONAL for p in params)
    has_varkw = any(p.kind == p.VAR_KEYWORD for p in params)
    if not has_varargs and len(args) > len(positional):
        raise TaichiSyntaxError(
            f"Too many arguments: expected at most {len(positional)}, got {len(args)}"
        )
    names = {p.name for p in params}
    for i, key in enumerate(kwargs):
        if key not in names and not has_varkw:
            raise TaichiSyntaxError(f"Unexpected argument '{key}'")
        if any(p.name == key for p in positional[: len(args)]):
            raise TaichiSyntaxError(f"Multiple values for argument '{key}'")
    try:
        bound = sig.bind(*args, **kwargs)
    except TypeError:
        bound = None
    if bound is None:
        given = {p.name for p in positional[: len(args)]} | set(kwargs)
        for p in params:
            if (
                p.name not in given
                and p.default is inspect.Parameter.empty
                and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
            ):
                shown = describe(p.name) if describe is not None else p.name
                raise TaichiSyntaxError(f"Parameter `{shown}` missing")
        bound = sig.bind(*args, **kwargs)  # re-raise what is left
    bound.apply_defaults()
    return bound

