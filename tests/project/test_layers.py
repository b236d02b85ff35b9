"""The I/O shell's layers keep to their jobs: only storage (and the migrations, outside server/)
speaks SQLAlchemy, and the HTTP and WebSocket edges ask the rooms layer about cluster mode
instead of checking it themselves."""

from __future__ import annotations

import ast
import re
from pathlib import Path

SERVER = Path(__file__).resolve().parents[2] / "server"


def imported_modules(path: Path) -> set[str]:
    """Every module ``path`` imports anywhere (type checking and function bodies too)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.add(node.module)
    return found


def outside(folder: str) -> list[Path]:
    return [p for p in sorted(SERVER.rglob("*.py")) if folder not in p.relative_to(SERVER).parts[:1]]


def test_only_storage_imports_sqlalchemy():
    offenders = [
        str(path.relative_to(SERVER))
        for path in outside("storage")
        if any(name == "sqlalchemy" or name.startswith("sqlalchemy.") for name in imported_modules(path))
    ]
    assert offenders == []


def test_the_edges_never_name_cluster_mode():
    offenders = [
        f"{path.relative_to(SERVER)}:{number}"
        for path in sorted((SERVER / "edges").rglob("*.py"))
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if re.search(r"cluster", line, re.IGNORECASE)
    ]
    assert offenders == []
