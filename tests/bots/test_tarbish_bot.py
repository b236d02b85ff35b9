"""The Tarabish bot: legal, whole matches, and its main heuristics."""

from __future__ import annotations

import random

from server.bots import get_bot
from server.games import get_game
from server.games.tarbish.bots import TarbishBot, rate_no_trump, rate_trump

GAME = get_game("tarbish")


def playing_view(hand, trick, trump="H", seat=3, caller=0):
    return {
        "phase": "playing",
        "to_act": [seat],
        "hand": hand,
        "trick": [{"seat": s, "card": c} for s, c in trick],
        "trump": trump,
        "caller": caller,
    }


def plays(hand, legal_cards, trick, **kw):
    bot = TarbishBot(random.Random(0))
    legal = [{"type": "play", "card": c} for c in legal_cards]
    return bot.choose(playing_view(hand, trick, **kw), legal)["card"]


def test_a_table_of_four_bots_finishes_whole_matches_with_legal_actions_only():
    for match in range(12):
        bots = [get_bot("tarbish", random.Random(match * 4 + s)) for s in range(4)]
        options = {"target": 500 if match < 4 else 200}
        state = GAME.new_game(4, options=options, seed=match, dealer=match % 4)
        steps = 0
        while GAME.to_act(state):
            (seat,) = GAME.to_act(state)
            view = GAME.view(state, seat)
            action = bots[seat].choose(view, view["legal"])
            assert action in GAME.legal_actions(state, seat)
            state = GAME.apply(state, seat, action)
            steps += 1
            assert steps < 5000
        out = GAME.outcome(state)
        assert out is not None and max(out["scores"]) >= (500 if match < 4 else 200)


def test_bots_beat_random_players_more_often_than_not():
    wins = 0
    games = 16
    for match in range(games):
        rng = random.Random(1000 + match)
        bots = {s: TarbishBot(random.Random(s)) for s in (0, 2)}  # team 0 are bots
        state = GAME.new_game(4, options={"target": 300}, seed=500 + match, dealer=match % 4)
        while GAME.to_act(state):
            (seat,) = GAME.to_act(state)
            legal = GAME.legal_actions(state, seat)
            action = bots[seat].choose(GAME.view(state, seat), legal) if seat in bots else rng.choice(legal)
            state = GAME.apply(state, seat, action)
        wins += GAME.outcome(state)["winners"] == [0, 2]
    assert wins > games // 2


def test_a_strong_trump_hand_names_that_suit():
    hand = ["JH", "9H", "AH", "7H", "AS", "8C"]
    legal = [{"type": "trump", "suit": s} for s in "SHDC"] + [{"type": "pass"}]
    view = {"phase": "naming", "to_act": [0], "hand": hand}
    assert TarbishBot(random.Random(0)).choose(view, legal) == {"type": "trump", "suit": "H"}
    assert rate_trump(hand, "H") >= 70


def test_a_weak_hand_passes_but_a_forced_dealer_still_names_its_best_suit():
    hand = ["7S", "8S", "6H", "7D", "QD", "6C"]
    trumps = [{"type": "trump", "suit": s} for s in "SHDC"]
    view = {"phase": "naming", "to_act": [3], "hand": hand}
    bot = TarbishBot(random.Random(0))
    assert bot.choose(view, trumps + [{"type": "pass"}]) == {"type": "pass"}
    forced = bot.choose(view, trumps)
    assert forced["type"] == "trump"
    assert rate_trump(hand, forced["suit"]) == max(rate_trump(hand, s) for s in "SHDC")


def test_the_bot_declares_a_run_it_holds():
    legal = [{"type": "declare"}, {"type": "pass"}]
    view = {"phase": "declaring", "to_act": [1], "hand": ["6S", "7S", "8S"]}
    assert TarbishBot(random.Random(0)).choose(view, legal) == {"type": "declare"}


def test_last_to_play_it_wins_the_trick_with_its_cheapest_winning_card():
    # spades led, opponent seat 2 winning with QS; the bot (seat 3) can win with AS or KS
    card = plays(["AS", "KS", "7S"], ["AS", "KS", "7S"], [(0, "9S"), (1, "6S"), (2, "QS")], seat=3)
    assert card == "KS"


def test_when_it_cannot_win_it_throws_its_cheapest_card():
    card = plays(["QS", "7S", "KS"], ["QS", "7S", "KS"], [(0, "AS"), (1, "6S"), (2, "8S")], seat=3)
    assert card == "7S"


def test_it_feeds_points_to_a_partner_who_is_winning_when_it_plays_last():
    card = plays(["10S", "7S"], ["10S", "7S"], [(0, "8S"), (1, "AS"), (2, "KS")], seat=3)
    assert card == "10S"


def test_the_calling_team_leads_the_trump_jack_to_draw_trumps():
    card = plays(["JH", "7H", "AS", "8D"], ["JH", "7H", "AS", "8D"], [], seat=2, caller=0)
    assert card == "JH"
    card = plays(["JH", "7H", "AS", "8D"], ["JH", "7H", "AS", "8D"], [], seat=1, caller=0)
    assert card == "AS"


OPTION_SETS = [
    {"no_trump": True},
    {"dealer_forced": False},
    {"no_trump": True, "dealer_forced": False, "half_bait": True},
]


def test_bots_finish_whole_matches_under_each_house_option():
    calls = {"N": 0, "throw_ins": 0}
    for k, extra in enumerate(OPTION_SETS):
        for match in range(4):
            bots = [get_bot("tarbish", random.Random(100 * k + match * 4 + s)) for s in range(4)]
            state = GAME.new_game(4, options={"target": 300, **extra}, seed=50 + match, dealer=match % 4)
            steps = 0
            while GAME.to_act(state):
                (seat,) = GAME.to_act(state)
                view = GAME.view(state, seat)
                action = bots[seat].choose(view, view["legal"])
                assert action in GAME.legal_actions(state, seat)
                calls["N"] += action == {"type": "trump", "suit": "N"}
                before = state.match.hand_index, len(state.match.history)
                state = GAME.apply(state, seat, action)
                calls["throw_ins"] += state.match.hand_index > before[0] and len(state.match.history) == before[1]
                steps += 1
                assert steps < 5000
            assert GAME.outcome(state) is not None
    assert calls["throw_ins"] > 0  # the option was really played (no trump: see below)


def test_a_hand_of_aces_and_tens_calls_no_trump_when_it_may():
    hand = ["AS", "10S", "KS", "AH", "10H", "AD"]
    assert rate_no_trump(hand) > max(rate_trump(hand, s) for s in "SHDC")
    bot = TarbishBot(random.Random(0))
    legal = [{"type": "trump", "suit": s} for s in "SHDCN"] + [{"type": "pass"}]
    assert bot.choose({"hand": hand, "to_act": [0]}, legal) == {"type": "trump", "suit": "N"}
    # without the option the same hand is too weak for a suit, but a forced dealer names one
    assert bot.choose({"hand": hand, "to_act": [0]}, legal[:4] + legal[5:]) == {"type": "pass"}
    assert bot.choose({"hand": hand, "to_act": [0]}, legal[:4])["suit"] in "SHDC"


def test_a_dealer_who_may_pass_passes_a_weak_hand():
    bot = TarbishBot(random.Random(0))
    legal = [{"type": "trump", "suit": s} for s in "SHDC"] + [{"type": "pass"}]
    assert bot.choose({"hand": ["6S", "7H", "8D", "6C", "7C", "9S"], "to_act": [3]}, legal) == {"type": "pass"}
