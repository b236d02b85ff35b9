"""Every game starts a match through ``Game.new_game``: the same checks, in the same order, with
the same sentences, before the game's own ``start`` deals."""

from __future__ import annotations

import pytest

from server.games import all_games
from server.rules.game import Game

GAMES = all_games()
IDS = [game.name for game in GAMES]


@pytest.mark.parametrize("game", GAMES, ids=IDS)
def test_no_game_writes_its_own_new_game(game):
    assert type(game).new_game is Game.new_game


@pytest.mark.parametrize("game", GAMES, ids=IDS)
def test_a_match_without_a_player_count_seats_the_default(game):
    state = game.new_game(seed=3)
    assert game.players(state) == game.default_players
    assert game.to_act(state) != []


@pytest.mark.parametrize("game", GAMES, ids=IDS)
def test_stacked_decks_must_be_a_list_of_lists_of_cards(game):
    players = game.default_players
    with pytest.raises(ValueError, match=r"^decks must be a list of decks$"):
        game.new_game(players, decks="AS KS")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"^each stacked deck must be a list of cards$"):
        game.new_game(players, decks=["AS KS"])


@pytest.mark.parametrize("game", GAMES, ids=IDS)
def test_a_stacked_deck_is_the_games_own_deck(game):
    players = game.default_players
    deck = list(reversed(game.deck(game.parse_options(None), players)))
    first = game.hand_records(game.new_game(players, seed=1, decks=[deck]))
    assert game.hand_records(game.new_game(players, seed=2, decks=[deck])) == first  # dealt, not shuffled
    assert game.hand_records(game.new_game(players, seed=1)) != first
    with pytest.raises(ValueError, match="a stacked deck must hold exactly"):
        game.new_game(players, decks=[deck[:-1]])


@pytest.mark.parametrize("game", GAMES, ids=IDS)
def test_default_options_are_made_once(game):
    assert game.parse_options(None) is game.parse_options({})
    assert game.parse_options(None) == game.Options()


@pytest.mark.parametrize("game", GAMES, ids=IDS)
def test_the_default_options_written_out_are_the_defaults_one_object(game):
    """A table keeps every option it was opened with: its match shares the defaults' object."""
    default = game.parse_options(None)
    written_out = game.parse_options(default.model_dump())
    assert written_out is default


@pytest.mark.parametrize("game", GAMES, ids=IDS)
def test_the_player_count_is_checked_before_the_options(game):
    with pytest.raises(ValueError, match="players"):
        game.new_game(game.max_players + 1, options={"no_such_option": 1})


def test_options_that_do_not_suit_the_players_are_refused_before_the_dealer():
    oh_hell = next(game for game in GAMES if game.name == "oh_hell")
    with pytest.raises(ValueError, match="option 'max_cards'"):
        oh_hell.new_game(7, options={"max_cards": 10}, dealer=9)
    with pytest.raises(ValueError, match="dealer must be a seat from 0 to 6"):
        oh_hell.new_game(7, options={"max_cards": 7}, dealer=9)
