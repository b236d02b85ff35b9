"""The table's helpers in a real browser, against bots: the hand sorted by suit (colours
alternating), trumps to one side, by rank or by hand (dragged, or moved with the keys), as each
game orders its cards (Bid Whist downtown, Tarabish's trump order), kept on the device across a
reload; Oh Hell's bid bar with the hook's forbidden bid; each seat's "needs N more" / "made" /
"set" as tricks are won; in Portuguese; at phone and desktop widths; no axe violations."""

from __future__ import annotations

import re
import time
from itertools import pairwise, permutations

import pytest
from conftest import DESKTOP, PHONE
from playwright.sync_api import expect
from test_accessibility import AXE, OPTIONS, SETTLE, at_rest, describe, in_portuguese
from test_table_feel import _start_against_bots

ACES_HIGH = ["A", "K", "Q", "J", "10", "9", "8", "7", "6", "5", "4", "3", "2"]
DOWNTOWN = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]
TARABISH_TRUMP = ["J", "9", "A", "10", "K", "Q", "8", "7", "6"]
TARABISH_PLAIN = ["A", "10", "K", "Q", "J", "9", "8", "7", "6"]
JOKERS = ["BJ", "LJ"]
BLACK = {"S", "C"}
WORDS = {"Three": 3, "Four": 4, "Five": 5, "Six": 6, "Seven": 7}

# What the page shows: the hand in its order, the trump, Bid Whist's direction, each seat's notes.
READ = """() => {
  const seats = [...document.querySelectorAll('[data-seat-box]')].sort((a, b) => a.dataset.seatBox - b.dataset.seatBox);
  const badge = document.querySelector('#info .suit-badge');
  const dir = document.querySelector('#info .bw-direction');
  return {
    cards: [...document.querySelectorAll('#hand .hand-cards button[data-card]')].map((b) => b.dataset.card),
    trump: badge ? [...badge.classList].find((c) => c.startsWith('suit-') && c.length === 6).slice(5) : null,
    direction: dir ? dir.dataset.direction : null,
    play: dir ? dir.dataset.play || null : null,
    notes: seats.map((s) => [...s.querySelectorAll('.seat-notes > span')].map((n) => n.textContent)),
    goals: seats.map((s) => s.querySelector('.seat-goal')?.textContent ?? null),
    dealer: seats.map((s) => !!s.querySelector('.badge-dealer')),
    you: seats.findIndex((s) => s.classList.contains('seat-you')),
    bar: document.querySelector('#bid-bar')?.hidden ? null : document.querySelector('#bid-bar')?.textContent,
    mine: !!document.querySelector('#controls .turn-banner'),
  };
}"""


def split(card: str) -> tuple[str, str | None]:
    if card in JOKERS:
        return card, None
    return (card[:-1], card[-1]) if card[-1] in "SHDC" and len(card) > 1 else (card, None)


def power(card: str, trump: str | None, ranks) -> int:
    if card in JOKERS:
        return JOKERS.index(card) - 2
    rank, suit = split(card)
    return ranks(suit, suit is not None and suit == trump).index(rank)


def groups(cards: list[str], trump: str | None) -> list[str]:
    """The row's groups in order (a joker is of the trump's group, or "joker")."""
    out: list[str] = []
    for card in cards:
        g = (trump or "joker") if card in JOKERS else split(card)[1]
        if not out or out[-1] != g:
            out.append(g)
    return out


def check_order(cards: list[str], mode: str, trump: str | None, ranks) -> None:
    """The shown row keeps ``mode``'s promises, checked from its rules, not from sorting.js."""
    if mode == "rank":
        keys = [power(c, trump, ranks) for c in cards]
        assert keys == sorted(keys), (mode, cards)
        for a, b in pairwise(cards):
            if power(a, trump, ranks) == power(b, trump, ranks) and split(b)[1] == trump:
                assert split(a)[1] == trump, f"a trump comes first among equal ranks: {cards}"
        return
    seen = groups(cards, trump)
    assert len(seen) == len(set(seen)), f"each suit together: {cards}"
    for g in seen:
        run = [c for c in cards if ((trump or "joker") if c in JOKERS else split(c)[1]) == g]
        keys = [power(c, trump, ranks) for c in run]
        assert keys == sorted(keys), f"{g} high to low: {cards}"
    suits = [g for g in seen if g in "SHDC"]
    if "joker" in seen:
        assert seen[-1] == "joker", f"jokers without a trump go last: {cards}"
    first = [trump] if mode == "trump" and trump in suits else []
    if first:
        assert suits[0] == trump, f"trumps to one side: {cards}"
    rest = [s for s in suits if s not in first]
    fewest = min(same_colours(first + list(p)) for p in permutations(rest)) if rest else 0
    assert same_colours(suits) == fewest, f"colours alternate: {cards}"


def same_colours(suits: list[str]) -> int:
    """How many neighbouring suits share a colour."""
    return sum(1 for a, b in pairwise(suits) if (a in BLACK) == (b in BLACK))


def tricks_of(notes: list[str]) -> int:
    """A seat's tricks this hand, from its notes ("2 tricks")."""
    return sum(int(m.group(1)) for n in notes if (m := re.fullmatch(r"(\d+) tricks?", n)))


def tricks_left(state) -> int:
    """The tricks still to play, the one in progress included: the fullest hand ("3 cards")."""
    return max(int(m.group(1)) for notes in state["notes"] for n in notes if (m := re.fullmatch(r"(\d+) cards?", n)))


def ranks_for(game: str, direction: str | None = None):
    if game == "tarbish":
        return lambda suit, is_trump: TARABISH_TRUMP if is_trump else TARABISH_PLAIN
    if game == "bid_whist" and direction == "downtown":
        return lambda suit, is_trump: DOWNTOWN
    return lambda suit, is_trump: ACES_HIGH


def shown(page) -> list[str]:
    return page.evaluate(READ)["cards"]


def sort_by(page, mode: str) -> list[str]:
    page.locator("#hand-sort").select_option(mode)
    expect(page.locator("#hand-sort")).to_have_value(mode)
    return shown(page)


def play_until(page, table, until, timeout: float = 150, choose=None):
    """Ana plays her first legal move (or ``choose``'s) until ``until(state)`` holds at a moment
    nothing moves (her turn, no finished trick held or swept); returns that state."""
    deadline = time.monotonic() + timeout
    while True:
        assert time.monotonic() < deadline, "the table never came to the state looked for"
        assert not table.finished(page), "the match ended before the state looked for"
        state = page.evaluate(READ)
        if state["mine"] and at_rest(page):
            if until(state):
                return state
            if not (choose and choose(page, state)):
                table.act_once(page)
        time.sleep(0.05)


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


@pytest.mark.parametrize("size", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_oh_hell_sorts_every_way_keeps_the_choice_and_reorders_by_keys_and_drag(pages, table, size):
    page = pages.open("/", viewport=size)
    _start_against_bots(page, table, "oh_hell", {"max_cards": 7, "rebound": False})
    axe = AxeCheck()
    state = play_until(page, table, lambda s: len(s["cards"]) >= 5 and s["trump"])
    trump, ranks = state["trump"], ranks_for("oh_hell")
    expect(page.locator("#hand-sort")).to_have_value("suit")  # the default
    assert [o for o in page.locator("#hand-sort option").all_inner_texts()] == [
        "By suit",
        "Trumps to one side",
        "By rank",
        "By hand (drag)",
    ]
    cards = shown(page)
    check_order(cards, "suit", trump, ranks)
    for mode in ("trump", "rank", "suit"):
        again = sort_by(page, mode)
        assert sorted(again) == sorted(cards)
        check_order(again, mode, trump, ranks)

    # Kept on this device: the page opens sorted as it was left.
    by_rank = sort_by(page, "rank")
    page.reload()
    expect(page.locator("#hand-sort")).to_have_value("rank")
    assert shown(page) == by_rank

    # By hand: the order shown stays; the keys pick a card and move it.
    assert sort_by(page, "hand") == by_rank
    row = page.locator("#hand .hand-cards")
    expect(row).to_have_attribute("tabindex", "0")
    row.focus()
    page.keyboard.press("ArrowRight")
    expect(page.locator("#hand-picked")).to_have_attribute("data-card", by_rank[1])
    page.keyboard.press("Shift+ArrowLeft")
    moved = [by_rank[1], by_rank[0], *by_rank[2:]]
    assert shown(page) == moved
    expect(page.locator("#helpers-live")).to_contain_text(re.compile(r"moved: 1 of \d+"))
    page.keyboard.press("End")
    page.keyboard.press("Shift+Home")
    moved = [moved[-1], *moved[:-1]]
    assert shown(page) == moved
    axe.check(page, "Oh Hell, sorted by hand, a card picked")

    # A drag: the first card let go of over the last (nothing is played).
    first, last = (page.locator(f'#hand .hand-cards button[data-card="{c}"]') for c in (moved[0], moved[-1]))
    a, b = first.bounding_box(), last.bounding_box()
    page.mouse.move(a["x"] + a["width"] / 2, a["y"] + a["height"] / 2)
    page.mouse.down()
    page.mouse.move(b["x"] + b["width"] / 2 + 4, b["y"] + b["height"] / 2, steps=12)
    page.mouse.up()
    dragged = [*moved[1:], moved[0]]
    assert shown(page) == dragged
    # The arrangement survives a reload in the same hand.
    page.reload()
    expect(page.locator("#hand-sort")).to_have_value("hand")
    assert shown(page) == dragged
    sort_by(page, "suit")
    axe.assert_clean()


def test_oh_hell_bid_bar_names_the_hooks_bid_and_the_seats_needs_follow_the_tricks(pages, table):
    page = pages.open("/", viewport=DESKTOP)
    _start_against_bots(page, table, "oh_hell", {"max_cards": 6, "start": "low", "rebound": True})
    axe = AxeCheck()
    bars: list[str] = []
    hooked: list[str] = []

    def bids(state) -> list[int | None]:
        out = []
        for notes in state["notes"]:
            said = [int(m.group(1)) for n in notes if (m := re.fullmatch(r"Bid (\d+)", n))]
            out.append(said[0] if said else None)
        return out

    def check_bar(page, state) -> bool:
        if state["bar"] is None:
            return False
        total = sum(b for b in bids(state) if b is not None)
        size = len(state["cards"])
        words = f"Bids {total} of {size}"
        dealer = state["dealer"][state["you"]]
        forbidden = size - total
        if dealer and 0 <= forbidden <= size:
            words += f" · the dealer may not bid {forbidden}"
            expect(page.locator(f'#controls [data-bid="{forbidden}"]')).to_have_count(0)
            hooked.append(words)
        assert state["bar"] == words
        bars.append(words)
        if len(bars) == 1:
            axe.check(page, "Oh Hell bidding, the bid bar shown")
        return False

    goals_seen: set[str] = set()

    def check_goals(page, state) -> bool:
        if state["bar"] is None and any(state["goals"]):
            said = bids(state)
            for seat, notes in enumerate(state["notes"]):
                need = said[seat] - tricks_of(notes)
                want = "set" if need < 0 or need > tricks_left(state) else "made" if need == 0 else f"needs {need} more"
                assert state["goals"][seat] == want, (seat, notes, state["goals"])
                goals_seen.add(want.split(" ")[0])
        return False

    play_until(
        page,
        table,
        lambda s: len(hooked) >= 1 and {"needs", "made"} <= goals_seen and len(bars) >= 3,
        timeout=300,
        choose=lambda p, s: check_bar(p, s) or check_goals(p, s),
    )
    # While the tricks are played the bar is gone and the notes are said as they change.
    play_until(page, table, lambda s: s["bar"] is None and any(s["goals"]))
    expect(page.locator("#bid-bar")).to_be_hidden()
    axe.check(page, "Oh Hell mid-hand, each seat's needs")
    axe.assert_clean()


def test_bid_whist_downtown_sorts_low_cards_high_and_the_declarer_side_needs_n_more(pages, table):
    page = pages.open("/", viewport=DESKTOP)
    _start_against_bots(page, table, "bid_whist", {"target": 11, "directions": True})

    def bid_downtown(page, state) -> bool:
        top = page.locator('#controls [data-direction="downtown"][data-bid]')
        if top.count():
            top.last.click()  # the highest downtown bid: the contract is Ana's
            return True
        return False

    state = play_until(
        page, table, lambda s: s["direction"] == "downtown" and s["trump"] and len(s["cards"]) >= 8, choose=bid_downtown
    )
    ranks = ranks_for("bid_whist", "downtown")
    for mode in ("suit", "trump", "rank"):
        check_order(sort_by(page, mode), mode, state["trump"], ranks)
    by_rank = shown(page)
    low = [c for c in by_rank if c not in JOKERS and split(c)[0] in ("A", "2")]
    if low and any(split(c)[0] == "K" for c in by_rank):
        assert by_rank.index(low[0]) < min(i for i, c in enumerate(by_rank) if split(c)[0] == "K"), by_rank

    seen: list[str] = []

    def check_needs(page, state) -> bool:
        goals = state["goals"]
        if not any(goals):
            return False
        declarer = next(i for i, ns in enumerate(state["notes"]) if any(n.startswith("Declarer") for n in ns))
        contract = WORDS[next(n for n in state["notes"][declarer] if n.startswith("Declarer")).split("· ")[1]]
        side = [declarer, (declarer + 2) % 4]
        need = 5 + contract - sum(tricks_of(state["notes"][s]) for s in side)
        want = "made" if need <= 0 else "set" if need > tricks_left(state) else f"needs {need} more"
        assert [goals[s] for s in side] == [want, want], (state["notes"], goals)
        assert goals[(declarer + 1) % 4] is None and goals[(declarer + 3) % 4] is None
        if not seen or seen[-1] != want:
            seen.append(want)
        return False

    play_until(
        page, table, lambda s: len(seen) >= 3 or (seen and seen[-1] in ("made", "set")), choose=check_needs, timeout=200
    )
    assert len(seen) >= 2, seen


def test_tarabish_sorts_by_its_trump_order(pages, table):
    page = pages.open("/", viewport=PHONE)
    _start_against_bots(page, table, "tarbish", {"target": 1})
    state = play_until(page, table, lambda s: s["trump"] and len(s["cards"]) >= 6, timeout=200)
    ranks = ranks_for("tarbish")
    for mode in ("suit", "trump", "rank"):
        check_order(sort_by(page, mode), mode, state["trump"], ranks)
    cards = sort_by(page, "trump")
    trumps = [split(c)[0] for c in cards if split(c)[1] == state["trump"]]
    assert trumps == [r for r in TARABISH_TRUMP if r in trumps]
    box = page.locator("#hand-sort").bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"]


def test_ribs_sorts_by_rank_or_by_hand_only(pages, table):
    page = pages.open("/", viewport=DESKTOP)
    _start_against_bots(page, table, "ribs", {"target": 1}, seats=4)
    play_until(page, table, lambda s: len(s["cards"]) >= 4)
    assert page.locator("#hand-sort option").all_inner_texts() == ["By rank", "By hand (drag)"]
    cards = shown(page)
    assert [ACES_HIGH.index(c) for c in cards] == sorted(ACES_HIGH.index(c) for c in cards)


def test_portuguese_words_on_a_phone_with_no_violations(pages, table):
    page = pages.open("/", viewport=PHONE)
    _start_against_bots(page, table, "oh_hell", {"max_cards": 3, "start": "low", "rebound": False})
    in_portuguese(page)
    axe = AxeCheck()
    state = play_until(page, table, lambda s: s["bar"] is not None)
    assert re.fullmatch(r"Apostas \d+ de \d+( · o carteador não pode apostar \d+)?", state["bar"]), state["bar"]
    expect(page.locator("label[for=hand-sort]")).to_have_text("Ordenar")
    assert page.locator("#hand-sort option").all_inner_texts() == [
        "Por naipe",
        "Trunfos num lado",
        "Por valor",
        "À mão (arrastar)",
    ]
    axe.check(page, "Portuguese, bidding on a phone")
    state = play_until(page, table, lambda s: any(s["goals"]))
    assert all(g is None or re.fullmatch(r"(faltam? \d+|cumpriu|falhou)", g) for g in state["goals"]), state["goals"]
    sort_by(page, "hand")
    axe.check(page, "Portuguese, playing on a phone, sorted by hand")
    sort_by(page, "suit")
    axe.assert_clean()
