// The games' option defaults as GET /api/games gives them today (each option's schema default),
// for the summary tests: an entry of the list is {name, options: a JSON Schema with defaults}.
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

/** The game's entry in GET /api/games, as far as the summary reads it. */
export const entry = (name) => ({ name, options: schema(DEFAULTS[name]) });
