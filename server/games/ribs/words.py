"""Ribs's options in players' words, in English and Portuguese (the lobby's labels,
as in ``web/js/locales/``), each with the heading of the rules-page section that explains it."""

from server.rules.words import GameWords, OptionWords, Said

WORDS = GameWords(
    options={
        "target": OptionWords(
            "Options",
            en=Said("Game points to win"),
            pt=Said("Pontos de jogo para vencer"),
        ),
        "until_sole_winner": OptionWords(
            "Options",
            en=Said("Play until one player leads"),
            pt=Said("Jogar até um jogador liderar sozinho"),
        ),
    },
    order=("target", "until_sole_winner"),
    folded=frozenset({"target"}),  # the target: said last, always
)
