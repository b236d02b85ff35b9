"""The night's card: a PNG 1080 px wide whose height does not grow with the night's length."""

from __future__ import annotations

import io
from datetime import timedelta

from PIL import Image

from server.groups import recap_image
from server.groups.recap import recap
from server.groups.recap_image import WIDTH, recap_png
from tests.groups.test_recap import AT, MEMBERS, OH_HELL, WHIST

TITLES = {"oh_hell": "Oh Hell", "bid_whist": "Bid Whist"}


def size(png: bytes) -> tuple[int, int]:
    image = Image.open(io.BytesIO(png))
    image.load()  # decodes the whole image
    return image.size


def test_a_card_is_1080_wide_and_a_long_night_draws_no_taller_than_a_short_one():
    short = recap([OH_HELL, WHIST], MEMBERS)
    night = [
        {**m, "id": f"{m['id']}-{i}", "finished_at": AT + timedelta(minutes=i)}
        for i in range(100)
        for m in (OH_HELL, WHIST)
    ]
    long = recap(night, MEMBERS)
    assert long["matches"] == 200
    short_size, long_size = size(recap_png("Friday", short, TITLES)), size(recap_png("Friday", long, TITLES))
    assert short_size[0] == long_size[0] == WIDTH
    assert short_size[1] == long_size[1]  # the same panels, whatever the count
    assert size(recap_png("Friday", recap([], MEMBERS), TITLES)) == (WIDTH, 640)


def test_without_the_tables_fonts_the_card_is_drawn_in_pillows_own(monkeypatch):
    monkeypatch.setattr(recap_image, "FACES", {False: ("none/NoSuch.ttf",), True: ("none/NoSuchBold.ttf",)})
    recap_image.font.cache_clear()
    try:
        assert size(recap_png("Friday", recap([OH_HELL, WHIST], MEMBERS), TITLES))[0] == WIDTH
    finally:
        recap_image.font.cache_clear()
