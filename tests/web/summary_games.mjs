// The games as GET /api/games gives them, for the summary tests: each option's schema default,
// the order a summary says them in and those it folds (only what the summary reads).
export const DEFAULTS = {
  oh_hell: {
    start: "high", rebound: true, min_cards: 1, max_cards: null, hook: true, hook_last_hand: true,
    scoring: "standard", trump: "turn", blind_one: false, vienna: false, until_clear_winner: false,
  },
  bid_whist: {
    target: 21, jokers: 0, joker_no_trump: "free", books: "seed", min_bid: 4, game_to: 7, directions: false,
    no_trump: false, downtown_beats_uptown: true, no_trump_double: true, boston: "wins", sport_kitty: false,
  },
  tarbish: { target: 500, half_bait: false, no_trump: false, dealer_forced: true },
  ribs: { target: 5, until_sole_winner: false },
};

const schema = (defaults) => ({ properties: Object.fromEntries(Object.entries(defaults).map(([k, v]) => [k, { default: v }])) });

const ORDER = {
  oh_hell: ["trump", "scoring", "start", "rebound", "min_cards", "max_cards", "hook", "hook_last_hand", "vienna", "blind_one", "until_clear_winner"],
  bid_whist: ["target", "jokers", "books", "directions", "no_trump", "downtown_beats_uptown", "no_trump_double", "boston", "sport_kitty", "min_bid", "game_to", "joker_no_trump"],
  tarbish: ["target", "half_bait", "no_trump", "dealer_forced"],
  ribs: ["target", "until_sole_winner"],
};
const FOLDED = { bid_whist: ["books", "game_to", "no_trump", "target"] };

/** The game's entry in GET /api/games, as far as the summary reads it. */
export const entry = (name) => ({ name, options: schema(DEFAULTS[name]), order: ORDER[name], folded: FOLDED[name] || ["target"] });
