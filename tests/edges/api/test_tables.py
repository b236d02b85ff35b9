"""``GET /api/tables`` when the table store fails: a database outage answers 503 ``unavailable``;
any other failure is a defect and answers 500 like every other one, never passed off as an outage."""

from __future__ import annotations

import httpx
import pytest
from fastapi import FastAPI

from server.edges.api import tables
from server.edges.api.errors import install_error_handlers
from server.log_entry import StoreUnavailable
from server.storage import store
from server.storage.db import DatabaseTimeout


class FailingTables:
    """A table store whose every answer is ``error``."""

    def __init__(self, error: Exception) -> None:
        self.error = error

    async def tables_of(self, player_id: str) -> list[dict]:
        raise self.error


async def your_tables(db, error: Exception) -> httpx.Response:
    app = FastAPI()
    install_error_handlers(app)
    app.include_router(tables.router, prefix="/api")
    app.state.db = db
    app.state.tables = FailingTables(error)
    with db.session() as session:
        _, token = store.create_player(session, "Ana")
    transport = httpx.ASGITransport(app=app, raise_app_exceptions=False)
    async with httpx.AsyncClient(transport=transport, base_url="http://felt") as client:
        return await client.get("/api/tables", headers={"Authorization": f"Bearer {token}"})


@pytest.mark.parametrize(
    "outage",
    [DatabaseTimeout("the database did not answer"), StoreUnavailable("OperationalError")],
)
async def test_a_database_outage_answers_503_unavailable(db, outage):
    answer = await your_tables(db, outage)
    assert answer.status_code == 503
    assert answer.json()["error"]["code"] == "unavailable"


async def test_a_defect_in_the_table_store_answers_500_not_unavailable(db):
    answer = await your_tables(db, KeyError("status"))
    assert answer.status_code == 500
    assert answer.json()["error"]["code"] == "internal"
