"""A group's webhook over HTTP (``/api/groups/{code}/webhook``): where its chat hears of its
tables (server/notify/webhooks.py).

Owner only: a member is answered 403 ``not_owner``, anyone else 404, as every group endpoint.
The URL is a secret: it travels only in the owner's request bodies and in the answer of
``GET ...?reveal=true``; every other answer shows it masked. It is checked when saved (http or
https, a host, no credentials, not a private address written as a number); a name that
resolves to a private address is accepted then and refused at every delivery, where the
addresses are known (docs/decisions/0019-webhook-addresses.md). A test message is sent at the
owner's click, so a group has a few of them a minute (``FELT_RATE_WEBHOOK_TESTS_*``): the
server never becomes a pump of requests at someone else's URL.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from fastapi import APIRouter, Depends, Query, Request, Response
from pydantic import BaseModel, ConfigDict, Field

from server.edges.api.deps import Caller, current_player, spend_for
from server.edges.api.errors import ApiError, error_response_doc
from server.edges.api.groups import member_role
from server.limits import WEBHOOK_TESTS
from server.notify.outbound import MAX_URL_CHARS, OutboundRefused, check_url
from server.notify.webhooks import Webhooks, body_of, masked
from server.storage import groups
from server.storage.db import Database

router = APIRouter(tags=["groups"])


class WebhookIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    url: str = Field(max_length=MAX_URL_CHARS, description="The chat's webhook URL (a secret).")
    format: Literal["discord", "json"] = Field(
        default="discord",
        description='"discord": {"content": text}; "json": {"event", "group", "table", "text", "url"}.',
    )


class WebhookOut(BaseModel):
    url: str | None = Field(description="Masked unless asked for with reveal=true; null without a webhook.")
    masked: bool
    format: Literal["discord", "json"] | None
    last_ok_at: datetime | None = None
    last_failed_at: datetime | None = None
    last_failure: str | None = Field(
        default=None,
        description='How the last failed delivery failed: an HTTP status ("404"), "timeout", '
        '"unreachable", "refused" (not a public address), "redirects".',
    )


class WebhookTest(BaseModel):
    delivered: bool
    failure: str | None


async def _owner(request: Request, code: str, caller: Caller) -> None:
    await member_role(request, code, caller, owner=True)


async def _read(request: Request, code: str) -> dict[str, Any] | None:
    db: Database = request.app.state.db

    def read() -> dict[str, Any] | None:
        with db.session() as session:
            return groups.webhook_of(session, code)

    return await db.call(read)


def _answer(hook: dict[str, Any] | None, reveal: bool) -> dict[str, Any]:
    if hook is None:
        return {"url": None, "masked": False, "format": None}
    return {
        "url": hook["url"] if reveal else masked(hook["url"]),
        "masked": not reveal,
        "format": hook["format"],
        "last_ok_at": hook["last_ok_at"],
        "last_failed_at": hook["last_failed_at"],
        "last_failure": hook["last_failure"],
    }


@router.get(
    "/groups/{code}/webhook",
    response_model=WebhookOut,
    summary="Owner only: the group's webhook (masked unless reveal=true) and how its last delivery went",
    responses=error_response_doc(401, 403, 404, 503),
)
async def get_webhook(
    code: str,
    request: Request,
    response: Response,
    caller: Caller = Depends(current_player),
    reveal: bool = Query(False, description="Show the whole URL (it is a secret)."),
) -> dict:
    await _owner(request, code, caller)
    response.headers["Cache-Control"] = "no-store"  # the URL is a secret: no cache keeps it
    return _answer(await _read(request, code), reveal)


@router.put(
    "/groups/{code}/webhook",
    response_model=WebhookOut,
    summary="Owner only: set the group's webhook (its chat hears of tables opened, slow turns, results)",
    responses=error_response_doc(401, 403, 404, 422, 503),
)
async def put_webhook(code: str, body: WebhookIn, request: Request, caller: Caller = Depends(current_player)) -> dict:
    await _owner(request, code, caller)
    try:
        url = check_url(body.url.strip(), request.app.state.outbound.reach)
    except OutboundRefused as err:
        raise ApiError(422, "bad_url", str(err)) from None
    db: Database = request.app.state.db

    def save() -> dict[str, Any] | None:
        with db.session() as session:
            groups.save_webhook(session, code, url, body.format)
            return groups.webhook_of(session, code)

    return _answer(await db.call(save), reveal=False)


@router.delete(
    "/groups/{code}/webhook",
    status_code=204,
    summary="Owner only: remove the group's webhook",
    responses=error_response_doc(401, 403, 404, 503),
)
async def delete_webhook(code: str, request: Request, caller: Caller = Depends(current_player)) -> Response:
    await _owner(request, code, caller)
    db: Database = request.app.state.db

    def delete() -> None:
        with db.session() as session:
            groups.delete_webhook(session, code)

    await db.call(delete)
    return Response(status_code=204)


@router.post(
    "/groups/{code}/webhook/test",
    response_model=WebhookTest,
    summary="Owner only: send the group's chat a test message now (one try) and say how it went",
    responses=error_response_doc(401, 403, 404, 409, 429, 503),
)
async def test_webhook(code: str, request: Request, caller: Caller = Depends(current_player)) -> dict:
    await _owner(request, code, caller)
    hook = await _read(request, code)
    if hook is None:
        raise ApiError(409, "no_webhook", "The group has no webhook yet.")
    spend_for(request, WEBHOOK_TESTS, code, "test messages", "for this group")
    webhooks: Webhooks = request.app.state.webhooks
    message = webhooks.test_message(code, hook["group_name"])
    failure = await webhooks.deliver(code, hook["url"], body_of(message, hook["format"]), tries=1)
    return {"delivered": failure is None, "failure": failure}
