"""Every error code the server can send has words in both of the client's languages, so no
server sentence (in English) reaches a player: the codes are read from the server's source."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SERVER = ROOT / "server"
LOCALES = ROOT / "web" / "js" / "locales"
CODE = re.compile(r"^[a-z][a-z_]*$")
# The calls that refuse with a code: the code is their first string argument.
REFUSERS = {"RoomError", "ApiError", "_refuse", "_push_error", "error_frame", "error_body", "_answer", "_json_response"}


def _name(func: ast.expr) -> str | None:
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return None


def _codes_in(tree: ast.AST) -> set[str]:
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and _name(node.func) in REFUSERS:
            strings = [a.value for a in node.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
            if strings and CODE.match(strings[0]):
                found.add(strings[0])
        elif isinstance(node, ast.ClassDef):  # GameError subclasses: ``code = "illegal"``
            for item in node.body:
                target = (
                    item.target
                    if isinstance(item, ast.AnnAssign)
                    else (item.targets[0] if isinstance(item, ast.Assign) else None)
                )
                value = getattr(item, "value", None)
                if isinstance(target, ast.Name) and target.id == "code" and isinstance(value, ast.Constant):
                    found.add(value.value)
        elif isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "_DEFAULT_CODES" for t in node.targets
        ):
            found |= {v.value for v in node.value.values}  # the framework's own errors, by status
    return found


def server_codes() -> set[str]:
    codes = set()
    for path in SERVER.rglob("*.py"):
        codes |= _codes_in(ast.parse(path.read_text(), str(path)))
    return codes


def locale_codes(lang: str) -> set[str]:
    return set(re.findall(r'^\s*"error\.([a-z_]+)"\s*:', (LOCALES / f"{lang}.js").read_text(), re.M))


def test_the_list_of_codes_is_read_from_the_server():
    codes = server_codes()
    # One of each kind: a room's refusal, an API error, a socket refusal, a game's, the framework's.
    assert {
        "seat_taken",
        "not_found",
        "overloaded",
        "illegal",
        "not_your_turn",
        "method_not_allowed",
        "too_large",
    } <= codes
    assert len(codes) > 30


def test_every_error_code_has_words_in_english_and_portuguese():
    codes = server_codes()
    for lang in ("en", "pt"):
        missing = sorted(codes - locale_codes(lang))
        assert missing == [], f"{lang}: no words for {missing}"
