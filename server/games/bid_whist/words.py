"""Bid Whist's options in players' words, in English and Portuguese (the lobby's labels,
as in ``web/js/locales/``), each with the heading of the rules-page section that explains it."""

from server.rules.words import GameWords, OptionWords, Said

WORDS = GameWords(
    options={
        "target": OptionWords(
            "Scoring",
            en=Said("Points to win"),
            pt=Said("Pontos para vencer"),
        ),
        "jokers": OptionWords(
            "Jokers",
            en=Said("Jokers", {0: "none", 1: "the big joker", 2: "both jokers"}),
            pt=Said("Curingas", {0: "Sem curingas", 1: "1 curinga (grande)", 2: "2 curingas (grande e pequeno)"}),
        ),
        "joker_no_trump": OptionWords(
            "Jokers",
            en=Said("Jokers in no trump", {"free": "played freely", "must_play": "a void player throws a joker"}),
            pt=Said("Curingas sem trunfo", {"free": "Livre para guardar", "must_play": "Obrigatório sem o naipe"}),
        ),
        "books": OptionWords(
            "Books",
            en=Said("Books", {"seed": "12 tricks, a book of 5", "thirteen": "13 books, a book of 6"}),
            pt=Said("Vazas", {"seed": "12 vazas, base 5", "thirteen": "13 vazas, base 6"}),
        ),
        "min_bid": OptionWords(
            "Lowest winning bid",
            en=Said("Lowest winning bid", {3: "Three", 4: "Four"}),
            pt=Said("Menor aposta vencedora", {3: "Três", 4: "Quatro"}),
        ),
        "game_to": OptionWords(
            "Books",
            en=Said("Game to ±"),
            pt=Said("Jogo até ±"),
        ),
        "directions": OptionWords(
            "Uptown and downtown",
            en=Said("Uptown and downtown"),
            pt=Said("Para cima e para baixo"),
        ),
        "no_trump": OptionWords(
            "No trump bids",
            en=Said("No trump bids"),
            pt=Said("Apostas sem trunfo"),
        ),
        "downtown_beats_uptown": OptionWords(
            "Uptown and downtown",
            en=Said("Downtown beats uptown"),
            pt=Said("Para baixo vale mais"),
        ),
        "no_trump_double": OptionWords(
            "No trump bids",
            en=Said("No trump counts double"),
            pt=Said("Sem trunfo vale o dobro"),
        ),
        "boston": OptionWords(
            "Boston",
            en=Said("Boston", {"wins": "wins the game", "quadruple": "scores four times"}),
            pt=Said("Fazer todas as vazas", {"wins": "Ganha o jogo", "quadruple": "Conta quatro vezes"}),
        ),
        "sport_kitty": OptionWords(
            "Show the kitty",
            en=Said("Show the kitty"),
            pt=Said("Mostrar a viúva"),
        ),
    },
    order=(
        "target",
        "jokers",
        "books",
        "directions",
        "no_trump",
        "downtown_beats_uptown",
        "no_trump_double",
        "boston",
        "sport_kitty",
        "min_bid",
        "game_to",
        "joker_no_trump",
    ),
    # the target is said last, always; the books as "to ±7", no trump with the directions
    folded=frozenset({"target", "game_to", "books", "no_trump"}),
)
