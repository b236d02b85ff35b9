"""Suite-wide ordering (the browser tests run last) and one check over the whole run.

Playwright's sync API runs its own event loop in the main thread while a browser is open,
and pytest-asyncio cannot start a loop inside a running one; running the browser tests
after everything else keeps the two apart whatever order the folders sort in.
"""

from __future__ import annotations

import copy

import pytest

from server.games import all_games
from server.rules.game import SHARED_ACTIONS


def pytest_collection_modifyitems(config, items):
    # A browser test is one that asks for the ``driver`` fixture (tests/web/conftest.py).
    items.sort(key=lambda item: "driver" in getattr(item, "fixturenames", ()))


@pytest.fixture(scope="session", autouse=True)
def shared_actions_never_change():
    """The legal actions the engines hand out again and again are shared plain dicts
    (``server.rules.game.shared_action``): after every test of the run that used them
    in this process (engines, rooms, bots, the app), each must still be what it was made as."""
    all_games()  # every engine imported: every shared action made
    made = copy.deepcopy(SHARED_ACTIONS)
    yield
    assert len(SHARED_ACTIONS) == len(made), "shared actions are made at import only"
    changed = [(was, now) for was, now in zip(made, SHARED_ACTIONS, strict=True) if was != now]
    assert not changed, f"shared legal actions were changed in place: {changed[:3]}"
