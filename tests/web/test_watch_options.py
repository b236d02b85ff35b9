"""The new-table form offers who may watch and how far behind; a watcher is told how far behind."""

from __future__ import annotations

import json

import httpx
from playwright.sync_api import expect

SUMMARY = "async (code) => (await fetch(`/api/rooms/${code}`)).json()"


def test_the_lobby_form_offers_the_watcher_options_and_a_watcher_is_told_it_is_a_trick_behind(pages, table):
    host = pages.open("/")
    host.get_by_label("Your name", exact=True).fill("Ana")
    host.get_by_label("Game", exact=True).select_option("oh_hell")
    host.locator("#options-box > summary").click()
    who = host.get_by_label("Who may watch", exact=True)
    delay = host.get_by_label("Watchers see the play", exact=True)
    expect(who).to_have_value("everyone")
    expect(delay).to_have_value("none")
    expect(who.locator("option")).to_have_text(["Anyone with the link", "Members only", "Nobody"])
    expect(delay.locator("option")).to_have_text(["As it happens", "One trick behind", "One hand behind"])
    host.locator("#opt-max_cards").fill("2")
    delay.select_option("trick")
    host.get_by_role("button", name="Create room").click()
    host.wait_for_url("**/r/*")
    host.wait_for_selector(".seat-you")
    code = host.url.rsplit("/", 1)[-1]
    summary = host.evaluate(SUMMARY, code)
    assert (summary["watchers"], summary["watch_delay"]) == ("everyone", "trick")
    for _ in range(3):
        host.locator("[data-bot-next]").click()
    expect(host.locator(".badge-bot")).to_have_count(3)
    host.locator("[data-start]").click()
    expect(host.locator("#room-title")).to_contain_text("Playing")
    expect(host.locator("[data-watch-delay]")).to_have_count(0)  # a player sees the play as it happens

    watcher = pages.open(f"/r/{code}")
    expect(watcher.locator("[data-watch-delay='trick']")).to_have_text("You are watching one trick behind.")


def test_the_portuguese_form_names_the_watcher_options(pages):
    page = pages.open("/")
    page.evaluate("localStorage.setItem('felt.lang', 'pt')")
    page.reload()
    page.locator("#options-box > summary").click()
    expect(page.get_by_label("Quem pode assistir", exact=True).locator("option")).to_have_text(
        ["Qualquer um com o link", "Só membros", "Ninguém"]
    )
    expect(page.get_by_label("Quem assiste vê o jogo", exact=True).locator("option")).to_have_text(
        ["Na hora", "Uma vaza atrás", "Uma mão atrás"]
    )


def test_a_stranger_at_a_table_that_takes_no_watchers_is_told_so_once(pages, table):
    host = pages.open("/")
    host.get_by_label("Your name", exact=True).fill("Ana")
    host.locator("#options-box > summary").click()
    host.get_by_label("Who may watch", exact=True).select_option("nobody")
    host.get_by_role("button", name="Create room").click()
    host.wait_for_url("**/r/*")
    host.wait_for_selector(".seat-you")
    code = host.url.rsplit("/", 1)[-1]
    for _ in range(3):
        host.locator("[data-bot-next]").click()
    expect(host.locator(".badge-bot")).to_have_count(3)

    stranger = pages.open(f"/r/{code}")
    expect(stranger.get_by_text("This table takes no watchers", exact=False).first).to_be_visible()
    sockets = []
    stranger.on("websocket", lambda ws: sockets.append(ws.url))
    stranger.wait_for_timeout(3000)
    assert sockets == []  # refused once, it does not knock again


def test_the_group_form_offers_the_watcher_options_showing_the_groups_last_choice(pages):
    with httpx.Client(base_url=pages.base) as http:
        ana = http.post("/api/players", json={"name": "Ana"}).json()
        auth = {"Authorization": f"Bearer {ana['token']}"}
        group = http.post("/api/groups", json={"name": "Friday"}, headers=auth).json()["code"]
        made = http.post(
            "/api/rooms",
            json={"game": "oh_hell", "group": group, "watchers": "members", "watch_delay": "hand"},
            headers=auth,
        )
        assert made.status_code == 201, made.text
    page = pages.open(None)
    me = json.dumps({"id": ana["id"], "name": "Ana", "token": ana["token"]})
    page.add_init_script(f"localStorage.setItem('felt.player', {json.dumps(me)})")
    page.goto(f"{pages.base}/g/{group}")
    form = page.locator("#new-table")
    form.get_by_label("Game", exact=True).select_option("oh_hell")
    form.locator("#new-options-box > summary").click()
    expect(form.get_by_label("Who may watch", exact=True)).to_have_value("members")
    expect(form.get_by_label("Watchers see the play", exact=True)).to_have_value("hand")
    form.get_by_label("Watchers see the play", exact=True).select_option("trick")
    form.get_by_role("button", name="New table").click()
    page.wait_for_url("**/r/*")
    code = page.url.rsplit("/", 1)[-1]
    with httpx.Client(base_url=pages.base) as http:
        summary = http.get(f"/api/rooms/{code}").json()
    assert (summary["watchers"], summary["watch_delay"]) == ("members", "trick")
