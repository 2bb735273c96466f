"""
`ti-opt`: xDSL's optimiser driver with taichi-xdsl's dialects, passes, pipelines and
targets registered from utils/registry.py.

    ti-opt kernel.mlir -p ti-demote-atomics,canonicalize
    ti-opt kernel.mlir -p ti-to-llvm -t llvm
    ti-opt kernel.mlir --pass-plugin my_pass.py -p my-pass
    ti-opt --from-python program.py                 # the taichi IR of its kernels

Bad input never ends in a Python traceback: a parse error, a verifier failure or a failed
pass prints a located diagnostic to stderr and exits with status 1.
"""

from __future__ import annotations

import argparse
import dataclasses
import gc
import os
import sys
import threading
from collections.abc import Sequence

from xdsl.utils.arg_spec import (
    ArgSpec,
    PipelineLexer,
    SpecToken,
    SpecTokenKind,
    parse_pipeline,
)
from xdsl.utils.exceptions import ArgSpecParseError, DiagnosticException, ParseError
from xdsl.xdsl_opt_main import xDSLOptMain

from taichi_xdsl.utils import registry
from taichi_xdsl.utils.diagnostics import (
    LocatedDiagnostic,
    LocatingParser,
    PassOptionError,
    decode_source,
    format_at,
    verify_dominance,
    verify_located,
)


def _memoize_hint_constraints() -> None:
    """
    Cache the constraint that xDSL's `isa(value, Hint[...])` builds from a type hint.
    xDSL rebuilds it on every call, and `MemRefType.__init__` calls it once per type the
    parser reads: a seventh of the time to parse a large file went there.
    """
    import xdsl.irdl

    build = xdsl.irdl.irdl_to_attr_constraint
    cache: dict[object, object] = {}

    def irdl_to_attr_constraint(irdl, *, allow_type_var: bool = False):
        try:
            return cache[irdl, allow_type_var]
        except KeyError:
            constraint = cache[irdl, allow_type_var] = build(
                irdl, allow_type_var=allow_type_var
            )
            return constraint
        except TypeError:  # an unhashable hint
            return build(irdl, allow_type_var=allow_type_var)

    xdsl.irdl.irdl_to_attr_constraint = irdl_to_attr_constraint


def _memoize_irdl_verification() -> None:
    """
    Check an op's IRDL constraints (operand and result types, properties, attributes)
    once per combination: for an op with no regions and no successors they are a
    function of its class and of these values alone, and a large file repeats a few
    hundred combinations (templates share their attribute objects). The op's traits,
    its own `verify_` and xDSL's generic checks still run for every op. Keyed by the
    values' identity (each kept alive here), never by an equality two distinct values
    could share.
    """
    from xdsl.irdl import OpDef
    from xdsl.traits import OpTrait

    verify = OpDef.verify
    if getattr(verify, "memoized", False):
        return
    verified: dict[tuple, list[object]] = {}
    checking: dict[int, tuple[frozenset, list]] = {}

    def checked_traits(self: OpDef) -> list:
        """The traits whose `verify` checks something (OpTrait's does nothing), in order."""
        traits = self.traits.traits
        known = checking.get(id(self))
        if known is None or known[0] is not traits:
            known = checking[id(self)] = (
                traits, [trait for trait in traits if type(trait).verify is not OpTrait.verify]
            )
        return known[1]

    def memoized_verify(self: OpDef, op) -> None:
        if op.regions or op.successors:
            return verify(self, op)
        properties, attributes = op.properties, op.attributes
        types = [operand.type for operand in op._operands]
        types += [result.type for result in op.results]
        key = (
            id(self), len(op._operands), *map(id, types), *map(id, properties.values()),
            *map(id, attributes.values()), *properties, None, *attributes,
        )
        if key in verified:
            for trait in checked_traits(self):
                trait.verify(op)
            return None
        verify(self, op)
        if len(verified) > 1 << 20:
            verified.clear()
        verified[key] = [self, *types, *properties.values(), *attributes.values()]
        return None

    memoized_verify.memoized = True
    OpDef.verify = memoized_verify


def _check_isolation_by_sets() -> None:
    """
    Check `IsolatedFromAbove` with one set of the values defined inside the op: xDSL
    walks the parents of every operand of every op inside (`is_ancestor`), a fifth of
    the time to verify a large file of kernels. The ops visited are xDSL's (the regions
    of a nested isolated op are left to that op); an operand defined in none of them is
    left to xDSL's check, which raises its own error, or accepts it (a value defined
    inside a nested isolated op, which xDSL counts as inside).
    """
    from xdsl.traits import IsolatedFromAbove

    verify = IsolatedFromAbove.verify
    if getattr(verify, "by_sets", False):
        return
    isolated: dict[type, bool] = {}

    def verify_by_sets(self: IsolatedFromAbove, op) -> None:
        defined: set[int] = set()
        used: list[int] = []
        regions = list(op.regions)
        while regions:
            for block in regions.pop().blocks:
                defined.update(map(id, block.args))
                for child in block.ops:
                    used.extend(map(id, child._operands))
                    defined.update(map(id, child.results))
                    if child.regions:
                        child_type = type(child)
                        nested = isolated.get(child_type)
                        if nested is None:
                            nested = isolated[child_type] = child.has_trait(IsolatedFromAbove)
                        if not nested:
                            regions += child.regions
        if not defined.issuperset(used):
            verify(self, op)

    verify_by_sets.by_sets = True
    verify_by_sets.xdsl_verify = verify
    IsolatedFromAbove.verify = verify_by_sets


def _input_name(argv: Sequence[str] | None) -> str:
    """The input file named on the command line, for errors raised before parsing."""
    pre = argparse.ArgumentParser(add_help=False)
    pre.add_argument("input_file", nargs="?", default="stdin")
    known, _ = pre.parse_known_args(list(sys.argv[1:] if argv is None else argv))
    return known.input_file


def _plugin_paths(argv: Sequence[str]) -> list[str]:
    """The `--pass-plugin` values, read before the main parser (which needs the passes)."""
    pre = argparse.ArgumentParser(add_help=False)
    pre.add_argument("--pass-plugin", action="append", default=[])
    known, _ = pre.parse_known_args(argv)
    return known.pass_plugin


def pipelines_help() -> str:
    """The `--help` epilog: each arch's pipeline, its stages and their passes."""
    from taichi_xdsl.utils.pipelines import PIPELINES_BY_ARCH

    lines = [
        "named pipelines (utils/pipelines.py; the JIT runs these; `-p NAME` runs one):",
    ]
    for p in PIPELINES_BY_ARCH.values():
        stages = " + ".join(s.pipeline for s in p.stages)
        lines.append(f"  {p.name} = {stages}   (the {p.arch} JIT, taichi -> {p.stages[-1].name})")
        for stage in p.stages:
            lines.append(f"    {stage.pipeline}: {stage.spec}")
    return "\n".join(lines)


def _from_python(argv: list[str]) -> list[str]:
    """`--from-python FILE.py` is FILE.py as the input (read by the `py` frontend)."""
    out: list[str] = []
    items = iter(argv)
    for item in items:
        if item == "--from-python":
            out.append(next(items, ""))
        elif item.startswith("--from-python="):
            out.append(item.split("=", 1)[1])
        else:
            out.append(item)
    return out


class TiOptMain(xDSLOptMain):
    """xDSLOptMain with our registry in place of xDSL's plugin discovery."""

    def __init__(self, args: Sequence[str] | None = None):
        argv = _from_python(list(sys.argv[1:] if args is None else args))
        self.plugin_passes = {}
        self.chunk_line_offset = 0
        for path in _plugin_paths(argv):
            self.plugin_passes.update(registry.load_pass_plugin(path))
        super().__init__(description="taichi-xdsl modular optimizer driver", args=argv)

    def register_all_arguments(self, arg_parser: argparse.ArgumentParser):
        super().register_all_arguments(arg_parser)
        arg_parser.formatter_class = argparse.RawDescriptionHelpFormatter
        arg_parser.epilog = pipelines_help()
        arg_parser.add_argument(
            "--pass-plugin",
            action="append",
            default=[],
            metavar="FILE.py",
            help="load the ModulePass subclasses defined in a Python file",
        )
        arg_parser.add_argument(
            "--from-python",
            metavar="FILE.py",
            help="run a Taichi program and take the taichi-dialect IR of every kernel it "
            "compiles (and of every uncalled kernel whose annotations fix its types) as "
            "the input; the same as giving FILE.py as the input file",
        )

    def register_all_frontends(self):
        super().register_all_frontends()

        def parse_mlir(io):
            name = self.get_input_name()
            parser = LocatingParser(self.ctx, decode_source(io.read(), name), name)
            parser.line_offset = self.chunk_line_offset
            module = parser.parse_module(not self.args.no_implicit_module)
            # The module lives until ti-opt ends: the cycle collector need not walk its
            # million objects again at each collection of what the passes make (on 1 MB
            # of IR, a fifth of the time to verify and print it).
            gc.freeze()
            return module

        self.available_frontends["mlir"] = parse_mlir

        def parse_python(io):
            # A Python program: it runs, and the taichi-dialect IR of its kernels is the
            # input (frontends/python/lang/ir.py kernels_of_file).
            from taichi_xdsl.frontends.python.lang.ir import kernels_of_file

            return kernels_of_file(self.args.input_file)

        self.available_frontends["py"] = parse_python

    def setup_pipeline(self):
        # Named pipelines (ti-to-llvm, ...) run pass by pass, so that --time-passes and
        # --print-between-passes see each pass rather than the pipeline as one.
        if self.args.passes:
            from taichi_xdsl.utils.pipelines import expand

            _check_pass_options(self.available_passes, self.args.passes)

            self.args.passes = ",".join(expand(self.args.passes))
        super().setup_pipeline()
        # xDSL's callback verifies the module before the first pass and after each; ours
        # verifies op by op (a located diagnostic), once: apply_passes did the first.
        callback = self.pipeline.callback
        verify = not self.args.disable_verify

        def located_callback(previous_pass, module, next_pass):
            self.running_pass = next_pass
            if verify and previous_pass is not None:
                verify_located(module)
            self.args.disable_verify = True
            try:
                callback(previous_pass, module, next_pass)
            finally:
                self.args.disable_verify = not verify

        self.pipeline = dataclasses.replace(self.pipeline, callback=located_callback)

    def parse_chunk(self, chunk, file_extension, start_offset=0):
        self.chunk_line_offset = start_offset
        self.running_pass = None
        return super().parse_chunk(chunk, file_extension, start_offset)

    def apply_passes(self, prog):
        self.module = prog  # for a diagnostic about the whole module (_index_fault)
        if not self.args.disable_verify:
            verify_located(prog)
            verify_dominance(prog)
        super().apply_passes(prog)

    def register_all_dialects(self):
        for name, factory in registry.dialect_factories().items():
            self.ctx.register_dialect(name, factory)

    def register_all_passes(self):
        for name, factory in registry.pass_factories().items():
            self.register_pass(name, factory)
        for name, pass_type in self.plugin_passes.items():
            self.register_pass(name, lambda pass_type=pass_type: pass_type)
        # xDSL passes that can run without end: bounded, ending in a diagnostic
        for name in ("apply-pdl", "apply-eqsat-pdl-interp"):
            self.register_pass(name, lambda name=name: _bounded_pass(name))

    def register_all_targets(self):
        super().register_all_targets()
        self.available_targets["mlir"] = _template_mlir_target
        for name, spec in registry.TARGETS.items():
            self.available_targets[name] = (
                lambda module, stream, spec=spec: registry.load_object(spec)(module, stream)
            )

    def prepare_output(self):
        self.output_stream = super().prepare_output()
        return self.output_stream

    def output_resulting_program(self, prog):
        # xDSL collects a target's output in a StringIO; a binary target (`spirv`) writes
        # its bytes to the real output stream instead.
        spec = registry.TARGETS.get(self.args.target)
        if spec is not None:
            emit = registry.load_object(spec)
            if getattr(emit, "binary_output", False):
                emit(prog, self.output_stream)
                return ""
        return super().output_resulting_program(prog)


def _template_mlir_target() -> type:
    """xDSL's `mlir` target, printing repeated op shapes from templates (print_templates.py)."""
    from xdsl.targets.mlir import MLIRTarget

    from taichi_xdsl.utils.print_templates import PrintFailedAt, TemplatePrinter

    class TemplateMLIRTarget(MLIRTarget):
        def emit(self, ctx, module, output) -> None:
            if self.syntax_highlight:
                return super().emit(ctx, module, output)
            printer = TemplatePrinter(
                stream=output,
                print_generic_format=self.print_generic_format,
                print_properties_as_attributes=self.print_properties_as_attributes,
                print_debuginfo=self.print_debuginfo,
            )
            try:
                printer.print_op(module)
            except Exception as error:  # an op xDSL verified but its printer refuses
                op = printer.failed_op
                if op is None:
                    raise
                raise PrintFailedAt(op, f"xDSL cannot print this `{op.name}`: "
                                        f"{type(error).__name__}: {error}") from error
            printer.print_metadata(ctx.loaded_dialects)
            print("\n", file=output)
            return None

    return TemplateMLIRTarget


def _bounded_pass(name: str) -> type:
    from taichi_xdsl.utils.xdsl_bounds import BOUNDED_PASSES

    return BOUNDED_PASSES[name]


def _pass_tokens(text: str) -> list[tuple[SpecToken, dict[str, SpecToken]]]:
    """
    For each pass of a `-p` text, in order: the token of its name and those of its
    option names (`-` read as `_`, as xDSL does). The text has parsed already.
    """
    passes: list[tuple[SpecToken, dict[str, SpecToken]]] = []
    lexer = PipelineLexer(text)
    in_options = expect_key = False
    while (token := lexer.lex()).kind is not SpecTokenKind.EOF:
        if token.kind is SpecTokenKind.L_BRACE:
            in_options = expect_key = True
        elif token.kind is SpecTokenKind.R_BRACE:
            in_options = False
        elif in_options and token.kind is SpecTokenKind.SPACE:
            expect_key = True
        elif token.kind is SpecTokenKind.IDENT and in_options and expect_key:
            passes[-1][1][token.span.text.replace("-", "_")] = token
            expect_key = False
        elif token.kind is SpecTokenKind.IDENT and not in_options:
            passes.append((token, {}))
    return passes


def _option_at_fault(pass_type: type, spec: ArgSpec, error: ValueError) -> str | None:
    """
    The option of `spec` that `pass_type` rejected: the one a PassOptionError names,
    else the one the message quotes (an unknown option), else the first that fails
    alone (a value of the wrong type). None when none does (a required option missing).
    """
    options = spec.normalize_parameter_names().parameters
    if isinstance(error, PassOptionError):
        return error.option
    for name in options:
        if f'"{name}"' in str(error):
            return name
    required = {
        name: options[name] for name in pass_type.required_fields() if name in options
    }
    for name, value in options.items():
        try:
            pass_type.from_pass_spec(ArgSpec(spec.name, {**required, name: value}))
        except ValueError:
            return name
    return None


def _check_pass_options(available: dict, text: str) -> None:
    """
    Build each pass of the `-p` text once, before named pipelines expand: an option a
    pass rejects (unknown, of the wrong type, out of its range) is a diagnostic with a
    caret at that option in the text, as a malformed pipeline's is. Names that are not
    passes (named pipelines, unknown passes) are left to the pipeline's own checks.
    """
    for spec, (name_token, option_tokens) in zip(parse_pipeline(text), _pass_tokens(text)):
        if spec.name not in available:
            continue
        pass_type = available[spec.name]()
        try:
            pass_type.from_pass_spec(spec)
        except ValueError as error:
            token = option_tokens.get(_option_at_fault(pass_type, spec, error), name_token)
            raise LocatedDiagnostic(
                "ti-opt: error: in the pass pipeline: a rejected option:\n"
                + token.span.print_with_context(str(error)).rstrip()
            ) from None


def main(args: Sequence[str] | None = None) -> int:
    """
    Run ti-opt on a thread with a deep stack: xDSL's parser, printer and walkers recurse
    once per nested region, and Python's default limit stops them near 140 levels.
    """
    result: list[int] = []
    threading.stack_size(_STACK_BYTES)
    old_limit = sys.getrecursionlimit()
    sys.setrecursionlimit(_RECURSION_LIMIT)
    try:
        def run() -> None:
            try:
                result.append(_main(args))
            except SystemExit as exit:  # --help, or argparse rejecting the command line
                code = exit.code
                result.append(code if isinstance(code, int) else 0 if code is None else 2)

        worker = threading.Thread(target=run)
        worker.start()
        worker.join()
    finally:
        sys.setrecursionlimit(old_limit)
        threading.stack_size(0)
    return result[0] if result else 2


_STACK_BYTES = 1 << 30
_SIGPIPE_STATUS = 128 + 13  # what a shell reports for a process ended by SIGPIPE
_RECURSION_LIMIT = 200_000


def _op_at_fault(error: BaseException):
    """
    The op a failing pass was working on, when the traceback shows one: the innermost
    frame holding an op with a source position in a local (`op`, `operation`, ...;
    xDSL's rewriters and walkers name it so), else in a local of any name (the
    `pdl.pattern` convert-pdl-to-pdl-interp was converting). None when no frame does.
    """
    from xdsl.dialects.builtin import FileLineColLoc
    from xdsl.ir import Operation

    frames = []
    tb = error.__traceback__
    while tb is not None:
        frames.append(tb.tb_frame)
        tb = tb.tb_next
    for frame in reversed(frames):
        for name in ("matched_operation", "matched_op", "op", "operation", "target", "root"):
            value = frame.f_locals.get(name)
            if isinstance(value, Operation) and isinstance(value.location, FileLineColLoc):
                return value
    for frame in reversed(frames):
        for value in frame.f_locals.values():
            if isinstance(value, Operation) and isinstance(value.location, FileLineColLoc):
                return value
    return None


def _print_fault_location(main: TiOptMain | None, error: BaseException) -> None:
    """For an unlocated fault inside a pass: a second line naming the op it was at."""
    if getattr(main, "running_pass", None) is None:
        return
    op = _op_at_fault(error)
    if op is not None:
        print(format_at(op.location, f"the pass failed at this `{op.name}`"), file=sys.stderr)
        return
    past = _index_past_the_end(main, error)
    if past is not None:
        print(format_at(*past), file=sys.stderr)
        return
    first = _first_located_op(getattr(main, "module", None))
    if first is not None:  # a verdict on the whole module (stencil-shape-minimize{restrict})
        print(format_at(first.location, f"the pass failed on the module this `{first.name}` "
                                        "begins"), file=sys.stderr)


def _first_located_op(module: object):
    """The module's first op (in walk order) that has a source position, else None."""
    from xdsl.dialects.builtin import FileLineColLoc
    from xdsl.ir import Operation

    if not isinstance(module, Operation):
        return None
    return next((op for op in module.walk() if isinstance(op.location, FileLineColLoc)), None)


def _index_past_the_end(main: TiOptMain | None, error: BaseException):
    """
    (location, message) for an op index option past the module's ops
    (`apply-individual-rewrite{matched_operation_index=N}`, where xDSL's OpSelector raises
    a bare IndexError): the last op, the one the index went past. None otherwise.
    """
    module = getattr(main, "module", None)
    index = getattr(getattr(main, "running_pass", None), "matched_operation_index", None)
    if not isinstance(error, IndexError) or module is None or not isinstance(index, int):
        return None
    from xdsl.dialects.builtin import FileLineColLoc

    ops = list(module.walk())
    last = next((op for op in reversed(ops) if isinstance(op.location, FileLineColLoc)), None)
    if last is None:
        return None
    return last.location, (f"matched_operation_index={index} is past the last op: the "
                           f"module has {len(ops)} (index 0 is builtin.module, "
                           f"{ops.index(last)} this `{last.name}`)")


def _pass_module(running: object) -> str:
    """The module defining a pass; xDSL's for ti-opt's bounded versions of xDSL's passes."""
    from taichi_xdsl.utils.xdsl_bounds import BOUNDED_PASSES

    pass_type = type(running)
    if pass_type in BOUNDED_PASSES.values():
        pass_type = pass_type.__mro__[1]
    return pass_type.__module__


def _in_pass(main: TiOptMain | None) -> str:
    """` in pass 'name' (module)` for a fault inside a pass, else ``."""
    running = getattr(main, "running_pass", None)
    if running is None:
        return ""
    return f" in pass '{running.name}' ({_pass_module(running)})"


def _main(args: Sequence[str] | None) -> int:
    _memoize_hint_constraints()
    _memoize_irdl_verification()
    _check_isolation_by_sets()
    main = None
    try:
        main = TiOptMain(args)
        main.run()
    except BrokenPipeError:
        # The reader went away (`ti-opt ... | head`): stop quietly, as Unix tools do, and
        # keep the interpreter's final flush from raising again.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return _SIGPIPE_STATUS
    except LocatedDiagnostic as error:
        print(error, file=sys.stderr)
        return 1
    except (ParseError, DiagnosticException) as error:
        print(f"ti-opt: error{_in_pass(main)}: {error}", file=sys.stderr)
        for note in getattr(error, "__notes__", ()):
            print(note, file=sys.stderr)
        if not isinstance(error, ParseError):
            _print_fault_location(main, error)
        return 1
    except RecursionError:
        print(
            f"ti-opt: error: {_input_name(args)}: regions nested too deeply "
            f"(over {_RECURSION_LIMIT} Python frames)",
            file=sys.stderr,
        )
        return 1
    except ArgSpecParseError as error:
        print(f"ti-opt: error: in the pass pipeline: {error}", file=sys.stderr)
        return 1
    except (FileNotFoundError, ValueError) as error:
        print(f"ti-opt: error{_in_pass(main)}: {error}", file=sys.stderr)
        _print_fault_location(main, error)
        return 1
    except Exception as error:
        running = getattr(main, "running_pass", None)
        if running is not None and _pass_module(running).startswith("xdsl."):
            # A fault of one of xDSL's own passes on this input: a diagnostic naming it
            # (its bug, not ours: an IndexError of apply-individual-rewrite given an
            # index past the matches, an assert of apply-pdl without its file).
            print(f"ti-opt: error{_in_pass(main)} on {_input_name(args)}: xDSL's pass "
                  f"failed: {type(error).__name__}: {error}", file=sys.stderr)
            _print_fault_location(main, error)
            if os.environ.get("TI_OPT_TRACEBACK"):
                raise
            return 1
        # a bug in a pass of ours: still no traceback for the user
        print(f"ti-opt: internal error{_in_pass(main)}: {type(error).__name__}: {error}",
              file=sys.stderr)
        print("ti-opt: set TI_OPT_TRACEBACK=1 to see the Python traceback", file=sys.stderr)
        if os.environ.get("TI_OPT_TRACEBACK"):
            raise
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
