"""The package itself: cheap to import, one registry that resolves every entry."""

import subprocess
import sys

import pytest

from taichi_xdsl.utils import registry


def test_import_loads_no_compiler():
    code = (
        "import sys, taichi_xdsl\n"
        "heavy = [m for m in ('xdsl', 'llvmlite', 'vulkan') if m in sys.modules]\n"
        "print(','.join(heavy))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.strip()
    assert out == "", f"import taichi_xdsl loaded {out}"


@pytest.mark.parametrize("name", sorted(registry.DIALECTS))
def test_dialect_resolves(name):
    dialect = registry.dialect_factories()[name]()
    assert dialect.name == name


@pytest.mark.parametrize("name", sorted(registry.PASSES))
def test_pass_resolves(name):
    pass_type = registry.pass_factories()[name]()
    assert pass_type.name == name


@pytest.mark.parametrize("name", sorted(registry.PIPELINES))
def test_pipeline_parses(name):
    pipeline = registry.build_pipeline(registry.PIPELINES[name])
    assert pipeline.passes
