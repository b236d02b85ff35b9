"""A benchmark run changes the committed results (bench/results/*.json, bench/README.md's "Last
figures") only when asked with ``--write``; any other run writes to a folder git ignores.

The run is real (``python -m bench.run --quick --only calibration``, its cheapest part, a few
seconds) in a copy of ``bench/``, so that the working tree's own files are never at stake.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

from bench.common import README, RESULTS_DIR, ROOT, SCRATCH, readme_path, results_path
from bench.run import END, START

SCRATCH_NAME = SCRATCH.relative_to(ROOT).as_posix()


def test_without_write_results_go_to_a_folder_git_ignores_and_with_it_to_the_committed_files():
    assert results_path("latest.json", write=True) == RESULTS_DIR / "latest.json"
    assert readme_path(write=True) == README
    for path in (
        results_path("latest.json", write=False),
        results_path("bots.json", write=False),
        readme_path(write=False),
    ):
        assert path.is_relative_to(SCRATCH)
        ignored = subprocess.run(["git", "check-ignore", "-q", str(path)], cwd=ROOT)
        assert ignored.returncode == 0, f"{path} is not ignored by git"


def _copy_of_bench(tmp_path: Path) -> Path:
    shutil.copytree(ROOT / "bench", tmp_path / "bench", ignore=shutil.ignore_patterns("__pycache__", SCRATCH.name))
    return tmp_path


def _digests(root: Path) -> dict[str, str]:
    return {
        p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted((root / "bench").rglob("*"))
        if p.is_file() and "__pycache__" not in p.parts
    }


def _run_calibration(root: Path, *extra: str) -> subprocess.CompletedProcess:
    # The copy's ``bench`` package first, this tree's ``server`` after it.
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(root), str(ROOT)])}
    return subprocess.run(
        [sys.executable, "-m", "bench.run", "--quick", "--only", "calibration", *extra],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_a_run_without_write_leaves_every_committed_file_as_it_was(tmp_path):
    root = _copy_of_bench(tmp_path)
    before = _digests(root)
    run = _run_calibration(root)
    assert run.returncode == 0, run.stderr
    after = _digests(root)
    changed = [name for name in before if after.get(name) != before[name]]
    assert changed == []
    added = [name for name in after if name not in before]
    assert added and all(name.startswith(SCRATCH_NAME + "/") for name in added), added
    assert f"{SCRATCH_NAME}/latest.json" in added and f"{SCRATCH_NAME}/README.md" in added
    assert START in (root / SCRATCH_NAME / "README.md").read_text()


def test_a_run_with_write_records_itself_in_the_committed_files(tmp_path):
    root = _copy_of_bench(tmp_path)
    before = _digests(root)
    run = _run_calibration(root, "--write")
    assert run.returncode == 0, run.stderr
    after = _digests(root)
    changed = {name for name in before if after.get(name) != before[name]}
    assert {"bench/results/latest.json", "bench/results/quick.json", "bench/README.md"} <= changed
    assert not any(name.startswith(SCRATCH_NAME + "/") for name in after)
    readme = (root / "bench" / "README.md").read_text()
    assert readme.count(START) == 1 and readme.count(END) == 1
    assert "| `calibration.python_loop_ns` |" in readme and "## Last figures" in readme


def test_a_run_of_some_parts_keeps_the_modes_other_parts_from_the_run_that_measured_them():
    from bench.run import with_earlier_parts

    earlier = {
        "meta": {"command": "python -m bench.run", "finished": "T0", "parts": ["engines", "load"]},
        "figures": [
            {"name": "engine.oh_hell.cards_per_s", "value": 1.0},  # written before figures named their part
            {"name": "memory.per_idle_connection", "value": 2.0, "target": "x", "pass": False},
        ],
        "raw": {"engines": {"e": 1}, "engines_seconds": 3.0, "load": {"old": 1}},
    }
    run = {
        "meta": {"command": "python -m bench.run --only load", "finished": "T1", "parts": ["load"]},
        "figures": [{"name": "memory.per_idle_connection", "value": 3.0, "target": "x", "pass": True, "part": "load"}],
        "raw": {"load": {"new": 1}},
    }
    merged = with_earlier_parts(run, earlier, ["load"])
    assert [(f["name"], f["value"]) for f in merged["figures"]] == [
        ("memory.per_idle_connection", 3.0),
        ("engine.oh_hell.cards_per_s", 1.0),
    ]
    assert merged["raw"] == {"load": {"new": 1}, "engines": {"e": 1}, "engines_seconds": 3.0}
    assert merged["meta"]["earlier"] == [{"command": "python -m bench.run", "finished": "T0", "parts": ["engines"]}]
    assert merged["summary"]["passed"] == 1 and merged["summary"]["failed"] == []
    again = with_earlier_parts(
        {"meta": {"command": "c2", "finished": "T2", "parts": ["capacity"]}, "figures": [], "raw": {}},
        merged,
        ["capacity"],
    )
    assert again["meta"]["earlier"] == [
        {"command": "python -m bench.run --only load", "finished": "T1", "parts": ["load"]},
        {"command": "python -m bench.run", "finished": "T0", "parts": ["engines"]},
    ]
