"""The strategy registry's named configurations: an adapter given its settings is a class of
the module that names it, described, listed with the parameters left to the user, and
picklable."""

import pickle

import pytest

from sim.core.errors import UnknownParameter
from strategies import base


class Seats:
    """An adapter as a game's players.py writes one: its configuration, then its options."""

    name = "seats"

    def __init__(self, policy: str, seat0: str | None = None) -> None:
        self.policy, self.seat0 = policy, seat0 or policy

    def decide(self, view, rng):
        return self.policy


def test_a_configuration_is_its_adapter_with_its_settings_fixed(monkeypatch):
    monkeypatch.setattr(base, "_REGISTRY", dict(base._REGISTRY))
    cls = base.configuration("no-such-game", "first-cards", Seats,
                             "Keep the first cards dealt.", policy="first")
    monkeypatch.setitem(globals(), cls.__name__, cls)  # as the naming module binds it
    assert cls.__name__ == "FirstCards" and cls.__module__ == __name__
    assert issubclass(cls, Seats) and cls.name == "first-cards"
    (info,) = base.registered("no-such-game")
    assert (info.name, info.description, info.factory) == ("first-cards",
                                                           "Keep the first cards dealt.", cls)
    assert base.parameters(cls) == "seat0=None"
    strategy = base.resolve("no-such-game", "first-cards", {"seat0": "last"})
    assert (strategy.policy, strategy.seat0) == ("first", "last")
    again = pickle.loads(pickle.dumps(strategy))
    assert type(again) is cls and vars(again) == vars(strategy)
    with pytest.raises(UnknownParameter, match="policy"):
        base.resolve("no-such-game", "first-cards", {"policy": "last"})
