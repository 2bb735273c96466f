"""`ti.lang.enums`: the enums of lang/enums.py."""

from ..frontends.python.lang.enums import *  # noqa: F403
from ..frontends.python.lang.enums import __all__  # noqa: F401
