"""The rules pages through a real server: every game's page renders from its folder's rules.md with its
sections anchored, an unknown game is a 404 page, a table's house options are listed in the
lobby's words, no page speaks code to players, and nothing a crafted ``options`` value carries
reaches the page unescaped."""

from __future__ import annotations

import json
import re
from urllib.parse import quote

import httpx
import pytest
from code_words import code_words

from server.games import game_names, get_game

SCRIPT = "<script>alert(1)</script>"


def ids_of(html: str) -> set[str]:
    return set(re.findall(r'id="([^"]+)"', html))


@pytest.mark.parametrize("game", game_names())
async def test_every_game_has_a_rules_page_with_its_sections(live_server, game):
    async with httpx.AsyncClient(base_url=live_server.base) as http:
        page = await http.get(f"/rules/{game}")
        api = await http.get(f"/api/rules/{game}")
    assert page.status_code == 200, page.text[:300]
    assert page.headers["content-type"].startswith("text/html")
    html = page.text
    body = api.json()
    assert '<html lang="en">' in html
    assert f"<title>Felt · How to play {body['title']}</title>" in html
    assert '<link rel="stylesheet" href="/static/css/felt.css">' in html
    assert 'href="/"' in html and "<script" not in html  # a link back; works with no JS
    assert "<h1>" in html and "<h2" in html and "Contents" in html
    for entry in body["toc"]:  # the table of contents links to sections that exist
        assert f'href="#{entry["id"]}"' in html and f'id="{entry["id"]}"' in html
    # every phase of the game's view opens the panel at a section the page has
    assert body["phases"] and set(body["phases"].values()) <= ids_of(body["html"])
    assert body["url"] == f"/rules/{game}" and body["options"] == [] and body["note"] is None


async def test_the_phase_sections_cover_every_phase_of_each_game(live_server):
    import importlib

    async with httpx.AsyncClient(base_url=live_server.base) as http:
        for game in game_names():
            phases = {p.value for p in importlib.import_module(f"server.games.{game}.rules").Phase}
            body = (await http.get(f"/api/rules/{game}")).json()
            assert set(body["phases"]) == phases, game


async def test_an_unknown_game_is_a_404_page(live_server):
    async with httpx.AsyncClient(base_url=live_server.base) as http:
        page = await http.get("/rules/poker", headers={"accept": "text/html"})
        api = await http.get("/api/rules/poker")
    assert page.status_code == 404 and "<html" in page.text and "poker" not in page.text
    assert api.status_code == 404 and api.json()["error"]["code"] == "not_found"


async def test_a_tables_house_options_are_shown_as_they_apply(live_server):
    options = quote(json.dumps({"scoring": "exact", "blind_one": True}))
    async with httpx.AsyncClient(base_url=live_server.base) as http:
        html = (await http.get(f"/rules/oh_hell?options={options}")).text
        body = (await http.get(f"/api/rules/oh_hell?options={options}")).json()
        plain = (await http.get("/rules/oh_hell")).text
    assert "This table's house options" in html and "This table's house options" not in plain
    box = html.split('class="panel rules-options"')[1].split("</aside>")[0]
    assert "Scoring</a>: exact" in box and "(usually standard)" in box
    assert "Blind 1-card hand</a>: on" in box and "(usually off)" in box
    for anchor in re.findall(r'href="#([^"]+)"', box):  # each links to where the option is explained
        assert f'id="{anchor}"' in html
    assert {o["key"] for o in body["options"]} == {"scoring", "blind_one"} and body["note"] is None


@pytest.mark.parametrize(
    "raw",
    [
        json.dumps({"target": SCRIPT}),
        json.dumps({SCRIPT: 1}),
        SCRIPT,
        json.dumps([SCRIPT]),
        json.dumps({"target": 7, "x": "y" * 3000}),
    ],
)
async def test_invalid_options_are_ignored_with_a_note_and_never_injected(live_server, raw):
    async with httpx.AsyncClient(base_url=live_server.base) as http:
        page = await http.get(f"/rules/ribs?options={quote(raw)}")
        body = (await http.get(f"/api/rules/ribs?options={quote(raw)}")).json()
    assert page.status_code == 200
    assert "<script" not in page.text.lower() and "<script" not in body["html"].lower()
    assert "could not be read" in page.text and "This table's house options" not in page.text
    assert body["options"] == [] and "could not be read" in body["note"]


BID_WHIST_HOUSE = {
    "jokers": 2,
    "joker_no_trump": "must_play",
    "books": "thirteen",
    "min_bid": 3,
    "game_to": 9,
    "directions": True,
    "no_trump": True,
    "downtown_beats_uptown": False,
    "no_trump_double": False,
    "boston": "quadruple",
    "sport_kitty": True,
    "target": 15,
}


async def test_every_bid_whist_house_option_links_to_its_own_section(live_server):
    """Each option in the box opens at the section that explains it (never the general one),
    and the "How to play" phases open at the house option that changes them."""
    options = quote(json.dumps(BID_WHIST_HOUSE))
    async with httpx.AsyncClient(base_url=live_server.base) as http:
        body = (await http.get(f"/api/rules/bid_whist?options={options}")).json()
        html = (await http.get(f"/rules/bid_whist?options={options}")).text
        plain = (await http.get("/api/rules/bid_whist")).json()
    anchors = {o["key"]: o["anchor"] for o in body["options"]}
    assert set(anchors) == set(BID_WHIST_HOUSE)
    sections = ids_of(body["html"])
    for key, anchor in anchors.items():
        assert anchor in sections and anchor != "house-options", (key, anchor)
        assert f'<a href="#{anchor}">{get_game("bid_whist").words.options[key].en.label}</a>' in html
    assert anchors["joker_no_trump"] == anchors["jokers"]
    assert anchors["game_to"] == anchors["books"]
    assert anchors["downtown_beats_uptown"] == anchors["directions"]
    assert anchors["no_trump_double"] == anchors["no_trump"]
    assert anchors["target"] == "scoring"
    phases = body["phases"]
    assert phases["bidding"] == anchors["directions"] and phases["discarding"] == anchors["jokers"]
    assert phases["trump_or_lead"] == anchors["no_trump"] and phases["over"] == anchors["books"]
    assert set(phases.values()) <= sections
    assert plain["phases"] == {
        "bidding": "bidding",
        "discarding": "kitty-and-trump",
        "trump_or_lead": "kitty-and-trump",
        "playing": "play",
        "over": "scoring",
    }


def every_option_changed(game: str) -> dict:
    """Each option of ``game`` at a value other than its default that the game accepts together."""
    if game == "bid_whist":
        return BID_WHIST_HOUSE
    defaults = get_game(game).parse_options({}).model_dump()
    changed = {
        "oh_hell": {
            "start": "low",
            "rebound": False,
            "min_cards": 3,
            "max_cards": 8,
            "hook": False,
            "scoring": "squared",
            "hook_last_hand": False,
            "trump": "no_trump_largest",
            "blind_one": True,
            "vienna": True,
            "until_clear_winner": True,
        },
        "tarbish": {"target": 300, "half_bait": True, "no_trump": True, "dealer_forced": False},
        "ribs": {"target": 7, "until_sole_winner": True},
        "spades": {"target": 300, "blind_nil": True, "bag_limit": 5, "lose_at": -200},
    }[game]
    assert set(changed) == set(defaults), "a new option needs a value here"
    return changed


def visible_text(html: str) -> str:
    return re.sub(r"<[^>]+>", " ", html)


@pytest.mark.parametrize("game", game_names())
async def test_no_rules_page_speaks_code_to_players(live_server, game):
    """Every page, plain and with every option changed (its box), in words players use."""
    changed = quote(json.dumps(every_option_changed(game)))
    async with httpx.AsyncClient(base_url=live_server.base) as http:
        plain = await http.get(f"/rules/{game}")
        house = await http.get(f"/rules/{game}?options={changed}")
        body = (await http.get(f"/api/rules/{game}?options={changed}")).json()
    assert house.status_code == 200 and body["note"] is None, body["note"]
    assert "This table's house options" in house.text
    for html in (plain.text, house.text, body["html"]):
        assert "<code" not in html
        assert code_words(visible_text(html)) == []
    assert [t["title"] for t in body["toc"] if code_words(t["title"])] == []
    for option in body["options"]:
        assert code_words(" ".join([option["label"], option["words"], option["default_words"]])) == []


def test_the_code_word_scan_finds_what_the_old_pages_said():
    for said in (
        "no_trump: on (default off)",
        "half_bait",
        'books: "seed"',
        "min_bid",
        "the seed's variant",
        "settled in the project's RULES.md §3",
        "`jokers`",
        "hook: true",
        "turned is null",
    ):
        assert code_words(said), said


def test_every_option_of_every_game_has_words_and_a_section(tmp_path):
    """A new option in a game's model needs the lobby's words here and a heading on its page."""
    from server.edges.rules_pages import load_rules, option_anchor

    pages = load_rules()
    for game in game_names():
        options = get_game(game).words.options
        assert set(options) == set(get_game(game).parse_options({}).model_dump()), game
        for key, words in options.items():
            titles = [t["title"] for t in pages[game].toc if t["id"] == option_anchor(pages[game], key)]
            assert titles and titles[0].lower().startswith(words.section.lower()), (game, key, titles)
