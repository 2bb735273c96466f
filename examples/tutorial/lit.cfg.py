"""lit configuration of the tutorial's tests: the project's (test/lit.cfg.py), rooted here."""

import os

here = os.path.dirname(__file__)
lit_config.load_config(  # noqa: F821
    config, os.path.join(here, "..", "..", "test", "lit.cfg.py")  # noqa: F821
)
config.name = "taichi-xdsl-tutorial"  # noqa: F821
config.suffixes = [".mlir"]  # noqa: F821
config.test_source_root = here  # noqa: F821
