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
# Kernels that a test runs cache into a folder of the build tree, never the user's home.
config.environment["TI_OFFLINE_CACHE_FILE_PATH"] = os.path.join(  # noqa: F821
    config.test_source_root, "Output", "ticache"  # noqa: F821
)
config.environment["XDG_CACHE_HOME"] = os.path.join(  # noqa: F821
    config.test_source_root, "Output", "cache"  # noqa: F821
)

# Seconds per test: a miscompiled loop fails its test instead of hanging the run. lit
# needs psutil (a test extra) to end a test's process tree.
try:
    import psutil  # noqa: F401
except ImportError:
    lit_config.warning("psutil is missing: lit runs without a per-test timeout")  # noqa: F821
else:
    config.maxIndividualTestTime = 120  # noqa: F821
for name in (
    "PATH",
    "HOME",
    "VK_ICD_FILENAMES",
    "VK_DRIVER_FILES",
    "TI_ARCH",
    # utils/mutation.py runs the tests against a mutated copy of the package.
    "PYTHONPATH",
    "PYTHONDONTWRITEBYTECODE",
    "TI_OFFLINE_CACHE",
):
    if name in os.environ:
        config.environment[name] = os.environ[name]  # noqa: F821
if shutil.which("spirv-val"):
    config.available_features.add("spirv-tools")  # noqa: F821
