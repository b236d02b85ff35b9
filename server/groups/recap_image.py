"""The night's recap as a PNG to share (Pillow): the recap's text lines on the felt's green."""

from __future__ import annotations

import io

from PIL import Image, ImageDraw, ImageFont

WIDTH, MARGIN, LINE = 720, 28, 30
FELT, INK, GOLD = (22, 101, 52), (244, 246, 244), (250, 204, 21)


def _font(size: int) -> ImageFont.ImageFont | ImageFont.FreeTypeFont:
    for name in ("DejaVuSans.ttf", "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"):
        try:
            return ImageFont.truetype(name, size)
        except OSError:
            continue
    return ImageFont.load_default()


def recap_png(text: str) -> bytes:
    """A PNG of the recap's lines: the first as a title, the rest below it."""
    lines = text.splitlines() or [""]
    height = MARGIN * 2 + LINE * (len(lines) + 1)
    image = Image.new("RGB", (WIDTH, height), FELT)
    draw = ImageDraw.Draw(image)
    title, body = _font(24), _font(18)
    draw.text((MARGIN, MARGIN), "♠ " + lines[0], font=title, fill=GOLD)
    for i, line in enumerate(lines[1:], start=2):
        draw.text((MARGIN, MARGIN + LINE * i - LINE // 2), line, font=body, fill=INK)
    out = io.BytesIO()
    image.save(out, format="PNG", optimize=True)
    return out.getvalue()
