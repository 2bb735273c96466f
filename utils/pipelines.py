"""
The compiler pipeline of each arch, defined once: `ti-opt`, the JIT backends
(targets/llvm/backend.py, targets/vulkan/backend.py), AOT export and the docs all read it.

A pipeline is a sequence of stages; a stage is a named pass list (registered as a named
pipeline, so `ti-opt -p ti-to-offload-cpu` runs exactly the JIT's first stage). The
backends read the launch plan off the `offload.kernel` between the two stages.

    cpu:    taichi --[offload: ti-to-offload-cpu]--> offload --[llvm: ti-offload-to-llvm]--> llvm
    vulkan: taichi --[offload: ti-to-offload]-->     offload --[spirv: ti-offload-to-spirv]--> spirv

To add an optimisation pass to an arch, add its name to the stage's tuple below (and the
pass to registry.PASSES). From Python, `ti.compiler.pipeline(ti.cpu)` returns the
`Pipeline` (`.spec` is its pass-spec string); a program can change its pipeline without
editing this file (`PipelineEdits`, `ti.init(passes=...)`).

This module imports nothing of xDSL: `import taichi_xdsl` stays cheap.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace

# -- the pass lists ------------------------------------------------------------------------

_TO_OFFLOAD_HEAD = (
    "ti-lower-sparse",
    "ti-scalarize",
    "ti-mem2reg",
    "canonicalize",
    "cse",
    "ti-demote-dense-struct-for",
)
_TO_OFFLOAD_TASKS = (
    "ti-offload",
    "ti-demote-atomics",
    "ti-make-thread-local",
    "ti-fold-sqrt-compare",
)
_TO_OFFLOAD_TAIL = _TO_OFFLOAD_TASKS + ("canonicalize", "cse")

TO_OFFLOAD: tuple[str, ...] = (
    _TO_OFFLOAD_HEAD
    + _TO_OFFLOAD_TASKS
    + ("ti-align-rows", "canonicalize", "cse", "ti-fuse-serial-reduction")
)
"""taichi -> offload for a GPU: flat parallel loops (one invocation per element), nd
ones over rows padded to a power of two (ti-align-rows); a serial task that initialises
what a reduction adds into runs in the reduction's last workgroup (one dispatch fewer)."""

TO_OFFLOAD_CPU: tuple[str, ...] = (
    _TO_OFFLOAD_HEAD
    + ("ti-split-parallel-loop",)
    + _TO_OFFLOAD_TAIL
    + ("ti-add-serial-forms",)
)
"""taichi -> offload for CPU threads: an nd parallel loop runs best as parallel rows with
a serial inner loop LLVM can vectorise; a loop with atomics gets a form without them, for
a launch on one thread."""

OFFLOAD_TO_LLVM: tuple[str, ...] = (
    "ti-serial-simt",
    "ti-guard-int-division",
    "ti-lower-access",
    "convert-taichi-to-cf",
    "convert-offload-to-llvm",
    "convert-arith-to-llvm",
    "convert-math-to-llvm",
    "convert-cf-to-llvm",
    "reconcile-unrealized-casts",
    "dce",
)
"""offload -> llvm dialect: one LLVM function per task."""

OFFLOAD_TO_SPIRV: tuple[str, ...] = (
    "ti-guard-int-division",
    "ti-unroll-loops",
    "ti-fast-reciprocal",
    "ti-expand-f64-math",
    "convert-taichi-to-spirv",
    "convert-arith-to-spirv",
    "convert-offload-to-spirv",
    "ti-spirv-hoist",
)
"""offload -> spirv dialect: one spirv.module per task."""

OPTIONAL_PASSES: frozenset[str] = frozenset(
    {
        "ti-mem2reg",
        "canonicalize",
        "cse",
        "ti-split-parallel-loop",
        "ti-make-thread-local",
        "ti-add-serial-forms",
        "ti-fold-sqrt-compare",
        "ti-align-rows",
        "ti-fuse-serial-reduction",
        "ti-unroll-loops",
        "ti-spirv-hoist",
    }
)
"""The optimisation passes: every pipeline computes the same results without them (the
others lower or guard). `ti.init(opt_level=0)` runs the pipeline without them, as
Taichi's opt_level 0 turns its optimisations off (on the CPU LLVM then runs at -O0 too).
ti-demote-atomics stays: the LLVM path has no atomic on a local slot but its demotion;
ti-fast-reciprocal follows `fast_math` instead, as it changes results by a rounding."""


# -- pipelines -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Stage:
    """
    One stage of a pipeline: `name` is the stage (`offload`, `llvm`, `spirv`), also the
    name of the IR it produces; `pipeline` the named pipeline that runs it in ti-opt.
    """

    name: str
    pipeline: str
    passes: tuple[str, ...]

    @property
    def spec(self) -> str:
        """The pass-spec string of this stage (`ti-scalarize,ti-mem2reg,...`)."""
        return ",".join(self.passes)


@dataclass(frozen=True)
class Pipeline:
    """
    An arch's pipeline: stages in order (the launch plan is read after the first).

        >>> p = pipeline("cpu")
        >>> p.name, [s.name for s in p.stages]
        ('ti-to-llvm', ['offload', 'llvm'])
        >>> p.passes[:2]
        ('ti-scalarize', 'ti-mem2reg')
    """

    arch: str
    name: str
    stages: tuple[Stage, ...]

    @property
    def passes(self) -> tuple[str, ...]:
        """Every pass, in order."""
        return tuple(p for stage in self.stages for p in stage.passes)

    @property
    def spec(self) -> str:
        """The whole pipeline as one pass-spec string (what `ti-opt -p` takes)."""
        return ",".join(self.passes)

    def stage(self, name: str) -> Stage:
        """The stage called `name` (`offload`, `llvm` or `spirv`)."""
        for stage in self.stages:
            if stage.name == name:
                return stage
        known = ", ".join(s.name for s in self.stages)
        raise ValueError(f"the {self.arch} pipeline has no stage '{name}' (stages: {known})")

    def with_options(self, pass_name: str, options: str) -> Pipeline:
        """
        This pipeline with `options` (`debug=true`, appended inside `{...}`) given to every
        occurrence of `pass_name`; the backends use it for options of their own (caps,
        debug mode).
        """
        if not options:
            return self

        def add(spec: str) -> str:
            if pass_base_name(spec) != pass_name:
                return spec
            if spec.endswith("}"):
                inner = spec[spec.index("{") + 1 : -1].strip()
                return f"{pass_name}{{{(inner + ' ' + options).strip()}}}"
            return f"{spec}{{{options}}}"

        return replace(
            self,
            stages=tuple(
                replace(s, passes=tuple(add(p) for p in s.passes)) for s in self.stages
            ),
        )

    def unoptimised(self) -> Pipeline:
        """This pipeline without its OPTIONAL_PASSES (what `opt_level=0` runs)."""
        return replace(
            self,
            stages=tuple(
                replace(
                    s,
                    passes=tuple(
                        q for q in s.passes if pass_base_name(q) not in OPTIONAL_PASSES
                    ),
                )
                for s in self.stages
            ),
        )

    def edited(self, edits: PipelineEdits | None) -> Pipeline:
        """This pipeline with `edits` applied (see PipelineEdits)."""
        return self if edits is None or not edits else edits.apply(self)

    def describe(self) -> str:
        """A few lines for `--help` and the docs: each stage's name and passes."""
        lines = [f"{self.name} ({self.arch}):"]
        for stage in self.stages:
            lines.append(f"  {stage.name} = {stage.pipeline}: {stage.spec}")
        return "\n".join(lines)


def _pipelines() -> dict[str, Pipeline]:
    cpu = Pipeline(
        "cpu",
        "ti-to-llvm",
        (
            Stage("offload", "ti-to-offload-cpu", TO_OFFLOAD_CPU),
            Stage("llvm", "ti-offload-to-llvm", OFFLOAD_TO_LLVM),
        ),
    )
    vulkan = Pipeline(
        "vulkan",
        "ti-to-spirv",
        (
            Stage("offload", "ti-to-offload", TO_OFFLOAD),
            Stage("spirv", "ti-offload-to-spirv", OFFLOAD_TO_SPIRV),
        ),
    )
    return {"cpu": cpu, "vulkan": vulkan}


PIPELINES_BY_ARCH: dict[str, Pipeline] = _pipelines()
"""arch name -> its pipeline."""

ARCH_ALIASES = {"x64": "cpu", "arm64": "cpu", "gpu": "vulkan"}


def pipeline(arch: object = "cpu") -> Pipeline:
    """The pipeline of `arch` (`ti.cpu`, `ti.vulkan`, or its name)."""
    name = str(getattr(arch, "name", arch)).lower()
    name = ARCH_ALIASES.get(name, name)
    if name not in PIPELINES_BY_ARCH:
        known = ", ".join(PIPELINES_BY_ARCH)
        raise ValueError(f"no pipeline for arch '{name}' (archs: {known})")
    return PIPELINES_BY_ARCH[name]


def named_pipelines() -> dict[str, str]:
    """
    Every named pipeline as name -> pass-spec string: each stage of each arch, and each
    arch's whole pipeline (its stages by name). registry.PIPELINES is this.
    """
    named: dict[str, str] = {}
    for p in PIPELINES_BY_ARCH.values():
        for stage in p.stages:
            named[stage.pipeline] = stage.spec
        named[p.name] = ",".join(stage.pipeline for stage in p.stages)
    return named


# -- pass-spec strings ---------------------------------------------------------------------


def split_spec(spec: str) -> list[str]:
    """Split a pass-spec at top-level commas (`a{x=1,y=2},b` -> [`a{x=1,y=2}`, `b`])."""
    items: list[str] = []
    depth, start = 0, 0
    for index, char in enumerate(spec):
        if char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
        elif char == "," and depth == 0:
            items.append(spec[start:index].strip())
            start = index + 1
    items.append(spec[start:].strip())
    return [item for item in items if item]


def pass_base_name(spec: str) -> str:
    """`ti-lower-access{debug=true}` -> `ti-lower-access`."""
    return spec.split("{", 1)[0].strip()


def expand(spec: str | Iterable[str], named: Mapping[str, str] | None = None) -> list[str]:
    """
    The passes of a pass-spec string (or list of them), named pipelines expanded so that
    print_ir and pass timing see every pass: `ti-to-llvm` -> [`ti-scalarize`, ...].
    """
    named = named_pipelines() if named is None else named
    items = split_spec(spec) if isinstance(spec, str) else [i for s in spec for i in split_spec(s)]
    passes: list[str] = []
    for item in items:
        if item in named:
            passes.extend(expand(named[item], named))
        else:
            passes.append(item)
    return passes


# -- edits ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class PipelineEdits:
    """
    Changes to an arch's pipeline, made by a program without editing the package:

        ti.init(passes={
            "before": {"ti-offload": "my-pass"},           # insert before a named pass
            "after": {"ti-offload": "my-pass{opt=1}"},     # insert after it
            "replace": {"cse": "my-cse"},                  # replace it ("" drops it)
            "drop": ["ti-demote-atomics"],                 # drop it
            "stages": {"offload": "ti-scalarize,..."},     # give a whole stage
        })

    A pass name matches every occurrence of that pass (with any options); one the
    pipeline lacks is an error that lists the pipeline's passes. Values are pass-spec
    strings: several passes, options and named pipelines are fine. `stages` is applied
    first, then replace/drop, then before/after (matched against the pipeline as the
    earlier edits left it).
    """

    before: tuple[tuple[str, str], ...] = ()
    after: tuple[tuple[str, str], ...] = ()
    replace: tuple[tuple[str, str], ...] = ()
    drop: tuple[str, ...] = ()
    stages: tuple[tuple[str, str], ...] = ()

    KEYS = ("before", "after", "replace", "drop", "stages")

    def __bool__(self) -> bool:
        return any((self.before, self.after, self.replace, self.drop, self.stages))

    @staticmethod
    def parse(value: object) -> PipelineEdits | None:
        """
        The edits of `ti.init(passes=...)`: a mapping as in the class docstring, a
        PipelineEdits, or None.

        Raises:
            TypeError, ValueError: `value` is not of that form.
        """
        if value is None or isinstance(value, PipelineEdits):
            return value
        if not isinstance(value, Mapping):
            raise TypeError(
                "passes= takes a dict with keys 'before', 'after', 'replace', 'drop', "
                f"'stages' (see ti.compiler.PipelineEdits), got {type(value).__name__}"
            )
        unknown = sorted(set(value) - set(PipelineEdits.KEYS))
        if unknown:
            raise ValueError(
                f"passes= has unknown key(s) {', '.join(map(repr, unknown))}; "
                f"known keys: {', '.join(PipelineEdits.KEYS)}"
            )

        def pairs(key: str) -> tuple[tuple[str, str], ...]:
            entries = value.get(key) or {}
            if not isinstance(entries, Mapping):
                raise TypeError(f"passes[{key!r}] must map a pass name to a pass-spec string")
            for name, spec in entries.items():
                if not isinstance(name, str) or not isinstance(spec, str):
                    raise TypeError(
                        f"passes[{key!r}] must map a pass name to a pass-spec string, "
                        f"got {name!r}: {spec!r}"
                    )
            return tuple(entries.items())

        drop = value.get("drop") or ()
        if isinstance(drop, str):
            drop = (drop,)
        if not all(isinstance(name, str) for name in drop):
            raise TypeError("passes['drop'] must be a list of pass names")
        return PipelineEdits(
            before=pairs("before"),
            after=pairs("after"),
            replace=pairs("replace"),
            drop=tuple(drop),
            stages=pairs("stages"),
        )

    def merged(self, other: PipelineEdits | None) -> PipelineEdits:
        """These edits, then `other`'s (a kernel's own edits after ti.init's)."""
        if other is None:
            return self
        return PipelineEdits(
            self.before + other.before,
            self.after + other.after,
            self.replace + other.replace,
            self.drop + other.drop,
            self.stages + other.stages,
        )

    def key(self) -> str:
        """A deterministic text of these edits (part of cache keys)."""
        return repr(
            (self.before, self.after, self.replace, self.drop, self.stages)
        )

    def apply(self, p: Pipeline) -> Pipeline:
        """`p` with these edits applied. Raises ValueError for a pass `p` lacks."""
        stages = list(p.stages)
        for name, spec in self.stages:
            index = next((i for i, s in enumerate(stages) if s.name == name), None)
            if index is None:
                known = ", ".join(s.name for s in stages)
                raise ValueError(
                    f"passes['stages']: the {p.arch} pipeline has no stage '{name}' "
                    f"(stages: {known})"
                )
            stages[index] = replace(stages[index], passes=tuple(expand(spec)))

        all_passes = [q for s in stages for q in s.passes]
        names = {pass_base_name(q) for q in all_passes}

        def check(key: str, name: str) -> None:
            if name not in names:
                raise ValueError(
                    f"passes[{key!r}]: the {p.arch} pipeline has no pass '{name}'; its "
                    f"passes: {','.join(all_passes)}"
                )

        substitutes: dict[str, list[str]] = {}
        for name, spec in self.replace:
            check("replace", name)
            substitutes[name] = expand(spec)
        for name in self.drop:
            check("drop", name)
            substitutes[name] = []
        stages = [
            replace(
                s,
                passes=tuple(
                    r
                    for q in s.passes
                    for r in substitutes.get(pass_base_name(q), [q])
                ),
            )
            for s in stages
        ]
        names = {pass_base_name(q) for s in stages for q in s.passes}
        all_passes = [q for s in stages for q in s.passes]
        before: dict[str, list[str]] = {}
        after: dict[str, list[str]] = {}
        for key, pairs, into in (("before", self.before, before), ("after", self.after, after)):
            for name, spec in pairs:
                check(key, name)
                into.setdefault(name, []).extend(expand(spec))

        def around(q: str) -> list[str]:
            base = pass_base_name(q)
            return before.get(base, []) + [q] + after.get(base, [])

        stages = [
            replace(s, passes=tuple(r for q in s.passes for r in around(q))) for s in stages
        ]
        return replace(p, stages=tuple(stages))


def parse_edits(value: object) -> PipelineEdits | None:
    """PipelineEdits.parse, as a function."""
    return PipelineEdits.parse(value)


def stage_names(p: Pipeline) -> Sequence[str]:
    """The IR stages one can ask for: `taichi` (the frontend's), then each stage's."""
    return ("taichi",) + tuple(s.name for s in p.stages)


__all__ = [
    "OFFLOAD_TO_LLVM",
    "OFFLOAD_TO_SPIRV",
    "OPTIONAL_PASSES",
    "PIPELINES_BY_ARCH",
    "Pipeline",
    "PipelineEdits",
    "Stage",
    "TO_OFFLOAD",
    "TO_OFFLOAD_CPU",
    "expand",
    "named_pipelines",
    "pass_base_name",
    "pipeline",
    "split_spec",
]
