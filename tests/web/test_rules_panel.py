"""How to play, in a real browser: the lobby links each game's summary to its rules page, and at
a bot table the "How to play" dialog opens at the part that matters now (bidding), takes the
focus, never moves the table, and closes with Esc."""

from __future__ import annotations

import json
import re
import urllib.parse

from code_words import code_words
from conftest import DESKTOP, PHONE
from playwright.sync_api import expect

IN_VIEW = """([box, target]) => {
  const b = box.getBoundingClientRect(), r = target.getBoundingClientRect();
  return r.top >= b.top - 1 && r.top < b.bottom && r.bottom > b.top;
}"""


def start_bot_table(pages, table, viewport):
    page = pages.open("/", viewport=viewport)
    table.create_room(page, "Ana", "bid_whist", {"target": 9})
    for _ in range(3):
        page.locator("[data-bot-next]").click()
    expect(page.locator(".badge-bot")).to_have_count(3)
    page.locator("[data-start]").click()
    expect(page.locator("#room-title")).to_contain_text(re.compile("Playing|Em jogo"))
    return page


def test_how_to_play_opens_at_bidding_and_closes_with_esc(pages, table, artifacts):
    for size, viewport in (("desktop", DESKTOP), ("phone", PHONE)):
        page = start_bot_table(pages, table, viewport)
        # Ana's bid is asked for: the hand is in its bidding phase until she answers.
        expect(page.locator("#controls .turn-banner")).to_be_visible(timeout=30_000)
        expect(page.locator("#info")).to_contain_text("Bidding")
        opener = page.get_by_role("button", name="How to play")
        # Scroll to the button first, as a person would (on a phone it sits below the hand),
        # then judge the dialog: opening and closing it moves the page under it not at all.
        opener.scroll_into_view_if_needed()
        before = page.evaluate("() => [scrollX, scrollY, document.querySelector('#table').getBoundingClientRect().top]")
        opener.click()
        dialog = page.get_by_role("dialog", name=re.compile("How to play Bid Whist"))
        expect(dialog).to_be_visible()
        section = dialog.locator("#bidding")
        expect(section).to_contain_text("Bidding.")
        expect(section).to_be_focused()  # focus moved into the dialog, onto the section
        body = dialog.locator(".rules-dialog-body")
        assert page.evaluate(IN_VIEW, [body.element_handle(), section.element_handle()])
        # The table's house options, as they apply, and a link to the whole page at this section.
        expect(dialog.locator(".rules-options")).to_contain_text("Points to win: 9 (usually 21)")
        # (the table's options in full: every house option at its default, and the target of 9)
        full = dialog.get_by_role("link", name="Full rules page")
        expect(full).to_have_attribute("href", re.compile(r"^/rules/bid_whist\?options=.*#bidding$"))
        query = urllib.parse.urlsplit(full.get_attribute("href")).query
        sent = json.loads(urllib.parse.parse_qs(query)["options"][0])
        assert sent["target"] == 9 and sent.get("jokers", 0) == 0 and sent.get("directions", False) is False, sent
        page.screenshot(path=str(artifacts / f"rules-dialog-{size}.png"))
        after = page.evaluate("() => [scrollX, scrollY, document.querySelector('#table').getBoundingClientRect().top]")
        assert after == before, (before, after)
        page.keyboard.press("Escape")
        expect(dialog).to_be_hidden()
        expect(opener).to_be_focused()
        assert (
            page.evaluate("() => [scrollX, scrollY, document.querySelector('#table').getBoundingClientRect().top]")
            == before
        )


def test_the_lobby_links_each_game_to_its_rules_page(pages, artifacts):
    page = pages.open("/", viewport=DESKTOP)
    page.get_by_label("Game", exact=True).select_option("ribs")
    link = page.get_by_role("link", name=re.compile("How to play Ribs"))
    expect(link).to_have_attribute("href", "/rules/ribs")
    link.click()
    expect(page).to_have_url(re.compile("/rules/ribs$"))
    expect(page).to_have_title("Felt · How to play Ribs")
    expect(page.get_by_role("heading", level=1)).to_have_text("How to play Ribs")
    page.get_by_role("navigation", name="Contents").get_by_role("link", name="The trick").click()
    expect(page).to_have_url(re.compile("/rules/ribs#the-trick$"))
    expect(page.get_by_role("link", name=re.compile("Back to the lobby"))).to_be_visible()
    page.screenshot(path=str(artifacts / "rules-page-ribs.png"))


def test_the_portuguese_table_shows_the_english_rules_with_a_note(pages, table):
    host = pages.open("/", viewport=DESKTOP)
    table.create_room(host, "Ana", "ribs", {"target": 3}, seats=4)
    for _ in range(3):
        host.locator("[data-bot-next]").click()
    expect(host.locator(".badge-bot")).to_have_count(3)
    host.locator("[data-start]").click()
    expect(host.locator("#room-title")).to_contain_text("Playing")
    watcher = pages.open(None, viewport=PHONE, locale="pt-BR")
    watcher.goto(host.url)
    expect(watcher.locator("#room-title")).to_contain_text("Em jogo")
    watcher.get_by_role("button", name="Como jogar").click()
    dialog = watcher.get_by_role("dialog", name=re.compile("Como jogar Ribs"))
    expect(dialog).to_contain_text("As regras estão em inglês.")
    expect(dialog.locator(".rules-dialog-body")).to_have_attribute("lang", "en")
    here = dialog.locator(".rules-here")  # the section of the phase the table is in
    expect(here).to_be_focused()
    expect(here).to_have_attribute("id", re.compile("^(bidding-before-every-trick|the-trick|hand-and-game)$"))
    expect(dialog.locator(".rules-options")).to_contain_text("Pontos de jogo para vencer: 3 (normalmente 5)")
    watcher.keyboard.press("Escape")
    expect(dialog).to_be_hidden()


HOUSE = {
    "jokers": 2,
    "joker_no_trump": "must_play",
    "books": "thirteen",
    "min_bid": 3,
    "directions": True,
    "no_trump": True,
    "downtown_beats_uptown": False,
    "boston": "quadruple",
    "sport_kitty": True,
}


def test_how_to_play_speaks_no_code_in_either_language(pages, table, artifacts):
    """A Bid Whist table with every house option: the dialog names each as the lobby does, in
    English and in Portuguese, and nothing in it (options box, rules) is code."""
    for size, viewport in (("desktop", DESKTOP), ("phone", PHONE)):
        page = pages.open("/", viewport=viewport)
        table.create_room(page, "Ana", "bid_whist", HOUSE)
        for lang, opener, words in (
            (
                "en",
                "How to play",
                [
                    "Jokers: 2 jokers (big and little) (usually No jokers)",
                    "No trump bids: on (usually off)",
                    "Books: 13 books, book of 6 (usually 12 tricks, book of 5)",
                ],
            ),
            ("pt", "Como jogar", ["Curingas: 2 curingas (grande e pequeno)", "(normalmente"]),
        ):
            if lang == "pt":
                page.evaluate("localStorage.setItem('felt.lang', 'pt')")
                page.reload()
            page.get_by_role("button", name=opener, exact=True).click()
            dialog = page.get_by_role("dialog")
            box = dialog.locator(".rules-options")
            expect(box.locator("li")).to_have_count(len(HOUSE))
            for said in words:
                expect(box).to_contain_text(said)
            expect(dialog.locator("article.rules")).to_contain_text("Uptown and downtown")
            text = dialog.inner_text()
            assert code_words(text) == [], (lang, code_words(text))
            assert "<code" not in dialog.inner_html()
            page.screenshot(path=str(artifacts / f"rules-words-{lang}-{size}.png"))
            page.keyboard.press("Escape")
            expect(dialog).to_be_hidden()
