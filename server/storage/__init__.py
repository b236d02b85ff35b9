"""The storage layer: the database engine, its tables, data access and the match recorder.

Every call here is blocking; the async code runs it off the event loop (threads or the
recorder's worker process), never under a room's lock.
"""
