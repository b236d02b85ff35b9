"""A group in Chromium: a newcomer creates it, a friend joins by the invite link in another
browser, both see each other online, they start a table from the group's page with its saved
rules, finish it against bots, and the standings, the recap and the recent matches show it;
the night's card downloads and shares (the Web Share API, with the PNG) at phone and desktop
widths, from the keyboard, with no axe-core violation."""

from __future__ import annotations

import re
import secrets
from datetime import UTC, datetime, timedelta

import httpx
import pytest
from conftest import SIZES
from PIL import Image
from playwright.sync_api import expect
from storage_helpers import with_ledger

from server.storage import groups, store
from server.storage.db import Database

try:
    from axe_playwright_python.sync_playwright import Axe
except ImportError:  # pragma: no cover - depends on the environment
    Axe = None

AXE_OPTIONS = {"resultTypes": ["violations"], "rules": {"label-content-name-mismatch": {"enabled": True}}}

SHORT = {"max_cards": 2, "rebound": False}  # the group's house rules: a short Oh Hell


def give_name(page, name: str) -> None:
    page.get_by_label("Your name", exact=True).fill(name)
    page.get_by_role("button", name="Continue").click()


def save_rules(page, game_title: str) -> None:
    """Set a short Oh Hell as the house rules with the group page's form."""
    page.locator("#new-game").select_option(label=game_title)
    page.locator("#house-rules > summary").click()
    page.locator("#house-max_cards").fill(str(SHORT["max_cards"]))
    page.locator("#house-rebound").uncheck()
    page.get_by_role("button", name="Save the house rules").click()
    expect(page.locator("#house-rules-status")).to_contain_text("House rules saved")


def test_friends_make_a_group_play_a_table_from_its_page_and_see_the_standings(pages, table, artifacts):
    ana = pages.open("/")
    ana.get_by_role("link", name="Groups").click()  # from the lobby's header
    ana.wait_for_url("**/groups")
    give_name(ana, "Ana")
    ana.get_by_label("Group name").fill("Friday cards")
    ana.get_by_role("button", name="Create group").click()
    ana.wait_for_url(re.compile(r"/g/[a-z0-9]+$"))
    code = ana.url.rsplit("/", 1)[-1]
    expect(ana.locator("#group-title")).to_have_text("Friday cards")
    invite = ana.locator("#invite-link").input_value()
    assert f"/g/{code}#invite=" in invite

    rui = pages.open(None)
    rui.goto(invite)
    give_name(rui, "Rui")
    expect(rui.locator("#members")).to_contain_text("Ana")
    expect(rui.locator("#members")).to_contain_text("Rui")
    assert "#invite" not in rui.url  # the secret leaves the address bar once used
    # Both see each other online (the page asks again every few seconds).
    expect(ana.locator("#members .member-online")).to_have_count(2, timeout=20000)
    expect(rui.locator("#members .member-online")).to_have_count(2)

    expect(ana.locator("#saved-rules")).to_contain_text("No house rules")
    save_rules(ana, "Oh Hell")
    expect(ana.locator("#saved-rules")).to_contain_text("up to 2 cards")  # the summary follows at once
    ana.reload()
    ana.locator("#house-rules > summary").click()  # the form shows what is saved
    expect(ana.locator("#house-max_cards")).to_have_value("2")
    expect(ana.locator("#house-rebound")).not_to_be_checked()
    expect(ana.locator("#saved-rules")).to_contain_text("up to 2 cards")
    expect(ana.locator("#saved-rules")).to_contain_text("no way back")
    ana.get_by_role("button", name="New table").click()
    ana.wait_for_url("**/r/*")
    ana.wait_for_selector(".seat-you")
    room = ana.url.rsplit("/", 1)[-1]

    sit = rui.locator(f'[data-sit-table="{room}"]')
    expect(sit).to_be_visible(timeout=20000)
    sit.click()  # one click: the table seats Rui on arrival
    rui.wait_for_url(f"**/r/{room}")
    rui.wait_for_selector(".seat-you")
    for _ in range(2):
        ana.locator("[data-bot-next]").click()
    ana.locator("[data-start]").click()
    table.drive([ana, rui], lambda: table.finished(ana) and table.finished(rui))
    expect(ana.locator("#sheet table.sheet tbody tr.sheet-hand")).to_have_count(2)  # the saved rules: 2 then 1 card
    expect(ana.get_by_role("button", name="Rotate partners")).to_have_count(0)  # Oh Hell has no partners

    ana.goto(f"{pages.base}/g/{code}")
    standings = ana.locator("#standings table.standings")
    expect(standings).to_be_visible(timeout=20000)
    expect(standings.locator("tbody tr")).to_have_count(2)  # Ana and Rui; the bots are not ranked
    for row in (standings.locator("tbody tr").nth(0), standings.locator("tbody tr").nth(1)):
        expect(row.locator("td").first).to_have_text("1")
    expect(ana.locator("#recent-matches > li")).to_have_count(1)
    recap = ana.locator("#recap-text")
    expect(recap).to_have_value(re.compile(r"^Friday cards · .*\n- Oh Hell: .+ won"))
    expect(recap).to_have_value(re.compile(r"Ana: \d/1 won, net"))
    ana.locator("#recap-show-image").click()
    expect(ana.locator("#recap-image")).to_have_attribute("src", re.compile(r"^data:image/png;base64,"))
    with ana.expect_download() as download:
        ana.locator("#export-csv").click()
    assert download.value.suggested_filename.endswith(".csv")
    ana.screenshot(path=str(artifacts / "group-page-desktop.png"), full_page=True)


def test_a_partnership_table_offers_play_again_with_new_partners(pages, table):
    page = pages.open("/")
    code = table.create_room(page, "Ana", "tarbish", {"target": 1})
    for _ in range(3):
        page.locator("[data-bot-next]").click()
    page.locator("[data-start]").click()
    table.drive([page], lambda: table.finished(page))
    rotate = page.get_by_role("button", name="Rotate partners")
    expect(rotate).to_be_visible()
    with page.expect_request(lambda r: r.url.endswith("/api/rooms") and r.method == "POST") as sent:
        rotate.click()
    assert sent.value.post_data_json["rotate_partners"] is True and sent.value.post_data_json["from"] == code
    page.wait_for_url(re.compile(r"/r/(?!" + code + ")"))
    page.wait_for_selector(".seat-you")


def _bid_whist_record(room: str, ana: str, rui: str, i: int, hands: list[dict]) -> dict:
    at = datetime(2026, 11, 6, 20, 0, tzinfo=UTC) + timedelta(minutes=30 * i)
    record = {
        "id": secrets.token_hex(8),
        "game": "bid_whist",
        "options": {},
        "seed": str(i),
        "commitment": "0" * 64,
        "dealer": 0,
        "room_code": room,
        "scores": [21, 9, 21, 9],
        "winners": [0, 2],
        "players": [
            {"seat": s, "name": n, "player_id": p, "bot": p is None}
            for s, (n, p) in enumerate([("Ana", ana), ("Bot", None), ("Rui", rui), ("Bot", None)])
        ],
        "hands": hands,
        "started_at": at - timedelta(minutes=20),
        "finished_at": at,
    }
    return with_ledger(record)


def named(page, name: str) -> None:
    """Give a name on any page that asks for one, in any language."""
    page.locator("#name").fill(name)
    page.locator("#name-form button[type=submit]").click()


def new_group_page(pages, owner: str, group: str, viewport: dict | None = None):
    """A new player ``owner``'s page of their new group ``group``."""
    page = pages.open("/groups", viewport=viewport)
    named(page, owner)
    page.get_by_label("Group name").fill(group)
    page.get_by_role("button", name="Create group").click()
    page.wait_for_url(re.compile(r"/g/[a-z0-9]+$"))
    return page


def group_of_two(pages, name: str, viewport: dict | None = None) -> tuple:
    """Ana makes a group, Rui joins it by the invite link: (ana, rui, code, ana's id, rui's id)."""
    ana = new_group_page(pages, "Ana", name, viewport)
    code = ana.url.rsplit("/", 1)[-1]
    rui = pages.open(None)
    rui.goto(ana.locator("#invite-link").input_value())
    give_name(rui, "Rui")
    expect(rui.locator("#members")).to_contain_text("Ana")
    ana_id, rui_id = (p.evaluate("JSON.parse(localStorage.getItem('felt.player')).id") for p in (ana, rui))
    return ana, rui, code, ana_id, rui_id


def store_group_matches(tmp_path_factory, code: str, room: str, game: str, records: list[dict]) -> None:
    """Store finished matches at a group's table, as the server stores them, in its database."""
    (folder,) = tmp_path_factory.getbasetemp().glob("felt-browser[0-9]*")  # the server's folder
    db = Database(f"sqlite:///{folder / 'felt.db'}")
    try:
        with db.session() as session:
            groups.link_table(session, code, room, game)
        with db.session() as session:
            for record in records:
                store.save_match(session, record)
    finally:
        db.dispose()


def test_partners_see_their_pair_record_with_bids_made(pages, tmp_path_factory):
    ana, _, code, ana_id, rui_id = group_of_two(pages, "Whist night")
    # Two Bid Whist matches of Ana and Rui as partners stored at the group's table, as the
    # server stores a finished match: three contracts of theirs (two made), one of the bots'.
    hands = [
        [
            {"dealer": 0, "declarer": 0, "scores": [3, 0, 3, 0]},
            {"dealer": 1, "declarer": 1, "scores": [0, 2, 0, 2]},
        ],
        [
            {"dealer": 0, "declarer": 2, "scores": [0, 5, 0, 5]},
            {"dealer": 1, "declarer": 2, "scores": [4, 0, 4, 0]},
        ],
    ]
    records = [_bid_whist_record("PAIRS1", ana_id, rui_id, i, h) for i, h in enumerate(hands)]
    store_group_matches(tmp_path_factory, code, "PAIRS1", "bid_whist", records)
    ana.reload()
    ana.locator("#standings-game").select_option("bid_whist")
    pair = ana.locator("#pairs tbody tr")
    expect(pair).to_have_count(1, timeout=20000)
    expect(pair.locator("th")).to_have_text("Ana & Rui")
    expect(pair.locator("td")).to_have_text(["2", "2", "2 of 3"])


def test_a_member_at_someone_elses_private_table_is_at_a_table_with_no_link(pages, server):
    """Its code would let anyone in: the group page says "at a table" (in English and in
    Portuguese) and offers no way there; a table the reader may open gets its link."""
    ana = new_group_page(pages, "Ana", "Private nights")
    invite = ana.locator("#invite-link").input_value()
    bia = pages.open(None, locale="pt-BR")
    bia.goto(invite)
    named(bia, "Bia")
    rui = pages.open(None)
    rui.goto(invite)
    named(rui, "Rui")
    expect(rui.locator("#members")).to_contain_text("Bia")
    rui_id = rui.evaluate("JSON.parse(localStorage.getItem('felt.player')).id")
    eve = httpx.post(f"{server}/api/players", json={"name": "Eve"}).json()
    private = httpx.post(
        f"{server}/api/rooms",
        json={"game": "oh_hell", "private": True},
        headers={"Authorization": f"Bearer {eve['token']}"},
    ).json()["code"]
    rui.goto(f"{server}/r/{private}")
    rui.locator("[data-sit]").first.click()
    rui.wait_for_selector(".seat-you")
    for page, words in ((ana, "at a table"), (bia, "numa mesa")):
        page.reload()
        member = page.locator(f'[data-member="{rui_id}"]')
        expect(member.locator(".member-status")).to_have_text(words, timeout=20000)
        expect(member.locator("a")).to_have_count(0)
        assert private not in page.content()
    rui.goto(f"{server}/")
    public = httpx.post(
        f"{server}/api/rooms", json={"game": "oh_hell"}, headers={"Authorization": f"Bearer {eve['token']}"}
    ).json()["code"]
    rui.goto(f"{server}/r/{public}")
    rui.locator("[data-sit]").first.click()
    rui.wait_for_selector(".seat-you")
    link = ana.locator(f'[data-member="{rui_id}"] a')
    expect(link).to_have_attribute("href", re.compile(f"/r/{public}$"), timeout=20000)  # the page asks again
    expect(link).to_have_text("Go to the table")


def test_a_double_click_on_close_the_season_closes_one(pages, server):
    ana = new_group_page(pages, "Ana", "Seasons")
    code = ana.url.rsplit("/", 1)[-1]
    ana.on("dialog", lambda dialog: dialog.accept())  # "Close the season?" and again
    close = ana.locator("#close-season")
    expect(close).to_be_visible()
    close.evaluate("button => { button.click(); button.click(); }")
    expect(ana.locator("#standings-season")).to_contain_text("This season (2)", timeout=20000)
    token = ana.evaluate("JSON.parse(localStorage.getItem('felt.player')).token")
    seen = httpx.get(f"{server}/api/groups/{code}", headers={"Authorization": f"Bearer {token}"}).json()
    assert seen["seasons"] == [1, 2]


def _oh_hell_record(room: str, people: list[tuple[str, str | None]], scores: list[int], i: int) -> dict:
    at = datetime(2026, 11, 7, 20, 0, tzinfo=UTC) + timedelta(minutes=30 * i)
    record = {
        "id": secrets.token_hex(8),
        "game": "oh_hell",
        "options": {},
        "seed": str(i),
        "commitment": "0" * 64,
        "dealer": 0,
        "room_code": room,
        "scores": scores,
        "winners": [s for s, v in enumerate(scores) if v == max(scores)],
        "players": [{"seat": s, "name": n, "player_id": p, "bot": p is None} for s, (n, p) in enumerate(people)],
        "started_at": at - timedelta(minutes=20),
        "finished_at": at,
    }
    return with_ledger(record)


def test_members_see_their_head_to_head_per_game_and_season(pages, tmp_path_factory):
    ana = pages.open("/groups")
    give_name(ana, "Ana")
    ana.get_by_label("Group name").fill("Rivals")
    ana.get_by_role("button", name="Create group").click()
    ana.wait_for_url(re.compile(r"/g/[a-z0-9]+$"))
    code = ana.url.rsplit("/", 1)[-1]
    rui = pages.open(None)
    rui.goto(ana.locator("#invite-link").input_value())
    give_name(rui, "Rui")
    expect(rui.locator("#members")).to_contain_text("Ana")
    ana_id, rui_id = (p.evaluate("JSON.parse(localStorage.getItem('felt.player')).id") for p in (ana, rui))
    seats = [("Ana", ana_id), ("Rui", rui_id), ("Bot", None)]
    # Season 1: Ana above Rui twice; season 2: Rui above Ana once, then a match they finish level.
    (folder,) = tmp_path_factory.getbasetemp().glob("felt-browser[0-9]*")  # the server's folder
    db = Database(f"sqlite:///{folder / 'felt.db'}")
    try:
        with db.session() as session:
            groups.link_table(session, code, "RIVAL1", "oh_hell")
        for i, scores in enumerate([[30, 10, 5], [20, 12, 40]]):
            with db.session() as session:
                store.save_match(session, _oh_hell_record("RIVAL1", seats, scores, i))
        with db.session() as session:
            groups.close_season(session, code)
        for i, scores in enumerate([[8, 25, 3], [15, 15, 2]], start=2):
            with db.session() as session:
                store.save_match(session, _oh_hell_record("RIVAL1", seats, scores, i))
    finally:
        db.dispose()
    for page, me, other, mine in ((ana, "You", "Rui", ["2", "0", "1", "1"]), (rui, "You", "Ana", ["2", "1", "0", "1"])):
        page.reload()
        page.locator("#standings-game").select_option("oh_hell")
        row = page.locator("#head-to-head tbody tr")
        expect(row).to_have_count(1, timeout=20000)
        expect(row.locator("th")).to_have_text(f"{me} vs {other}")
        expect(row.locator("td")).to_have_text(mine)  # this season: matches, above, below, level
    expect(ana.get_by_role("table", name=re.compile("Head-to-head"))).to_be_visible()
    ana.locator("#standings-season").select_option("all")
    expect(ana.locator("#head-to-head tbody tr td")).to_have_text(["4", "2", "1", "1"])
    ana.locator("#standings-season").select_option("1")
    expect(ana.locator("#head-to-head tbody tr td")).to_have_text(["2", "2", "0", "0"])
    ana.evaluate("localStorage.setItem('felt.lang', 'pt')")
    ana.reload()
    expect(ana.locator("#head-to-head caption")).to_contain_text("Frente a frente")
    expect(ana.locator("#head-to-head tbody tr th")).to_contain_text("Você vs Rui")


# Stands in for the system's share sheet: keeps what the page shares (the file's name, type,
# size and first bytes) where the test can read it.
CAPTURE_SHARE = """
navigator.share = async (data) => {
  const files = await Promise.all((data.files || []).map(async (f) => ({
    name: f.name, type: f.type, size: f.size, head: [...new Uint8Array(await f.slice(0, 8).arrayBuffer())],
  })));
  window.shared = { files, title: data.title, text: data.text };
};
"""
PNG_SIGNATURE = [137, 80, 78, 71, 13, 10, 26, 10]


@pytest.mark.parametrize("size", ["phone", "desktop"])
def test_the_recap_card_downloads_and_shares_from_the_keyboard(pages, tmp_path_factory, tmp_path, artifacts, size):
    ana = pages.open(None, viewport=SIZES[size])
    ana.add_init_script(CAPTURE_SHARE)
    ana.goto(f"{pages.base}/groups")
    give_name(ana, "Ana")
    ana.get_by_label("Group name").fill("Card night")
    ana.get_by_role("button", name="Create group").click()
    ana.wait_for_url(re.compile(r"/g/[a-z0-9]+$"))
    code = ana.url.rsplit("/", 1)[-1]
    ana_id = ana.evaluate("JSON.parse(localStorage.getItem('felt.player')).id")
    (folder,) = tmp_path_factory.getbasetemp().glob("felt-browser[0-9]*")  # the server's folder
    db = Database(f"sqlite:///{folder / 'felt.db'}")
    try:
        with db.session() as session:
            groups.link_table(session, code, f"CARD{size[0].upper()}1", "oh_hell")
        with db.session() as session:
            seats = [("Ana", ana_id), ("Bot", None), ("Bot", None)]
            store.save_match(session, _oh_hell_record(f"CARD{size[0].upper()}1", seats, [30, 10, 5], 0))
    finally:
        db.dispose()
    ana.reload()
    download = ana.get_by_role("button", name="Download the card")
    expect(download).to_be_visible(timeout=20000)
    with ana.expect_download() as saved:
        download.click()
    assert saved.value.suggested_filename == f"felt-{code}-night.png"
    path = tmp_path / "card.png"
    saved.value.save_as(path)
    with Image.open(path) as card:
        assert card.format == "PNG" and card.width == 1080

    download.focus()  # the share button is the next stop, and Enter shares
    ana.keyboard.press("Tab")
    expect(ana.get_by_role("button", name="Share the card")).to_be_focused()
    ana.keyboard.press("Enter")
    ana.wait_for_function("() => window.shared")
    shared = ana.evaluate("window.shared")
    (file,) = shared["files"]
    assert file["name"] == f"felt-{code}-night.png" and file["type"] == "image/png"
    assert file["head"] == PNG_SIGNATURE and file["size"] == path.stat().st_size
    assert shared["text"].startswith("Card night · ") and shared["title"] == "Tonight's recap"
    if Axe is not None:
        found = Axe().run(ana, options=AXE_OPTIONS).response["violations"]
        assert found == [], [(v["id"], [n["target"] for n in v["nodes"]]) for v in found]

    ana.evaluate("localStorage.setItem('felt.lang', 'pt')")
    ana.reload()
    expect(ana.get_by_role("button", name="Baixar o cartão")).to_be_visible(timeout=20000)
    expect(ana.get_by_role("button", name="Compartilhar o cartão")).to_be_visible()
    ana.screenshot(path=str(artifacts / f"group-recap-{size}.png"), full_page=True)
