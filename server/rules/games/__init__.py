"""The engine surface's former path, kept for engines written against it: the surface is
``server.rules.game`` and the games are registered in ``server.games``."""
