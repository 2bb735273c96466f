"""lit configuration: `.mlir` and `.py` tests under test/, run with ti-opt and filecheck."""

import os
import shutil
import sys

import lit.formats

config.name = "taichi-xdsl"  # noqa: F821
config.test_format = lit.formats.ShTest(execute_external=False)  # noqa: F821
config.suffixes = [".mlir", ".py"]  # noqa: F821
config.excludes = ["lit.cfg.py", "python", "Inputs", "conftest.py"]  # noqa: F821
config.test_source_root = os.path.dirname(__file__)  # noqa: F821

# The tools run from the same interpreter as lit, so a virtual environment works even
# when its bin/ is not on PATH.
python = sys.executable
config.substitutions.append(("ti-opt", f'"{python}" -m taichi_xdsl.utils.ti_opt'))  # noqa: F821
config.substitutions.append(  # noqa: F821
    ("filecheck", f'"{python}" -m filecheck --enable-var-scope')
)
config.substitutions.append(("%python", f'"{python}"'))  # noqa: F821
config.environment["PYTHONUNBUFFERED"] = "1"  # noqa: F821
for name in ("PATH", "HOME", "VK_ICD_FILENAMES", "VK_DRIVER_FILES", "TI_ARCH"):
    if name in os.environ:
        config.environment[name] = os.environ[name]  # noqa: F821
if shutil.which("spirv-val"):
    config.available_features.add("spirv-tools")  # noqa: F821
