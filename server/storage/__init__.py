"""The storage layer: the database engine, its tables, data access and the writer (table log
and finished matches; ``writer.py`` is its interface).

Every call here is blocking; the async code runs it off the event loop (threads or the
writer's worker process), never under a room's lock.
"""
