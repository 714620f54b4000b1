"""The error types the command line turns into a one-line message and exit code 2."""

from __future__ import annotations

import difflib
from collections.abc import Iterable


class InputError(Exception):
    """Bad input from a user: an experiment file, a key, a strategy, a data file.

    The message names the file, the key path and what was expected, on one line.
    """


class RuleError(InputError, ValueError):
    """A rule value the rules of a game do not allow.

    It is a :class:`ValueError` too, so code that asks "are these rules valid?" can catch it
    as such.

    Attributes:
        field: the rule (a field of the game's rules dataclass).
        value: the value given.
        allowed: what the rule allows, in words ("an integer 1..8").
        detail: the message after the field's name (``"expected ..., got ..."`` unless a
            sentence says more, e.g. why two rules do not go together).
    """

    def __init__(self, field: str, value: object, allowed: str | None = None,
                 detail: str | None = None) -> None:
        self.field = field
        self.value = value
        self.detail = detail if detail is not None else f"expected {allowed}, got {value!r}"
        # Where two rules clash, the sentence is what is allowed.
        self.allowed = allowed if allowed is not None else self.detail
        super().__init__(f"{field}: {self.detail}")


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


class UnknownName(InputError, KeyError):
    """A name that is not among the known ones: a game, preset, rule, strategy, key or variant.

    The message lists the known names and suggests the closest (``difflib``). It is a
    :class:`KeyError` too, so code that asks "is this name known?" can catch it as such.

    Attributes:
        kind: what was looked up ("game", "rule", "variant", ...).
        name: the name given.
        known: every name that would have been accepted.
        closest: the closest known name, or None.
    """

    def __init__(self, kind: str, name: object, known: Iterable[str]) -> None:
        self.kind = kind
        self.name = name
        self.known = sorted(str(k) for k in known)
        matches = difflib.get_close_matches(str(name), self.known, n=1, cutoff=0.6)
        self.closest = matches[0] if matches else None
        hint = f"did you mean {self.closest!r}? " if self.closest else ""
        known_text = ", ".join(self.known) or "none"
        super().__init__(f"unknown {kind} {name!r} ({hint}known: {known_text})")

    def __str__(self) -> str:  # not quoted, as KeyError would
        return self.args[0]


class UnknownParameter(UnknownName, TypeError):
    """A parameter that a strategy or a progression does not take.

    The message names what takes the parameters, lists those it takes and suggests the closest.
    It is a :class:`TypeError` too, as Python's own error for an unexpected keyword argument.

    Attributes:
        owner: what was given the parameter (a strategy's ``use``, a progression's name).
    """

    def __init__(self, owner: str, name: object, known: Iterable[str]) -> None:
        super().__init__("parameter", name, known)
        self.owner = owner
        hint = f"did you mean {self.closest!r}? " if self.closest else ""
        self.args = (f"{owner!r} takes no parameter {name!r} ({hint}it takes: "
                     f"{', '.join(self.known) or 'none'})",)
