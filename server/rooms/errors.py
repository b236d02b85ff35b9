"""The one refusal type of the rooms and their edges: a machine code, a sentence, a status.

A bad frame, a room rule, an unavailable table: each is a ``RoomError``. The edges turn it
into their wire form in one place each (an ``error`` frame on a socket, a JSON error answer
over HTTP). Game rules refuse with the engine's ``GameError``, which carries a code too.
"""

from __future__ import annotations


class RoomError(Exception):
    """A refused request: a machine code, a sentence for the player and an HTTP status."""

    def __init__(self, code: str, message: str, status: int = 409) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.status = status
