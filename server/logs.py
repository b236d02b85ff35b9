"""Logging: one line per event, as JSON or plain text, and never a player's token.

``log_config`` is the ``logging.config.dictConfig`` the server starts with (uvicorn's
loggers included). Every handler carries ``RedactSecrets``, so a token in a URL (``?token=``
on the WebSocket, which uvicorn's access and connection lines print) or in a bearer header
is replaced before any formatter sees it, whichever logger wrote the line.
"""

from __future__ import annotations

import logging
import re
from datetime import datetime, timezone

import orjson

# ``token=...`` in a query string, and a bearer credential wherever it was quoted.
_SECRETS = re.compile(r"(?i)((?:[?&;]|\b)token=)[^&\s\"' ]+|(bearer\s+)[A-Za-z0-9._~+/=-]+")
REDACTED = "[redacted]"


def redact(text: str) -> str:
    """``text`` with every token value replaced by ``[redacted]``."""
    return _SECRETS.sub(lambda m: (m.group(1) or m.group(2)) + REDACTED, text)


class RedactSecrets(logging.Filter):
    """Formats each record's message once and removes tokens from it (and from its traceback)."""

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:  # a malformed call: keep what there is
            message = str(record.msg)
        record.msg = redact(message)
        record.args = None
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = redact(record.exc_text)
        return True


class JsonFormatter(logging.Formatter):
    """One JSON object per line: time, level, logger, message, and a traceback when there is one."""

    def format(self, record: logging.LogRecord) -> str:
        entry = {
            "time": datetime.fromtimestamp(record.created, timezone.utc).isoformat(timespec="milliseconds"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
        }
        if record.exc_info and not record.exc_text:
            record.exc_text = self.formatException(record.exc_info)
        if record.exc_text:
            entry["traceback"] = record.exc_text
        return orjson.dumps(entry).decode()


def log_config(fmt: str, level: str) -> dict:
    """The logging setup: every Felt and uvicorn logger through one redacting handler."""
    level = level.upper()
    formatter = (
        {"()": JsonFormatter}
        if fmt == "json"
        else {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"}
    )
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "filters": {"redact": {"()": RedactSecrets}},
        "formatters": {"main": formatter},
        "handlers": {
            "main": {
                "class": "logging.StreamHandler",
                "stream": "ext://sys.stderr",
                "formatter": "main",
                "filters": ["redact"],
            }
        },
        "loggers": {
            "uvicorn": {"handlers": ["main"], "level": level, "propagate": False},
            "uvicorn.error": {"level": level},
            # Access lines are info: they follow the access_log setting, not the level.
            "uvicorn.access": {"handlers": ["main"], "level": "INFO", "propagate": False},
        },
        "root": {"handlers": ["main"], "level": level},
    }
