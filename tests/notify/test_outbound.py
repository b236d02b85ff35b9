"""Felt's requests to user-given URLs reach only the public internet unless told otherwise:
checked at every connection (names resolved, every redirect hop), with real receivers on
loopback addresses (127.0.0.1 and 127.0.0.2 stand for 'inside' and 'allowed'). An address is
judged in every spelling that leads to it: IPv6 forms of IPv4 addresses (mapped, compatible,
NAT64, 6to4, Teredo) and numbers written as a resolver reads them."""

from __future__ import annotations

import asyncio
import ipaddress

import pytest

from server.notify.outbound import MAX_REPLY_BYTES, Outbound, OutboundRefused, Reach, check_url, is_public


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


# Addresses that lead inside although written another way, and the public ones beside them.
INSIDE_AS_IPV6 = [
    "::ffff:127.0.0.1",  # IPv4-mapped
    "::ffff:0:169.254.169.254",  # IPv4-translated (SIIT)
    "::127.0.0.1",  # IPv4-compatible
    "::a9fe:a9fe",
    "::1",
    "::",
    "64:ff9b::a9fe:a9fe",  # NAT64, the well-known prefix: 169.254.169.254
    "64:ff9b::10.0.0.1",
    "64:ff9b::7f00:1",
    "64:ff9b:1::808:808",  # a network's own NAT64 prefix: inside it, wherever the IPv4 is put
    "64:ff9b:1:a9fe:a9:fe00::",
    "2002:a9fe:a9fe::1",  # 6to4 of 169.254.169.254
    "2002:7f00:1::",
    "2002:c0a8:1::5",  # 6to4 of 192.168.0.1
    "2001:0:a9fe:a9fe::f7f7:f7f7",  # Teredo through a server inside
    "2001:0:808:808:0:0:80ff:fffe",  # Teredo to a client inside (127.0.0.1, stored inverted)
    "2001:0:808:808:0:0:f5ff:fefe",  # Teredo to 10.0.1.1
]
PUBLIC_AS_IPV6 = [
    "::ffff:8.8.8.8",
    "64:ff9b::8.8.8.8",
    "2002:808:808::1",
    "2001:0:808:808:0:0:f7f7:f7f7",  # Teredo: server 8.8.8.8, client 8.8.8.8
    "2606:4700:4700::1111",
]
# Numbers a resolver (inet_aton) reads as inside addresses, though they are no dotted quad.
INSIDE_AS_NUMBERS = [
    "2130706433",
    "0x7f000001",
    "0X7F000001",
    "017700000001",
    "127.1",
    "127.0.1",
    "0x7f.1",
    "0x7f.0.0.1",
    "0177.0.0.1",
    "127.000.000.001",
    "0",
    "00",
    "0x0",
    "167772161",  # 10.0.0.1
    "0xa9fea9fe",  # 169.254.169.254
    "169.16689662",
    "0251.0376.0251.0376",
    "2130706433.",
]


@pytest.mark.parametrize("address", INSIDE_AS_IPV6)
def test_an_ipv6_form_of_an_inside_address_is_judged_by_the_ipv4_inside(address):
    assert not is_public(ipaddress.ip_address(address))
    assert not Reach()(ipaddress.ip_address(address))
    with pytest.raises(OutboundRefused):
        check_url(f"http://[{address}]:8080/hook")


@pytest.mark.parametrize("address", PUBLIC_AS_IPV6)
def test_an_ipv6_form_of_a_public_address_is_public(address):
    assert is_public(ipaddress.ip_address(address))
    assert check_url(f"https://[{address}]/hook")


@pytest.mark.parametrize("host", INSIDE_AS_NUMBERS)
def test_an_inside_address_written_as_any_number_the_resolver_reads_is_refused(host):
    with pytest.raises(OutboundRefused):
        check_url(f"https://{host}/hook")


def test_numbers_the_resolver_reads_as_public_addresses_and_names_that_look_numeric_are_kept():
    for host in ("134744072", "0x8080808", "8.8.2056", "dead.beef", "1e100", "0x", "4294967296", "1.2.3.4.5"):
        assert check_url(f"https://{host}/hook"), host


def test_allowed_networks_reach_their_ipv4_addresses_written_as_ipv6():
    reach = Reach(allow=["10.1.2.0/24"])
    assert reach(ipaddress.ip_address("::ffff:10.1.2.3")) and reach(ipaddress.ip_address("64:ff9b::10.1.2.3"))
    assert not reach(ipaddress.ip_address("64:ff9b::10.1.3.3"))
    assert Reach(allow=["64:ff9b:1::/48"])(ipaddress.ip_address("64:ff9b:1::a01:203"))


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


@pytest.mark.parametrize("host", ["[64:ff9b::7f00:1]", "[2002:7f00:1::]", "[::127.0.0.1]", "2130706433", "0x7f.1"])
async def test_the_guard_judges_every_spelling_again_when_connecting(host):
    async with Receiver("127.0.0.1", ok) as receiver:
        outbound = Outbound()
        try:
            with pytest.raises(OutboundRefused):  # the save-time check stepped over: the connection refuses
                await outbound.client.post(f"http://{host}:{receiver.port}/hook", content=b"{}")
        finally:
            await outbound.aclose()
        assert receiver.requests == []


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
