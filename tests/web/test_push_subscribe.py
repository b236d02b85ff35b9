"""Web Push from the page to a push service and back, in a real browser.

A push service cannot be reached from here, so the browser's own subscribe step is the one
thing replaced: ``PushManager.prototype.subscribe`` and ``getSubscription`` give a subscription
whose endpoint is the test's loopback push service and whose keys the test made. Everything
else is Felt's: /devices registers /sw.js, asks the server for its VAPID key and sends the
subscription; the server keeps it, encrypts Ann's turn at a real table to it (the test
decrypts it), stops telling a kind turned off in the page, and forgets the subscription when
Ann turns notifications off for her device.
"""

from __future__ import annotations

import base64
import json

import pytest
import sqlalchemy as sa
from live_server import served_on
from playwright.sync_api import expect
from push_receiver import Keys, ThreadedReceiver

SHORT = {"max_cards": 3, "rebound": False}  # a short Oh Hell: Ann has turns to spare

# The browser's subscribe step, answered with the test's subscription. What the page asked for
# (the applicationServerKey, userVisibleOnly) and whether the subscription still stands are
# kept in localStorage, so that they outlive a page: a real subscription does too.
FAKE_PUSH = """
(() => {
  const given = %s;
  const KEPT = "test.push.subscribed";
  const made = () => ({
    endpoint: given.endpoint,
    expirationTime: null,
    toJSON: () => ({ endpoint: given.endpoint, expirationTime: null, keys: given.keys }),
    unsubscribe: async () => { localStorage.removeItem(KEPT); return true; },
  });
  PushManager.prototype.subscribe = async function (options) {
    const bytes = new Uint8Array(options.applicationServerKey);
    const key = btoa(String.fromCharCode(...bytes)).replace(/\\+/g, "-").replace(/\\//g, "_").replace(/=+$/, "");
    localStorage.setItem("test.push.asked", JSON.stringify({ key, userVisibleOnly: options.userVisibleOnly }));
    localStorage.setItem(KEPT, "1");
    return made();
  };
  PushManager.prototype.getSubscription = async function () {
    return localStorage.getItem(KEPT) ? made() : null;
  };
})();
"""


@pytest.fixture(scope="module")
def live(tmp_path_factory):
    env = {
        "FELT_OUTBOUND_ALLOW_PRIVATE": "1",  # the push service is the test's, on loopback
        "FELT_RECONNECT_GRACE_S": "600",  # Ann away from the table keeps her seat (no bot plays it)
        "FELT_PRESENCE_DELAY_S": "0",  # Bob's page shows Ann gone as soon as she is
        "FELT_BOT_DELAY_MS": "30",
    }
    with served_on("sqlite", tmp_path_factory, "push-browser", **env) as server:
        yield server


@pytest.fixture(scope="module")
def server(live):
    """The pages of this module open on the server above (the folder's own has no outbound)."""
    return live.base


@pytest.fixture
def receiver():
    receiver = ThreadedReceiver()
    yield receiver
    receiver.stop()


def stored_subscriptions(live, player_id: str) -> list[dict]:
    engine = sa.create_engine(f"sqlite:///{live.tmp / 'felt.db'}")
    try:
        with engine.connect() as conn:
            rows = conn.execute(
                sa.text("SELECT endpoint, p256dh, auth, lang FROM push_subscriptions WHERE player_id = :p"),
                {"p": player_id},
            )
            return [dict(row._mapping) for row in rows]
    finally:
        engine.dispose()


def player_of(page) -> dict:
    return json.loads(page.evaluate("() => localStorage.getItem('felt.player')"))


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def opt_in(page, base: str) -> None:
    """Ann turns notifications on for her device, on /devices, as anyone would."""
    page.goto(base + "/devices")
    panel = page.get_by_role("region", name="Notifications with Felt closed")
    expect(panel.locator("#push-state")).to_have_text("Off on this device.")
    panel.get_by_role("button", name="Turn on for this device").click()
    expect(panel.locator("#push-state")).to_have_text("On: this device is told.")
    expect(panel.get_by_role("button", name="Turn off for this device")).to_be_visible()


def start_with_bob(ann, bob, table, code: str) -> None:
    """Bob takes seat 2 through the invite link; Ann fills the other two with bots and starts."""
    table.join_and_sit(bob, "Bob")
    for _ in range(2):
        ann.locator("[data-bot-next]").click()
    expect(ann.locator(".badge-bot")).to_have_count(2)
    ann.locator("[data-start]").click()
    expect(ann.locator("#room-title")).to_contain_text("Playing")


def leave_on_bobs_turn(ann, bob, table, base: str) -> None:
    """Ann plays at the table until it is Bob's turn, then opens /devices instead: her table's
    socket is closed (Bob's page says she is offline)."""
    while not table.my_turn(bob):
        if not table.act_once(ann):
            ann.wait_for_timeout(40)
    ann.goto(base + "/devices")
    expect(bob.locator('[data-seat-box="0"] .badge-off')).to_be_visible()


def bob_plays_until_anns_turn(bob, table) -> None:
    while bob.locator('[data-seat-box="0"].seat-acting').count() == 0:
        if not table.act_once(bob):
            bob.wait_for_timeout(40)


def shown_by_the_worker(page, base: str, data: dict) -> list:
    """``data`` delivered to the page's service worker as a push service delivers it (the
    DevTools protocol's push), and the notification the worker shows for it."""
    cdp = page.context.new_cdp_session(page)
    registrations: dict[str, dict] = {}  # by id: the latest word on each
    cdp.on(
        "ServiceWorker.workerRegistrationUpdated",
        lambda event: registrations.update((r["registrationId"], r) for r in event["registrations"]),
    )
    cdp.send("ServiceWorker.enable")
    for _ in range(200):
        if registrations:
            break
        page.wait_for_timeout(50)
    (mine,) = [r for r in registrations.values() if r["scopeURL"] == base + "/" and not r["isDeleted"]]
    # A push that reaches a worker still starting is dropped, as a browser drops it: the push
    # service's retry is played by delivering it again until the worker shows it.
    for _ in range(10):
        cdp.send(
            "ServiceWorker.deliverPushMessage",
            {"origin": base, "registrationId": mine["registrationId"], "data": json.dumps(data)},
        )
        shown = page.evaluate(
            """async (tag) => {
              const registration = await Promise.race([
                navigator.serviceWorker.ready,
                new Promise((done) => setTimeout(() => done(null), 3000)),
              ]);
              if (!registration) return [];
              for (let tries = 0; tries < 60; tries++) {
                const shown = await registration.getNotifications({ tag });
                if (shown.length) return shown.map((n) => [n.title, n.body, n.tag, n.data]);
                await new Promise((done) => setTimeout(done, 50));
              }
              return [];
            }""",
            data["tag"],
        )
        if shown:
            return shown
    return []


def kinds_of(receiver, keys: Keys) -> list[str]:
    return [keys.decrypt(message.body)["kind"] for message in receiver.at("ann")]


def test_sw_js_is_served_as_a_script_for_the_whole_site(pages):
    page = pages.open("/")
    answer = page.context.request.get(pages.base + "/sw.js")
    assert answer.status == 200
    assert answer.headers["content-type"].split(";")[0] == "text/javascript"
    assert answer.headers["cache-control"] == "no-cache"  # a new worker is picked up at once
    assert "service-worker-allowed" not in answer.headers  # at the root, its scope is "/" anyway
    assert 'addEventListener("push"' in answer.text() and 'addEventListener("notificationclick"' in answer.text()


def test_a_player_opts_in_is_pushed_her_turn_turns_a_kind_off_and_opts_out(pages, table, live, receiver):
    keys = Keys()
    given = keys.subscription(receiver.url("ann"))
    ann = pages.open(None, permissions=["notifications"])
    ann.add_init_script(FAKE_PUSH % json.dumps({"endpoint": given["endpoint"], "keys": given["keys"]}))
    ann.goto(pages.base + "/")
    code = table.create_room(ann, "Ann", "oh_hell", SHORT)
    player = player_of(ann)
    opt_in(ann, pages.base)
    asked = json.loads(ann.evaluate("() => localStorage.getItem('test.push.asked')"))
    server_key = ann.context.request.get(pages.base + "/api/push/key").json()["key"]
    assert asked == {"key": server_key, "userVisibleOnly": True}
    assert stored_subscriptions(live, player["id"]) == [{**given["keys"], "endpoint": given["endpoint"], "lang": "en"}]

    ann.goto(f"{pages.base}/r/{code}")
    bob = pages.open(f"/r/{code}")
    start_with_bob(ann, bob, table, code)
    leave_on_bobs_turn(ann, bob, table, pages.base)
    assert receiver.at("ann") == []  # turns Ann took at the table were not pushed
    bob_plays_until_anns_turn(bob, table)
    message = receiver.wait_for("ann")[0]
    assert message.headers["Content-Encoding"] == "aes128gcm"
    assert (
        message.headers["Authorization"].startswith("vapid t=")
        and f"k={server_key}" in message.headers["Authorization"]
    )
    assert keys.decrypt(message.body) == {
        "title": "Your turn at Ann's Oh Hell table",
        "body": "The table waits for you.",
        "url": f"/r/{code}",
        "kind": "turn",
        "tag": f"felt-turn-{code}",
    }
    # What Ann's browser then shows: her own service worker's notification, linking to the table.
    assert shown_by_the_worker(ann, pages.base, keys.decrypt(message.body)) == [
        [
            "Your turn at Ann's Oh Hell table",
            "The table waits for you.",
            f"felt-turn-{code}",
            {"url": f"{pages.base}/r/{code}"},
        ]
    ]

    turn = ann.get_by_role("checkbox", name="it is my turn")
    expect(turn).to_be_checked()  # as the server says, once it has
    turn.uncheck()
    expect(ann.get_by_text("Saved.")).to_be_visible()
    expect(turn).to_be_enabled()  # the server has answered
    ann.goto(f"{pages.base}/r/{code}")  # back at the table for the turn that waits, then away again
    leave_on_bobs_turn(ann, bob, table, pages.base)
    bob_plays_until_anns_turn(bob, table)
    # Ann's turn was offered before Bob's line naming her: the line's push coming proves the
    # turn's was weighed (one queue, in order), and it was not sent.
    bob.get_by_label("Message", exact=True).fill("Ann, your turn")
    bob.get_by_label("Message", exact=True).press("Enter")
    receiver.wait_for("ann", count=2)
    assert kinds_of(receiver, keys) == ["turn", "mention"]

    ann.get_by_role("button", name="Turn off for this device").click()
    expect(ann.locator("#push-state")).to_have_text("Off on this device.")
    assert ann.evaluate("() => localStorage.getItem('test.push.subscribed')") is None  # the browser's too
    assert stored_subscriptions(live, player["id"]) == []
    mine = ann.context.request.get(
        pages.base + "/api/devices/me/notifications", headers={"Authorization": f"Bearer {player['token']}"}
    ).json()
    assert mine == {"push": False, "kinds": {"turn": False, "start": True, "mention": True, "clock": True}}


def test_the_kinds_cannot_be_changed_before_the_server_has_said_how_they_stand(pages, table):
    page = pages.open("/")
    table.create_room(page, "Ann", "oh_hell", SHORT)
    held = []
    page.route("**/api/devices/me/notifications", lambda route: held.append(route))
    page.goto(pages.base + "/devices")
    while not held:
        page.wait_for_timeout(20)
    panel = page.get_by_role("region", name="Notifications with Felt closed")
    # Unchecked now only because nothing is known yet: a click here would be undone, unsaved.
    for name in ("it is my turn", "a table I sit at starts", "someone says my name in chat", "my clock ran out"):
        expect(panel.get_by_role("checkbox", name=name)).to_be_disabled()
    expect(panel.locator("#push-toggle")).to_be_disabled()
    held[0].continue_()
    turn = panel.get_by_role("checkbox", name="it is my turn")
    expect(turn).to_be_enabled()
    expect(turn).to_be_checked()
    expect(panel.get_by_role("button", name="Turn on for this device")).to_be_enabled()


def test_a_device_switched_to_another_language_is_told_in_it(pages, table, live, receiver):
    given = Keys().subscription(receiver.url("ann"))
    ann = pages.open(None, permissions=["notifications"])
    ann.add_init_script(FAKE_PUSH % json.dumps({"endpoint": given["endpoint"], "keys": given["keys"]}))
    ann.goto(pages.base + "/")
    table.create_room(ann, "Ann", "oh_hell", SHORT)
    player = player_of(ann)
    opt_in(ann, pages.base)
    assert [s["lang"] for s in stored_subscriptions(live, player["id"])] == ["en"]

    def sent_again(response) -> bool:
        return response.request.method == "PUT" and response.url.endswith("/api/devices/me/push")

    with ann.expect_response(sent_again) as answer:
        ann.get_by_role("combobox", name="Language").select_option("pt")  # the page reloads in Portuguese
    assert answer.value.status == 200
    expect(ann.locator("#push-state")).to_have_text("Ativado: este aparelho é avisado.")
    assert stored_subscriptions(live, player["id"]) == [{**given["keys"], "endpoint": given["endpoint"], "lang": "pt"}]
