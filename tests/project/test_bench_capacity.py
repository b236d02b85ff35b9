"""The capacity part's figures from its runs: the largest level within both limits sets the
players per core, Felt against bare in the same run; the human-pace latency is what Felt adds
over bare; a lost frame or a busy load client fails its figure. In cluster mode each mode's
figure comes from its own largest level within the limits, and two nodes against one from the
largest level both were within; a server's CPU is its processes' and their descendants'."""

from __future__ import annotations

from bench.capacity import _judge, _within, capacity_figures, cluster_figures
from bench.common import tree_cpu


def _run(rooms: int, cores: float, p50: float = 1.0, p99: float = 5.0, lost: int = 0, client: float = 0.1) -> dict:
    return {
        "rooms": rooms,
        "p50_ms": p50,
        "p99_ms": p99,
        "server_cpu_util": cores,
        "server_tree_cpu_util": cores,
        "server_demand": cores,
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


def test_a_run_that_measured_no_move_is_not_within_the_latency_limit():
    pairs = [{"felt": {**_run(500, 0.1), "p99_ms": None}, "bare": _run(500, 0.05)}]
    assert not _within(*_judge(pairs))


def test_tree_cpu_counts_each_process_once_and_the_descendants_apart():
    # 1 -> 2 -> 3 (a node, its writer, a grandchild); 4 is listed and is also 1's child; 9 has gone.
    table = {1: (5.0, [2, 4, 9]), 2: (1.0, [3]), 3: (0.5, []), 4: (2.0, [2]), 9: (0.0, [])}
    assert tree_cpu([1, 4], table.__getitem__) == (7.0, 1.5)
    assert tree_cpu([2], table.__getitem__) == (1.0, 0.5)
    assert tree_cpu([], table.__getitem__) == (0.0, 0.0)


def _cluster_run(rooms: int, cores: float, p99: float = 5.0, lost: int = 0, nodes: int = 1) -> dict:
    run = _run(rooms, cores, p99=p99, lost=lost)
    run.update(node_tree_cpu_util=[cores / nodes] * nodes, proxy_cpu_util=0.05, redis_cpu_util=0.01)
    return run


def _cluster_level(rooms: int, one: float | None, two: float | None, lost: int = 0) -> dict:
    """A level's round: ``one``/``two`` the cores of one and two nodes (None: no longer in the ramp,
    a negative number: run but over a limit)."""
    pair = {"bare": _run(rooms, 0.01)}
    level: dict = {"rooms": rooms, "players": 4 * rooms, "client_cpu_util": 0.1}
    for name, cores, nodes in (("cluster-1", one, 1), ("cluster-2", two, 2)):
        if cores is None:
            continue
        pair[name] = _cluster_run(rooms, abs(cores), lost=lost, nodes=nodes)
        level.update(
            {
                f"{name}_within": cores > 0,
                f"{name}_p99_ms": 5.0,
                f"{name}_p99_over_bare_ms": 0.0,
                f"{name}_cpu_util": abs(cores),
                f"{name}_lost_frames": lost,
            }
        )
    level["pairs"] = [pair]
    return level


def test_cluster_figures_per_mode_at_its_own_top_level_and_the_ratio_where_both_were_within():
    res = {
        "levels": [
            _cluster_level(250, 0.10, 0.125),
            _cluster_level(500, 0.20, 0.25),
            _cluster_level(1000, -0.98, 0.5),
            _cluster_level(1500, None, -0.97, lost=3),
        ],
        "left": {"cluster-1": "CPU demand 98% at 1000 rooms", "cluster-2": "CPU demand 97% at 1500 rooms"},
        "spread": {"1000": {"cluster-2": {"b0": 480, "b1": 520}}},
        "stopped_by": "both",
    }
    figs = {f["name"]: f for f in cluster_figures(res)}
    assert figs["capacity.cluster.1.players_per_core"]["value"] == 2000 / 0.20
    assert figs["capacity.cluster.1.players_per_core"]["players"] == 2000
    assert figs["capacity.cluster.2.players_per_core"]["value"] == 4000 / 0.5
    assert figs["capacity.cluster.2.players_per_core"]["tables_per_node"] == {"b0": 480, "b1": 520}
    assert figs["capacity.cluster.2.players_per_core"]["proxy_cpu_util"] == 0.05
    ratio = figs["capacity.cluster.ratio_2_to_1"]
    assert ratio["players"] == 2000 and abs(ratio["value"] - 0.8) < 1e-9  # at 500 rooms: 0.20 / 0.25
    assert figs["capacity.cluster.2.1500_rooms.lost_frames"]["value"] == 3
    assert figs["capacity.cluster.2.1500_rooms.lost_frames"]["pass"] is False
    assert figs["capacity.cluster.1.500_rooms.p99_ms"]["within"] is True
    assert "capacity.cluster.1.1500_rooms.p99_ms" not in figs
    assert figs["capacity.cluster.lost_frames"]["value"] == 3
    assert figs["capacity.cluster.lost_frames"]["pass"] is False
