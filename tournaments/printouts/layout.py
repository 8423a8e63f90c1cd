"""Shared page mechanics: page sizes, fonts, fitting text into boxes, cut lines, progress.

Text is set in the PDF base fonts (Helvetica, Courier), which need no embedding and so cost
nothing per document. Those fonts only cover Windows-1252, so a name such as "Łucja" would
print as boxes; for such strings `font_for` switches to DejaVu Sans when the machine has it
(Debian's fonts-dejavu-core), embedding only the glyphs used.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path

from reportlab import rl_config
from reportlab.lib.pagesizes import A4, letter
from reportlab.pdfbase.pdfmetrics import registerFont, stringWidth
from reportlab.pdfbase.ttfonts import TTFont
from reportlab.pdfgen.canvas import Canvas

from .inputs import EventInfo

Progress = Callable[[int, int], None]
PageSize = tuple[float, float] | str

INCH = 72.0
MARGIN = 0.375 * INCH  # inside what office printers can reach, with room to spare

SANS = "Helvetica"
SANS_BOLD = "Helvetica-Bold"
SANS_OBLIQUE = "Helvetica-Oblique"
MONO_BOLD = "Courier-Bold"

_NAMED_SIZES = {"letter": letter, "a4": A4}
_DEJAVU_DIRS = (
    Path("/usr/share/fonts/truetype/dejavu"),
    Path("/usr/share/fonts/dejavu"),
    Path("/usr/local/share/fonts/dejavu"),
)
_UNICODE = "PrintoutSans"
_UNICODE_BOLD = "PrintoutSans-Bold"


def page_size(value: PageSize) -> tuple[float, float]:
    """A reportlab size from a tuple or the name "letter"/"A4" (a Celery task passes names)."""
    if isinstance(value, str):
        try:
            return _NAMED_SIZES[value.strip().lower()]
        except KeyError:
            raise ValueError(f"Unknown page size {value!r}; use 'letter' or 'A4'.") from None
    width, height = (float(v) for v in value)
    if width > height:
        raise ValueError("Printouts are laid out portrait: give the width first, then height.")
    if width < 5 * INCH or height < 7 * INCH:
        raise ValueError("The page is too small for these printouts; use letter or A4.")
    return width, height


def new_canvas(
    pagesize: tuple[float, float], title: str, compress: bool
) -> tuple[Canvas, io.BytesIO]:
    """A canvas writing into memory; `invariant` makes equal input give equal bytes."""
    buffer = io.BytesIO()
    canvas = Canvas(
        buffer,
        pagesize=pagesize,
        pageCompression=1 if compress else 0,
        invariant=1,
        initialFontName=SANS,
    )
    canvas.setTitle(title)
    canvas.setCreator("Bunco tournament site")
    return canvas, buffer


@contextmanager
def binary_streams() -> Iterator[None]:
    """Write compressed streams as binary instead of reportlab's default ASCII85 text.

    ASCII85 makes streams 25% bigger and, without reportlab's optional C accelerator, its
    pure-Python encoder is a fifth of the time of a card page. Binary streams have been
    normal in PDF for decades. reportlab only offers this as a process-wide setting, read
    when the file is written, so it is switched for the duration of `save` and put back.
    """
    before = rl_config.useA85
    rl_config.useA85 = 0
    try:
        yield
    finally:
        rl_config.useA85 = before


def save(canvas: Canvas, buffer: io.BytesIO) -> bytes:
    """Finish the canvas and return the PDF."""
    with binary_streams():
        canvas.save()
    return buffer.getvalue()


def nothing_to_print(canvas: Canvas, pagesize: tuple[float, float], message: str) -> None:
    """A one-page PDF that says why it is empty, rather than a blank page or an error."""
    canvas.setFont(SANS, 12)
    canvas.drawString(MARGIN, pagesize[1] - MARGIN - 12, message)
    canvas.showPage()


def canvas_document(
    title: str,
    pagesize: PageSize,
    compress: bool,
    draw: Callable[[Canvas, tuple[float, float]], None],
    empty: str | None,
) -> bytes:
    """A whole canvas PDF: `draw` adds the pages; `empty` is the message when it has none.

    The page size is checked before anything is drawn, so a bad size is refused at once; the
    caller decides emptiness because only it knows which of its inputs make pages.
    """
    size = page_size(pagesize)
    canvas, buffer = new_canvas(size, title, compress)
    draw(canvas, size)
    if empty is not None:
        nothing_to_print(canvas, size, empty)
    return save(canvas, buffer)


def subtitle(event: EventInfo, document: str, venue: bool = False) -> str:
    """The document's name and whichever of the event's details are filled in, dot-separated."""
    details = (event.charity, event.date_text, event.venue if venue else "")
    return " · ".join(part for part in (document, *details) if part)


@lru_cache(maxsize=1)
def _unicode_fonts() -> tuple[str, str] | None:
    for folder in _DEJAVU_DIRS:
        regular, bold = folder / "DejaVuSans.ttf", folder / "DejaVuSans-Bold.ttf"
        if regular.is_file() and bold.is_file():
            registerFont(TTFont(_UNICODE, str(regular)))
            registerFont(TTFont(_UNICODE_BOLD, str(bold)))
            return _UNICODE, _UNICODE_BOLD
    return None


@lru_cache(maxsize=4096)
def _base_font_can_show(text: str) -> bool:
    try:
        text.encode("cp1252")
    except UnicodeEncodeError:
        return False
    return True


def font_for(text: str, base: str = SANS) -> str:
    """`base` if its encoding covers `text`, else the Unicode fallback of the same weight."""
    if _base_font_can_show(text):
        return base
    fonts = _unicode_fonts()
    if fonts is None:
        return base  # no fallback installed: unknown letters print as boxes, nothing fails
    return fonts[1] if "Bold" in base else fonts[0]


def fit(text: str, font: str, size: float, width: float, smallest: float) -> tuple[str, float]:
    """Shrink `text` to fit `width`, down to `smallest` points, then cut it with an ellipsis.

    Names and event titles come from forms and can be any length; cutting is better than
    running into the next box, and the full name is still on the website.
    """
    measured = stringWidth(text, font, size)
    if measured <= width:
        return text, size
    shrunk = size * width / measured
    if shrunk >= smallest:
        return text, shrunk
    cut = text
    while cut and stringWidth(cut + "…", font, smallest) > width:
        cut = cut[:-1]
    return cut.rstrip() + "…", smallest


def draw_fitted(
    canvas: Canvas,
    x: float,
    y: float,
    text: str,
    base: str,
    size: float,
    width: float,
    smallest: float | None = None,
    align: str = "left",
) -> float:
    """Draw `text` fitted into `width`; returns the font size used."""
    font = font_for(text, base)
    shown, used = fit(text, font, size, width, smallest or min(size, 6.0))
    canvas.setFont(font, used)
    if align == "center":
        canvas.drawCentredString(x + width / 2, y, shown)
    elif align == "right":
        canvas.drawRightString(x + width, y, shown)
    else:
        canvas.drawString(x, y, shown)
    return used


def wrap_words(text: str, font: str, size: float, width: float) -> list[str]:
    """Greedy word wrap for short prose drawn straight on a canvas."""
    lines: list[str] = []
    line = ""
    for word in text.split():
        trial = f"{line} {word}" if line else word
        if line and stringWidth(trial, font, size) > width:
            lines.append(line)
            line = word
        else:
            line = trial
    if line:
        lines.append(line)
    return lines


class Counter:
    """Counts finished items for a progress callback shared by the parts of one document."""

    def __init__(self, callback: Progress | None, total: int) -> None:
        self.callback = callback
        self.total = total
        self.done = 0

    def advance(self, items: int) -> None:
        self.done += items
        if self.callback is not None:
            self.callback(self.done, self.total)


def cells(
    pagesize: tuple[float, float], cols: int, rows: int
) -> list[tuple[float, float, float, float]]:
    """(x, y, width, height) of equal cut-apart cells inside the margins, top-left first."""
    width, height = pagesize
    cell_w = (width - 2 * MARGIN) / cols
    cell_h = (height - 2 * MARGIN) / rows
    return [
        (MARGIN + col * cell_w, height - MARGIN - (row + 1) * cell_h, cell_w, cell_h)
        for row in range(rows)
        for col in range(cols)
    ]


def draw_cut_lines(canvas: Canvas, pagesize: tuple[float, float], cols: int, rows: int) -> None:
    """Dashed lines along every cell edge, with scissors in the margin to say "cut here"."""
    width, height = pagesize
    left, right, bottom, top = MARGIN, width - MARGIN, MARGIN, height - MARGIN
    canvas.saveState()
    canvas.setStrokeGray(0.55)
    canvas.setLineWidth(0.5)
    canvas.setDash(4, 3)
    for col in range(cols + 1):
        x = left + col * (right - left) / cols
        canvas.line(x, bottom, x, top)
    for row in range(rows + 1):
        y = bottom + row * (top - bottom) / rows
        canvas.line(left, y, right, y)
    canvas.setFillGray(0.55)
    canvas.setFont("ZapfDingbats", 9)
    for row in range(1, rows):
        canvas.drawString(left - 12, bottom + row * (top - bottom) / rows - 3, "\u2702")
    canvas.restoreState()
