"""The edges: where bytes meet Felt. ``ws`` serves the room sockets, ``api`` the HTTP routes.

An edge parses what arrives, hands it to the rooms or the storage layer, and turns their
errors into wire errors in one place. No edge knows a game by name.
"""
