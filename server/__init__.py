"""Felt: a real-time multiplayer server for trick-taking card games."""

__version__ = "0.1.0"
