"""Suite-wide ordering: the browser tests run last.

Playwright's sync API runs its own event loop in the main thread while a browser is open,
and pytest-asyncio cannot start a loop inside a running one; running the browser tests
after everything else keeps the two apart whatever order the folders sort in.
"""

from __future__ import annotations


def pytest_collection_modifyitems(config, items):
    items.sort(key=lambda item: "tests/browser/" in item.nodeid.replace("\\", "/"))
