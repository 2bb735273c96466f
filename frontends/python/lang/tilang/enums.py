"""`ti.lang.enums`: the enums of lang/enums.py."""

from ..enums import *  # noqa: F403
from ..enums import __all__  # noqa: F401
