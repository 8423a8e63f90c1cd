"""QR codes drawn as plain filled rectangles: about 2 ms a code instead of 40-70 ms.

reportlab's QR widget builds a drawing with one shape per module and renders it through the
graphics layer. Here segno computes the matrix, each horizontal run of dark modules becomes
one rectangle, and the whole code is a single filled path written in module units under one
transformation matrix: a version 8 code (a 135-character URL) is about 600 short integer
rectangles and one `f`.

The mask is fixed (QR_MASK) instead of letting segno try all eight: that search scores every
mask over the whole matrix in pure Python and is ~80% of segno's time (5.9 ms instead of
1.1 ms for an 88-character URL; with it the 600-player packet takes 5.6 s instead of 1.6 s).
The search only lowers a heuristic penalty for patterns that might confuse a poor reader;
every mask is valid and decodes (the tests decode rendered pages with zxing-cpp). Version
and error level are still segno's choice, including its free boost to a higher error level
when the URL fits.
"""

from __future__ import annotations

from collections.abc import Sequence

import segno
from reportlab.pdfgen.canvas import Canvas

QR_MASK = 0
QUIET_ZONE = 4  # modules of white around the code, as the standard asks

_AS_DIGITS = bytes.maketrans(b"\x00\x01", b"01")


def qr_matrix(url: str) -> tuple[bytes, ...]:
    """The code's modules, one bytes row per line, 1 = dark, without the quiet zone."""
    code = segno.make(url, error="m", micro=False, mask=QR_MASK)
    return tuple(bytes(row) for row in code.matrix)


def run_rectangles(matrix: Sequence[bytes]) -> str:
    """One `col row length 1 re` per horizontal run of dark modules, in module units.

    Splitting the row's digit string on "0" finds the runs in C; this is about a tenth of
    what segno spends making the matrix.
    """
    parts: list[str] = []
    add = parts.append
    for row, line in enumerate(matrix):
        tail = f" {row} "
        col = 0
        for run in line.translate(_AS_DIGITS).decode("ascii").split("0"):
            if run:
                add(f"{col}{tail}{len(run)} 1 re")
                col += len(run) + 1
            else:
                col += 1
    return " ".join(parts)


def qr_operators(url: str, x: float, y: float, size: float) -> str:
    """PDF content operators for the code of `url` in the square (x, y, size) incl. quiet zone.

    The transformation puts module (column, row) at the top-left of its cell, rows growing
    down the page, so every rectangle is written in small integers and the whole code is one
    path filled once (a single fill also leaves no hairline seams between rows on screen).
    """
    matrix = qr_matrix(url)
    step = size / (len(matrix) + 2 * QUIET_ZONE)
    left = x + QUIET_ZONE * step
    top = y + size - QUIET_ZONE * step
    return f"q 0 g {step:.4f} 0 0 {-step:.4f} {left:.3f} {top:.3f} cm {run_rectangles(matrix)} f Q"


def draw_qr(canvas: Canvas, url: str, x: float, y: float, size: float) -> None:
    """Draw the code on the canvas; the graphics state is saved and restored around it."""
    canvas.addLiteral(qr_operators(url, x, y, size))
