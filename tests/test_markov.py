"""The long run of a Markov chain with rewards against closed forms, in exact fractions."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from sim.core.markov import RoundChain, long_run, solve, stationary


def test_a_two_state_chains_long_run_variance_is_the_closed_form():
    """Rewards f(state) on a chain leaving state 0 with chance a and state 1 with chance b:
    pi = (b, a) / (a + b), and the long-run variance is Var_pi(f) (1 + l) / (1 - l) with
    l = 1 - a - b, the chain's second eigenvalue."""
    for a, b in ((Fraction(1, 3), Fraction(1, 5)), (Fraction(9, 10), Fraction(7, 10))):
        p = [[1 - a, a], [b, 1 - b]]
        f = [Fraction(3), Fraction(-2)]
        # The reward is earned in the state the round starts in: r1 = f, r2 = f^2.
        g = [[f[i] * p[i][j] for j in range(2)] for i in range(2)]
        mean, variance = long_run(p, f, [x * x for x in f], g)
        pi = [b / (a + b), a / (a + b)]
        assert stationary(p) == pi
        assert mean == pi[0] * f[0] + pi[1] * f[1]
        spread = pi[0] * pi[1] * (f[0] - f[1]) ** 2
        lam = 1 - a - b
        assert variance == spread * (1 + lam) / (1 - lam)


def test_independent_rounds_have_the_rounds_own_variance():
    """A reward that does not depend on the state: the chain adds nothing."""
    p = [[Fraction(1, 2), Fraction(1, 2)], [Fraction(1, 4), Fraction(3, 4)]]
    r1, r2 = [Fraction(1), Fraction(1)], [Fraction(5), Fraction(5)]
    g = [[p[i][j] for j in range(2)] for i in range(2)]
    assert long_run(p, r1, r2, g) == (1, 4)


def test_solve_is_exact_and_refuses_a_singular_system():
    assert solve([[Fraction(2), Fraction(1)], [Fraction(1), Fraction(3)]],
                 [Fraction(1), Fraction(2)]) == [Fraction(1, 5), Fraction(3, 5)]
    with pytest.raises(ValueError, match="singular"):
        solve([[1.0, 2.0], [2.0, 4.0]], [1.0, 2.0])


def test_a_round_chain_checks_its_probabilities():
    chain = RoundChain(np.array([0, 0, 1]), np.array([0, 1, 0]), np.array([1.0, -1.0, 2.0]),
                       np.array([0.5, 0.5, 1.0]))
    assert chain.n_states == 2
    np.testing.assert_allclose(chain.matrix(), [[0.5, 0.5], [1.0, 0.0]])
    with pytest.raises(ValueError, match="sum to one"):
        RoundChain(np.array([0, 1]), np.array([1, 0]), np.array([1.0, 1.0]),
                   np.array([0.5, 1.0]))
