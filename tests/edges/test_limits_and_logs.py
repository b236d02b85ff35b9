"""The pieces under the hardening, without a server: token buckets, client addresses, redaction."""

from __future__ import annotations

import logging

from server.edges.guard import ClientAddresses
from server.limits import LOOKUPS, MemoryRateLimiter, Rate, budget_key
from server.logs import JsonFormatter, RedactSecrets, redact


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_bucket_allows_its_burst_then_refills_at_its_rate():
    clock = Clock()
    limiter = MemoryRateLimiter({LOOKUPS: Rate(per_second=0.5, burst=3)}, clock=clock)
    assert [limiter.take(LOOKUPS, "a") for _ in range(3)] == [0, 0, 0]
    assert limiter.take(LOOKUPS, "a") == 2.0  # one token every two seconds
    assert limiter.take(LOOKUPS, "b") == 0, "another address has its own bucket"
    clock.now += 1.0
    assert limiter.wait(LOOKUPS, "a") == 1.0
    clock.now += 1.0
    assert limiter.wait(LOOKUPS, "a") == 0 and limiter.take(LOOKUPS, "a") == 0
    assert limiter.take(LOOKUPS, "a") > 0


def test_refilled_buckets_are_forgotten():
    clock = Clock()
    limiter = MemoryRateLimiter({LOOKUPS: Rate(per_second=1.0, burst=2)}, clock=clock)
    limiter.SWEEP_EVERY = 10
    for i in range(9):
        limiter.take(LOOKUPS, f"addr{i}")
    clock.now += 10
    limiter.take(LOOKUPS, "last")
    assert len(limiter._buckets) == 1


def test_forwarded_for_counts_only_behind_a_trusted_proxy():
    scope = {"client": ("10.0.0.5", 1234), "headers": [(b"x-forwarded-for", b"198.51.100.7, 10.0.0.9")]}
    assert ClientAddresses([]).of(scope) == "10.0.0.5"
    assert ClientAddresses(["10.0.0.0/8"]).of(scope) == "198.51.100.7"  # skips the proxies of ours
    assert ClientAddresses(["192.168.0.1"]).of(scope) == "10.0.0.5"
    assert ClientAddresses(["10.0.0.5"]).of({"client": ("10.0.0.5", 1), "headers": []}) == "10.0.0.5"


def test_an_ipv6_client_spends_its_64s_budget_and_a_mapped_ipv4_one_its_ipv4_s():
    assert budget_key("203.0.113.9") == "203.0.113.9"
    assert budget_key("2001:db8:1:2:aaaa::1") == budget_key("2001:db8:1:2:ffff:ffff:ffff:ffff") == "2001:db8:1:2::/64"
    assert budget_key("2001:db8:1:3::1") == "2001:db8:1:3::/64"
    assert budget_key("::ffff:203.0.113.9") == "203.0.113.9"
    assert budget_key("fe80::1%eth0") == "fe80::/64"
    assert budget_key("unknown") == "unknown"


def test_tokens_are_redacted_from_urls_and_bearer_headers():
    assert redact('127.0.0.1 - "WebSocket /ws/rooms/ABC?token=s3cr3t-x_y" [accepted]') == (
        '127.0.0.1 - "WebSocket /ws/rooms/ABC?token=[redacted]" [accepted]'
    )
    assert redact("GET /x?a=1&token=abc&b=2") == "GET /x?a=1&token=[redacted]&b=2"
    assert redact("Authorization: Bearer abc.def") == "Authorization: Bearer [redacted]"
    assert redact("a tokenizer=5 stays") == "a tokenizer=5 stays"


def test_a_token_is_redacted_however_its_name_is_escaped():
    assert redact("GET /ws/rooms/ABC?%74oken=s3cr3t HTTP/1.1") == "GET /ws/rooms/ABC?%74oken=[redacted] HTTP/1.1"
    assert redact("/ws?TO%6bEN=s3cr3t&v=1") == "/ws?TO%6bEN=[redacted]&v=1"
    assert redact("/ws?%2574oken=s3cr3t") == "/ws?%2574oken=[redacted]"  # escaped twice
    assert redact("/ws?seat=1&name=%74oke") == "/ws?seat=1&name=%74oke"


def test_a_device_link_code_is_redacted_as_a_token_is():
    line = '1.2.3.4 - "GET /link?code=ABCD2345 HTTP/1.1" 200'
    assert redact(line) == '1.2.3.4 - "GET /link?code=[redacted] HTTP/1.1" 200'
    assert redact("/link?lang=pt&%63ode=ABCD2345") == "/link?lang=pt&%63ode=[redacted]"
    assert redact("status_code=500 zipcode=12345") == "status_code=500 zipcode=12345"


def test_a_record_is_redacted_before_any_formatter_sees_it():
    record = logging.LogRecord(
        "uvicorn.error", logging.INFO, __file__, 1, '%s - "WebSocket %s"', ("1.2.3.4", "/ws?token=zz9"), None
    )
    assert RedactSecrets().filter(record)
    line = JsonFormatter().format(record)
    assert "zz9" not in line and "[redacted]" in line and line.startswith("{")
