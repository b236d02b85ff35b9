"""One player on two devices in a real browser: "Add a device" shows a one-time code, its QR
code and the time left; entering it in another browser context makes that context the same
player (same seat at the same table); revoking it from the first closes its socket at once
(1008), its table says it was signed out from another device, and its token is refused from
then on, while the first device plays on."""

from __future__ import annotations

import json
import re

from playwright.sync_api import expect

PHONE = {"width": 390, "height": 844}  # as tests/web/conftest.py's phone

# Every socket a page opens reports how it closed (window.__closes), to see the revocation's.
RECORD_CLOSES = """
window.__closes = [];
const Native = window.WebSocket;
window.WebSocket = class extends Native {
  constructor(...args) {
    super(...args);
    this.addEventListener("close", (event) => window.__closes.push(event.code));
  }
};
"""


def stored_player(page) -> dict | None:
    return json.loads(page.evaluate("() => localStorage.getItem('felt.player')") or "null")


def test_a_linked_device_is_the_same_player_until_it_is_revoked(pages, table):
    laptop = pages.open("/")
    room = table.create_room(laptop, "Ana", "bid_whist", {})
    ana = stored_player(laptop)
    laptop.goto(pages.base + "/devices")
    expect(laptop.get_by_role("textbox", name="Your name")).to_have_value("Ana")
    laptop.get_by_role("button", name="Add a device").click()
    expect(laptop.locator("#link-code")).to_have_text(re.compile(r"^[0-9A-Z]{4}-[0-9A-Z]{4}$"))
    expect(laptop.locator("#link-left")).to_have_text(re.compile(r"for (10:00|9:[0-5]\d) more"))
    assert laptop.locator("#link-qr").get_attribute("src").startswith("data:image/svg+xml")
    expect(laptop.locator("#link-qr")).to_have_attribute("alt", "QR code that links a device")
    code = laptop.locator("#link-code").inner_text()
    link = laptop.locator("#link-url").inner_text().rsplit(" ", 1)[-1]
    assert link == f"{pages.base}/link?code={code.replace('-', '')}"

    phone = pages.open(None, viewport=PHONE)
    phone.add_init_script(RECORD_CLOSES)
    phone.goto(link)
    expect(phone.get_by_label("Code from your other device")).to_have_value(code)
    phone.get_by_role("button", name="Link", exact=True).click()
    expect(phone.locator(".toast")).to_contain_text("you are Ana on this device too")
    mine = stored_player(phone)
    assert mine["id"] == ana["id"] and mine["token"] != ana["token"]
    expect(phone.locator("[data-device]")).to_have_count(2)
    expect(phone.locator("[data-device]", has_text="this device")).to_have_count(1)

    phone.goto(f"{pages.base}/r/{room}")
    phone.wait_for_selector(".seat-you")  # the same seat as on the laptop: the same player
    for token in (ana["token"], mine["token"]):  # each device with a token of its own, both good
        me = phone.context.request.get(f"{pages.base}/api/players/me", headers={"Authorization": f"Bearer {token}"})
        assert me.status == 200 and me.json()["id"] == ana["id"]
    laptop.reload()
    other = laptop.locator("[data-device]", has_not_text="this device")
    other.get_by_role("button", name="Revoke").click()
    expect(laptop.locator("[data-device]")).to_have_count(1)

    phone.wait_for_function("() => window.__closes.includes(1008)")
    phone.wait_for_function("() => localStorage.getItem('felt.player') === null")  # reconnecting was refused
    expect(phone.locator("#join")).to_be_visible()
    # The table says what happened, not "Join this table", and how to be Ana here again.
    expect(phone.locator("#join h2")).to_have_text("This device was signed out from another one.")
    expect(phone.locator(".toast")).to_contain_text("This device was signed out from another one.")
    again = phone.locator("#join-signed-out").get_by_role("link", name="Link this device")
    expect(again).to_have_attribute("href", "/devices")
    refused = phone.context.request.get(
        f"{pages.base}/api/players/me", headers={"Authorization": f"Bearer {mine['token']}"}
    )
    assert refused.status == 401
    kept = laptop.context.request.get(
        f"{pages.base}/api/players/me", headers={"Authorization": f"Bearer {ana['token']}"}
    )
    assert kept.status == 200 and kept.json()["id"] == ana["id"]


def test_a_new_name_in_the_lobby_renames_the_player_instead_of_making_another(pages, table):
    page = pages.open("/")
    table.create_room(page, "Ana", "bid_whist", {})
    before = stored_player(page)
    page.goto(pages.base + "/")
    table.create_room(page, "Ana Maria", "bid_whist", {})
    after = stored_player(page)
    assert (after["id"], after["token"], after["name"]) == (before["id"], before["token"], "Ana Maria")
    me = page.context.request.get(f"{pages.base}/api/players/me", headers={"Authorization": f"Bearer {after['token']}"})
    assert me.json()["name"] == "Ana Maria"


def virtual_authenticator(page) -> tuple:
    """Chromium's virtual authenticator for ``page`` (DevTools protocol): a platform passkey
    store that verifies its user without asking."""
    cdp = page.context.new_cdp_session(page)
    cdp.send("WebAuthn.enable")
    made = cdp.send(
        "WebAuthn.addVirtualAuthenticator",
        {
            "options": {
                "protocol": "ctap2",
                "transport": "internal",
                "hasResidentKey": True,
                "hasUserVerification": True,
                "isUserVerified": True,
                "automaticPresenceSimulation": True,
            }
        },
    )
    return cdp, made["authenticatorId"]


def test_a_passkey_added_on_one_device_signs_in_a_fresh_one(pages, table):
    # A passkey's relying party is a host name, never an IP address: the page is on localhost.
    local = pages.base.replace("127.0.0.1", "localhost")
    laptop = pages.open(None)
    laptop.goto(local + "/")
    table.create_room(laptop, "Ana", "bid_whist", {})
    ana = stored_player(laptop)
    laptop.goto(local + "/devices")
    cdp, authenticator = virtual_authenticator(laptop)
    laptop.get_by_role("button", name="Add a passkey").click()
    expect(laptop.locator(".toast")).to_contain_text("Passkey added")
    expect(laptop.locator("[data-passkey]")).to_have_count(1)
    stored = cdp.send("WebAuthn.getCredentials", {"authenticatorId": authenticator})["credentials"]
    assert len(stored) == 1 and stored[0]["rpId"] == "localhost"

    fresh = pages.open(None, viewport=PHONE)
    fresh.goto(local + "/devices")
    expect(fresh.get_by_role("heading", name="Passkeys")).to_be_hidden()  # nobody is known here yet
    cdp2, authenticator2 = virtual_authenticator(fresh)
    # The same passkey on the other device, as a passkey manager would sync it there.
    cdp2.send("WebAuthn.addCredential", {"authenticatorId": authenticator2, "credential": stored[0]})
    fresh.get_by_role("button", name="Sign in with a passkey").click()
    expect(fresh.locator(".toast")).to_contain_text("you are Ana on this device too")
    mine = stored_player(fresh)
    assert mine["id"] == ana["id"] and mine["token"] != ana["token"]
    expect(fresh.locator("[data-device]")).to_have_count(2)
    expect(fresh.locator("[data-passkey]")).to_contain_text(re.compile("last used"))


def test_the_lobby_and_the_devices_page_fit_a_phone(pages, table, artifacts):
    page = pages.open("/", viewport=PHONE)
    table.create_room(page, "Ana", "bid_whist", {})
    for path in ("/", "/devices"):
        page.goto(pages.base + path)
        if path == "/devices":
            page.get_by_role("button", name="Add a device").click()
            expect(page.locator("#link-code")).to_be_visible()
            page.screenshot(path=artifacts / "devices-phone.png", full_page=True)
        assert page.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth + 1"), path
