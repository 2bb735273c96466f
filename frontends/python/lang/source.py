"""
The source of a decorated function: its AST, where it came from, and located errors.

Every frontend error names the file, line and function, and shows the source lines of
the construct at fault with carets under it, as Taichi writes them (tabs expanded to 4
columns, lines wrapped at 80); an error inside a ti.func is preceded by the call
that inlined it, outermost first:

    TaichiSyntaxError:
    File "/path/kernel.py", line 12, in k:
            y = lambda t: t
                ^^^^^^^^^^^
    unsupported syntax 'lambda'
"""

from __future__ import annotations

import ast
import inspect
import linecache
import textwrap
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
        """An exception of `cls`: `position(node)` (after a newline), then `message`."""
        err = cls(f"\n{self.position(node)}{message}")
        err.located = True  # type: ignore[attr-defined]
        return err

    def called_from(self, err: Exception, node: ast.AST) -> Exception:
        """`err` (located inside a function this one inlines at `node`), preceded by
        the position of that call."""
        inner = str(err)
        new = type(err)(f"\n{self.position(node)}{inner.removeprefix(chr(10))}")
        new.located = True  # type: ignore[attr-defined]
        return new

    def position(self, node: ast.AST) -> str:
        """
        `File "<file>", line <n>, in <function>:` and the node's source lines, each
        followed by a line of carets under the node's columns. A statement with a body
        (for, while, if, def) shows its header lines only.
        """
        name = getattr(self.fn, "__name__", self.tree.name)
        out = f'File "{self.filename}", line {self.file_line(node)}, in {name}:\n'
        first = getattr(node, "lineno", 1)
        last = getattr(node, "end_lineno", None) or first
        if isinstance(node, (ast.For, ast.While, ast.If, ast.FunctionDef)) and node.body:
            last = max(node.body[0].lineno - 1, first)
        start_col = getattr(node, "col_offset", 0)
        end_col = getattr(node, "end_col_offset", None)
        for lineno in range(first, last + 1):
            raw = self._ast_line(lineno)
            text = _display(raw)
            begin, end = _content_span(text)
            if lineno == first:
                begin = _display_col(raw, start_col)
            if lineno == getattr(node, "end_lineno", first) and end_col is not None:
                end = _display_col(raw, end_col)
            elif end_col is None and first == last:
                end = begin + 1
            out += _code_and_carets(text, " " * begin + "^" * max(end - begin, 0))
        return out

    def _ast_line(self, lineno: int) -> str:
        index = lineno - 1 + self.line_shift
        return self.lines[index].rstrip("\n") if 0 <= index < len(self.lines) else ""


def _display(line: str) -> str:
    """A source line as shown in errors: tabs expanded to 4 columns, no trailing blanks."""
    return "".join(c if not c.isspace() else " " for c in line.expandtabs(4)).rstrip()


def _display_col(line: str, col: int) -> int:
    """The column in `_display(line)` of the AST's `col` (a UTF-8 byte offset)."""
    return len(line.encode()[:col].decode("utf-8", "ignore").expandtabs(4))


def _content_span(text: str) -> tuple[int, int]:
    """The columns of the first and after the last printable non-blank character."""
    begin = len(text) - len(text.lstrip())
    return begin, len(text.rstrip())


def _code_and_carets(code: str, carets: str) -> str:
    """`code` and `carets` as pairs of lines of at most 80 columns."""
    if not code:
        return "\n\n"
    wrapper = textwrap.TextWrapper(width=80)
    carets += " " * (len(code) - len(carets))
    pairs = zip(wrapper.wrap(code), wrapper.wrap(carets))
    return "".join(f"{c}\n{h}\n" for c, h in pairs)


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

