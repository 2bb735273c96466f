"""
`ti._logging` (also `ti.is_logging_effective`): Taichi's log levels over Python's logging
module. Messages go to the "taichi_xdsl" logger; `ti.set_logging_level(ti.WARN)` or
`ti.init(log_level=...)` sets its level.

    ti.set_logging_level(ti.DEBUG)
    ti._logging.is_logging_effective(ti.INFO)    # True
"""

from __future__ import annotations

import logging

from .program import (
    _LOG_LEVELS,
    CRITICAL,
    DEBUG,
    ERROR,
    INFO,
    TRACE,
    WARN,
    set_logging_level,
)

supported_log_levels = [TRACE, DEBUG, INFO, WARN, ERROR, CRITICAL]

_LOGGER = logging.getLogger("taichi_xdsl")


def is_logging_effective(level: str) -> bool:
    """Whether a message of `level` would be shown at the current level."""
    name = str(level).lower()
    if name not in _LOG_LEVELS:
        raise ValueError(f"unknown log level {level!r}: use one of {supported_log_levels}")
    return _LOGGER.getEffectiveLevel() <= _LOG_LEVELS[name]


def _log(level: str, msg: str) -> None:
    _LOGGER.log(_LOG_LEVELS[level], msg)


def trace(msg: str) -> None:
    _log(TRACE, msg)


def debug(msg: str) -> None:
    _log(DEBUG, msg)


def info(msg: str) -> None:
    _log(INFO, msg)


def warn(msg: str) -> None:
    _log(WARN, msg)


def error(msg: str) -> None:
    _log(ERROR, msg)


def critical(msg: str) -> None:
    _log(CRITICAL, msg)


__all__ = [
    "CRITICAL", "DEBUG", "ERROR", "INFO", "TRACE", "WARN", "critical", "debug", "error",
    "info", "is_logging_effective", "set_logging_level", "supported_log_levels", "trace",
    "warn",
]  # fmt: skip
