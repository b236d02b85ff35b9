"""The table's "Declare" button names the run the rules will compare: the client's best run
(web/js/games/tarbish/index.js) is the engine's, hand for hand."""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
from pathlib import Path

import pytest

from server.games.tarbish.rules import DECK, best_run, find_runs

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = """
globalThis.localStorage = { getItem: () => null, setItem: () => {} };
globalThis.navigator = { languages: ["en"] };
const { bestRun } = await import(process.argv[1]);
const cases = JSON.parse(require("fs").readFileSync(0, "utf8"));
console.log(JSON.stringify(cases.map(([hand, trump]) => bestRun(hand, trump))));
"""


def test_the_clients_best_run_is_the_engines():
    node = shutil.which("node")
    if node is None:
        if os.environ.get("FELT_REQUIRE_BROWSER") == "1":
            pytest.fail("node is not installed and FELT_REQUIRE_BROWSER=1")
        pytest.skip("node is not installed")
    rng = random.Random(37)
    cases = [(rng.sample(DECK, 9), rng.choice(["S", "H", "D", "C", None])) for _ in range(400)]
    module = (ROOT / "web" / "js" / "games" / "tarbish" / "index.js").as_uri()
    done = subprocess.run(
        [node, "--input-type=commonjs", "-e", f"(async () => {{ {SCRIPT} }})()", module],
        input=json.dumps(cases),
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr
    got = json.loads(done.stdout)
    with_runs = 0
    for (hand, trump), client in zip(cases, got, strict=True):
        best = best_run(find_runs(hand), trump)
        if best is None:
            assert client is None, (hand, trump, client)
            continue
        with_runs += 1
        assert client == {"run": "fifty" if best.points == 50 else "twenty", "cards": list(best.cards)}, (hand, trump)
    assert with_runs > 50
