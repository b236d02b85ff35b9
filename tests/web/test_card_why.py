"""A greyed card in your hand says why it cannot be played: a tap on it shows the rule in a line
under the hand (and says it to a screen reader), "Why not these cards?" does the same from the
keyboard, and every greyed card is described by that line. In all four games, in English and
Portuguese."""

from __future__ import annotations

import re
import time

import pytest
from conftest import DESKTOP, PHONE, PROBE
from playwright.sync_api import expect
from test_table_feel import _start_against_bots

ENGLISH = re.compile(
    r"^(You must follow suit: you hold an? (spade|heart|diamond|club)\."
    r"|You must follow suit: your joker is a trump\.|You must follow suit: you hold an? \w+ \(a joker"
    r"|You must head the trick|You hold no \w+: you must (play a trump|overtrump)"
    r"|No trump: you hold no \w+, so you must play a joker|Name trump, or lead a card"
    r"|It is not your turn: waiting for |The bidding comes first: cards are played once it is over\."
    r"|Trump is named first|The direction is chosen first)"
)
PORTUGUESE = re.compile(
    r"^(Você tem de seguir o naipe|Você tem de superar a vaza|Você não tem \w+: (tem de jogar um trunfo|tem de)"
    r"|Não é a sua vez: aguardando |Primeiro vêm as apostas|Primeiro se escolhe)"
)
GREYED = "#hand button[data-card]:disabled"
LIVE = "#hand button[data-card]:not(:disabled)"


# "choice" when Ana must play a card to a trick and some of her cards may not be played, else
# the step ``Table.act_once`` would take: one evaluation, so that no version can arrive between
# looking for the choice and choosing what to click (a turn reached in between was played blind).
CHOICE_OR_STEP = f"""() => {{
  if (document.querySelector('#controls .turn-banner') && document.querySelector('{LIVE}')
      && document.querySelector('{GREYED}')) return 'choice';
  return ({PROBE})();
}}"""


def _play_to_a_choice(page, table, timeout: float = 150) -> None:
    """Play on (the first legal move each time) until Ana must play a card to a trick and some
    cards of her hand may not be played: nothing changes on the table until she acts."""
    deadline = time.monotonic() + timeout
    while (step := page.evaluate(CHOICE_OR_STEP)) != "choice":
        assert not table.finished(page), "the match ended without a card Ana could not play"
        assert time.monotonic() < deadline, f"no greyed card at Ana's turn within {timeout} s"
        if step is None:
            time.sleep(0.04)
        else:
            table.take_step(page, step)


def _tap_then_keyboard(page, known: re.Pattern) -> list[str]:
    """Tap a greyed card, then ask from the keyboard; returns the lines shown."""
    card = page.locator(GREYED).first
    expect(card).to_have_attribute("aria-describedby", "card-why")
    why = page.locator("#card-why")
    expect(why).to_be_hidden()
    card.click(force=True)  # a disabled button: the tap still reaches the page
    expect(why).to_be_visible()
    tapped = why.inner_text()
    assert known.match(tapped), tapped
    expect(page.locator("#why-live")).to_have_text(tapped)

    ask = page.locator("#hand [data-card-why]")
    expect(ask).to_have_attribute("aria-expanded", "true")
    ask.focus()
    page.keyboard.press("Enter")  # asked again: the line closes
    expect(why).to_be_hidden()
    expect(ask).to_have_attribute("aria-expanded", "false")
    page.keyboard.press("Enter")  # the focus stayed on the control through the redraw
    expect(why).to_be_visible()
    expect(ask).to_have_attribute("aria-expanded", "true")
    asked = why.inner_text()
    assert known.match(asked), asked
    # Each greyed card is described by the line: a screen reader says why as it reaches it.
    described = page.locator(GREYED).first.evaluate(
        "el => document.getElementById(el.getAttribute('aria-describedby')).textContent"
    )
    assert known.match(described), described
    return [tapped, asked]


def _play_a_card_and_see_the_line_go(page) -> None:
    page.locator(LIVE).first.click()
    expect(page.locator("#card-why")).to_be_hidden()


@pytest.mark.parametrize(
    ("game", "options", "size"),
    [
        ("oh_hell", {"max_cards": 10, "rebound": False}, PHONE),
        ("bid_whist", {"target": 3}, DESKTOP),
        ("tarbish", {"target": 300}, PHONE),
    ],
    ids=["oh_hell", "bid_whist", "tarbish"],
)
def test_a_greyed_card_says_which_rule_keeps_it_back(pages, table, game, options, size):
    page = pages.open("/", viewport=size)
    _start_against_bots(page, table, game, options)
    _play_to_a_choice(page, table)
    lines = _tap_then_keyboard(page, ENGLISH)
    assert all("not your turn" not in line for line in lines), lines  # the rule, at her turn
    _play_a_card_and_see_the_line_go(page)


def _in_portuguese(page) -> None:
    page.locator("#lang").select_option("pt")
    page.wait_for_load_state()
    expect(page.locator("html")).to_have_attribute("lang", "pt-BR")


def test_in_ribs_and_in_portuguese_a_greyed_card_says_what_comes_first(pages, table):
    """Ribs plays pairs chosen from the whole hand: its cards are greyed while another decision
    comes first (the bidding) or while another seat acts (a friend, who takes her time); the
    line is in Portuguese there."""
    page = pages.open("/", viewport=PHONE)
    table.create_room(page, "Ana", "ribs", {"target": 2})
    bea = pages.open(None, viewport=DESKTOP)
    bea.goto(page.url)
    table.join_and_sit(bea, "Bea")
    for _ in range(2):
        page.locator("[data-bot-next]").click()
    expect(page.locator(".badge-bot")).to_have_count(2)
    page.locator("[data-start]").click()
    expect(page.locator("#room-title")).to_contain_text("Playing")
    _in_portuguese(page)
    why = page.locator("#card-why")
    bidding = "Primeiro vêm as apostas: as cartas são jogadas quando elas terminarem."
    seen: set[str] = set()
    deadline = time.monotonic() + 120
    while seen != {"bidding", "waiting"}:
        assert time.monotonic() < deadline, seen
        assert not table.finished(page), seen
        if table.my_turn(bea) and "waiting" not in seen:
            # Bea to act: nothing changes at the table until she does.
            page.locator(GREYED).first.click(force=True)
            expect(why).to_have_text(re.compile(r"^Não é a sua vez: aguardando Bea"))
            expect(page.locator("#why-live")).to_have_text(why.inner_text())
            seen.add("waiting")
        elif table.my_turn(page) and page.locator("#controls [data-bid]").count() and "bidding" not in seen:
            page.locator(GREYED).first.click(force=True)
            expect(why).to_have_text(bidding)
            expect(page.locator("#why-live")).to_have_text(bidding)
            expect(page.locator("#hand [data-card-why]")).to_have_count(0)  # no card to play: the prompt says
            seen.add("bidding")
        elif not (table.act_once(page) or table.act_once(bea)):
            time.sleep(0.04)


def test_in_portuguese_the_rule_of_the_trick_is_said_in_portuguese(pages, table):
    page = pages.open("/", viewport=DESKTOP)
    _start_against_bots(page, table, "oh_hell", {"max_cards": 10, "rebound": False})
    _in_portuguese(page)
    _play_to_a_choice(page, table)
    page.locator(GREYED).first.click(force=True)
    expect(page.locator("#card-why")).to_be_visible()
    line = page.locator("#card-why").inner_text()
    assert PORTUGUESE.match(line), line
    expect(page.locator("#hand [data-card-why]")).to_have_text("Por que não estas cartas?")
