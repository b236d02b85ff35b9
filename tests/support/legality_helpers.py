"""One check for every engine: ``why_illegal`` lets through exactly the legal actions, and
``apply`` refuses every other action with ``why_illegal``'s very sentence."""

from __future__ import annotations

import pytest

from server.games import IllegalAction, NotYourTurn


def check_why_illegal(game, state, every: list[dict]) -> None:
    """Over ``every`` action a seat could send, for each seat of ``state``."""
    for seat in range(game.players(state)):
        legal = game.legal_actions(state, seat)
        allowed = [a for a in every if game.why_illegal(state, seat, a) is None]
        assert sorted(map(str, allowed)) == sorted(map(str, legal))
        for action in every:
            problem = game.why_illegal(state, seat, action)
            if problem is not None:
                with pytest.raises((IllegalAction, NotYourTurn)) as err:
                    game.apply(state, seat, action)
                assert str(err.value) == problem and problem
