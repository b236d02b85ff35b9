"""``parse_frame`` builds a well-formed ``act`` frame without pydantic: for any frame it gives
what pydantic's validation gives (the same message, or the same refusal)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from server.rooms.errors import RoomError
from server.rooms.messages import KNOWN_TYPES, Act, ClientMsg, _decoded, _validated, parse_frame

MAX = 4096


def by_pydantic(text: str, max_bytes: int) -> ClientMsg:
    """Every frame through pydantic's validation, as parse_frame went before its ``act`` path."""
    return _validated(_decoded(text, max_bytes))


def outcome(parse, text: str) -> tuple:
    """What a parse makes of a frame, so that ``1`` and ``True`` or a missing field tell apart."""
    try:
        msg = parse(text, MAX)
    except RoomError as err:
        return ("refused", err.code, err.message, err.status)
    return (type(msg), repr(msg), msg.model_fields_set, msg.__pydantic_extra__, msg.__pydantic_private__)


scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.sampled_from([2**63 - 1, 2**63, 2**64, -(2**63) - 1, 10**30])
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.sampled_from(["QS", "10H", "play", "bid", ""])
    | st.text(max_size=5)
)
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3),
    max_leaves=12,
)
actions = (
    st.fixed_dictionaries({"type": st.sampled_from(["play", "bid"]), "card": st.sampled_from(["QS", "2C"])})
    | st.dictionaries(st.sampled_from(["type", "card", "value", "cards", ""]), values, max_size=4)
    | values
)
acts = st.fixed_dictionaries(
    {"type": st.just("act")},
    optional={"action": actions, "v": scalars | st.integers(0, 400)},
)
extras = st.dictionaries(
    st.sampled_from(["extra", "V", "Action", "seat", ""]) | st.text(max_size=3), values, max_size=2
)
others = st.fixed_dictionaries(
    {"type": st.sampled_from(KNOWN_TYPES)},
    optional={"action": actions, "v": scalars, "seat": scalars, "text": scalars},
)
valid_acts = st.fixed_dictionaries({"type": st.just("act"), "action": actions, "v": st.integers()})
frames = (
    valid_acts
    | acts
    | st.builds(lambda act, more: {**more, **act}, acts, extras)
    | others
    | values
    | st.sampled_from(["{", ""])
)


@settings(max_examples=1500, deadline=None)
@given(frames)
def test_any_frame_parses_as_pydantic_validates_it(frame):
    text = frame if isinstance(frame, str) else json.dumps(frame)
    assert outcome(parse_frame, text) == outcome(by_pydantic, text)


def test_a_play_is_an_act_with_its_fields():
    msg = parse_frame('{"type":"act","action":{"type":"play","card":"QS"},"v":17}', MAX)
    assert type(msg) is Act
    assert msg == Act(type="act", action={"type": "play", "card": "QS"}, v=17)
    assert msg.model_fields_set == {"type", "action", "v"}
    assert type(msg.v) is int


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"type":"act","action":{"type":"play","card":"QS"},"v":true}', "v: Input should be a valid integer"),
        ('{"type":"act","action":{"type":"play","card":"QS"},"v":17.0}', "v: Input should be a valid integer"),
        ('{"type":"act","action":{"type":"play","card":"QS"},"v":"17"}', "v: Input should be a valid integer"),
        ('{"type":"act","action":{"type":"play","card":"QS"}}', "v: Field required"),
        ('{"type":"act","v":17}', "action: Field required"),
        ('{"type":"act","action":"play","v":17}', "action: Input should be a valid dictionary"),
        ('{"type":"act","action":["QS"],"v":17}', "action: Input should be a valid dictionary"),
        ('{"type":"act","action":{},"v":17,"seat":0}', "seat: Extra inputs are not permitted"),
    ],
)
def test_a_bad_act_is_refused_as_pydantic_refuses_it(text, message):
    with pytest.raises(RoomError) as refused:
        parse_frame(text, MAX)
    assert (refused.value.code, refused.value.status) == ("bad_frame", 400)
    assert refused.value.message == f"Bad 'act' message: {message}."
    assert outcome(parse_frame, text) == outcome(by_pydantic, text)
