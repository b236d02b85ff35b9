"""The benchmarks' readings: py-spy's samples turned into µs of a move's CPU, the host's steal."""

from bench.common import cpu_times, steal_share
from bench.load import _summarise_profile

RAW = "\n".join(
    [
        "_run_module_as_main (<frozen runpy>:198);Runner.run (asyncio/runners.py:118) 60",
        "RoomSocket._sender (server/edges/ws.py:201);WebSocketsSansIOProtocol.send (uvicorn/x.py:10) 30",
        "_run_module_as_main (<frozen runpy>:198);Runner.run (asyncio/runners.py:118);"
        "Room.act (server/rooms/room.py:1) 10",
    ]
)


def test_stacks_read_only_to_the_loop_are_shown_apart_and_the_rest_is_shared_by_cpu():
    prof = _summarise_profile(RAW, {"actions_per_s": 500.0, "server_cpu_us_per_move": 800.0, "rooms": 1000})
    assert prof["samples"] == 100
    assert prof["unnamed_us_per_move"] == 480.0
    assert prof["python_us_per_move"] == 320.0
    selfs = {r["frame"]: r["us_per_move"] for r in prof["top_self"]}
    assert selfs == {"WebSocketsSansIOProtocol.send (x.py)": 240.0, "Room.act (room.py)": 80.0}
    inclusive = {r["frame"]: r["us_per_move"] for r in prof["top_inclusive"]}
    assert inclusive["Runner.run (runners.py)"] == 560.0


def test_the_hosts_steal_is_its_share_of_the_cpu_time_between_two_readings():
    before = [100, 0, 50, 800, 0, 0, 0, 50]
    after = [200, 0, 100, 1500, 0, 0, 0, 150]  # 950 ticks spent, 100 of them stolen
    assert steal_share(before, after) == 100 / 950
    assert steal_share([], after) is None
    assert len(cpu_times()) in (0, 8)
