"""The engine surface every game shares, checked through the registry."""

from __future__ import annotations

import pytest

from server.bots import get_bot
from server.games import GameError, IllegalAction, NotYourTurn, all_games, game_names, get_game


def test_the_registry_knows_the_five_games_by_name():
    assert game_names() == ["oh_hell", "bid_whist", "tarbish", "ribs", "spades"]
    assert get_game("tarbish").title == "Tarabish (Tarbish)"


def test_an_unknown_game_is_a_value_error_naming_the_known_games():
    with pytest.raises(ValueError, match="bid_whist, oh_hell, ribs, spades, tarbish"):
        get_game("chess")


def test_game_errors_are_value_errors():
    assert issubclass(IllegalAction, GameError) and issubclass(NotYourTurn, GameError)
    assert issubclass(GameError, ValueError)


@pytest.mark.parametrize("game", all_games(), ids=lambda g: g.name)
def test_unknown_or_bad_options_are_refused_naming_the_option(game):
    with pytest.raises(ValueError, match="colour"):
        game.new_game(game.default_players, {"colour": "red"}, seed=1)
    field = next(iter(game.options_schema()["properties"]))
    with pytest.raises(ValueError, match=field):
        game.new_game(game.default_players, {field: {"nested": "nonsense"}}, seed=1)


@pytest.mark.parametrize("game", all_games(), ids=lambda g: g.name)
def test_a_player_count_outside_the_range_is_refused(game):
    with pytest.raises(ValueError):
        game.new_game(game.max_players + 1, None, seed=1)
    with pytest.raises(ValueError):
        game.new_game(game.min_players - 1, None, seed=1)


@pytest.mark.parametrize("game", all_games(), ids=lambda g: g.name)
def test_every_game_describes_itself_with_an_options_schema_with_defaults(game):
    d = game.describe()
    assert d["name"] == game.name and d["min_players"] <= d["default_players"] <= d["max_players"]
    assert all("default" in p for p in d["options"]["properties"].values())


@pytest.mark.parametrize("game", all_games(), ids=lambda g: g.name)
def test_acting_out_of_turn_or_with_junk_is_refused_with_a_sentence(game):
    state = game.new_game(game.default_players, None, seed=3, dealer=0)
    acting = game.to_act(state)[0]
    idle = (acting + 1) % game.players(state)
    with pytest.raises(NotYourTurn) as err:
        game.apply(state, idle, game.legal_actions(state, acting)[0])
    assert str(err.value)
    for junk in [None, "play", 7, {}, {"type": 5}, {"type": "teleport"}, {"type": "play", "card": ["AS"]}]:
        with pytest.raises(IllegalAction) as err:
            game.apply(state, acting, junk)
        assert str(err.value).strip()


@pytest.mark.parametrize("game", all_games(), ids=lambda g: g.name)
def test_every_game_has_a_bot_that_only_chooses_legal_actions(game):
    state = game.new_game(game.default_players, None, seed=5, dealer=0)
    bots = [get_bot(game.name) for _ in range(game.players(state))]
    for _ in range(60):
        seats = game.to_act(state)
        if not seats:
            break
        seat = seats[0]
        legal = game.legal_actions(state, seat)
        action = bots[seat].choose(game.view(state, seat), legal)
        assert action in legal
        state = game.apply(state, seat, action)


@pytest.mark.parametrize("game", all_games(), ids=lambda g: g.name)
@pytest.mark.parametrize("dealer", [-1, 99, True, "0", None])
def test_a_first_dealer_who_is_not_a_seat_is_refused(game, dealer):
    with pytest.raises(ValueError, match="dealer must be a seat"):
        game.new_game(game.default_players, None, seed=1, dealer=dealer)


@pytest.mark.parametrize("game", all_games(), ids=lambda g: g.name)
def test_every_numeric_option_is_bounded_and_a_value_past_a_bound_is_refused_naming_it(game):
    """A match's length follows its options: no option may ask for a match of any length."""
    properties = game.options_schema()["properties"]
    numeric = {name: prop for name, prop in properties.items() if _is_integer(prop)}
    for name, prop in numeric.items():
        low, high = _bounds(prop)
        assert low is not None and high is not None, f"{game.name}.{name} is unbounded"
        needs = NEEDS.get((game.name, name), {})
        game.new_game(game.min_players, {**needs, name: high}, seed=1)  # the bound itself is fine
        for bad in (low - 1, high + 1):  # (an enum's outside values)
            with pytest.raises(ValueError, match=f"option '{name}'"):
                game.new_game(game.default_players, {**needs, name: bad}, seed=1)


# Options that only apply beside another (docs/rules/<game>.md says which; alone they are refused).
NEEDS = {
    ("bid_whist", "game_to"): {"books": "thirteen"},
    ("bid_whist", "min_bid"): {"books": "thirteen"},
}


@pytest.mark.parametrize(
    ("name", "default", "maximum"),
    [("bid_whist", 21, 50), ("tarbish", 500, 1000), ("ribs", 5, 30)],
)
def test_the_targets_keep_their_defaults_within_sane_maximums(name, default, maximum):
    target = get_game(name).options_schema()["properties"]["target"]
    assert (target["default"], target["minimum"], target["maximum"]) == (default, 1, maximum)


def _is_integer(prop: dict) -> bool:
    types = [prop.get("type")] + [p.get("type") for p in prop.get("anyOf", ())]
    return "integer" in types


def _bounds(prop: dict) -> tuple[int | None, int | None]:
    for p in [prop, *prop.get("anyOf", ())]:
        if p.get("type") == "integer" and "enum" in p:
            return min(p["enum"]), max(p["enum"])
        if p.get("type") == "integer":
            return p.get("minimum"), p.get("maximum")
    return None, None
