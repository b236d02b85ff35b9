"""The night's recap as a card to post in a chat (Pillow): 1080 px wide, large type, drawn
with the table's own look: the felt's green within its wooden rail, white cards with the
client's four suit colours, the gold of a trick won.

From top to bottom: the group and the night (a fan of cards beside them), the night's
winners (the most matches won), one panel per game played (its matches and each member's
wins and net points in that game: points of different games are never added), the best
hand and the biggest comeback. A panel lists at most ``ROWS`` members, so the card's size
does not grow with a long night: a 200-match night draws as fast as a 2-match one.

Fonts: DejaVu Sans, the client's own fallback (Debian's ``fonts-dejavu-core``), else
Liberation Sans, else Pillow's built-in font. Suit symbols are drawn as shapes, never as
glyphs, so they look the same whichever font is found.
"""

from __future__ import annotations

import io
from collections.abc import Mapping
from functools import cache
from typing import Any

from PIL import Image, ImageDraw, ImageFont

from server.groups.recap import signed

WIDTH, RAIL, PAD = 1080, 18, 64
ROWS = 6  # members listed per game's panel
FELT, FELT_LIGHT, FELT_DARK, RAIL_WOOD = (23, 102, 58), (31, 128, 72), (15, 74, 42), (91, 58, 30)
INK, MUTED, GOLD, CARD, CARD_EDGE = (255, 255, 255), (205, 225, 212), (242, 193, 78), (255, 255, 255), (169, 163, 149)
PANEL = (9, 52, 29, 150)  # translucent darker felt
SUITS = {"S": (27, 27, 31), "H": (200, 16, 46), "D": (20, 87, 184), "C": (30, 123, 52)}  # the client's four colours
FAN = (("A", "S"), ("K", "H"), ("Q", "D"), ("J", "C"))

Font = ImageFont.FreeTypeFont | ImageFont.ImageFont

FONT_DIR = "/usr/share/fonts/truetype"  # Debian's
FACES = {
    False: ("dejavu/DejaVuSans.ttf", "liberation/LiberationSans-Regular.ttf"),
    True: ("dejavu/DejaVuSans-Bold.ttf", "liberation/LiberationSans-Bold.ttf"),
}


@cache
def font(size: int, bold: bool = False) -> Font:
    """The first of ``FACES`` that loads (from Debian's folder, else by its name from the
    system's font folders), at ``size`` px; else Pillow's own font."""
    for face in FACES[bold]:
        for name in (f"{FONT_DIR}/{face}", face.rsplit("/", 1)[1]):
            try:
                return ImageFont.truetype(name, size)
            except OSError:
                continue
    return ImageFont.load_default(size)


def _felt(height: int) -> Image.Image:
    """The table: a radial felt, lighter at its centre, inside a wooden rail."""
    image = Image.new("RGB", (WIDTH, height), RAIL_WOOD)
    inner = (WIDTH - 2 * RAIL, height - 2 * RAIL)
    shade = Image.radial_gradient("L").resize(inner)  # 0 at the centre, 255 at the edge
    light, dark = Image.new("RGB", inner, FELT_LIGHT), Image.new("RGB", inner, FELT_DARK)
    table = Image.composite(dark, light, shade.point(lambda v: min(255, int(v * 1.15))))
    mask = Image.new("L", inner, 0)
    ImageDraw.Draw(mask).rounded_rectangle((0, 0, inner[0] - 1, inner[1] - 1), radius=42, fill=255)
    image.paste(table, (RAIL, RAIL), mask)
    return image


def _suit(draw: ImageDraw.ImageDraw, suit: str, cx: float, cy: float, size: float) -> None:
    """A suit symbol ``size`` px high, centred on (cx, cy)."""
    colour, r = SUITS[suit], size / 2
    if suit == "D":
        draw.polygon([(cx, cy - r), (cx + r * 0.72, cy), (cx, cy + r), (cx - r * 0.72, cy)], fill=colour)
        return
    if suit == "C":
        lobe = r * 0.42
        for dx, dy in ((0, -r * 0.5), (-r * 0.5, r * 0.05), (r * 0.5, r * 0.05)):
            draw.ellipse((cx + dx - lobe, cy + dy - lobe, cx + dx + lobe, cy + dy + lobe), fill=colour)
        draw.polygon([(cx, cy), (cx - r * 0.35, cy + r), (cx + r * 0.35, cy + r)], fill=colour)
        return
    # A heart, or a spade: a heart upside down on a stem.
    flip = -1 if suit == "S" else 1
    lobe = r * 0.5
    top = cy - r * 0.45 if suit == "H" else cy + r * 0.12
    tip = cy + flip * r
    base = top + flip * lobe * 0.35
    for dx in (-lobe, lobe):
        draw.ellipse((cx + dx - lobe, top - lobe, cx + dx + lobe, top + lobe), fill=colour)
    draw.polygon([(cx - 2 * lobe + 1, base), (cx + 2 * lobe - 1, base), (cx, tip)], fill=colour)
    if suit == "S":
        draw.polygon([(cx, cy), (cx - r * 0.35, cy + r), (cx + r * 0.35, cy + r)], fill=colour)


def _card(image: Image.Image, rank: str, suit: str, x: int, y: int, angle: float, w: int = 96) -> None:
    """A card face as the client draws one: white, rounded, its rank and suit in the suit's colour."""
    h = int(w * 82 / 58)
    face = Image.new("RGBA", (w + 8, h + 8), (0, 0, 0, 0))
    draw = ImageDraw.Draw(face)
    draw.rounded_rectangle((6, 6, w + 6, h + 6), radius=w // 8, fill=(0, 0, 0, 70))  # its shadow
    draw.rounded_rectangle((0, 0, w, h), radius=w // 8, fill=CARD, outline=CARD_EDGE, width=2)
    draw.text((w * 0.12, h * 0.05), rank, font=font(int(w * 0.36), bold=True), fill=SUITS[suit])
    _suit(draw, suit, w * 0.22, h * 0.44, w * 0.22)
    _suit(draw, suit, w * 0.58, h * 0.68, w * 0.5)
    turned = face.rotate(angle, resample=Image.Resampling.BICUBIC, expand=True)
    image.paste(turned, (x, y), turned)


def _fit(draw: ImageDraw.ImageDraw, text: str, size: int, width: int, bold: bool = False) -> tuple[str, Font]:
    """``text`` at ``size`` px, smaller (to four fifths) then cut with an ellipsis to fit ``width``."""
    for s in range(size, int(size * 0.8) - 1, -2):
        if draw.textlength(text, font=font(s, bold)) <= width:
            return text, font(s, bold)
    f = font(int(size * 0.8), bold)
    while text and draw.textlength(text + "…", font=f) > width:
        text = text[:-1]
    return text + "…", f


class _Layout:
    """Lays the card out top to bottom; drawn twice: once to measure, once for real."""

    def __init__(self, image: Image.Image | None) -> None:
        self.image = image
        scratch = image if image is not None else Image.new("RGBA", (1, 1))
        self.draw = ImageDraw.Draw(scratch, "RGBA")
        self.y = RAIL + PAD

    def text(
        self,
        x: float,
        text: str,
        size: int,
        fill: Any,
        bold: bool = False,
        width: int | None = None,
        anchor: str = "la",
    ) -> None:
        room = int(x) - PAD if anchor[0] == "r" else WIDTH - PAD - int(x)
        text, f = _fit(self.draw, text, size, width or room, bold)
        if self.image is not None:
            self.draw.text((x, self.y), text, font=f, fill=fill, anchor=anchor)

    def panel(self, height: int) -> None:
        if self.image is not None:
            self.draw.rounded_rectangle((PAD - 24, self.y, WIDTH - PAD + 24, self.y + height), radius=28, fill=PANEL)


def _winners(night: Mapping[str, Any]) -> list[str]:
    """The members who won the most matches tonight (at least one)."""
    rows = night["members"]
    most = max((m["wins"] for m in rows), default=0)
    return [m["name"] for m in rows if most and m["wins"] == most]


def _games(night: Mapping[str, Any]) -> list[tuple[str, int, list[tuple[str, Mapping[str, Any]]]]]:
    """Each game played, in the night's order: its matches and its members' figures, best first."""
    order: dict[str, int] = {}
    for r in night["results"]:
        order[r["game"]] = order.get(r["game"], 0) + 1
    out = []
    for game, count in order.items():
        rows = [(m["name"], m["by_game"][game]) for m in night["members"] if game in m["by_game"]]
        rows.sort(key=lambda r: (-r[1]["wins"], -r[1]["net"], r[0]))
        out.append((game, count, rows))
    return out


def _highlight(layout: _Layout, heading: str, what: str, where: str) -> None:
    """A moment of the night: a gold heading, what happened in large type, where below it."""
    layout.text(PAD, heading, 30, GOLD, bold=True)
    layout.y += 44
    layout.text(PAD, what, 44, INK, bold=True)
    layout.y += 58
    layout.text(PAD, where, 32, MUTED)
    layout.y += 66


def _lay_out(layout: _Layout, group_name: str, night: Mapping[str, Any], titles: Mapping[str, str]) -> None:
    title = lambda game: titles.get(game, game)  # noqa: E731
    count = night["matches"]
    layout.text(PAD, group_name, 68, INK, bold=True, width=WIDTH - 2 * PAD - 300)
    layout.y += 86
    when = night["ended_at"].strftime("%a %d %b %Y") if night["ended_at"] else ""
    layout.text(PAD, f"{when} · {count} match{'es' if count != 1 else ''}", 36, GOLD, width=WIDTH - 2 * PAD - 300)
    layout.y += 90
    winners = _winners(night)
    if winners:
        layout.text(PAD, "TONIGHT'S WINNERS" if len(winners) > 1 else "TONIGHT'S WINNER", 30, GOLD, bold=True)
        layout.y += 44
        layout.text(PAD, " & ".join(winners), 64, INK, bold=True)
        layout.y += 100
    for game, played, rows in _games(night):
        shown = rows[:ROWS]
        height = 32 + 64 + 62 * len(shown) + (52 if len(rows) > ROWS else 0) + 16
        layout.panel(height)
        layout.y += 32
        layout.text(PAD, title(game), 46, INK, bold=True, width=600)
        layout.text(WIDTH - PAD, f"{played} match{'es' if played != 1 else ''}", 32, MUTED, anchor="ra", width=320)
        layout.y += 70
        for name, f in shown:  # a row: the name, wins, net, on one middle line
            layout.y += 31
            layout.text(PAD, name, 40, INK, width=430, anchor="lm")
            won = f"{f['wins']}/{f['matches']} won"
            layout.text(PAD + 660, won, 36, GOLD if f["wins"] else MUTED, anchor="rm", width=200)
            layout.text(WIDTH - PAD, signed(f["net"]), 40, INK, bold=True, anchor="rm", width=240)
            layout.y += 31
        if len(rows) > ROWS:
            layout.y += 6
            layout.text(PAD, f"and {len(rows) - ROWS} more", 30, MUTED)
            layout.y += 46
        layout.y += 16 + 36
    best, back = night.get("best_hand"), night.get("comeback")
    if best:
        where = f"{best['points']} points · {title(best['game'])}, hand {best['hand']}"
        _highlight(layout, "BEST HAND", " & ".join(best["names"]), where)
    if back:
        where = f"from {back['behind']} behind · {title(back['game'])}"
        _highlight(layout, "BIGGEST COMEBACK", " & ".join(back["names"]), where)
    layout.y += 10
    if layout.image is not None:  # the site's brand: a white tile with a spade, then its name
        left = WIDTH - PAD - 140
        layout.draw.rounded_rectangle((left, layout.y, left + 46, layout.y + 46), radius=9, fill=INK)
        _suit(layout.draw, "S", left + 23, layout.y + 23, 28)
    layout.text(WIDTH - PAD, "Felt", 38, INK, bold=True, anchor="ra")
    layout.y += 46


def recap_png(group_name: str, night: Mapping[str, Any], titles: Mapping[str, str]) -> bytes:
    """The night's card as PNG bytes (``night`` as ``server.groups.recap.recap`` makes it)."""
    measure = _Layout(None)
    if night["matches"]:
        _lay_out(measure, group_name, night, titles)
    height = max(measure.y + PAD + RAIL, 640)
    image = _felt(height)
    layout = _Layout(image)
    if night["matches"]:
        _lay_out(layout, group_name, night, titles)
        for i, (rank, suit) in enumerate(FAN):
            _card(image, rank, suit, WIDTH - PAD - 300 + i * 58, RAIL + 36 + int(abs(i - 1.5) * 10), 12 - i * 8)
    else:
        layout.text(PAD, group_name, 68, INK, bold=True)
        layout.y += 100
        layout.text(PAD, "No match finished yet.", 40, MUTED)
    out = io.BytesIO()
    image.save(out, format="PNG", compress_level=6)
    return out.getvalue()
