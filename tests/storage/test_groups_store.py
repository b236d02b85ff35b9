"""Groups in the database, on SQLite and PostgreSQL: members, invites, rules, seasons, matches."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from storage_helpers import copy_record

from server.groups import ledger
from server.storage import groups, store
from server.storage.models import Group


def players(db, n):
    with db.session() as session:
        return [store.create_player(session, f"P{i}")[0].id for i in range(n)]


def new_group(db, owner, name="Tuesday"):
    with db.session() as session:
        return groups.create_group(session, owner, name)


def test_a_new_group_has_its_owner_as_only_member_and_season_one_open(db):
    (ana,) = players(db, 1)
    made = new_group(db, ana)
    with db.session() as session:
        assert groups.members_of(session, made["code"]) == [{"player_id": ana, "name": "P0", "role": "owner"}]
        assert groups.current_season(session, made["code"])["number"] == 1
        assert groups.groups_of(session, ana) == [{"code": made["code"], "name": "Tuesday", "role": "owner"}]
        assert groups.role_of(session, made["code"], "nobody") is None


def test_joining_needs_the_current_invite_and_a_rotated_one_is_refused(db):
    ana, rui, eva = players(db, 3)
    made = new_group(db, ana)
    code, old = made["code"], made["invite"]
    with db.session() as session:
        assert not groups.join_group(session, code, "wrong", rui)
        assert groups.join_group(session, code, old, rui)
        assert groups.join_group(session, code, old, rui)  # twice changes nothing
        new = groups.rotate_invite(session, code)
    assert new != old
    with db.session() as session:
        assert not groups.join_group(session, code, old, eva)
        assert groups.join_group(session, code, new, eva)
        assert [m["role"] for m in groups.members_of(session, code)] == ["owner", "member", "member"]


def test_removing_a_member_never_removes_the_owner(db):
    ana, rui = players(db, 2)
    made = new_group(db, ana)
    with db.session() as session:
        groups.join_group(session, made["code"], made["invite"], rui)
        assert not groups.remove_member(session, made["code"], ana)
        assert groups.remove_member(session, made["code"], rui)
        assert groups.role_of(session, made["code"], rui) is None


def test_saved_rules_are_replaced_per_game(db):
    (ana,) = players(db, 1)
    code = new_group(db, ana)["code"]
    with db.session() as session:
        groups.save_rules(session, code, "oh_hell", {"max_cards": 5})
        groups.save_rules(session, code, "oh_hell", {"max_cards": 3})
        groups.save_rules(session, code, "ribs", {"target": 2})
    with db.session() as session:
        assert groups.rules_of(session, code) == {"oh_hell": {"max_cards": 3}, "ribs": {"target": 2}}


def test_a_match_from_a_group_table_counts_in_the_season_open_when_it_is_stored(db, template_records):
    ana, rui = players(db, 2)
    code = new_group(db, ana)["code"]
    template = template_records["oh_hell"]
    ids = [ana, rui, None, None]
    with db.session() as session:
        groups.link_table(session, code, "GRPTBL", "oh_hell")
    first = copy_record(template, room_code="GRPTBL", players=_seated(template, ids))
    elsewhere = copy_record(template, room_code="OTHER1", players=_seated(template, ids))
    with db.session() as session:
        store.save_match(session, first)
        store.save_match(session, elsewhere)
    with db.session() as session:
        assert groups.close_season(session, code)["number"] == 2
    late = copy_record(
        template,
        room_code="GRPTBL",
        players=_seated(template, ids),
        finished_at=datetime.now(UTC) - timedelta(days=1),
    )
    with db.session() as session:
        store.save_match(session, late)
    with db.session() as session:
        assert [m["id"] for m in groups.ledger_matches(session, code, "oh_hell", 1)] == [first["id"]]
        assert [m["id"] for m in groups.ledger_matches(session, code, "oh_hell", 2)] == [late["id"]]
        assert len(groups.ledger_matches(session, code, "oh_hell", None)) == 2
        assert groups.ledger_matches(session, code, "ribs", None) == []
        assert groups.recent_match_ids(session, code) == [first["id"], late["id"]]
        assert groups.season_numbers(session, code) == [1, 2]
        members = {ana: "Ana", rui: "Rui"}
        for season, counted in ((1, [first]), (2, [late]), (None, [first, late])):  # the late one counts
            served = ledger.standings_of_totals(
                "oh_hell", *groups.ledger_totals(session, code, "oh_hell", season), members
            )
            assert served == ledger.standings(
                "oh_hell", groups.ledger_matches(session, code, "oh_hell", season), members
            )
            assert {r["player_id"]: r["matches"] for r in served["rows"]} == {ana: len(counted), rui: len(counted)}


def test_open_tables_of_a_group_come_from_the_table_rows(db):
    (ana,) = players(db, 1)
    code = new_group(db, ana)["code"]
    with db.session() as session:
        groups.link_table(session, code, "AAAAAA", "ribs")
        groups.link_table(session, code, "BBBBBB", "ribs")
        session.execute(
            store.sa.text(
                "INSERT INTO tables (code, game, status, private, host_id, version, updated_at) VALUES "
                "('AAAAAA', 'ribs', 'waiting', true, :h, 1, 1.0), ('BBBBBB', 'ribs', 'closed', true, :h, 3, 2.0)"
            ),
            {"h": ana},
        )
    with db.session() as session:
        assert [t["code"] for t in groups.open_tables(session, [code])] == ["AAAAAA"]
        assert groups.open_tables(session, []) == []


def _seated(template, ids):
    return [{**p, "player_id": ids[p["seat"]], "bot": ids[p["seat"]] is None} for p in template["players"]]


def test_the_night_is_the_run_of_latest_matches_without_a_long_gap(db, template_records):
    ana, rui = players(db, 2)
    code = new_group(db, ana)["code"]
    template = template_records["oh_hell"]
    ids = [ana, rui, None, None]
    with db.session() as session:
        groups.link_table(session, code, "NIGHT1", "oh_hell")
    at = datetime(2026, 12, 1, 23, 0, tzinfo=UTC)
    times = [at - timedelta(days=2), at, at + timedelta(hours=2), at + timedelta(hours=5)]  # the last three: one night
    records = [copy_record(template, room_code="NIGHT1", players=_seated(template, ids), finished_at=t) for t in times]
    with db.session() as session:
        for r in records:
            store.save_match(session, r)
    with db.session() as session:
        night = groups.night_matches(session, code, timedelta(hours=6))
    assert [m["id"] for m in night] == [r["id"] for r in records[1:]]
    assert len(night[0]["seats"]) == 4 and night[0]["hands"] == [h["scores"] for h in template["hands"]]


def test_upgrading_writes_the_ledger_of_matches_linked_before_it(db, template_records):
    """Migration 0014 gives every match already linked to a group its ledger lines and meetings
    from its record: the standings read the same after a downgrade past it and an upgrade."""
    ana, rui, eva = players(db, 3)
    code = new_group(db, ana)["code"]
    with db.session() as session:
        groups.link_table(session, code, "WHIST1", "bid_whist")
        groups.join_group(session, code, session.get(Group, code).invite, rui)
    template = template_records["bid_whist"]
    for ids in ([ana, eva, rui, None], [rui, ana, None, eva]):  # partners, then rivals
        with db.session() as session:
            store.save_match(session, copy_record(template, room_code="WHIST1", players=_seated(template, ids)))
    members = {ana: "Ana", rui: "Rui"}
    with db.session() as session:
        before = ledger.standings_of_totals(
            "bid_whist", *groups.ledger_totals(session, code, "bid_whist", None), members
        )
        assert before == ledger.standings("bid_whist", groups.ledger_matches(session, code, "bid_whist", None), members)
    assert before["pairs"] and before["head_to_head"]
    db.downgrade("0013_slow_clocks")
    db.upgrade()
    with db.session() as session:
        assert (
            ledger.standings_of_totals("bid_whist", *groups.ledger_totals(session, code, "bid_whist", None), members)
            == before
        )
