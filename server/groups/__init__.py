"""Groups: a standing table for a circle of friends (members, house rules, seasons, ledger)."""
