"""dlp's errors as Python exceptions.

Each class carries the exit code the ``dlp`` command gives for the same
failure (dlp(1), EXIT STATUS). libdlp decides it (``dlp::ExitCodeForStatus``,
the one mapping) and hands it here with the status; ``from_status`` only picks
the class for it.
"""

import re

# ExitCode in libdlp/include/dlp/exit_code.h.
EXIT_JOB_FAILED = 1
EXIT_USAGE = 2
EXIT_NOT_FOUND = 3
EXIT_BACKEND = 4
EXIT_CANCELLED = 5
EXIT_DENIED = 6
EXIT_INTERRUPTED = 130


class Error(Exception):
    """A dlp failure: ``code`` is the status ("NOT_FOUND", ...), ``exit_code``
    what the dlp command would exit with."""

    exit_code = EXIT_BACKEND

    def __init__(self, message, code="UNKNOWN", exit_code=None):
        super().__init__(message)
        self.message = message
        self.code = code
        if exit_code is not None:
            self.exit_code = exit_code


class UsageError(Error):
    """Bad arguments, an invalid spec, a conflict (exit code 2)."""

    exit_code = EXIT_USAGE


class InvalidSpec(UsageError):
    """A spec that does not parse or validate. ``file``, ``line``, ``column``
    and ``field`` are where it is wrong, when the message says (None else)."""

    # "job.yaml:12:9: spec.replicas.worker.count: expected ..." (dlp/spec.h).
    _WHERE = re.compile(
        r"^(?P<file>[^\n:]+):(?P<line>\d+):(?P<column>\d+): (?:(?P<field>[\w.\[\]-]+): )?")

    def __init__(self, message, code="INVALID_ARGUMENT", exit_code=None):
        super().__init__(message, code, exit_code)
        where = self._WHERE.match(message)
        self.file = where["file"] if where else None
        self.line = int(where["line"]) if where else None
        self.column = int(where["column"]) if where else None
        self.field = where["field"] if where else None


class NotFound(Error):
    """No such job, sweep, model or context (exit code 3)."""

    exit_code = EXIT_NOT_FOUND


class BackendError(Error):
    """The backend could not be reached or failed (exit code 4)."""


class Timeout(BackendError, TimeoutError):
    """A wait ran past its timeout; what was waited on goes on (exit code 4)."""


class PermissionDenied(Error):
    """The token may not do this (exit code 6)."""

    exit_code = EXIT_DENIED


class Interrupted(Error):
    """The call was cancelled (exit code 130)."""

    exit_code = EXIT_INTERRUPTED


_BY_EXIT_CODE = {
    EXIT_USAGE: UsageError,
    EXIT_NOT_FOUND: NotFound,
    EXIT_BACKEND: BackendError,
    EXIT_DENIED: PermissionDenied,
    EXIT_INTERRUPTED: Interrupted,
}


def from_status(code, exit_code, message):
    """The exception for a libdlp status (called by dlp._native)."""
    if code == "DEADLINE_EXCEEDED":
        cls = Timeout
    elif code == "INVALID_ARGUMENT" and InvalidSpec._WHERE.match(message):
        cls = InvalidSpec
    else:
        cls = _BY_EXIT_CODE.get(exit_code, Error)
    return cls(message, code, exit_code)
