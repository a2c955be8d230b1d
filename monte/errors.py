"""The one error every ``monte`` tool may raise for a problem the user can fix: the dispatcher prints it as one line
(``monte COMMAND: error: ...``) with exit code 2."""


class UsageError(Exception):
    """A problem the user can fix (a bad config, a file that cannot be read, an option out of range)."""


def os_error_text(exc: OSError) -> str:
    """What went wrong with a file, as a person reads it: the file and the system's words for it (``x.svg: Not a
    directory``), not Python's ``[Errno 20] Not a directory: 'x.svg'``."""
    if exc.strerror and exc.filename is not None:
        return f"{exc.filename}: {exc.strerror}"
    return exc.strerror or str(exc)
