"""Every class in server/ is at most 400 lines: a class that grows past it has more than one job."""

from __future__ import annotations

import ast
from pathlib import Path

SERVER = Path(__file__).resolve().parents[2] / "server"
LIMIT = 400


def long_classes(root: Path, limit: int) -> list[str]:
    """``path:line name (n lines)`` for every class of more than ``limit`` lines."""
    found = []
    for path in sorted(root.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.ClassDef):
                lines = node.end_lineno - node.lineno + 1  # type: ignore[operator]
                if lines > limit:
                    found.append(f"{path.relative_to(root.parent)}:{node.lineno} {node.name} ({lines} lines)")
    return found


def test_no_class_in_server_is_longer_than_400_lines():
    assert long_classes(SERVER, LIMIT) == []


def test_the_check_sees_a_long_class(tmp_path):
    package = tmp_path / "pkg"
    package.mkdir()
    body = "\n".join(f"    x{i} = {i}" for i in range(LIMIT))
    (package / "m.py").write_text(f"class Short:\n    pass\n\n\nclass Long:\n{body}\n")
    assert long_classes(package, LIMIT) == [f"pkg/m.py:5 Long ({LIMIT + 1} lines)"]
