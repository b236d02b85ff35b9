"""The rules of each game as pages: ``/rules/<game>`` and ``/api/rules/<game>``.

Each page is rendered once, at start, from the game's own rules page (``Game.page``, the
``rules.md`` in its folder) with markdown-it in its CommonMark mode with raw HTML switched
off, so nothing in a rules file reaches the page unescaped. Headings and the bold lead-in of
a paragraph ("**Bidding.** ...") get anchors, so the table's "How to play" panel can open at
the part of the rules that matters in the current phase (``Game.phases``; with house options,
the section of the option that changes it, ``Game.house_phases``). A table's house options
(``?options=<JSON>``) are validated through the game's own options model and shown at the top
in the lobby's words (the game's ``words``: never an option's key or a
JSON value), each linked to the section explaining it; anything invalid is ignored with a note
saying so. ``GET /api/games`` gives each game's phases, option words and sections from here too
(``described``).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from html import escape
from pathlib import Path
from typing import Any, TypedDict

from fastapi import APIRouter, FastAPI, Request
from fastapi.responses import HTMLResponse
from markdown_it import MarkdownIt
from markdown_it.token import Token

from server.edges.api.errors import ApiError, error_response_doc
from server.games import Game, all_games, get_game
from server.option_words import option_said, option_words, value_words
from server.rules.words import LANGUAGES, SWITCH, USUAL

MAX_OPTIONS_CHARS = 2000  # a table's options are a few keys; anything longer is not one
UNREAD_OPTIONS = "These house options could not be read, so the rules below are the usual game."
_LEAD_IN = re.compile(r"^[A-Za-z][A-Za-z ,']*[.:]?$")


class TocEntry(TypedDict):
    """One section a page's contents list links to."""

    id: str  # the anchor
    title: str
    level: int  # 2 or 3, as the heading's


@dataclass(frozen=True)
class RulesPage:
    game: str
    title: str
    html: str  # the rendered rules, without their first heading
    toc: list[TocEntry]


def _slug(text: str, taken: set[str]) -> str:
    base = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "section"
    slug, n = base, 2
    while slug in taken:
        slug, n = f"{base}-{n}", n + 1
    taken.add(slug)
    return slug


def _strong_lead(inline: Token | None) -> str | None:
    """The words of a paragraph's bold lead-in ("Bidding."), or None."""
    if inline is None:
        return None
    kids = [c for c in inline.children or [] if not (c.type == "text" and not c.content)]
    if len(kids) < 3 or kids[0].type != "strong_open" or kids[2].type != "strong_close" or kids[1].type != "text":
        return None
    words = kids[1].content.strip()
    return words.rstrip(".:") if _LEAD_IN.match(words) else None


def _render(game: str, text: str) -> RulesPage:
    md = MarkdownIt("commonmark", {"html": False}).enable("table")
    tokens = md.parse(text)
    taken: set[str] = set()
    toc: list[TocEntry] = []
    title = game
    for i, tok in enumerate(tokens):
        inline = tokens[i + 1] if i + 1 < len(tokens) else None
        if tok.type == "heading_open" and inline is not None:
            words = "".join(c.content for c in inline.children or [] if c.type in ("text", "code_inline"))
            if tok.tag == "h1":
                title, tok.hidden = words, True
                inline.children, inline.content, tokens[i + 2].hidden = [], "", True
                continue
            anchor = _slug(words, taken)
            tok.attrSet("id", anchor)
            toc.append({"id": anchor, "title": words, "level": int(tok.tag[1])})
        elif tok.type == "paragraph_open" and tok.level == 0 and not tok.hidden and (lead := _strong_lead(inline)):
            anchor = _slug(lead, taken)
            tok.attrSet("id", anchor)
            toc.append({"id": anchor, "title": lead, "level": 3})
    return RulesPage(game, title, md.renderer.render(tokens, md.options, {}), toc)


def load_rules() -> dict[str, RulesPage]:
    """Every registered game's rules page, rendered once."""
    pages = {}
    for game in all_games():
        if game.page is None:
            raise ValueError(f"{game.name} has no rules page")
        pages[game.name] = _render(game.name, Path(game.page).read_text(encoding="utf-8"))
    return pages


def applied_options(game: str, raw: str | None) -> tuple[list[dict[str, Any]], str | None]:
    """The non-default options of ``raw`` (JSON) as [{"key", "value", "default", "label", "words",
    "default_words"}] (the last three in players' words), and a note when
    ``raw`` was refused (it is then ignored and the defaults apply)."""
    if not raw:
        return [], None
    try:
        given = json.loads(raw) if len(raw) <= MAX_OPTIONS_CHARS else None
        if not isinstance(given, dict):
            raise ValueError("not a set of options")
        options = get_game(game).parse_options(given)
    except (ValueError, RecursionError):  # bad JSON, or the model's refusal (naming a key)
        return [], UNREAD_OPTIONS
    defaults = type(options)()
    return [
        {
            "key": key,
            "value": value,
            "default": getattr(defaults, key),
            "label": option_said(game, key).label,
            "words": value_words(game, key, value),
            "default_words": value_words(game, key, getattr(defaults, key)),
        }
        for key, value in options.model_dump().items()
        if value != getattr(defaults, key)
    ], None


def phase_sections(page: RulesPage, applied: list[dict[str, Any]]) -> dict[str, str]:
    """The section each phase opens at: the game's own, or the section of a house option the
    table has set that changes that phase (``Game.house_phases``)."""
    game = get_game(page.game)
    phases = dict(game.phases)
    changed = {o["key"] for o in applied}
    for phase, keys in game.house_phases.items():
        key = next((k for k in keys if k in changed), None)
        if key is not None:
            phases[phase] = option_anchor(page, key)
    return phases


def option_anchor(page: RulesPage, key: str) -> str:
    """The section explaining option ``key``: the first heading that starts with its section's
    words, else the page's options section."""
    section = option_words(page.game, key).section.lower()
    for entry in page.toc:
        title = entry["title"].lower()
        if title == section or title.startswith(f"{section}:"):
            return entry["id"]
    for entry in page.toc:
        if "option" in entry["title"].lower():
            return entry["id"]
    return page.toc[0]["id"] if page.toc else ""


def options_box(page: RulesPage, applied: list[dict[str, Any]], note: str | None) -> str:
    """The box at the top of a page listing the table's house options, as HTML (all escaped)."""
    if note:
        return f'<aside class="panel panel-warn rules-options" role="note"><p>{escape(note)}</p></aside>'
    if not applied:
        return ""
    items = "".join(
        f'<li><a href="#{escape(option_anchor(page, o["key"]))}">{escape(o["label"])}</a>: '
        f'{escape(o["words"])} <span class="hint">(usually {escape(o["default_words"])})</span></li>'
        for o in applied
    )
    return (
        '<aside class="panel rules-options" aria-labelledby="rules-options-h">'
        '<h2 id="rules-options-h">This table\'s house options</h2>'
        "<p>These differ from the usual game below; each is explained under its name.</p>"
        f"<ul>{items}</ul></aside>"
    )


# The site's icon (a spade on felt green) and the brand's spade, as in every page under web/.
_ICON_HREF = (
    "data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 16 16'%3E"
    "%3Crect width='16' height='16' rx='3' fill='%23166534'/%3E"
    "%3Ctext x='8' y='12.5' font-size='11' text-anchor='middle' fill='white'%3E%E2%99%A0%3C/text%3E%3C/svg%3E"
)
_BRAND_MARK = '<span class="brand-mark" aria-hidden="true">♠</span>'


def page_html(page: RulesPage, box: str) -> str:
    toc = "".join(
        f'<li class="toc-{t["level"]}"><a href="#{escape(t["id"])}">{escape(t["title"])}</a></li>' for t in page.toc
    )
    title = escape(page.title)
    return f"""<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <meta name="color-scheme" content="light">
  <title>Felt · How to play {title}</title>
  <link rel="icon" href="{_ICON_HREF}">
  <link rel="stylesheet" href="/static/css/felt.css">
</head>
<body class="page-rules">
  <header class="topbar">
    <a class="brand" href="/" aria-label="Felt: back to the lobby">{_BRAND_MARK} Felt</a>
  </header>
  <main class="history rules-page">
    <p><a href="/">← Back to the lobby</a></p>
    <h1>How to play {title}</h1>
    {box}
    <nav class="panel rules-toc" aria-labelledby="toc-h"><h2 id="toc-h">Contents</h2><ul>{toc}</ul></nav>
    <article class="rules">{page.html}</article>
  </main>
</body>
</html>
"""


def _page_of(request: Request, game: str) -> RulesPage:
    page: RulesPage | None = request.app.state.rules.get(game)
    if page is None:
        raise ApiError(404, "not_found", f"There are no rules for a game called {game[:40]!r}.")
    return page


def described(game: Game, page: RulesPage) -> dict[str, Any]:
    """What ``GET /api/games`` adds to a game's own description (docs/protocol.md): its
    partnerships at the default player count, the rules-page section of each phase, every
    option in players' words per language (values keyed by their JSON) with its section, and
    how a one-line summary reads the options."""
    defaults = game.parse_options({}).model_dump()
    teams = game.teams(game.default_players)
    words: dict[str, dict[str, Any]] = {}
    for lang in LANGUAGES:
        words[lang] = {}
        for key, default in defaults.items():
            said = option_said(game.name, key, lang)
            values = {json.dumps(value): text for value, text in said.values.items()}
            if isinstance(default, bool):
                values.update({json.dumps(flag): SWITCH[lang][flag] for flag in (True, False)})
            if default is None:
                values.setdefault("null", USUAL[lang])
            words[lang][key] = {"label": said.label, "values": values, "section": option_anchor(page, key)}
    return {
        "partnerships": [list(seats) for seats in teams] if teams else None,
        "phases": dict(game.phases),
        "words": words,
        "order": list(game.words.order),
        "folded": sorted(game.words.folded),
    }


def install_rules_pages(app: FastAPI) -> None:
    """Render every game's rules now and serve them."""
    app.state.rules = load_rules()
    router = APIRouter()

    @router.api_route("/rules/{game}", methods=["GET", "HEAD"], include_in_schema=False)
    async def rules_page(request: Request, game: str, options: str | None = None) -> HTMLResponse:
        page = request.app.state.rules.get(game)
        if page is None:
            return HTMLResponse((Path(request.app.state.settings.web_dir) / "404.html").read_text(), status_code=404)
        box = options_box(page, *applied_options(game, options))
        return HTMLResponse(page_html(page, box), headers={"Cache-Control": "no-cache"})

    @router.get(
        "/api/rules/{game}",
        tags=["games"],
        summary="A game's rules as an HTML fragment",
        responses=error_response_doc(404),
    )
    async def rules_fragment(request: Request, game: str, options: str | None = None) -> dict:
        """The rendered rules of a game (escaped HTML), its sections, the section for each phase
        of its view (a house option's own where the table's ``options`` change that phase), and
        the non-default house options of ``options`` (JSON), each with the section explaining
        it, with a note if refused."""
        page = _page_of(request, game)
        applied, note = applied_options(game, options)
        return {
            "game": game,
            "title": page.title,
            "html": page.html,
            "toc": page.toc,
            "phases": phase_sections(page, applied),
            "options": [{**o, "anchor": option_anchor(page, o["key"])} for o in applied],
            "note": note,
            "url": f"/rules/{game}",
        }

    app.include_router(router)
