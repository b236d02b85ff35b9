"""The WebSocket edge without a network: a RoomSocket's sender and its closing."""

from __future__ import annotations

import asyncio

from server.edges.ws import RoomSocket
from server.rooms import Connection


async def test_a_connection_the_room_marked_closed_still_gets_its_queued_frames_then_the_close_code():
    sent: list[dict] = []

    async def send(message: dict) -> None:
        sent.append(message)

    async def receive() -> dict:
        await asyncio.sleep(3600)
        return {"type": "websocket.disconnect"}

    sock = RoomSocket({"type": "websocket"}, receive, send)
    conn = sock.conn = Connection("p1", "Ann", sock.closer, limit=8)
    sock.sender_task = asyncio.get_running_loop().create_task(sock._sender())
    conn.push('{"type":"patch","v":1,"ops":[]}')
    # As Room._drop_slow does: mark the connection closed, then call its closer.
    conn.closed = True
    await asyncio.wait_for(sock.closer(1008, "too slow: frames not read"), 5)
    assert sock.sender_task.done()
    assert sent[0] == {"type": "websocket.send", "text": '{"type":"patch","v":1,"ops":[]}'}
    assert sent[-1] == {"type": "websocket.close", "code": 1008, "reason": "too slow: frames not read"}
    # A second request changes nothing: the first code stands.
    sock.request_close(1000)
    assert sock.close_code == 1008 and len(sent) == 2
