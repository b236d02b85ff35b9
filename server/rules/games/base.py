"""The engine surface's former path (``server.rules.game`` is the surface itself)."""

from server.rules.game import (
    Action,
    Game,
    GameError,
    GameOptions,
    IllegalAction,
    NotYourTurn,
    Sections,
    Setup,
    Teams,
    action_cards,
    action_type,
    canonical_action,
    shared_action,
    shared_actions,
    stacked_decks,
)

__all__ = [
    "Action",
    "Game",
    "GameError",
    "GameOptions",
    "IllegalAction",
    "NotYourTurn",
    "Sections",
    "Setup",
    "Teams",
    "action_cards",
    "action_type",
    "canonical_action",
    "shared_action",
    "shared_actions",
    "stacked_decks",
]
