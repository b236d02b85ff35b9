"""A test host for one cluster node: a network namespace joined to this one by a veth pair.

The node inside reaches Redis and PostgreSQL (which listen on this host's loopback) through
TCP relays listening on this side's end of the pair, and HAProxy reaches the node through the
pair too: taking this side's end down (``cut``) cuts the node off from all three at once, as a
failed switch port would, without stopping any process. Addresses are link-local
(169.254.0.0/16), so nothing can be routed past the pair. Needs root (``ip netns``).
"""

from __future__ import annotations

import secrets
import subprocess
import sys
from pathlib import Path

RELAY = Path(__file__).with_name("relay.py")


def _ip(*args: str) -> None:
    subprocess.run(["ip", *args], check=True, capture_output=True, text=True, timeout=10)


class NetnsHost:
    """``ip netns`` + veth: ``inside`` is the node's address, ``outside`` this side's."""

    def __init__(self, subnet: int = 231) -> None:
        tag = secrets.token_hex(3)
        self.name = f"felt-{tag}"
        self.host_end, self.node_end = f"vfh{tag}", f"vfn{tag}"
        self.outside, self.inside = f"169.254.{subnet}.1", f"169.254.{subnet}.2"
        self.relays: list[subprocess.Popen] = []
        self.made = False

    def make(self) -> NetnsHost:
        """Create the namespace and the pair; raises ``OSError`` or ``CalledProcessError`` where
        this machine cannot (no root, no ``ip``)."""
        _ip("netns", "add", self.name)
        self.made = True
        _ip("link", "add", self.host_end, "type", "veth", "peer", "name", self.node_end)
        _ip("link", "set", self.node_end, "netns", self.name)
        _ip("addr", "add", f"{self.outside}/30", "dev", self.host_end)
        _ip("link", "set", self.host_end, "up")
        inside = ["netns", "exec", self.name, "ip"]
        _ip(*inside, "addr", "add", f"{self.inside}/30", "dev", self.node_end)
        _ip(*inside, "link", "set", self.node_end, "up")
        _ip(*inside, "link", "set", "lo", "up")
        return self

    def relay(self, port: int, target_host: str, target_port: int) -> str:
        """A TCP relay on this side's end: ``outside:port`` -> ``target``; returns ``host:port``."""
        proc = subprocess.Popen(
            [sys.executable, str(RELAY), self.outside, str(port), target_host, str(target_port)],
            stdout=subprocess.PIPE,
            text=True,
        )
        assert proc.stdout is not None and proc.stdout.readline().strip() == "ready", "the relay did not start"
        self.relays.append(proc)
        return f"{self.outside}:{port}"

    def command(self, argv: list[str]) -> list[str]:
        """``argv`` run inside the namespace."""
        return ["ip", "netns", "exec", self.name, *argv]

    def cut(self) -> None:
        _ip("link", "set", self.host_end, "down")

    def mend(self) -> None:
        _ip("link", "set", self.host_end, "up")

    def remove(self) -> None:
        for proc in self.relays:
            proc.terminate()
            proc.wait(5)
        if self.made:
            subprocess.run(["ip", "link", "del", self.host_end], capture_output=True, timeout=10)
            subprocess.run(["ip", "netns", "del", self.name], capture_output=True, timeout=10)
