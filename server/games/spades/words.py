"""Spades' options in players' words, in English and Portuguese (the lobby's labels), each
with the heading of the rules-page section that explains it."""

from server.rules.words import GameWords, OptionWords, Said

WORDS = GameWords(
    options={
        "target": OptionWords(
            "Settings",
            en=Said("Points to win"),
            pt=Said("Pontos para vencer"),
        ),
        "blind_nil": OptionWords(
            "Blind nil",
            en=Said("Blind nil"),
            pt=Said("Nulo às cegas"),
        ),
        "bag_limit": OptionWords(
            "Settings",
            en=Said("Bag limit"),
            pt=Said("Limite de sacos"),
        ),
        "lose_at": OptionWords(
            "Losing score",
            en=Said("Losing score", {None: "off"}),
            pt=Said("Pontuação de derrota", {None: "desligado"}),
        ),
    },
    order=("target", "blind_nil", "bag_limit", "lose_at"),
)
