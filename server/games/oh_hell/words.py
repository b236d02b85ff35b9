"""Oh Hell's options in players' words, in English and Portuguese (the lobby's labels,
as in ``web/js/locales/``), each with the heading of the rules-page section that explains it."""

from server.rules.words import GameWords, OptionWords, Said

WORDS = GameWords(
    options={
        "start": OptionWords(
            "Settings",
            en=Said("First hand", {"high": "biggest hand first", "low": "smallest hand first"}),
            pt=Said("Primeira mão", {"high": "Mão maior primeiro", "low": "Mão menor primeiro"}),
        ),
        "rebound": OptionWords(
            "Settings",
            en=Said("Come back again"),
            pt=Said("Voltar de novo"),
        ),
        "min_cards": OptionWords(
            "Settings",
            en=Said("Fewest cards in a hand"),
            pt=Said("Menos cartas numa mão"),
        ),
        "max_cards": OptionWords(
            "Settings",
            en=Said("Most cards in a hand", {None: "the usual"}),
            pt=Said("Mais cartas numa mão", {None: "o usual"}),
        ),
        "hook": OptionWords(
            "Settings",
            en=Said("Hook rule"),
            pt=Said("Regra do gancho"),
        ),
        "scoring": OptionWords(
            "Scoring methods",
            en=Said(
                "Scoring",
                {
                    "standard": "standard",
                    "basic": "basic",
                    "penalty": "penalty",
                    "anderson": "Anderson",
                    "squared": "squared",
                    "exact": "exact",
                },
            ),
            pt=Said(
                "Contagem",
                {
                    "standard": "Padrão",
                    "basic": "Simples",
                    "penalty": "Penalidade",
                    "anderson": "Anderson (provisória)",
                    "squared": "Ao quadrado",
                    "exact": "Exata",
                },
            ),
        ),
        "hook_last_hand": OptionWords(
            "Hook in the 1-card hand",
            en=Said("Hook in the 1-card hand"),
            pt=Said("Gancho na mão de 1 carta"),
        ),
        "trump": OptionWords(
            "Trump",
            en=Said(
                "Trump",
                {
                    "turn": "turn up a card",
                    "no_trump_largest": "largest hand without trump",
                    "rotation": "rotation (hearts, diamonds, clubs, spades, no trump)",
                    "no_trump": "no trump ever",
                    "S": "spades always",
                    "H": "hearts always",
                    "D": "diamonds always",
                    "C": "clubs always",
                },
            ),
            pt=Said(
                "Trunfo",
                {
                    "turn": "Virar uma carta",
                    "no_trump_largest": "Mão maior sem trunfo",
                    "rotation": "Rotação (♥ ♦ ♣ ♠ sem trunfo)",
                    "no_trump": "Nunca há trunfo",
                    "S": "Sempre espadas",
                    "H": "Sempre copas",
                    "D": "Sempre ouros",
                    "C": "Sempre paus",
                },
            ),
        ),
        "blind_one": OptionWords(
            "Blind 1-card hand",
            en=Said("Blind 1-card hand"),
            pt=Said("Mão de 1 carta às cegas"),
        ),
        "vienna": OptionWords(
            "Scoring methods",
            en=Said("Vienna"),
            pt=Said("Viena"),
        ),
        "until_clear_winner": OptionWords(
            "Settings",
            en=Said("Play until one player leads"),
            pt=Said("Jogar até um jogador liderar sozinho"),
        ),
    },
    order=(
        "trump",
        "scoring",
        "start",
        "rebound",
        "min_cards",
        "max_cards",
        "hook",
        "hook_last_hand",
        "vienna",
        "blind_one",
        "until_clear_winner",
    ),
)
