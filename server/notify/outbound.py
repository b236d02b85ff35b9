"""The one way Felt sends HTTP requests to addresses its users give it (a group's webhook, a
device's push endpoint), and the guard that stops them from reaching inside.

Such a request is a request the server makes on someone's word, so by default it may only
reach the public internet: every address a name resolves to is checked when the connection is
made (not only when the URL is saved), on every redirect too (each hop connects through the
same guard), and loopback, private, link-local, shared (CGNAT), multicast and reserved
addresses are refused. An IPv6 address that stands for an IPv4 one (mapped, IPv4-compatible,
NAT64, 6to4, Teredo) is judged by the IPv4 address inside, which is where a translator or a
tunnel takes it; a host written as a number in any spelling the resolver reads (``2130706433``,
``0x7f.1``, ``127.1``) is judged as the address it is. Connecting to the address that was
checked closes the gap a second DNS answer could open. ``allow_private`` lifts the guard: only
tests turn it on (``FELT_OUTBOUND_ALLOW_PRIVATE``), to reach receivers they run on loopback.
``allow`` names networks that may be reached although private (``FELT_OUTBOUND_ALLOW_NETWORKS``:
a chat server on the host's own network, say).

Proxies from the environment are ignored (they would connect for us, unchecked), replies are
read to a small cap, and every request has two limits of time: ``timeout_s`` for each step
(connecting, each read and write) and ``deadline_s`` for the whole request, so that a receiver
that answers its headers and then trickles a byte now and then is cut off all the same.
"""

from __future__ import annotations

import asyncio
import ipaddress
import re
import socket
from collections.abc import Iterable
from typing import Any

import httpcore
import httpx

MAX_URL_CHARS = 2048
MAX_REPLY_BYTES = 64 * 1024

Address = ipaddress.IPv4Address | ipaddress.IPv6Address


class OutboundRefused(Exception):
    """The URL, or an address it leads to, is not one Felt may send to."""


Network = ipaddress.IPv4Network | ipaddress.IPv6Network


# IPv6 addresses with an IPv4 address inside, and where it is (RFC 4291, 6052, 8215, 3056, 4380).
_MAPPED = ipaddress.IPv6Network("::ffff:0:0/96")
_TRANSLATED = ipaddress.IPv6Network("::ffff:0:0:0/96")  # SIIT's IPv4-translated addresses
_COMPATIBLE = ipaddress.IPv6Network("::/96")  # IPv4-compatible (deprecated): ::a.b.c.d
_NAT64 = ipaddress.IPv6Network("64:ff9b::/96")  # the well-known NAT64 prefix: 64:ff9b::a.b.c.d
_NAT64_LOCAL = ipaddress.IPv6Network("64:ff9b:1::/48")  # a network's own NAT64 prefixes, inside
_IPV4_NUMBER = re.compile(r"[0-9a-fx.]+")  # what inet_aton may read as an address (hosts are lowercase)


def ipv4_inside(address: ipaddress.IPv6Address) -> tuple[ipaddress.IPv4Address, ...]:
    """The IPv4 addresses that ``address`` leads to through a translator or a tunnel (a Teredo
    address: its server's and its client's); none for an address of IPv6 alone."""
    low32 = ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    if address in _MAPPED or address in _TRANSLATED or address in _COMPATIBLE or address in _NAT64:
        return (low32,)
    if address.sixtofour is not None:
        return (address.sixtofour,)
    if address.teredo is not None:
        return address.teredo
    return ()


def is_public(address: Address) -> bool:
    """Whether ``address`` is on the public internet. An IPv6 address with an IPv4 one inside
    is judged by what is inside (every one of them public); the NAT64 prefixes a network makes
    for itself (``64:ff9b:1::/48``) lead inside it, wherever the IPv4 address is put."""
    if isinstance(address, ipaddress.IPv6Address):
        if address in _NAT64_LOCAL:
            return False
        inside = ipv4_inside(address)
        if inside:
            return all(is_public(a) for a in inside)
    return address.is_global and not address.is_multicast


def written_address(host: str) -> Address | None:
    """The address ``host`` is when it is one written as a number, as the resolver reads it:
    dotted or not, in decimal, octal or hex, with parts left out (``2130706433``,
    ``0x7f000001``, ``0177.0.0.1``, ``127.1`` are all 127.0.0.1); None for a name."""
    try:
        return ipaddress.ip_address(host)
    except ValueError:
        pass
    number = host.removesuffix(".")
    if not _IPV4_NUMBER.fullmatch(number):
        return None
    try:
        return ipaddress.IPv4Address(socket.inet_aton(number))
    except OSError:
        return None


class Reach:
    """Which addresses may be sent to: public ones, those in ``allow``, or all (``private``)."""

    def __init__(self, private: bool = False, allow: Iterable[str] = ()) -> None:
        self.private = private
        self.allow: list[Network] = [ipaddress.ip_network(n, strict=False) for n in allow]

    def __call__(self, address: Address) -> bool:
        if self.private or is_public(address) or self._allowed(address):
            return True
        inside = ipv4_inside(address) if isinstance(address, ipaddress.IPv6Address) else ()
        return bool(inside) and all(is_public(a) or self._allowed(a) for a in inside)

    def _allowed(self, address: Address) -> bool:
        return any(address in network for network in self.allow)


def check_url(url: object, reach: Reach | None = None) -> str:
    """``url`` if Felt may keep it as a place to send to: http(s), a host, no credentials, not
    too long, and not a private address written as a number (in any spelling the resolver
    reads, see ``written_address``). Names are judged when sent."""
    if not isinstance(url, str) or not url or len(url) > MAX_URL_CHARS:
        raise OutboundRefused(f"A URL is a text of at most {MAX_URL_CHARS} characters.")
    try:
        parsed = httpx.URL(url)
    except (httpx.InvalidURL, ValueError):
        raise OutboundRefused("That is not a URL.") from None
    if parsed.scheme not in ("http", "https"):
        raise OutboundRefused("Only http:// and https:// URLs can be used.")
    if not parsed.host:
        raise OutboundRefused("The URL names no host.")
    if parsed.userinfo:
        raise OutboundRefused("A URL with a user name or password in it cannot be used.")
    literal = written_address(parsed.host)
    if literal is not None and not (reach or Reach())(literal):
        raise OutboundRefused("That address is not on the public internet.")
    return url


class _GuardedBackend(httpcore.AsyncNetworkBackend):
    """Connects to a host only at an address it may reach (see the module docstring)."""

    def __init__(self, reach: Reach) -> None:
        self.reach = reach
        self.inner = httpcore.AnyIOBackend()

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        address = await self._address_of(host, port)
        # TLS still names the host (httpcore passes the origin's name as server_hostname).
        return await self.inner.connect_tcp(str(address), port, timeout, local_address, socket_options)

    async def _address_of(self, host: str, port: int) -> Address:
        try:
            infos = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
        except OSError as err:
            raise httpcore.ConnectError(f"cannot resolve {host}: {err}") from None
        addresses = [ipaddress.ip_address(str(info[4][0]).split("%")[0]) for info in infos]
        allowed = [a for a in addresses if self.reach(a)]
        if not allowed:
            raise OutboundRefused(f"{host} is not on the public internet.")
        return allowed[0]

    async def connect_unix_socket(self, *args: Any, **kwargs: Any) -> httpcore.AsyncNetworkStream:
        raise OutboundRefused("Unix sockets are not a place to send to.")

    async def sleep(self, seconds: float) -> None:
        await self.inner.sleep(seconds)


class _GuardedTransport(httpx.AsyncHTTPTransport):
    """httpx's own transport (its request and error mapping) over a pool that connects through
    ``_GuardedBackend``: httpx takes no network backend, so the pool it made is replaced."""

    def __init__(self, reach: Reach, limits: httpx.Limits) -> None:
        super().__init__(trust_env=False, limits=limits)
        self._pool = httpcore.AsyncConnectionPool(
            ssl_context=httpx.create_ssl_context(trust_env=False),
            max_connections=limits.max_connections,
            max_keepalive_connections=limits.max_keepalive_connections,
            keepalive_expiry=limits.keepalive_expiry,
            network_backend=_GuardedBackend(reach),
        )


class Outbound:
    """An HTTP client for user-given URLs (see the module docstring); one per server."""

    def __init__(
        self,
        allow_private: bool = False,
        timeout_s: float = 5.0,
        max_redirects: int = 3,
        allow_networks: Iterable[str] = (),
        deadline_s: float = 10.0,
        max_connections: int = 50,
    ) -> None:
        self.reach = Reach(allow_private, allow_networks)
        self.deadline_s = deadline_s
        limits = httpx.Limits(max_connections=max_connections, max_keepalive_connections=10, keepalive_expiry=30.0)
        self.client = httpx.AsyncClient(
            transport=_GuardedTransport(self.reach, limits),
            timeout=httpx.Timeout(timeout_s),
            follow_redirects=True,
            max_redirects=max_redirects,
            trust_env=False,
        )

    async def post(self, url: str, content: bytes, headers: dict[str, str] | None = None) -> httpx.Response:
        """POST ``content`` to ``url``; the reply with at most ``MAX_REPLY_BYTES`` of its body.

        Raises ``OutboundRefused`` for a URL or an address (any hop's) Felt may not send to,
        httpx's errors for the network's failures (timeouts included: ``httpx.TimeoutException``
        also when the whole request, redirects and reply included, outlasts ``deadline_s``)."""
        check_url(url, self.reach)
        request = self.client.build_request("POST", url, content=content, headers=headers)
        try:
            async with asyncio.timeout(self.deadline_s):
                return await self._send(request)
        except TimeoutError:
            raise httpx.TimeoutException(f"no whole reply within {self.deadline_s:g} s", request=request) from None

    async def _send(self, request: httpx.Request) -> httpx.Response:
        reply = await self.client.send(request, stream=True)
        try:
            body = bytearray()
            async for chunk in reply.aiter_bytes():
                body += chunk[: MAX_REPLY_BYTES - len(body)]
                if len(body) >= MAX_REPLY_BYTES:
                    break
        finally:
            await reply.aclose()
        kept = [(k, v) for k, v in reply.headers.multi_items() if k not in ("content-encoding", "content-length")]
        return httpx.Response(reply.status_code, headers=kept, content=bytes(body), request=reply.request)

    async def aclose(self) -> None:
        await self.client.aclose()
