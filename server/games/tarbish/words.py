"""Tarabish's options in players' words, in English and Portuguese (the lobby's labels,
as in ``web/js/locales/``), each with the heading of the rules-page section that explains it."""

from server.rules.words import GameWords, OptionWords, Said

WORDS = GameWords(
    options={
        "target": OptionWords(
            "Scoring",
            en=Said("Points to win"),
            pt=Said("Pontos para vencer"),
        ),
        "half_bait": OptionWords(
            "Half bait on a tie",
            en=Said("Half bait on a tie"),
            pt=Said("Meia isca no empate"),
        ),
        "no_trump": OptionWords(
            "No trump may be called",
            en=Said("No trump may be called"),
            pt=Said("Pode-se jogar sem trunfo"),
        ),
        "dealer_forced": OptionWords(
            "Dealer must name trump",
            en=Said("Dealer must name trump"),
            pt=Said("O distribuidor tem de escolher o trunfo"),
        ),
    },
    order=("target", "half_bait", "no_trump", "dealer_forced"),
    folded=frozenset({"target"}),  # the target: said last, always
)
