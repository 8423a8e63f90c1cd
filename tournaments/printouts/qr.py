"""QR codes for the score cards: our own encoder, drawn as vector paths, ~0.15 ms a code.

A 600-player packet has 600 codes, so what a code costs decides how long the packet takes:
reportlab's QR widget takes ~40 ms a code, segno ~1.6 ms (pure Python, even with the mask
search skipped). Three things make a code cheap here (figures per code, a 135-byte URL):

Encoding, ~17 us. The site's codes are URLs: byte mode, error level M, versions 1 to 10 (up
to 213 ASCII characters; anything else goes to segno, so correctness never rests on the fast
path). For a given version and level, everything after the data bytes is linear over GF(2):
padding, Reed-Solomon error correction, block interleaving, module placement, the mask XOR
and the fixed patterns on top. So a `_Plan`, built once per version and level (10-35 ms),
runs the standard's steps (log/antilog tables, generator polynomial per block size,
interleaving order, placement order, function patterns, format and version information,
mask) for every single data bit, and keeps, for each 4-bit piece of the data and each of its
16 values, the whole matrix that piece switches on, as an int with a bit per module. A URL's
matrix is then the XOR of one int per hex digit of the URL. It is segno's matrix module for
module (the tests compare every version and level, at each length boundary and at random).

Drawing, ~28 us. Each hex digit of the matrix is four modules of one row; for each position
and value the rectangles (`col row length 1 re`) are precomputed text, so a code's path is
one `join` in C. A run of dark modules crossing a 4-module boundary is two abutting
rectangles (9.9 KB of text instead of 7.6 KB for whole runs); the code is filled once as
one path, so nothing shows between them.

Writing, ~85 us. Left in the page stream, that text costs reportlab ~200 us a code to
compress at zlib level 6 (or to run through its PDFDocEncoding codec when uncompressed),
more than everything else together. So the codes of a page go into one form XObject whose
stream we compress once at FORM_ZLIB_LEVEL, or store as is when page compression is off
(see `_PreencodedForm`). A code then takes ~1.6 KB of the file instead of ~1.1 KB.

The mask is fixed (QR_MASK) instead of chosen by the standard's penalty score: every mask
is valid and decodes (the tests decode rendered pages with zxing-cpp); the score only avoids
patterns that might confuse a poor reader, and computing it costs more than the rest of the
code together. Like segno, the error level is raised above M for free (to Q or H) when the
URL still fits the same version.

It is the one module over 500 lines (docs/architecture.md): the encoder's plan, drawing and
writing share private tables and only make sense read together, and splitting them would put
the standard's steps in three places.
"""

from __future__ import annotations

import hashlib
import re
import zlib
from collections.abc import Callable, Iterable, Sequence
from functools import cache, lru_cache, reduce
from operator import getitem, xor
from typing import Any, NamedTuple

import segno
from reportlab.pdfbase.pdfdoc import PDFObject
from reportlab.pdfgen.canvas import Canvas

QR_MASK = 0
QUIET_ZONE = 4  # modules of white around the code, as the standard asks
FORM_ZLIB_LEVEL = 3  # 1: ~30 us a code faster, 45% more bytes; 6: ~120 us slower, 30% fewer
FAST_VERSIONS = range(1, 11)  # byte mode with an 8-bit (1-9) or 16-bit (10) length

# ISO/IEC 18004:2015 table 9: per version, the error correction codewords per block and the
# (number of blocks, data codewords per block) groups, for the levels the site can end at.
_BLOCKS: dict[str, tuple[tuple[int, tuple[tuple[int, int], ...]], ...]] = {
    "M": (
        (10, ((1, 16),)),
        (16, ((1, 28),)),
        (26, ((1, 44),)),
        (18, ((2, 32),)),
        (24, ((2, 43),)),
        (16, ((4, 27),)),
        (18, ((4, 31),)),
        (22, ((2, 38), (2, 39))),
        (22, ((3, 36), (2, 37))),
        (26, ((4, 43), (1, 44))),
    ),
    "Q": (
        (13, ((1, 13),)),
        (22, ((1, 22),)),
        (18, ((2, 17),)),
        (26, ((2, 24),)),
        (18, ((2, 15), (2, 16))),
        (24, ((4, 19),)),
        (18, ((2, 14), (4, 15))),
        (22, ((4, 18), (2, 19))),
        (20, ((4, 16), (4, 17))),
        (24, ((6, 19), (2, 20))),
    ),
    "H": (
        (17, ((1, 9),)),
        (28, ((1, 16),)),
        (22, ((2, 13),)),
        (16, ((4, 9),)),
        (22, ((2, 11), (2, 12))),
        (28, ((4, 15),)),
        (26, ((4, 13), (1, 14))),
        (26, ((4, 14), (2, 15))),
        (24, ((4, 12), (4, 13))),
        (28, ((6, 15), (2, 16))),
    ),
}
# Annex E: centres of the alignment patterns per version.
_ALIGNMENT = (
    (),
    (6, 18),
    (6, 22),
    (6, 26),
    (6, 30),
    (6, 34),
    (6, 22, 38),
    (6, 24, 42),
    (6, 26, 46),
    (6, 28, 50),
)
_LEVEL_BITS = {"L": 1, "M": 0, "Q": 3, "H": 2}  # table 12
_LEVELS_UP = ("M", "Q", "H")  # the order segno tries when raising the level for free
# Table 10, (row, column) of a module -> whether the mask darkens it.
_MASKS: tuple[Callable[[int, int], bool], ...] = (
    lambda i, j: (i + j) % 2 == 0,
    lambda i, j: i % 2 == 0,
    lambda i, j: j % 3 == 0,
    lambda i, j: (i + j) % 3 == 0,
    lambda i, j: (i // 2 + j // 3) % 2 == 0,
    lambda i, j: (i * j) % 2 + (i * j) % 3 == 0,
    lambda i, j: ((i * j) % 2 + (i * j) % 3) % 2 == 0,
    lambda i, j: ((i + j) % 2 + (i * j) % 3) % 2 == 0,
)
# What segno writes after the terminator: one 0x00 codeword (segno 1.6 pads to the next
# byte even when the stream already ends on one), then 0xEC 0x11 alternately. Decoders stop
# at the terminator, so this only matters for comparing matrices with segno module by module.
_TAIL = bytes(n for byte in b"\x00" + b"\xec\x11" * 256 for n in (byte >> 4, byte & 15))
_HEX_VALUES = bytes.maketrans(b"0123456789abcdef", bytes(range(16)))
_BITS = bytes.maketrans(b"01", b"\x00\x01")
_DIGITS = bytes.maketrans(b"\x00\x01", b"01")
_ALPHANUMERIC = re.compile(rb"[0-9A-Z $%*+\-./:]+")  # segno would use numeric/alphanumeric


class QRMatrix(NamedTuple):
    """A code's modules as one int: row-major, top-left module in the highest bit.

    Rows are `stride` bits long, the size rounded up to a multiple of 4 (the padding is
    light), so each hex digit of `bits` is four modules of one row.
    """

    size: int
    stride: int
    bits: int

    def rows(self) -> tuple[bytes, ...]:
        """One bytes row per line, 1 = dark, as segno's `matrix` has them."""
        digits = format(self.bits, f"0{self.size * self.stride}b").encode().translate(_BITS)
        return tuple(
            digits[row * self.stride : row * self.stride + self.size] for row in range(self.size)
        )


# --- Galois field GF(256) and Reed-Solomon ----------------------------------------------------


def _galois_tables() -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Antilog (doubled, so a product needs no modulo) and log tables for x^8+x^4+x^3+x^2+1."""
    exp, log = [0] * 510, [0] * 256
    value = 1
    for power in range(255):
        exp[power] = exp[power + 255] = value
        log[value] = power
        value <<= 1
        if value & 0x100:
            value ^= 0x11D
    return tuple(exp), tuple(log)


_EXP, _LOG = _galois_tables()


def _multiply(a: int, b: int) -> int:
    return 0 if a == 0 or b == 0 else _EXP[_LOG[a] + _LOG[b]]


@cache
def _generator(ec_words: int) -> tuple[int, ...]:
    """Coefficients after the leading 1 of (x - a^0)(x - a^1)...(x - a^(ec_words-1))."""
    poly = [1]
    for power in range(ec_words):
        poly = [
            high ^ _multiply(low, _EXP[power])
            for high, low in zip([*poly, 0], [0, *poly], strict=True)
        ]
    return tuple(poly[1:])


def _remainders(ec_words: int, distances: int) -> list[tuple[int, ...]]:
    """x^(ec_words + d) mod generator for d = 0..distances-1.

    The error correction of a block is the remainder of its data polynomial times
    x^ec_words; a data codeword d places before the block's end contributes its value times
    the d-th remainder, which is all `_Plan` needs to know about Reed-Solomon.
    """
    generator = _generator(ec_words)
    remainder = list(generator)  # x^ec_words = the generator minus its leading term
    found = [tuple(remainder)]
    for _ in range(distances - 1):
        lead = remainder.pop(0)
        remainder.append(0)
        remainder = [r ^ _multiply(lead, g) for r, g in zip(remainder, generator, strict=True)]
        found.append(tuple(remainder))
    return found


# --- the plan of one version and level ---------------------------------------------------------


def _function_modules(version: int, level: str, mask: int) -> dict[tuple[int, int], int]:
    """(row, column) -> 0/1 of every module that is not data: finders with separators,
    timing, alignment, the dark module, format information and (from 7) version information.
    """
    size = 17 + 4 * version
    fixed: dict[tuple[int, int], int] = {}
    for top, left in ((0, 0), (0, size - 7), (size - 7, 0)):
        for dr in range(-1, 8):
            for dc in range(-1, 8):
                if 0 <= top + dr < size and 0 <= left + dc < size:
                    ring = max(abs(dr - 3), abs(dc - 3))  # 0..2 centre, 3 border, 4 separator
                    fixed[top + dr, left + dc] = int(ring != 2 and ring != 4)
    for i in range(size):
        fixed.setdefault((6, i), int(i % 2 == 0))
        fixed.setdefault((i, 6), int(i % 2 == 0))
    centres = _ALIGNMENT[version - 1]
    for row in centres:
        for col in centres:
            if (row, col) in ((6, 6), (6, centres[-1]), (centres[-1], 6)):
                continue  # would overlap a finder
            for dr in range(-2, 3):
                for dc in range(-2, 3):
                    fixed[row + dr, col + dc] = int(max(abs(dr), abs(dc)) != 1)
    info = _LEVEL_BITS[level] << 3 | mask
    remainder = info
    for _ in range(10):
        remainder = (remainder << 1) ^ ((remainder >> 9) * 0x537)
    bits = (info << 10 | remainder) ^ 0x5412

    def bit(i: int) -> int:
        return (bits >> i) & 1

    for i in range(6):
        fixed[i, 8] = bit(i)
    fixed[7, 8], fixed[8, 8], fixed[8, 7] = bit(6), bit(7), bit(8)
    for i in range(9, 15):
        fixed[8, 14 - i] = bit(i)
    for i in range(8):
        fixed[8, size - 1 - i] = bit(i)
    for i in range(8, 15):
        fixed[size - 15 + i, 8] = bit(i)
    fixed[size - 8, 8] = 1  # the dark module
    if version >= 7:
        remainder = version
        for _ in range(12):
            remainder = (remainder << 1) ^ ((remainder >> 11) * 0x1F25)
        bits = version << 12 | remainder
        for i in range(18):
            fixed[i // 3, size - 11 + i % 3] = fixed[size - 11 + i % 3, i // 3] = bit(i)
    return fixed


def _placement(size: int, fixed: dict[tuple[int, int], int]) -> list[tuple[int, int]]:
    """The data modules in the order the codeword bits fill them (7.7.3): two-module columns
    from the right, alternately upwards and downwards, skipping the timing column."""
    order = []
    right = size - 1
    while right >= 1:
        if right == 6:
            right = 5
        upwards = ((right + 1) & 2) == 0
        for step in range(size):
            row = size - 1 - step if upwards else step
            for col in (right, right - 1):
                if (row, col) not in fixed:
                    order.append((row, col))
        right -= 2
    return order


class _Plan:
    """Everything about one version, level and mask that does not depend on the data.

    `nibbles[j][v]` is the matrix (as a `QRMatrix.bits` int) that the j-th 4-bit piece of the
    data codewords switches on when it has the value v: its own modules and the error
    correction modules it changes, masked placement included. `base(n)` adds everything
    fixed for a URL of n bytes: function patterns, the mask, mode, length and padding.
    """

    def __init__(self, version: int, level: str, mask: int) -> None:
        self.version = version
        self.size = size = 17 + 4 * version
        self.stride = stride = (size + 3) // 4 * 4
        self.header = 3 if version < 10 else 5  # mode + length, in 4-bit pieces
        ec_words, groups = _BLOCKS[level][version - 1]
        blocks = [length for count, length in groups for _ in range(count)]  # data words
        self.data_words = data_words = sum(blocks)
        self.capacity = data_words - (self.header + 1) // 2  # bytes of URL that fit
        total = size * stride

        def module(row: int, col: int) -> int:
            return 1 << (total - 1 - row * stride - col)

        fixed = _function_modules(version, level, mask)
        placed = _placement(size, fixed)
        darkened = _MASKS[mask]
        const = 0
        for (row, col), value in fixed.items():
            if value:
                const |= module(row, col)
        for row, col in placed:  # remainder bits included: they are 0 before masking
            if darkened(row, col):
                const ^= module(row, col)
        self.const = const

        # Interleaving (7.6): data codeword i of every block in turn, then the error
        # correction codewords the same way. Codewords are numbered data first (in order),
        # then block b's error correction words at data_words + b * ec_words + e.
        interleaved = []
        starts = [sum(blocks[:b]) for b in range(len(blocks))]
        for i in range(max(blocks)):
            interleaved += [
                start + i for start, length in zip(starts, blocks, strict=True) if i < length
            ]
        for e in range(ec_words):
            interleaved += [data_words + block * ec_words + e for block in range(len(blocks))]
        bit_modules: list[list[int]] = [[] for _ in interleaved]  # codeword -> its 8 modules
        for k, codeword in enumerate(interleaved):
            bit_modules[codeword] = [module(*placed[8 * k + bit]) for bit in range(8)]

        nibbles: list[list[int]] = []
        for block, (start, length) in enumerate(zip(starts, blocks, strict=True)):
            first_ec = data_words + block * ec_words
            ec_modules = bit_modules[first_ec : first_ec + ec_words]
            remainders = _remainders(ec_words, length)
            for i in range(length):
                per_bit = []
                for b_index in range(8):  # bit 0 is the codeword's most significant
                    value = bit_modules[start + i][b_index]
                    unit = 0x80 >> b_index
                    for e, coefficient in enumerate(remainders[length - 1 - i]):
                        word = _multiply(unit, coefficient)
                        for bb in range(8):
                            if word & (0x80 >> bb):
                                value ^= ec_modules[e][bb]
                    per_bit.append(value)
                nibbles += [_combinations(per_bit[:4]), _combinations(per_bit[4:])]
        self.nibbles = nibbles
        self.data_nibbles = nibbles[self.header :]  # where the URL's own hex digits go
        self._bases: dict[int, int] = {}

    def base(self, length: int) -> int:
        """Function patterns, mask, mode, length, terminator and padding for `length` bytes."""
        found = self._bases.get(length)
        if found is None:
            digits = self.header - 1
            head = [4, *((length >> (4 * (digits - 1 - d))) & 15 for d in range(digits))]
            # After the URL: a 0 terminator digit, then `_TAIL`, to the end of the data.
            first = self.header + 2 * length + 1
            tail = _TAIL[: 2 * self.data_words - first]
            found = reduce(xor, map(getitem, self.nibbles, head), self.const)
            found = reduce(xor, map(getitem, self.nibbles[first:], tail), found)
            self._bases[length] = found
        return found

    def encode(self, data: bytes) -> QRMatrix:
        """The matrix of `data` (at most `capacity` bytes, for byte mode)."""
        digits = data.hex().encode().translate(_HEX_VALUES)
        bits = reduce(xor, map(getitem, self.data_nibbles, digits), self.base(len(data)))
        return QRMatrix(self.size, self.stride, bits)


def _combinations(bits: Sequence[int]) -> list[int]:
    """XOR of the `bits` for each of the 16 values of a 4-bit piece (8 = the first bit)."""
    table = [0] * 16
    for value in range(1, 16):
        lowest = value & -value
        table[value] = table[value ^ lowest] ^ bits[3 - (lowest.bit_length() - 1)]
    return table


@lru_cache(maxsize=8)
def _plan(version: int, level: str, mask: int) -> _Plan:
    """Built on first use, 1-35 ms and up to ~3.5 MB; an event's URLs share one or two."""
    return _Plan(version, level, mask)


@lru_cache(maxsize=1)
def _capacities() -> tuple[tuple[int, dict[str, int]], ...]:
    """(version, bytes that fit per level) for the fast versions, without building plans."""
    return tuple(
        (
            version,
            {
                level: sum(c * n for c, n in _BLOCKS[level][version - 1][1])
                - (2 if version < 10 else 3)
                for level in _LEVELS_UP
            },
        )
        for version in FAST_VERSIONS
    )


def _version_and_level(length: int, boost: bool = True) -> tuple[int, str] | None:
    """The smallest version that fits at M, then (`boost`) the highest level that still fits
    it, as segno does with `boost_error`."""
    for version, fits in _capacities():
        if length <= fits["M"]:
            level = "M"
            for better in _LEVELS_UP[1:] if boost else ():
                if length > fits[better]:
                    break
                level = better
            return version, level
    return None


def _fast_data(url: str) -> bytes | None:
    """The bytes segno would encode in byte mode, if the fast path can; else None.

    segno picks numeric or alphanumeric mode for URLs made only of those characters and
    encodes non-ASCII text as ISO 8859-1, Shift JIS or UTF-8; those go to segno.
    """
    if not url.isascii():
        return None
    data = url.encode("ascii")
    if _ALPHANUMERIC.fullmatch(data):
        return None
    return data


def qr_code(url: str, mask: int = QR_MASK, *, boost: bool = True) -> QRMatrix:
    """The code of `url`: smallest version at level M, raised to Q or H when that still fits
    (`boost`, segno's default), with `mask`. Off the fast path segno makes it."""
    data = _fast_data(url)
    chosen = None if data is None else _version_and_level(len(data), boost)
    if data is not None and chosen is not None:
        return _plan(*chosen, mask).encode(data)
    matrix = segno.make(url, error="m", micro=False, mask=mask, boost_error=boost).matrix
    size = len(matrix)
    stride = (size + 3) // 4 * 4
    pad = "0" * (stride - size)
    digits = "".join(bytes(row).translate(_DIGITS).decode() + pad for row in matrix)
    return QRMatrix(size, stride, int(digits, 2))


def qr_matrix(url: str) -> tuple[bytes, ...]:
    """The code's modules, one bytes row per line, 1 = dark, without the quiet zone."""
    return qr_code(url).rows()


# --- drawing -------------------------------------------------------------------------------


@lru_cache(maxsize=8)
def _rectangles(size: int, stride: int) -> list[list[bytes]]:
    """For each hex digit of a `QRMatrix` and each value, the `re` operators of its runs."""
    per_digit = []
    for row in range(size):
        for left in range(0, stride, 4):
            table = []
            for value in range(16):
                parts, col = [], 0
                while col < 4:
                    if value & (8 >> col):
                        start = col
                        while col < 4 and value & (8 >> col):
                            col += 1
                        parts.append(f"{left + start} {row} {col - start} 1 re ")
                    col += 1
                table.append("".join(parts).encode())
            per_digit.append(table)
    return per_digit


def code_path(code: QRMatrix) -> bytes:
    """`col row length 1 re` for the dark modules, in module units, rows going down."""
    digits = format(code.bits, f"0{code.size * code.stride // 4}x").encode()
    return b"".join(
        map(getitem, _rectangles(code.size, code.stride), digits.translate(_HEX_VALUES))
    )


def run_rectangles(matrix: Sequence[bytes]) -> str:
    """One `col row length 1 re` per whole horizontal run of dark modules, in module units.

    The shortest text for a code, built run by run in Python (~8 times the time of
    `code_path`, which drawing uses); the tests check both cover the same modules.
    """
    parts: list[str] = []
    add = parts.append
    for row, line in enumerate(matrix):
        tail = f" {row} "
        col = 0
        for run in line.translate(_DIGITS).decode("ascii").split("0"):
            if run:
                add(f"{col}{tail}{len(run)} 1 re")
                col += len(run) + 1
            else:
                col += 1
    return " ".join(parts)


def _placement_ops(code: QRMatrix, x: float, y: float, size: float) -> bytes:
    """`q ... cm` putting module (column, row) at its cell in the square (x, y, size).

    Rows grow down the page and everything inside is small integers; the quiet zone is
    part of the square.
    """
    step = size / (code.size + 2 * QUIET_ZONE)
    left = x + QUIET_ZONE * step
    top = y + size - QUIET_ZONE * step
    return f"q {step:.4f} 0 0 {-step:.4f} {left:.3f} {top:.3f} cm ".encode()


def qr_operators(url: str, x: float, y: float, size: float) -> str:
    """PDF content operators for the code of `url` in the square (x, y, size) incl. quiet zone.

    One path filled once, so abutting rectangles leave no hairline seams on screen.
    """
    code = qr_code(url)
    return (b"q 0 g " + _placement_ops(code, x, y, size)[2:] + code_path(code) + b"f Q").decode()


def draw_qr(canvas: Canvas, url: str, x: float, y: float, size: float) -> None:
    """Draw one code on the canvas; the graphics state is saved and restored around it."""
    draw_qr_codes(canvas, [(url, x, y)], size)


def draw_qr_codes(canvas: Canvas, codes: Iterable[tuple[str, float, float]], size: float) -> None:
    """Draw codes (url, x, y) of `size` points, all in one form XObject (see the module doc).

    Call it where (x, y) mean what they should in the form: the cards do it once a page,
    outside any per-card translation.
    """
    codes = list(codes)
    if not codes:
        return
    parts = [b"0 g\n"]
    for url, x, y in codes:
        code = qr_code(url)
        parts += [_placement_ops(code, x, y, size), code_path(code), b"f Q\n"]
    content = b"".join(parts)
    if not _draw_as_form(canvas, codes, size, content):
        canvas.addLiteral(f"q {content.decode('ascii')} Q")


# --- the one place that uses reportlab internals --------------------------------------------


class _PreencodedForm(PDFObject):
    """A form XObject whose stream is already Flate-compressed (or plain), written as is.

    reportlab has no public way to add a stream it should not encode itself, and its own
    encoding of this text (zlib level 6, or its PDFDocEncoding codec when uncompressed) is
    what made QR codes slow. reportlab writes any PDFObject with a `format(document)`
    returning bytes; streams must be indirect objects, hence `__RefOnly__`.
    """

    __RefOnly__ = 1

    def __init__(self, bbox: tuple[float, float, float, float], stream: bytes, flate: bool):
        self.bbox = bbox
        self.stream = stream
        self.flate = flate

    def format(self, document: Any) -> bytes:  # reportlab's PDFDocument
        stream = document.encrypt.encode(self.stream)  # a no-op unless encrypted
        box = " ".join(f"{v:.3f}" for v in self.bbox)
        head = (
            f"<< /BBox [{box}]{' /Filter /FlateDecode' if self.flate else ''} "
            f"/Length {len(stream)} /Resources << >> /Subtype /Form /Type /XObject >>"
        )
        return head.encode("ascii") + b"\nstream\n" + stream + b"\nendstream"


def _draw_as_form(
    canvas: Canvas, codes: list[tuple[str, float, float]], size: float, content: bytes
) -> bool:
    """Add `content` as a form XObject and draw it; False if this reportlab lacks the hooks.

    Uses `canvas._doc` (the PDFDocument, whose `Reference` registers a named object) and
    `canvas._pageCompression`. The name is a digest of what is drawn, so equal input gives
    equal bytes and a repeated set of codes is stored once. If a reportlab upgrade removes
    these, the codes still print (as page-stream text, slower) and
    `test_a_pages_qr_codes_are_one_form_with_every_cards_modules` fails to say so.
    """
    document = getattr(canvas, "_doc", None)
    flate = getattr(canvas, "_pageCompression", None)
    if document is None or flate is None or not hasattr(document, "Reference"):
        return False
    name = "QR" + hashlib.blake2b(repr((codes, size)).encode(), digest_size=12).hexdigest()
    if not canvas.hasForm(name):
        xs = [x for _, x, _ in codes]
        ys = [y for _, _, y in codes]
        bbox = (min(xs), min(ys), max(xs) + size, max(ys) + size)
        stream = zlib.compress(content, FORM_ZLIB_LEVEL) if flate else content
        document.Reference(
            _PreencodedForm(bbox, stream, bool(flate)), document.getXObjectName(name)
        )
    canvas.doForm(name)
    return True
