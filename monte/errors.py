"""The one error every ``monte`` tool may raise for a problem the user can fix: the dispatcher prints it as one line
(``monte COMMAND: error: ...``) with exit code 2."""


class UsageError(Exception):
    """A problem the user can fix (a bad config, a file that cannot be read, an option out of range)."""
