"""Imports read one way: the room manager uses its directory, the open rooms' registry and the
restore, and none of those imports the manager; the groups layer uses storage, and storage
never imports the groups layer. Not even for type checking, inside a function, or through
another module of server/."""

from __future__ import annotations

import ast
from pathlib import Path

SERVER = Path(__file__).resolve().parents[2] / "server"
MANAGER = "server.rooms.manager"
USED_BY_THE_MANAGER = ("server.rooms.directory", "server.rooms.registry", "server.rooms.restore")


def imports_of(root: Path) -> dict[str, set[str]]:
    """Each module of the package at ``root`` and the modules of it that it names in an import."""
    names = {".".join(p.relative_to(root.parent).with_suffix("").parts): p for p in sorted(root.rglob("*.py"))}
    graph: dict[str, set[str]] = {}
    for name, path in names.items():
        found: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                found |= {alias.name for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module:
                found |= {node.module} | {f"{node.module}.{alias.name}" for alias in node.names}
        graph[name] = {n for n in found if n in names and n != name}
    return graph


def reaches(graph: dict[str, set[str]], start: str, goal: str) -> list[str] | None:
    """The chain of imports from ``start`` to ``goal``, or None if there is none."""
    paths, seen = [[start]], {start}
    while paths:
        path = paths.pop()
        for after in sorted(graph.get(path[-1], ())):
            if after == goal:
                return [*path, after]
            if after not in seen:
                seen.add(after)
                paths.append([*path, after])
    return None


def test_what_the_manager_uses_never_imports_the_manager() -> None:
    graph = imports_of(SERVER)
    assert MANAGER in graph
    for module in USED_BY_THE_MANAGER:
        assert module in graph, module
        assert reaches(graph, module, MANAGER) is None, " -> ".join(reaches(graph, module, MANAGER) or [])
    assert "server.rooms.directory" in graph[MANAGER]  # the one direction: the manager uses it


def test_storage_never_imports_the_groups_layer() -> None:
    graph = imports_of(SERVER)
    storage = [name for name in graph if name.startswith("server.storage.")]
    layer = [name for name in graph if name.startswith("server.groups.")]
    assert storage and layer
    for module in storage:
        for above in layer:
            chain = reaches(graph, module, above)
            assert chain is None, " -> ".join(chain or [])


def test_the_check_sees_an_import_back_through_another_module(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "manager.py").write_text("from pkg.directory import Directory\n")
    (package / "helper.py").write_text("def later():\n    from pkg import manager\n")
    only_typing = "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import pkg.helper\n"
    (package / "directory.py").write_text(only_typing)
    graph = imports_of(package)
    assert reaches(graph, "pkg.directory", "pkg.manager") == ["pkg.directory", "pkg.helper", "pkg.manager"]
    (package / "helper.py").write_text("def later():\n    return None\n")
    assert reaches(imports_of(package), "pkg.directory", "pkg.manager") is None
