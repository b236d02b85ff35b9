"""The rules layer: cards, tricks, the engine surface every game implements, pure and synchronous.

Nothing in this package does I/O: no asyncio, no database, no clock, no logging. A game is
a handful of functions over immutable states (``server.rules.game``; the games themselves are
folders of ``server.games``, their engines built on this layer); randomness enters once,
as a seed. Everything else in Felt (rooms, edges, storage, bots) sits on top of it.
"""
