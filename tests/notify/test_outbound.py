"""Felt's requests to user-given URLs reach only the public internet unless told otherwise:
checked at every connection (names resolved, every redirect hop), with real receivers on
loopback addresses (127.0.0.1 and 127.0.0.2 stand for 'inside' and 'allowed')."""

from __future__ import annotations

import asyncio
import ipaddress

import pytest

from server.notify.outbound import MAX_REPLY_BYTES, Outbound, OutboundRefused, Reach, check_url


class Receiver:
    """A bare HTTP/1.1 server on ``host`` recording each request; ``reply`` makes the answer."""

    def __init__(self, host: str, reply) -> None:
        self.host, self.reply = host, reply
        self.requests: list[tuple[str, bytes]] = []
        self.server: asyncio.base_events.Server | None = None

    async def __aenter__(self) -> Receiver:
        self.server = await asyncio.start_server(self._serve, self.host, 0)
        self.port = self.server.sockets[0].getsockname()[1]
        return self

    async def __aexit__(self, *exc) -> None:
        assert self.server is not None
        self.server.close()

    def url(self, path: str = "/hook") -> str:
        return f"http://{self.host}:{self.port}{path}"

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        head = await reader.readuntil(b"\r\n\r\n")
        lines = head.decode().split("\r\n")
        length = next(
            (int(v) for k, _, v in (h.partition(": ") for h in lines[1:]) if k.lower() == "content-length"), 0
        )
        body = await reader.readexactly(length)
        self.requests.append((lines[0], body))
        status, headers, payload = self.reply(lines[0])
        extra = "".join(f"{k}: {v}\r\n" for k, v in headers.items())
        writer.write(
            f"HTTP/1.1 {status} X\r\n{extra}content-length: {len(payload)}\r\nconnection: close\r\n\r\n".encode()
            + payload
        )
        await writer.drain()
        writer.close()


def ok(_line):
    return 204, {}, b""


@pytest.mark.parametrize(
    "url",
    [
        "ftp://example.com/x",
        "https://user:secret@example.com/hook",
        "http://127.0.0.1/hook",
        "http://[::1]/hook",
        "http://10.1.2.3/hook",
        "http://192.168.0.10/hook",
        "http://169.254.169.254/latest/meta-data",
        "http://100.64.0.1/",
        "http://[::ffff:127.0.0.1]/hook",
        "http://224.0.0.1/",
        "https:///nohost",
        "not a url",
        "https://example.com/" + "a" * 3000,
        12,
    ],
)
def test_urls_felt_may_not_keep_are_refused(url):
    with pytest.raises(OutboundRefused):
        check_url(url)


def test_public_urls_are_kept_and_allowed_networks_reach_inside():
    assert check_url("https://discord.com/api/webhooks/1/abc") == "https://discord.com/api/webhooks/1/abc"
    assert check_url("http://203.0.114.7:8080/x")  # a public address written as a number
    assert check_url("http://10.1.2.3/hook", Reach(allow=["10.1.2.0/24"]))
    with pytest.raises(OutboundRefused):
        check_url("http://10.1.3.3/hook", Reach(allow=["10.1.2.0/24"]))
    assert Reach(private=True)(ipaddress.ip_address("127.0.0.1"))


async def test_a_name_that_resolves_inside_is_refused_when_connecting_and_nothing_is_sent():
    async with Receiver("127.0.0.1", ok) as receiver:
        outbound = Outbound()
        try:
            with pytest.raises(OutboundRefused):  # the name passes the syntactic check...
                await outbound.post(f"http://localhost:{receiver.port}/hook", b"{}")
        finally:
            await outbound.aclose()
        assert receiver.requests == []  # ...and never reaches the receiver


async def test_allowed_receivers_get_the_request_and_a_long_reply_is_cut():
    async with Receiver("127.0.0.1", lambda _: (200, {}, b"x" * (MAX_REPLY_BYTES * 3))) as receiver:
        outbound = Outbound(allow_private=True)
        try:
            reply = await outbound.post(receiver.url(), b'{"content": "hi"}', {"content-type": "application/json"})
        finally:
            await outbound.aclose()
    assert reply.status_code == 200 and len(reply.content) == MAX_REPLY_BYTES
    assert receiver.requests == [("POST /hook HTTP/1.1", b'{"content": "hi"}')]


async def test_every_redirect_hop_is_checked():
    async with Receiver("127.0.0.1", ok) as inside:

        def bounce(_line):
            return 307, {"location": inside.url("/stolen")}, b""

        async with Receiver("127.0.0.2", bounce) as allowed:
            outbound = Outbound(allow_networks=["127.0.0.2/32"])
            try:
                with pytest.raises(OutboundRefused):
                    await outbound.post(allowed.url(), b"{}")
            finally:
                await outbound.aclose()
            assert len(allowed.requests) == 1
    assert inside.requests == []


async def test_proxies_from_the_environment_are_not_used(monkeypatch):
    monkeypatch.setenv("HTTP_PROXY", "http://127.0.0.1:9")
    monkeypatch.setenv("ALL_PROXY", "http://127.0.0.1:9")
    async with Receiver("127.0.0.1", ok) as receiver:
        outbound = Outbound(allow_private=True)
        try:
            reply = await outbound.post(receiver.url(), b"{}")
        finally:
            await outbound.aclose()
    assert reply.status_code == 204 and len(receiver.requests) == 1
