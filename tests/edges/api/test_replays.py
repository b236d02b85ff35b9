"""The replay service: bounded builds with a bounded queue, shared builds, an LRU of bodies."""

from __future__ import annotations

import asyncio

import pytest

from server.edges.api.errors import ApiError
from server.edges.api.replays import BodyCache, Replays, StoredBody


class SlowLoader:
    """Encodes ``id`` as its body once ``release`` is set; counts its calls."""

    def __init__(self) -> None:
        self.release = asyncio.Event()
        self.calls: list[str] = []

    async def __call__(self, match_id: str) -> memoryview:
        self.calls.append(match_id)
        await asyncio.wait_for(self.release.wait(), 10)
        return memoryview(match_id.encode() * 10)


async def test_builds_beyond_the_slots_and_the_queue_get_503_with_retry_after_and_the_rest_share_builds():
    loader = SlowLoader()
    replays = Replays(loader, builds=1, queue=1, cache=BodyCache(4, 10_000))
    first = asyncio.ensure_future(replays.body("a"))
    queued = asyncio.ensure_future(replays.body("b"))
    same = asyncio.ensure_future(replays.body("a"))  # shares the build of "a": no slot taken
    await asyncio.sleep(0.05)
    with pytest.raises(ApiError) as busy:
        await replays.body("c")
    assert busy.value.status == 503 and busy.value.code == "busy"
    assert busy.value.headers == {"Retry-After": "2"}
    loader.release.set()
    assert bytes(await first) == b"a" * 10 and bytes(await same) == b"a" * 10 and bytes(await queued) == b"b" * 10
    assert sorted(loader.calls) == ["a", "b"]
    assert bytes(await replays.body("a")) == b"a" * 10  # from the cache
    assert bytes(await replays.body("c")) == b"c" * 10  # room again
    assert sorted(loader.calls) == ["a", "b", "c"]


def test_the_cache_keeps_the_most_recently_used_bodies_within_its_entries_and_bytes():
    cache = BodyCache(max_entries=2, max_bytes=25)
    cache.put("a", memoryview(b"x" * 10))
    cache.put("b", memoryview(b"y" * 10))
    assert cache.get("a") is not None  # "a" is now the most recent
    cache.put("c", memoryview(b"z" * 10))
    assert cache.get("b") is None and cache.get("a") is not None and len(cache) == 2
    cache.put("big", memoryview(b"w" * 26))  # larger than the whole cache: not kept
    assert cache.get("big") is None and cache.size == 20
    cache.put("d", memoryview(b"v" * 20))  # bytes bound: only "d" fits
    assert len(cache) == 1 and cache.get("d") is not None


async def test_a_stored_body_is_sent_from_its_file_and_the_file_goes_with_the_last_holder(tmp_path):
    path = tmp_path / "m.json"
    path.write_bytes(b"{}" * 300_000)
    body = StoredBody(path, 600_000)
    chunks = [chunk async for chunk in body.chunks()]
    assert b"".join(chunks) == b"{}" * 300_000 and len(chunks) > 1
    with body.open() as reading:
        del body  # the cache let it go: the file is removed, an answer still reading keeps it
        assert not path.exists()
        assert reading.read() == b"{}" * 300_000
