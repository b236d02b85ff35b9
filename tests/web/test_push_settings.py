"""Notifications with Felt closed, in a real browser: /devices registers the service worker
at /sw.js with the whole site as its scope, and a kind turned off on this device is kept by
the server (it is still off after a reload). The browser's own subscribe step needs a push
service this machine cannot reach; the sending is tested against a loopback one
(tests/notify/test_push_live.py)."""

from __future__ import annotations

import json

from playwright.sync_api import expect

NEW_PLAYER = """async () => {
  const r = await fetch("/api/players", {method: "POST", headers: {"Content-Type": "application/json"},
    body: JSON.stringify({name: "Ana"})});
  const player = await r.json();
  localStorage.setItem("felt.player", JSON.stringify(player));
  return player;
}"""


def test_the_service_worker_registers_and_a_kind_turned_off_stays_off(pages):
    page = pages.open("/")
    player = page.evaluate(NEW_PLAYER)
    page.goto(pages.base + "/devices")
    panel = page.get_by_role("region", name="Notifications with Felt closed")
    expect(panel).to_be_visible()
    worker = page.evaluate(
        "async () => { const r = await navigator.serviceWorker.ready; return [r.scope, r.active.scriptURL]; }"
    )
    assert worker == [pages.base + "/", pages.base + "/sw.js"]
    expect(panel.get_by_role("button", name="Turn on for this device")).to_be_visible()
    expect(panel.locator("#push-state")).to_have_text("Off on this device.")
    turn = panel.get_by_role("checkbox", name="it is my turn")
    expect(turn).to_be_checked()
    turn.uncheck()
    expect(page.get_by_text("Saved.")).to_be_visible()
    mention = panel.get_by_role("checkbox", name="someone says my name in chat")
    expect(mention).to_be_checked()
    mention.uncheck()
    expect(mention).to_be_enabled()  # disabled from the change until the server has answered
    page.reload()
    expect(page.get_by_role("checkbox", name="it is my turn")).not_to_be_checked()
    expect(page.get_by_role("checkbox", name="someone says my name in chat")).not_to_be_checked()
    expect(page.get_by_role("checkbox", name="a table I sit at starts")).to_be_checked()
    expect(page.get_by_role("checkbox", name="my clock ran out")).to_be_checked()
    mine = page.evaluate(
        """async (token) => (await fetch("/api/devices/me/notifications",
            {headers: {Authorization: "Bearer " + token}})).json()""",
        player["token"],
    )
    assert json.dumps(mine, sort_keys=True) == json.dumps(
        {"push": False, "kinds": {"clock": True, "mention": False, "start": True, "turn": False}}, sort_keys=True
    )
