"""Claims and take-backs in a real browser. A player against bots claims the rest at each of
their plays: a refused claim says "Not certain yet: play on" and changes nothing; the first
accepted one is the table's news ("Ana claimed the rest", said to screen readers and in the chat
as news, not as a line anyone typed) and the hand plays out to its end. The new-table form's
take-back rule makes a table with that rule; a take-back is asked for and allowed on a phone.
At phone and desktop widths, in English and Portuguese, from the keyboard, with no axe
violations."""

from __future__ import annotations

import json
import time

import httpx
import pytest
from conftest import DESKTOP, PHONE
from playwright.sync_api import expect
from test_accessibility import AXE, OPTIONS, SETTLE, describe, in_portuguese
from test_table_feel import _start_against_bots

WORDS = {
    "en": {"claim": "Claim the rest", "refused": "Not certain yet: play on.", "news": "Ana claimed the rest"},
    "pt": {
        "claim": "Reivindicar o resto",
        "refused": "Ainda não é certo: continue jogando.",
        "news": "Ana reivindicou o resto",
    },
}
# A short match of shrinking and growing hands: one card, then two..., then back down to one.
OH_HELL = {"max_cards": 3, "start": "low", "rebound": True}
# The table as the page shows it: the hand, the moves of this hand, the hands on the sheet.
READ = """() => ({
  hand: [...document.querySelectorAll('#hand .hand-cards button[data-card]')].map((b) => b.dataset.card),
  log: document.querySelector('#move-log').textContent,
  hands: document.querySelectorAll('#sheet tr.sheet-hand').length,
})"""
# The room part of the view, as a watcher's socket gets it first.
ROOM_VIEW = """(code) => new Promise((done, fail) => {
  const ws = new WebSocket(`${location.origin.replace('http', 'ws')}/ws/rooms/${code}`);
  ws.onmessage = (event) => {
    const f = JSON.parse(event.data);
    if (f.type === 'snapshot') { ws.close(); done(f.state.room); }
  };
  ws.onerror = () => fail(new Error('no socket'));
})"""


class AxeCheck:
    def __init__(self) -> None:
        self.reports: list[str] = []

    def check(self, page, state: str) -> None:
        page.evaluate(SETTLE)
        found = AXE.run(page, options=OPTIONS).response["violations"]
        if found:
            self.reports.append(describe(state, page.url, found))

    def assert_clean(self) -> None:
        assert not self.reports, "\n\n".join(self.reports)


def _play_again_against_bots(page, seats: int) -> None:
    """The result's "Play again": a new table with the same rules and the same bots, started."""
    finished_at = page.url
    page.locator("[data-play-again='']").click()
    page.wait_for_url(lambda url: url != finished_at)
    expect(page.locator(".badge-bot")).to_have_count(seats - 1)
    page.locator("[data-start]").click()
    expect(page.locator("#result .result-panel")).to_have_count(0)


# What Ana may do now, read at one instant: "play" a card, "bid", or nothing yet (not her turn,
# or the last trick still shown before her cards come alive).
TO_DO = """() => {
  if (!document.querySelector('#controls .turn-banner')) return null;
  const alive = (sel) => [...document.querySelectorAll(sel)].some((b) => !b.disabled);
  if (alive('#hand button[data-card]')) return 'play';
  if (alive('#controls [data-control]')) return 'bid';
  return null;
}"""


@pytest.mark.parametrize(("size", "lang"), [(DESKTOP, "en"), (PHONE, "pt")], ids=["desktop-en", "phone-pt"])
def test_a_refused_claim_changes_nothing_and_an_accepted_one_is_news_and_ends_the_hand(pages, table, size, lang):
    page = pages.open("/", viewport=size)
    _start_against_bots(page, table, "oh_hell", OH_HELL, seats=3)
    if lang == "pt":
        in_portuguese(page)
    words = WORDS[lang]
    claim = page.get_by_role("button", name=words["claim"], exact=True)
    note = page.locator("[data-claim-refused]")
    news = page.locator("#table-news")
    axe = AxeCheck()
    refused = accepted = 0
    news_here = 0  # claims accepted at this table (the chat is the table's)
    deadline = time.monotonic() + 240
    while not (refused and accepted):  # a claim at each of Ana's plays until one of each
        assert time.monotonic() < deadline, f"{refused} claims refused, {accepted} accepted in 240 s"
        if table.finished(page):  # the deals gave Ana no certain claim: the next match may
            _play_again_against_bots(page, seats=3)
            news_here = 0
            continue
        to_do = page.evaluate(TO_DO)
        if to_do is None:
            time.sleep(0.04)
            continue
        if to_do == "bid":
            expect(claim).to_have_count(0)  # bidding: no claim is offered
            table.act_once(page)
            continue
        before = page.evaluate(READ)
        claim.focus()
        page.keyboard.press("Enter")  # reachable from the keyboard
        claims = page.locator("#chat-log [data-chat-news]")
        expect(note.or_(claims.nth(news_here))).to_have_count(1)
        if note.count():
            refused += 1
            expect(note).to_have_text(words["refused"])
            expect(page.locator("#news-live")).to_have_text(words["refused"])
            assert claim.get_attribute("aria-describedby") == "claim-note"
            page.wait_for_timeout(300)
            assert page.evaluate(READ) == before, "a refused claim changed the table"
            if refused == 1:
                axe.check(page, f"{lang}: a claim refused, the button and its note shown")
            table.act_once(page)
            continue
        accepted += 1
        news_here += 1
        expect(news).to_be_visible()
        expect(news).to_have_text(words["news"])
        expect(page.locator("#news-live")).to_have_text(words["news"])
        expect(claims).to_have_count(news_here)
        expect(claims.nth(news_here - 1)).to_have_text(words["news"])
        expect(claims.locator(".chat-name")).to_have_count(0)  # news, not a line someone typed
        # The rest of the hand is played out as ordinary plays: the sheet gets the hand (or the
        # match ends with it).
        page.wait_for_function(
            "(n) => document.querySelectorAll('#sheet tr.sheet-hand').length > n"
            " || document.querySelector('#result .result-panel')",
            arg=before["hands"],
        )
        if table.finished(page):
            continue
        expect(news).to_be_visible()  # the news stays while the next hand is bid
        if accepted == 1:
            axe.check(page, f"{lang}: a claim accepted, the news shown")
    axe.assert_clean()


def test_ribs_offers_no_claim(pages, table):
    page = pages.open("/")
    _start_against_bots(page, table, "ribs", {"target": 2})
    deadline = time.monotonic() + 60
    played = 0
    while played < 3:
        assert time.monotonic() < deadline, "Ana never played in Ribs"
        if table.my_turn(page):
            expect(page.get_by_role("button", name="Claim the rest")).to_have_count(0)
            table.act_once(page)
            played += 1
        time.sleep(0.04)


@pytest.mark.parametrize("rule", ["free", "off"])
def test_the_lobby_form_sets_the_take_back_rule(pages, rule):
    page = pages.open("/")
    page.get_by_label("Your name", exact=True).fill("Ana")
    page.get_by_label("Game", exact=True).select_option("oh_hell")
    page.locator("#options-box > summary").click()
    undo = page.get_by_label("Take back a move", exact=True)
    expect(undo).to_have_value("ask")
    expect(undo.locator("option")).to_have_text(["If the next player allows", "Never", "At once"])
    expect(page.locator("#opt-undo-help")).to_contain_text("take back their last card")
    assert undo.get_attribute("aria-describedby") == "opt-undo-help"
    undo.select_option(rule)
    page.get_by_role("button", name="Create room").click()
    page.wait_for_url("**/r/*")
    page.wait_for_selector(".seat-you")
    code = page.url.rsplit("/", 1)[-1]
    assert page.evaluate(ROOM_VIEW, code)["undo"] == rule


def test_the_portuguese_form_names_the_take_back_rule(pages):
    page = pages.open("/")
    page.evaluate("localStorage.setItem('felt.lang', 'pt')")
    page.reload()
    page.locator("#options-box > summary").click()
    undo = page.get_by_label("Voltar jogada", exact=True)
    expect(undo.locator("option")).to_have_text(["Se o próximo jogador permitir", "Nunca", "Na hora"])
    expect(page.locator("#opt-undo-help")).to_contain_text("última carta")


def test_the_group_form_offers_the_take_back_rule_showing_the_groups_last_choice(pages):
    with httpx.Client(base_url=pages.base) as http:
        ana = http.post("/api/players", json={"name": "Ana"}).json()
        auth = {"Authorization": f"Bearer {ana['token']}"}
        group = http.post("/api/groups", json={"name": "Friday"}, headers=auth).json()["code"]
        made = http.post("/api/rooms", json={"game": "oh_hell", "group": group, "undo": "off"}, headers=auth)
        assert made.status_code == 201, made.text
    page = pages.open(None)
    me = json.dumps({"id": ana["id"], "name": "Ana", "token": ana["token"]})
    page.add_init_script(f"localStorage.setItem('felt.player', {json.dumps(me)})")
    page.goto(f"{pages.base}/g/{group}")
    form = page.locator("#new-table")
    form.get_by_label("Game", exact=True).select_option("oh_hell")
    form.locator("#new-options-box > summary").click()
    undo = form.get_by_label("Take back a move", exact=True)
    expect(undo).to_have_value("off")
    undo.select_option("free")
    form.get_by_role("button", name="New table").click()
    page.wait_for_url("**/r/*")
    code = page.url.rsplit("/", 1)[-1]
    assert page.evaluate(ROOM_VIEW, code)["undo"] == "free"


def test_a_take_back_is_asked_for_and_allowed_on_a_phone(pages, table):
    ana = pages.open("/", viewport=PHONE)
    code = table.create_room(ana, "Ana", "oh_hell", {"max_cards": 3, "rebound": False}, seats=3)
    others = [pages.open(f"/r/{code}", viewport=PHONE), pages.open(f"/r/{code}", viewport=PHONE)]
    for page, name in zip(others, ("Bea", "Cid"), strict=True):
        table.join_and_sit(page, name)
    ana.locator("[data-start]").click()
    expect(ana.locator("#room-title")).to_contain_text("Playing")
    take_back = ana.get_by_role("button", name="Take back", exact=True)
    deadline = time.monotonic() + 90
    while True:  # until a move of Ana's may be taken back (the bid that ends the bidding may not)
        assert time.monotonic() < deadline, "Ana never made a move she could take back"
        if table.act_once(ana):
            try:
                expect(take_back).to_be_visible(timeout=2000)
                if not table.my_turn(ana):  # when Ana acts next (she took the trick) nobody is asked
                    break
            except AssertionError:
                pass
        for page in others:
            table.act_once(page)
        time.sleep(0.04)
    take_back.focus()
    ana.keyboard.press("Enter")
    expect(ana.locator("#courtesies")).to_contain_text("Waiting for")
    asked = None
    while asked is None:
        assert time.monotonic() < deadline + 15, "nobody was asked to allow the take-back"
        asked = next((p for p in others if p.locator("#courtesies .undo-ask").count()), None)
        time.sleep(0.04)
    allow = asked.get_by_role("button", name="Allow", exact=True)
    expect(allow).to_be_in_viewport()
    axe = AxeCheck()
    axe.check(asked, "phone: asked to allow a take-back")
    allow.focus()
    asked.keyboard.press("Enter")
    expect(ana.locator("#controls .turn-banner")).to_be_visible()  # Ana's move again
    expect(take_back).to_be_hidden()
    expect(asked.locator("#courtesies .undo-ask")).to_have_count(0)
    axe.assert_clean()
