"""HTTP errors as ``{"error": {"code", "message"}}``: raised anywhere, shaped in one place.

A database that is down answers 503 ``unavailable`` with ``Retry-After`` (and one warning
line, no traceback), and so does every other 503; anything unexpected answers a JSON 500
``internal``. Every error answer is counted by code in the app's metrics, when it has them.
"""

from __future__ import annotations

import logging

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, Response
from pydantic import BaseModel
from starlette.exceptions import HTTPException as StarletteHTTPException

from server.log_entry import StoreUnavailable

log = logging.getLogger("felt.api")

# Seconds a client is told to wait before trying again while the database is down.
OUTAGE_RETRY_AFTER_S = 5

_DEFAULT_CODES = {
    400: "bad_request",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    408: "timeout",
    405: "method_not_allowed",
    409: "conflict",
    413: "too_large",
    422: "invalid",
    429: "too_many",
    500: "internal",
    503: "unavailable",
}


class ErrorDetail(BaseModel):
    code: str
    message: str


class ErrorResponse(BaseModel):
    """The body of every error answer."""

    error: ErrorDetail


class ApiError(Exception):
    """An HTTP error with a machine code and a sentence for people."""

    def __init__(self, status: int, code: str, message: str, headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.headers = headers


def error_body(code: str, message: str) -> dict:
    return {"error": {"code": code, "message": message}}


def error_response_doc(*statuses: int) -> dict:
    """OpenAPI ``responses`` entries for the error shape."""
    return {s: {"description": _DEFAULT_CODES.get(s, "error"), "model": ErrorResponse} for s in statuses}


def _wants_page(request: Request) -> bool:
    """A browser asking for a page (not the API, which always answers JSON)."""
    path = request.url.path
    if path.startswith(("/api/", "/ws/")) or path in ("/api", "/healthz", "/openapi.json"):
        return False
    return "text/html" in request.headers.get("accept", "")


def _count(request: Request, code: str) -> None:
    metrics = getattr(request.app.state, "metrics", None)
    if metrics is not None:
        metrics.refused("http", code)


def _answer(request: Request, status: int, code: str, message: str, headers: dict | None = None) -> JSONResponse:
    _count(request, code)
    if status == 503 and not any(name.lower() == "retry-after" for name in headers or ()):
        # Every 503 says when to try again: a client (or a balancer) must not guess.
        headers = {**(headers or {}), "Retry-After": str(OUTAGE_RETRY_AFTER_S)}
    return JSONResponse(error_body(code, message), status_code=status, headers=headers)


def install_error_handlers(app: FastAPI) -> None:
    """Make every error, ours or the framework's, answer in the one JSON shape."""

    @app.exception_handler(ApiError)
    async def _api_error(request: Request, exc: ApiError) -> JSONResponse:
        return _answer(request, exc.status, exc.code, exc.message, exc.headers)

    @app.exception_handler(StarletteHTTPException)
    async def _http_error(request: Request, exc: StarletteHTTPException) -> Response:
        if exc.status_code == 404 and _wants_page(request):
            _count(request, "not_found")
            page = request.app.state.settings.web_dir / "404.html"
            return FileResponse(page, status_code=404, media_type="text/html")
        code = getattr(exc, "code", None) or _DEFAULT_CODES.get(exc.status_code, "error")
        message = exc.detail if isinstance(exc.detail, str) else code.replace("_", " ")
        if exc.status_code == 404 and message == "Not Found":
            message = "There is nothing at this address."
        return _answer(request, exc.status_code, code, message, getattr(exc, "headers", None))

    @app.exception_handler(RequestValidationError)
    async def _validation_error(request: Request, exc: RequestValidationError) -> JSONResponse:
        for e in exc.errors():
            if e.get("type") == "json_invalid":
                at = e.get("loc", ("body", "?"))[-1]
                message = f"The request body is not valid JSON (the error is at character {at})."
                return _answer(request, 400, "bad_json", message)
        parts = []
        for e in exc.errors()[:5]:
            loc = ".".join(str(x) for x in e.get("loc", ()) if x not in ("body", "query", "path"))
            parts.append(f"{loc or 'request'}: {e.get('msg', 'invalid')}")
        return _answer(request, 422, "invalid", "; ".join(parts) or "invalid request")

    app.add_exception_handler(StoreUnavailable, _database_down)
    app.add_exception_handler(Exception, _internal)


async def _database_down(request: Request, exc: Exception) -> JSONResponse:
    log.warning("%s %s: the database is unavailable: %s", request.method, request.url.path, exc)
    metrics = getattr(request.app.state, "metrics", None)
    if metrics is not None:
        metrics.database_errors += 1
    return _answer(
        request,
        503,
        "unavailable",
        "The database is unavailable; try again shortly.",
        {"Retry-After": str(OUTAGE_RETRY_AFTER_S)},
    )


async def _internal(request: Request, exc: Exception) -> JSONResponse:
    # Starlette's outermost middleware calls this, then re-raises so that the server logs
    # the traceback once: a bug, unlike an outage, is worth one.
    return _answer(request, 500, "internal", "Something went wrong on the server; nothing changed.")
