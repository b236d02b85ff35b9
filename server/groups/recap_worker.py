"""What a recap image worker process runs: its start and its drawings.

Imports only the drawing and the stop-signal helpers, so a worker process (spawned on the
first recap image asked for) is ready in a fraction of a second.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from server.groups.recap_image import recap_png
from server.workers import ignore_stop_signals

NICENESS = 10  # added to the worker's niceness: a card a little later is worth less than a move on time


def start_painter() -> None:
    """A worker's initializer: stopped by the server only, and second to live play."""
    ignore_stop_signals()
    os.nice(NICENESS)


def draw(group_name: str, night: Mapping[str, Any], titles: Mapping[str, str]) -> bytes:
    """The night's card as PNG bytes."""
    return recap_png(group_name, night, titles)
