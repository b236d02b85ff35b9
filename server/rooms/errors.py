"""The one error a room gives: a machine code, a sentence for the player and an HTTP status.

The edges turn it into their wire form in one place each (an ``error`` frame on a socket, a
JSON error answer over HTTP).
"""

from __future__ import annotations


class RoomError(Exception):
    """A refused room request: a machine code and a sentence for the player."""

    def __init__(self, code: str, message: str, status: int = 409) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.status = status
