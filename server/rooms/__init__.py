"""The rooms layer: the authoritative tables kept in memory, one lock each.

A room knows games only through the rules registry and the transport only as a connection
with a send queue; it never imports an edge (WebSocket, HTTP) or the database.
"""

from server.rooms.connection import Connection
from server.rooms.errors import RoomError
from server.rooms.manager import RoomManager
from server.rooms.room import Room

__all__ = ["Connection", "Room", "RoomError", "RoomManager"]
