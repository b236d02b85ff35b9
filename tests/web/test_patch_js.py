"""Runs the browser client's Node tests (``node --test tests/web/``) so pytest covers them."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def test_client_json_patch_passes_the_rfc6902_suite():
    node = shutil.which("node")
    if node is None:
        if os.environ.get("FELT_REQUIRE_BROWSER") == "1":
            pytest.fail("node is not installed and FELT_REQUIRE_BROWSER=1")
        pytest.skip("node is not installed: the client's JavaScript tests cannot run")
    done = subprocess.run(
        [node, "--test", "tests/web/"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert "# fail 0" in done.stdout
    assert "# pass 0\n" not in done.stdout
