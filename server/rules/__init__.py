"""The rules layer: cards, tricks and the four games, pure and synchronous.

Nothing in this package does I/O: no asyncio, no database, no clock, no logging. A game is
a handful of functions over immutable states (``server.rules.games``); randomness enters once,
as a seed. Everything else in Felt (rooms, edges, storage, bots) sits on top of it.
"""
