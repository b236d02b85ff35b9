"""Every function in server/ is under 60 lines, so that each reads at a glance."""

from __future__ import annotations

import ast
from pathlib import Path

SERVER = Path(__file__).resolve().parents[2] / "server"
LIMIT = 60


def long_functions(root: Path, limit: int) -> list[str]:
    """``path:line name (n lines)`` for every function or method of more than ``limit`` lines."""
    found = []
    for path in sorted(root.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                lines = node.end_lineno - node.lineno + 1  # type: ignore[operator]
                if lines > limit:
                    found.append(f"{path.relative_to(root.parent)}:{node.lineno} {node.name} ({lines} lines)")
    return found


def test_no_function_in_server_is_longer_than_60_lines():
    assert long_functions(SERVER, LIMIT) == []


def test_the_check_sees_a_long_function(tmp_path):
    package = tmp_path / "pkg"
    package.mkdir()
    body = "\n".join(f"    x{i} = {i}" for i in range(LIMIT))
    (package / "m.py").write_text(f"def short():\n    return 1\n\n\nasync def long():\n{body}\n")
    assert long_functions(package, LIMIT) == [f"pkg/m.py:5 long ({LIMIT + 1} lines)"]
