"""Logging: one line per event, as JSON or plain text, and never a player's token or link code.

``log_config`` is the ``logging.config.dictConfig`` the server starts with (uvicorn's
loggers included). Every handler carries ``RedactSecrets``, so a token in a URL (``?token=``
on the WebSocket, which uvicorn's access and connection lines print), a device link code
(``/link?code=``, the page a link's QR code opens: whoever read the code could redeem it)
or a bearer header is replaced before any formatter sees it, whichever logger wrote the line.
"""

from __future__ import annotations

import logging
import re
from datetime import UTC, datetime
from urllib.parse import unquote_plus

import orjson

# A ``name=value`` pair (a query string's, or any line's), and a bearer credential wherever
# it was quoted. A pair's name is judged once percent-escapes are decoded, so ``%74oken=``
# (which a lenient parser reads as ``token=``) is redacted as ``token=`` is.
_SECRETS = re.compile(r"(?i)((?:[A-Za-z0-9_.~+-]|%[0-9A-F]{2})+=)([^&\s\"' ]+)|(bearer\s+)[A-Za-z0-9._~+/=-]+")
REDACTED = "[redacted]"
# The names whose values are secrets: "token", "x-token", "code"; not "tokenizer" or "zipcode".
_SECRET_NAME = re.compile(r"(?i)(?:^|[^a-z0-9_])(?:token|code)$")


def _is_secret_name(name: str) -> bool:
    for _ in range(4):  # escapes of escapes (``%2574oken``): decode until nothing changes
        decoded = unquote_plus(name)
        if decoded == name:
            break
        name = decoded
    return _SECRET_NAME.search(name) is not None


def _redacted(match: re.Match[str]) -> str:
    if match.group(3):
        return match.group(3) + REDACTED
    name = match.group(1)
    return name + REDACTED if _is_secret_name(name[:-1]) else match.group(0)


def redact(text: str) -> str:
    """``text`` with every token's and link code's value replaced by ``[redacted]``."""
    return _SECRETS.sub(_redacted, text)


class RedactSecrets(logging.Filter):
    """Formats each record's message once and removes secrets from it (and from its traceback)."""

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:  # noqa: BLE001 - a malformed call (or an argument's __str__ failing): keep what there is
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
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
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
        {"()": JsonFormatter} if fmt == "json" else {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"}
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
            # httpx names every request's whole URL at info: a webhook's or a push endpoint's
            # URL is a secret (server/notify/webhooks.py), so only its warnings are kept.
            "httpx": {"level": "WARNING"},
            "httpcore": {"level": "WARNING"},
        },
        "root": {"handlers": ["main"], "level": level},
    }
