"""``POST /api/players``: a guest identity (a name and a bearer token, shown once)."""

from __future__ import annotations

from fastapi import APIRouter, Request
from pydantic import BaseModel, Field

from server.edges.api.deps import spend
from server.edges.api.errors import ApiError, error_response_doc
from server.limits import PLAYERS
from server.storage import store

router = APIRouter(tags=["players"])


class NewPlayer(BaseModel):
    # The schema says what the server enforces (after trimming, with a sentence: invalid_name);
    # the looser bound here only stops absurd bodies before they are cleaned.
    name: str = Field(
        max_length=200,
        description=(
            "1 to 24 characters once trimmed: letters, digits, single spaces, ordinary punctuation and"
            " emoji, none drawn wider than two columns, not a bot's or an empty seat's label"
            " (docs/protocol.md, Player names)."
        ),
        examples=["Ana"],
        json_schema_extra={"minLength": 1, "maxLength": 24},
    )


class PlayerCreated(BaseModel):
    id: str
    name: str
    token: str = Field(description="A bearer secret: send it as 'Authorization: Bearer <token>'. Shown only once.")


@router.post(
    "/players",
    status_code=201,
    response_model=PlayerCreated,
    summary="Create a guest player and its bearer token",
    responses=error_response_doc(400, 422, 429, 503),
)
async def create_player(body: NewPlayer, request: Request) -> PlayerCreated:
    spend(request, PLAYERS, "new players")
    try:
        name = store.clean_name(body.name)
    except store.InvalidName as exc:
        raise ApiError(422, "invalid_name", str(exc)) from None
    db = request.app.state.db

    def create() -> PlayerCreated:
        with db.session() as session:
            player, token = store.create_player(session, name)
            return PlayerCreated(id=player.id, name=player.name, token=token)

    return await db.call(create)
