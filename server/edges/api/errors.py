"""HTTP errors as ``{"error": {"code", "message"}}``: raised anywhere, shaped in one place."""

from __future__ import annotations

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, Response
from pydantic import BaseModel
from starlette.exceptions import HTTPException as StarletteHTTPException

_DEFAULT_CODES = {
    400: "bad_request",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
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

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message


def error_body(code: str, message: str) -> dict:
    return {"error": {"code": code, "message": message}}


def error_response_doc(*statuses: int) -> dict:
    """OpenAPI ``responses`` entries for the error shape."""
    return {
        s: {"description": _DEFAULT_CODES.get(s, "error"), "model": ErrorResponse}
        for s in statuses
    }


def _wants_page(request: Request) -> bool:
    """A browser asking for a page (not the API, which always answers JSON)."""
    path = request.url.path
    if path.startswith(("/api/", "/ws/")) or path in ("/api", "/healthz", "/openapi.json"):
        return False
    return "text/html" in request.headers.get("accept", "")


def install_error_handlers(app: FastAPI) -> None:
    """Make every error, ours or the framework's, answer in the one JSON shape."""

    @app.exception_handler(ApiError)
    async def _api_error(_: Request, exc: ApiError) -> JSONResponse:
        return JSONResponse(error_body(exc.code, exc.message), status_code=exc.status)

    @app.exception_handler(StarletteHTTPException)
    async def _http_error(request: Request, exc: StarletteHTTPException) -> Response:
        if exc.status_code == 404 and _wants_page(request):
            page = request.app.state.settings.web_dir / "404.html"
            return FileResponse(page, status_code=404, media_type="text/html")
        code = _DEFAULT_CODES.get(exc.status_code, "error")
        message = exc.detail if isinstance(exc.detail, str) else code.replace("_", " ")
        if exc.status_code == 404 and message == "Not Found":
            message = "There is nothing at this address."
        return JSONResponse(error_body(code, message), status_code=exc.status_code, headers=getattr(exc, "headers", None))

    @app.exception_handler(RequestValidationError)
    async def _validation_error(_: Request, exc: RequestValidationError) -> JSONResponse:
        parts = []
        for e in exc.errors()[:5]:
            loc = ".".join(str(x) for x in e.get("loc", ()) if x not in ("body", "query", "path"))
            parts.append(f"{loc or 'request'}: {e.get('msg', 'invalid')}")
        return JSONResponse(error_body("invalid", "; ".join(parts) or "invalid request"), status_code=422)
