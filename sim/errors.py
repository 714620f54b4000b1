"""The one error type the command line turns into a one-line message and exit code 2."""


class InputError(Exception):
    """Bad input from a user: an experiment file, a key, a strategy, a data file.

    The message names the file, the key path and what was expected, on one line.
    """


class IllegalActionError(InputError):
    """A strategy returned an action the rules do not allow in that situation."""

    def __init__(self, strategy: object, action: object, situation: str, why: str) -> None:
        name = getattr(strategy, "name", None) or type(strategy).__name__
        super().__init__(f"strategy {name!r} returned {action!r} {situation}: {why}")


class StrategyFailedError(InputError):
    """A strategy raised an exception while deciding."""

    def __init__(self, strategy: object, situation: str, exc: BaseException) -> None:
        name = getattr(strategy, "name", None) or type(strategy).__name__
        super().__init__(f"strategy {name!r} raised {type(exc).__name__}: {exc} ({situation})")
