"""The capacity part's figures from its runs: the largest level within both limits sets the
players per core, Felt against bare in the same run; the human-pace latency is what Felt adds
over bare; a lost frame or a busy load client fails its figure."""

from __future__ import annotations

from bench.capacity import capacity_figures


def _run(rooms: int, cores: float, p50: float = 1.0, p99: float = 5.0, lost: int = 0, client: float = 0.1) -> dict:
    return {
        "rooms": rooms,
        "p50_ms": p50,
        "p99_ms": p99,
        "server_cpu_util": cores,
        "server_tree_cpu_util": cores,
        "client_cpu_util": client,
        "lost_frames": lost,
    }


def _level(rooms: int, felt_cores: float, bare_cores: float, within: bool, **felt) -> dict:
    pair = {"felt": _run(rooms, felt_cores, **felt), "bare": _run(rooms, bare_cores)}
    return {"rooms": rooms, "players": 4 * rooms, "pairs": [pair], "within": within, "felt_p99_ms": 5.0,
            "client_cpu_util": 0.1}  # fmt: skip


def _by_name(res: dict) -> dict[str, dict]:
    return {f["name"]: f for f in capacity_figures(res)}


def test_players_per_core_comes_from_the_largest_level_within_the_limits():
    res = {
        "levels": [_level(500, 0.1, 0.04, True), _level(1000, 0.16, 0.08, True), _level(2000, 0.97, 0.2, False)],
        "human": {},
        "stopped_by": "CPU 97% at 2000 rooms",
    }
    figs = _by_name(res)
    per_core = figs["capacity.human.players_per_core"]
    assert per_core["value"] == 4000 / 0.16
    assert per_core["baseline"] == 4000 / 0.08
    assert per_core["ratio"] == 0.5
    assert per_core["pass"] is True
    assert figs["capacity.human.players_within_limits"]["value"] == 4000
    assert figs["capacity.human.lost_frames"]["pass"] is True


def test_below_either_target_fails_and_no_level_within_the_limits_is_not_a_figure():
    slow = {"levels": [_level(500, 0.2, 0.04, True)], "human": {}, "stopped_by": "time"}
    assert _by_name(slow)["capacity.human.players_per_core"]["pass"] is False  # 10,000 a core, 0.2x bare
    none = {"levels": [_level(250, 0.05, 0.03, False)], "human": {}, "stopped_by": "p99 864 ms > 100 ms"}
    fig = _by_name(none)["capacity.human.players_per_core"]
    assert fig["value"] is None and fig["pass"] is None


def test_added_latency_is_felt_minus_bare_and_lost_frames_or_a_busy_client_fail():
    pairs = [{"felt": _run(500, 0.1, p50=1.6, p99=9.0, lost=2), "bare": _run(500, 0.05, p50=0.4, p99=2.0)}]
    res = {"levels": [], "human": {"500": pairs}, "stopped_by": "time"}
    res["levels"] = [_level(500, 0.1, 0.04, True, client=0.9)]
    figs = _by_name(res)
    assert abs(figs["capacity.human.500.p50_added_ms"]["value"] - 1.2) < 1e-9
    assert figs["capacity.human.500.p50_added_ms"]["pass"] is False
    assert abs(figs["capacity.human.500.p99_added_ms"]["value"] - 7.0) < 1e-9
    assert figs["capacity.human.500.p99_added_ms"]["pass"] is False
    assert figs["capacity.human.1000.p50_added_ms"]["pass"] is None
    assert figs["capacity.human.lost_frames"]["value"] == 2
    assert figs["capacity.human.lost_frames"]["pass"] is False
    assert figs["capacity.human.client_cpu_util_max"]["pass"] is False
