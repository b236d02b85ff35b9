"""Alembic environment: run by the server (a connection handed in) or by the ``alembic`` CLI."""

from __future__ import annotations

from logging.config import fileConfig

import sqlalchemy as sa
from alembic import context

from server.storage.models import Base

config = context.config
target_metadata = Base.metadata

# Only the command line configures logging; inside the server the app's logging stays as it is.
if config.config_file_name is not None and config.attributes.get("configure_logger", True):
    fileConfig(config.config_file_name, disable_existing_loggers=False)


def _url() -> str:
    url = config.attributes.get("url")
    if url is not None:
        return url.render_as_string(hide_password=False) if hasattr(url, "render_as_string") else str(url)
    from server.config import get_settings

    return get_settings().database_url


def _configure(connection: sa.Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        render_as_batch=connection.dialect.name == "sqlite",  # SQLite alters tables by copying
        compare_type=True,
    )


def run_migrations_offline() -> None:
    context.configure(
        url=_url(),
        target_metadata=target_metadata,
        literal_binds=True,
        dialect_opts={"paramstyle": "named"},
    )
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online() -> None:
    connection = config.attributes.get("connection")
    if connection is not None:
        _configure(connection)
        with context.begin_transaction():
            context.run_migrations()
        return
    engine = sa.create_engine(_url(), poolclass=sa.pool.NullPool)
    try:
        with engine.connect() as connection:
            _configure(connection)
            with context.begin_transaction():
                context.run_migrations()
    finally:
        engine.dispose()


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
