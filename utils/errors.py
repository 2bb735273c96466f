"""
Taichi's exception types, shared by the frontend, the compiler and the runtimes.

Frontend errors carry the kernel's file, line and source line in their message:

    TaichiSyntaxError: kernel.py:12: unsupported syntax 'lambda'
        y = lambda t: t
            ^
"""

from __future__ import annotations

import ast
import linecache


class TaichiError(Exception):
    """Base of every error taichi-xdsl raises on purpose."""


class TaichiCompilationError(TaichiError):
    """A kernel could not be compiled."""


class TaichiSyntaxError(TaichiCompilationError, SyntaxError):
    """Python syntax that a Taichi kernel does not support."""


class TaichiTypeError(TaichiCompilationError, TypeError):
    """An operation on types that Taichi's rules reject."""


class TaichiNameError(TaichiCompilationError, NameError):
    """A name a kernel uses is not defined."""


class TaichiRuntimeError(TaichiError, RuntimeError):
    """A kernel failed while running."""


class TaichiRuntimeTypeError(TaichiRuntimeError, TypeError):
    """A kernel argument cannot be converted into its parameter's type (a float passed
    for an i32, a number for an ndarray), as Taichi's error of that name."""


class TaichiIndexError(TaichiRuntimeError, IndexError):
    """A field or ndarray index out of bounds (checked under `ti.init(debug=True)`)."""


class TaichiAssertionError(TaichiRuntimeError, AssertionError):
    """An `assert` in a kernel failed (checked under `ti.init(debug=True)`)."""


class TaichiIndexAssertionError(TaichiIndexError, TaichiAssertionError):
    """An index error that Taichi reports as a failed assertion: an out-of-bound access
    found by a kernel's debug checks ("Out of bound access ..."), or a field indexed
    with too few or too many indices ("Slicing is not supported on ti.field")."""


SITE_SHIFT = 8
"""The first word of an out-of-bounds error record: `site << SITE_SHIFT | dimension`
(dimensions < 256: the lowerings refuse more). The site is the address of the access's NUL-terminated
`access_site` text on the CPU, its id + 1 in the kernel's message table (`ti.asserts`)
on Vulkan; 0 when the access has no source location."""


def access_site(filename: str, line: int, column: int) -> str:
    """The text of an access's site in the kernel's source: `file:line:column`."""
    return f"{filename}:{line}:{column}"


def in_function(function: str, kernel: str) -> str:
    """How a kernel error names where it happened: the kernel, or the ti.func the line
    is in and the kernel that called it (`get (called from kernel k)`)."""
    return kernel if function == kernel else f"{function} (called from kernel {kernel})"


def enclosing_function(filename: str, line: int) -> str | None:
    """The name of the innermost function definition of `filename` around `line` (the
    ti.func or kernel an error's line is in), None when the file cannot be read."""
    text = "".join(linecache.getlines(filename))
    if not text:
        return None
    try:
        tree = ast.parse(text, filename)
    except (SyntaxError, ValueError):
        return None
    found: ast.FunctionDef | ast.AsyncFunctionDef | None = None
    for node in ast.walk(tree):
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
        if first <= line <= (node.end_lineno or node.lineno):
            if found is None or node.lineno > found.lineno:
                found = node
    return found.name if found is not None else None


def out_of_bounds_error(
    kernel: str, first: int, index: int, extent: int, site: str
) -> TaichiIndexAssertionError:
    """
    The error of an out-of-bounds record (first, index, extent); `site` is the
    `access_site` text the record's site names ("" when none): its position as
    Taichi and the other kernel errors give it, the source line and a caret under the
    access.

        Out of bound access: kernel 'k': index 7 out of bounds for dimension 0 ...
        File "demo.py", line 7, column 5, in k:
            x[i] = 1
            ^

    An access inside a ti.func names it and the kernel: `in get (called from kernel k)`.
    """
    dimension = first & ((1 << SITE_SHIFT) - 1)
    message = (
        f"Out of bound access: kernel '{kernel}': index {index} out of bounds for "
        f"dimension {dimension} of extent {extent} (valid range: [0, {extent}))"
    )
    if site:
        filename, line, column = site.rsplit(":", 2)
        where = in_function(enclosing_function(filename, int(line)) or kernel, kernel)
        message += f'\nFile "{filename}", line {line}, column {column}, in {where}:'
        source = linecache.getline(filename, int(line)).rstrip()
        if source:
            message += f"\n{source}\n{' ' * max(int(column) - 1, 0)}^"
    return TaichiIndexAssertionError(message)
