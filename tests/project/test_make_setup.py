"""``make run`` installs what running needs and nothing more; ``make test`` and ``make bench`` add
the rest. Read from ``make``'s dry run (``-n -B``: every command it would run, none run), so
nothing is installed here.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())

pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")


def _dry_run(target: str, venv: Path) -> list[str]:
    done = subprocess.run(
        ["make", "-n", "-B", target, f"VENV={venv}"], cwd=ROOT, capture_output=True, text=True, timeout=60, check=True
    )
    return done.stdout.splitlines()


def _installs(lines: list[str]) -> list[str]:
    """What each ``pip install`` line asks for (the words after ``pip install``)."""
    return [line.split("pip install", 1)[1] for line in lines if "pip install" in line]


def _install_words(target: str, venv: Path) -> list[str]:
    """The ``pip install`` lines of ``target``, with the venv's own path written as ``VENV``."""
    return _installs([line.replace(str(venv), "VENV") for line in _dry_run(target, venv)])


def test_make_run_installs_the_dependencies_only(tmp_path):
    venv = tmp_path / "venv"
    installs = _install_words("run", venv)
    assert installs, "make run installs nothing"
    for line in installs:
        assert "test" not in line and "bench" not in line, line
        assert "-e" not in line.split(), line  # nothing to build: python -m server runs from here


def test_the_list_make_run_installs_is_the_projects_dependencies(tmp_path):
    venv = tmp_path / "venv"
    writes = [line for line in _dry_run("run", venv) if "requirements-run.txt" in line and ">" in line]
    assert len(writes) == 1, writes
    (venv / "bin").mkdir(parents=True)
    command = writes[0].replace(str(venv / "bin" / "python"), sys.executable, 1)
    subprocess.run(command, shell=True, cwd=ROOT, check=True, timeout=60)
    listed = (venv / "requirements-run.txt").read_text().split("\n")
    assert [line for line in listed if line] == PYPROJECT["project"]["dependencies"]


@pytest.mark.parametrize("target", ["test", "test-fast", "bench"])
def test_make_test_and_bench_install_the_rest(tmp_path, target):
    installs = " ".join(_install_words(target, tmp_path / "venv"))
    assert "-e '.[test,bench]'" in installs
    assert "requirements-run.txt" in installs  # and what running needs, first


def test_building_the_project_prints_no_deprecation_banner():
    # setuptools warns at length on every build when the licence is a TOML table; an SPDX string
    # is the supported form from setuptools 77 on.
    assert isinstance(PYPROJECT["project"]["license"], str)
    requires = PYPROJECT["build-system"]["requires"]
    assert any(
        r.replace(" ", "").startswith("setuptools>=") and tuple(int(x) for x in r.split(">=")[1].split(".")) >= (77,)
        for r in requires
    ), requires


def _imported_top_modules() -> set[str]:
    """Every top-level module that a file of ``server/`` imports, at its head or inside a function."""
    import ast

    names: set[str] = set()
    for path in (ROOT / "server").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                names.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names.add(node.module.split(".")[0])
    return names - set(sys.stdlib_module_names) - {"server", "__future__"}


def _closure_of_run_dependencies() -> set[str]:
    """The distributions ``[project].dependencies`` installs, and theirs, with the extras they name."""
    from importlib import metadata

    from packaging.requirements import Requirement
    from packaging.utils import canonicalize_name

    seen: set[str] = set()
    todo = [Requirement(r) for r in PYPROJECT["project"]["dependencies"]]
    while todo:
        requirement = todo.pop()
        name = canonicalize_name(requirement.name)
        key = f"{name}[{','.join(sorted(requirement.extras))}]"
        if key in seen:
            continue
        seen.add(key)
        seen.add(name)
        try:
            requires = metadata.requires(name) or []
        except metadata.PackageNotFoundError:
            continue  # a marker's platform-only dependency that this machine did not install
        for line in requires:
            nested = Requirement(line)
            environments = [{"extra": extra} for extra in requirement.extras] or [{"extra": ""}]
            if nested.marker is None or any(nested.marker.evaluate(env) for env in environments):
                todo.append(nested)
    return seen


def test_every_module_the_server_imports_is_installed_by_make_run():
    # `make test` installs the test extra too, so a module found only there passes every test and
    # crashes `make run` on a fresh machine: judge each import against what running installs.
    from importlib import metadata

    from packaging.utils import canonicalize_name

    provided_by = metadata.packages_distributions()
    installed = _closure_of_run_dependencies()
    missing = {
        module: provided_by.get(module)
        for module in _imported_top_modules()
        if not any(canonicalize_name(d) in installed for d in provided_by.get(module, []))
    }
    assert not missing, f"imported by server/ but not installed by [project].dependencies: {missing}"
