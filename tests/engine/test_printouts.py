"""The printouts read back: every card, sheet, pod and row is in the PDF, and the QR codes scan.

No database: the documents are made from plain values. Text is read back with pypdf; the
QR codes are checked the way a phone would, from pixels (pdftoppm renders a page, zxing-cpp
decodes it). CI installs poppler-utils for pdftoppm; without it those tests skip and say so.
"""

from __future__ import annotations

import io
import re
import shutil
import string
import subprocess
from collections import defaultdict

import pypdf
import pytest
import segno
from hypothesis import given, settings
from hypothesis import strategies as st
from reportlab.lib.pagesizes import A4, letter

from tests.pdf_reading import cards_by_cell as read_cards
from tests.pdf_reading import placed_text
from tournaments.foundation.text import ordinal
from tournaments.printouts import (
    CardInfo,
    EventInfo,
    PayoutLine,
    PodSeating,
    ResultsInfo,
    TableInfo,
    packet,
    payout_sheet,
    qr,
    results_sheet,
    score_cards,
    seating_charts,
    tally_sheets,
)
from tournaments.printouts.layout import fit, font_for, new_canvas, save
from tournaments.printouts.qr import (
    QR_MASK,
    draw_qr_codes,
    qr_code,
    qr_matrix,
    qr_operators,
    run_rectangles,
)
from tournaments.printouts.score_cards import card_geometry
from tournaments.printouts.seating_charts import movement_words

EVENT = EventInfo(
    name="Spring Fling Bunco for the Northside Food Bank",
    charity="Northside Food Bank",
    date_text="Saturday 14 March 2026",
    venue="St Mary's Hall",
    preset_label="Classic Bunco",
    targets=(1, 2, 3, 4, 5, 6),
    sets=3,
    movement="progressive",
    movement_text="Head table winners stay; head losers to table 2; the rest move up or down.",
    snake_eyes=True,
)
FIRST = ("Alice", "Bea", "Carol", "Dana", "Edith", "Fran", "Gloria", "Hannah", "Irene", "Joy")
LAST = ("Smith", "Lopez", "Nguyen", "O'Brien", "Kowalski", "Jones", "Worthington-Fairbanks")


def make_event(players: int = 33):
    """Pods of 12 at three tables; a short last pod gets ghosts in seat 4 of its tables."""
    cards, tables, pods = [], [], []
    index = 0
    for pod in range(1, (players + 11) // 12 + 1):
        ghosts = 12 - min(12, players - 12 * (pod - 1))
        pod_tables = []
        for table in range(1, 4):
            seats = []
            for seat in range(1, 5):
                if seat == 4 and table > 3 - ghosts:
                    seats.append("Ghost")
                    continue
                name = f"{FIRST[index % 10]} {LAST[index % 7]} {index}"
                code = f"C{index:04d}Q"
                url = f"https://bunco.example.org/t/spring/c/{code}/?sig={code}:1vXyZq:{index:040x}"
                cards.append(CardInfo(name, code, pod, table, seat, url))
                seats.append(name)
                index += 1
            pod_tables.append(TableInfo(pod, table, table == 1, tuple(seats)))
        tables += pod_tables
        pods.append(PodSeating(pod, pod_tables[0].seats[0], ("Sam Staff",), tuple(pod_tables)))
    return cards, tables, pods


CARDS, TABLES, PODS = make_event()


def read(pdf: bytes) -> pypdf.PdfReader:
    reader = pypdf.PdfReader(io.BytesIO(pdf))
    assert len(reader.pages) >= 1
    return reader


def page_text(pdf: bytes) -> list[str]:
    return [page.extract_text() for page in read(pdf).pages]


# --- score cards --------------------------------------------------------------------------


def cards_by_cell(pdf: bytes, pagesize) -> list[list[str]]:
    return read_cards(read(pdf), EVENT, pagesize)


@pytest.mark.parametrize("pagesize", [letter, A4], ids=["letter", "A4"])
def test_every_player_has_exactly_one_card_with_name_code_and_pod(pagesize):
    pdf = score_cards(EVENT, CARDS, pagesize)
    found = cards_by_cell(pdf, pagesize)
    assert len(found) == len(CARDS)
    by_code = {texts[1]: texts for texts in found}
    assert len(by_code) == len(CARDS)  # no code twice
    for card in CARDS:
        name, code, pod, start = by_code[card.code]
        assert (name, code, pod) == (card.player_name, card.code, str(card.pod))
        assert start.startswith(f"Table {card.table}") and start.endswith(f"seat {card.seat}")
    text = "\n".join(page_text(pdf))
    assert "Verified by" in text and "Confirmed by" in text and "Snake eyes" in text


def test_each_pod_starts_a_new_page_of_cards():
    pdf = score_cards(EVENT, CARDS, letter)
    pods_per_page = []
    for page in read(pdf).pages:
        codes = set(re.findall(r"C\d{4}Q", page.extract_text()))
        pods_per_page.append({c.pod for c in CARDS if c.code in codes})
    assert all(len(p) == 1 for p in pods_per_page)
    assert len(pods_per_page) == 6  # 12 + 12 + 9 players, six cards a page


def test_cards_without_snake_eyes_or_qr_codes():
    event = EventInfo(**{**EVENT.__dict__, "snake_eyes": False, "targets": (2, 3, 4, 5, 6)})
    pdf = score_cards(event, CARDS[:6], letter, qr_codes=False)
    text = page_text(pdf)[0]
    assert "Snake eyes" not in text and "2s" in text and "1s" not in text


@pytest.mark.parametrize("sets, per_page", [(3, 6), (4, 6), (6, 4)])
def test_cards_per_page_follow_the_number_of_sets(sets, per_page):
    event = EventInfo(**{**EVENT.__dict__, "sets": sets})
    geometry = card_geometry(event, letter)
    assert geometry.cols * geometry.rows == per_page
    assert geometry.row_height >= 17


# --- QR codes -------------------------------------------------------------------------------


def modules_from_operators(ops: str) -> list[list[int]]:
    """Rebuild the module grid from the rectangles the PDF draws."""
    runs = [tuple(map(int, m)) for m in re.findall(r"(\d+) (\d+) (\d+) 1 re", ops)]
    size = max(col + length for col, _, length in runs)
    grid = [[0] * size for _ in range(size)]
    for col, row, length in runs:
        for c in range(col, col + length):
            assert grid[row][c] == 0, "rectangles overlap"
            grid[row][c] = 1
    return grid


@pytest.mark.parametrize(
    "url",
    [
        "https://b.example/c/1",
        "https://bunco.example.org/t/spring/cards/check/C0001Q/?sig=C0001Q:1vXyZq:abc",
        "https://bunco.example.org/t/spring-fling-2026/cards/check/A1B2C3/?sig=" + "x" * 200,
        "https://bunco.example.org/t/fête/cards/Łucja/",
    ],
)
def test_drawn_modules_equal_segnos_matrix(url):
    expected = segno.make(url, error="m", micro=False, mask=QR_MASK)
    drawn = modules_from_operators(qr_operators(url, 0, 0, 76))
    # The bottom-right module can be light, so compare on segno's size.
    size = len(expected.matrix)
    drawn = [row + [0] * (size - len(row)) for row in drawn] + [[0] * size] * (size - len(drawn))
    assert drawn == [list(row) for row in expected.matrix]
    assert [bytes(row) for row in expected.matrix] == list(qr_matrix(url))
    # Only the mask is fixed: the version and error level are what segno picks by itself.
    chosen = segno.make(url, error="m", micro=False)
    assert (expected.version, expected.error) == (chosen.version, chosen.error)


def render_png(pdf: bytes, tmp_path, dpi: int = 150, page: int = 1):
    """Page `page` as a PIL image, via pdftoppm as a person's viewer would draw it."""
    if shutil.which("pdftoppm") is None:
        pytest.skip("pdftoppm is missing: apt-get install poppler-utils to check QR codes")
    from PIL import Image

    source = tmp_path / "doc.pdf"
    source.write_bytes(pdf)
    subprocess.run(
        [
            "pdftoppm",
            "-png",
            "-r",
            str(dpi),
            "-f",
            str(page),
            "-l",
            str(page),
            "-singlefile",
            str(source),
            str(tmp_path / "page"),
        ],
        check=True,
        timeout=60,
    )
    return Image.open(tmp_path / "page.png")


@pytest.mark.parametrize("pagesize", [letter, A4], ids=["letter", "A4"])
def test_every_qr_code_on_a_page_opens_its_card(tmp_path, pagesize):
    zxingcpp = pytest.importorskip("zxingcpp", reason="pip install zxing-cpp to decode QR codes")
    pdf = score_cards(EVENT, CARDS, pagesize)
    image = render_png(pdf, tmp_path)
    decoded = [code.text for code in zxingcpp.read_barcodes(image)]
    first_page = {c.url for c in CARDS[:6]}  # CARDS are in print order: pod, table, seat
    assert len(decoded) == 6 and set(decoded) == first_page


# --- the fast QR encoder ------------------------------------------------------------------
#
# `qr` encodes byte-mode URLs of up to 213 characters itself (versions 1-10) and hands the
# rest to segno. Every fast code is compared with segno's module by module; equal matrices
# mean the same version, error level, mask, format and version information as well.

URL_CHARS = string.ascii_letters + string.digits + "-._~:/?#[]@!$&'()*+,;=%"
FAST_LIMIT = 213  # bytes that fit version 10 at level M


def segno_rows(url: str, boost: bool = True, mask: int = QR_MASK) -> list[bytes]:
    code = segno.make(url, error="m", micro=False, mask=mask, boost_error=boost)
    return [bytes(row) for row in code.matrix]


def url_of_length(length: int) -> str:
    """A URL-ish string of exactly `length` characters, lowercase first (so byte mode)."""
    filler = "https://bunco.example.org/t/spring-fling-2026/cards/check/A1B2C3/?sig=x:1vXyZq:"
    filler += "".join(URL_CHARS[(7 * i) % len(URL_CHARS)] for i in range(300))
    return filler[:length]


class SegnoRefused:
    """Stands in for segno inside `qr` so a test fails if the fast path did not run."""

    @staticmethod
    def make(*args, **kwargs):
        raise AssertionError("segno was used for a URL the fast encoder should take")


@pytest.mark.parametrize("boost", [True, False], ids=["level-raised", "level-M"])
def test_fast_codes_equal_segnos_at_every_length(boost, monkeypatch):
    """Every length from empty to version 10's capacity: all versions, all level boundaries."""
    expected = {n: segno_rows(url_of_length(n), boost) for n in range(FAST_LIMIT + 2)}
    designators = {
        segno.make(url_of_length(n), error="m", micro=False, boost_error=boost).designator
        for n in expected
    }
    assert {f"{v}-M" for v in range(1, 11)} <= designators
    if boost:
        assert {"1-Q", "1-H", "2-Q", "4-Q"} <= designators
    else:
        assert all(d.endswith("-M") for d in designators)
    # One past version 10 is segno's; everything else must not touch it.
    assert qr_code(url_of_length(FAST_LIMIT + 1), boost=boost).rows() == tuple(
        expected.pop(FAST_LIMIT + 1)
    )
    monkeypatch.setattr(qr, "segno", SegnoRefused)
    for n, rows in expected.items():
        assert list(qr_code(url_of_length(n), boost=boost).rows()) == rows, n


# Lengths drawn evenly first: left to itself, hypothesis keeps strings short.
random_urls = st.integers(0, FAST_LIMIT).flatmap(
    lambda n: st.text(alphabet=URL_CHARS, min_size=n, max_size=n)
)


@settings(max_examples=150, deadline=None)
@given(random_urls, st.booleans())
def test_fast_codes_equal_segnos_for_random_urls(url, boost):
    assert list(qr_code(url, boost=boost).rows()) == segno_rows(url, boost)


@pytest.mark.parametrize("mask", range(8))
def test_every_mask_equals_segnos(mask):
    for url in (url_of_length(20), url_of_length(135)):  # versions 2 and 8
        assert list(qr_code(url, mask).rows()) == segno_rows(url, mask=mask)


@pytest.mark.parametrize(
    "url",
    [
        "",
        "https://bunco.example.org/t/fête/cards/Łucja/",  # not ASCII: segno picks the bytes
        "HTTPS://B.EXAMPLE/C/1",  # alphanumeric mode
        "4711",  # numeric mode
        "https://b.example/" + "x" * 300,  # past version 10
    ],
)
def test_codes_off_the_fast_path_are_segnos(url):
    assert list(qr_code(url).rows()) == segno_rows(url)
    assert list(qr_matrix(url)) == segno_rows(url)


@pytest.mark.parametrize("length", [0, 10, 20, 40, 60, 80, 100, 120, 150, 170, 213, 260])
def test_drawn_rectangles_are_exactly_the_modules(length):
    """The 4-module rectangle pieces tile the dark modules: no gaps, no overlaps."""
    url = url_of_length(length)
    expected = segno_rows(url)
    drawn = modules_from_operators(qr_operators(url, 0, 0, 76))
    size = len(expected)
    drawn = [row + [0] * (size - len(row)) for row in drawn] + [[0] * size] * (size - len(drawn))
    assert drawn == [list(row) for row in expected]
    whole_runs = modules_from_operators(run_rectangles(qr_matrix(url)))
    assert [row + [0] * (size - len(row)) for row in whole_runs] == drawn[: len(whole_runs)]


def qr_forms(page: pypdf.PageObject) -> list:
    """The page's form XObjects that hold QR codes."""
    xobjects = page["/Resources"].get("/XObject", {})
    return [xobjects[name].get_object() for name in xobjects if name.startswith("/FormXob.QR")]


@pytest.mark.parametrize("compress", [True, False], ids=["compressed", "plain"])
def test_a_pages_qr_codes_are_one_form_with_every_cards_modules(compress):
    pdf = score_cards(EVENT, CARDS[:6], letter, compress=compress)
    (form,) = qr_forms(read(pdf).pages[0])
    assert (form.get("/Filter") == "/FlateDecode") is compress
    content = form.get_data().decode("ascii")
    codes = re.findall(r"q [-\d. ]+ cm (.*?)f Q", content)
    assert len(codes) == 6
    for card, ops in zip(CARDS[:6], codes, strict=True):
        grid = modules_from_operators(ops)
        size = len(qr_matrix(card.url))
        grid = [row + [0] * (size - len(row)) for row in grid] + [[0] * size] * (size - len(grid))
        assert grid == [list(row) for row in qr_matrix(card.url)]


def test_cards_without_qr_codes_have_no_qr_forms():
    pdf = score_cards(EVENT, CARDS[:6], letter, qr_codes=False)
    assert qr_forms(read(pdf).pages[0]) == []


def decode_page(pdf: bytes, tmp_path, dpi: int) -> list[str]:
    zxingcpp = pytest.importorskip("zxingcpp", reason="pip install zxing-cpp to decode QR codes")
    return [code.text for code in zxingcpp.read_barcodes(render_png(pdf, tmp_path, dpi))]


def test_every_version_scans_when_printed_at_card_size(tmp_path):
    """Versions 1 to 10 from the fast encoder and two of segno's, 76 points wide like a card."""
    urls = [url_of_length(n) for n in (10, 20, 40, 60, 80, 100, 120, 150, 170, 213)]
    urls += ["https://b.example/" + "y" * 240, "https://bunco.example.org/t/fête/Łucja/"]
    assert {qr_code(url).size for url in urls[:10]} == {17 + 4 * v for v in range(1, 11)}
    canvas, buffer = new_canvas(letter, "codes", True)
    draw_qr_codes(
        canvas, [(url, 40 + 130 * (i % 4), 560 - 130 * (i // 4)) for i, url in enumerate(urls)], 76
    )
    canvas.showPage()
    decoded = decode_page(save(canvas, buffer), tmp_path, 300)
    assert sorted(decoded) == sorted(urls)


def test_cards_still_scan_if_reportlab_loses_the_form_hook(tmp_path, monkeypatch):
    """Without `_draw_as_form` the codes go into the page stream as text; same codes."""
    monkeypatch.setattr(qr, "_draw_as_form", lambda *args: False)
    pdf = score_cards(EVENT, CARDS, letter)
    assert qr_forms(read(pdf).pages[0]) == []
    assert set(decode_page(pdf, tmp_path, 150)) == {c.url for c in CARDS[:6]}


def test_packet_with_and_without_qr_codes_differ_only_by_them():
    """What the bench's ratio compares: same pages, same text, QR forms only on the cards."""
    import importlib

    packet_module = importlib.import_module("tournaments.printouts.packet")
    with_qr = read(packet(EVENT, CARDS, TABLES, PODS, letter))
    original = packet_module.draw_score_cards

    def without_qr(*args, **kwargs):
        return original(*args, **kwargs, qr_codes=False)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(packet_module, "draw_score_cards", without_qr)
        without = read(packet(EVENT, CARDS, TABLES, PODS, letter))
    assert len(with_qr.pages) == len(without.pages)
    for a, b in zip(with_qr.pages, without.pages, strict=True):
        assert a.extract_text() == b.extract_text()
        assert len(qr_forms(a)) == (1 if "Verified by" in a.extract_text() else 0)
        assert qr_forms(b) == []


# --- tally sheets ---------------------------------------------------------------------------


@pytest.mark.parametrize("pagesize", [letter, A4], ids=["letter", "A4"])
def test_every_table_of_every_set_has_a_tally_sheet(pagesize):
    pdf = tally_sheets(EVENT, TABLES, pagesize)
    found = []
    for page in read(pdf).pages:
        halves = defaultdict(list)
        for _, y, text in placed_text(page):
            halves[y > pagesize[1] / 2].append(text)
        for texts in halves.values():
            ident = next(t for t in texts if t.startswith("Pod "))
            pod, table = map(int, re.fullmatch(r"Pod (\d+) · Table (\d+)", ident).groups())
            set_number = int(next(t for t in texts if t.startswith("Set "))[4:])
            head = "HEAD TABLE - rings the bell" in texts
            found.append((pod, table, set_number, head))
    expected = [(t.pod, t.table, s, t.table == 1) for t in TABLES for s in range(1, EVENT.sets + 1)]
    assert sorted(found) == sorted(expected)
    assert len(found) == len(TABLES) * EVENT.sets


def test_first_set_sheet_names_the_starting_seats():
    pdf = tally_sheets(EVENT, TABLES[:1], letter)
    first = page_text(pdf)[0]
    for n, name in enumerate(TABLES[0].seats, start=1):
        assert f"{n} {name}" in first
    assert "Us - running total" in first and "Them - running total" in first


# --- seating charts -------------------------------------------------------------------------


@pytest.mark.parametrize("pagesize", [letter, A4], ids=["letter", "A4"])
def test_seating_chart_page_per_pod_with_everyone(pagesize):
    pdf = seating_charts(EVENT, PODS, pagesize)
    pages = page_text(pdf)
    assert len(pages) == len(PODS)
    for text, pod in zip(pages, PODS, strict=True):
        assert f"Pod {pod.pod}" in text
        assert f"Hostess: {pod.hostess}" in text and "Sam Staff" in text
        for table in pod.tables:
            for seat, name in enumerate(table.seats, start=1):
                assert re.search(rf"{seat}\s+{re.escape(name)}", text), name
        assert "Head table: winners stay; losers go to table 2." in text


@pytest.mark.parametrize(
    "style, expected",
    [
        (
            "progressive",
            [
                "Head table: winners stay; losers go to table 2.",
                "Table 2: winners go to the head table; losers go to table 3.",
                "Table 3: winners go to table 2; losers stay.",
            ],
        ),
        (
            "losers_walk",
            [
                "Head table: winners stay; losers go to table 2.",
                "Table 2: winners stay; losers go to table 3.",
                "Table 3: winners stay; losers go to the head table.",
            ],
        ),
        (
            "winners_up",
            [
                "Head table: winners stay; losers go to table 3.",
                "Table 2: winners go to the head table; losers stay.",
                "Table 3: winners go to table 2; losers stay.",
            ],
        ),
    ],
)
def test_movement_guide_says_what_the_seating_engine_does(style, expected):
    where, seats = movement_words(3, style)
    assert where == expected
    assert len(seats) == 3 and all("seats 1 & 2" in line for line in seats)


# --- results and payouts --------------------------------------------------------------------


def results_info(pods: int = 9) -> ResultsInfo:
    rows = [
        (p, [(f"Player {p}-{i}", i, 18 - i, i % 4, i % 5, i % 2, "verified") for i in range(12)])
        for p in range(1, pods + 1)
    ]
    return ResultsInfo(
        stage_label="Qualifying",
        pods=rows,
        qualifiers=[("Player 1-11", 1, "most wins"), ("Player 2-3", 2, "most buncos")],
        roll_offs=["Pod 2 most buncos: Player 2-3 beat Player 2-7, 5 to 2"],
        finalists=[(1, "Player 1-11", "most wins", "Pod 1 then semi-final")],
        winner="Player 1-11",
    )


@pytest.mark.parametrize("pagesize", [letter, A4], ids=["letter", "A4"])
def test_results_sheet_has_every_row(pagesize):
    info = results_info()
    text = "\n".join(page_text(results_sheet(EVENT, info, pagesize)))
    assert "Winner: Player 1-11" in text and "Pod 2 most buncos" in text
    for pod, rows in info.pods:
        assert f"Pod {pod}" in text
        for name, wins, losses, buncos, minis, snake, status in rows:
            assert re.search(
                rf"{re.escape(name)}\s+{wins}\s+{losses}\s+{buncos}\s+{minis}\s+{snake}\s+{status}",
                text,
            ), name


def payout_lines(count: int = 60) -> list[PayoutLine]:
    return [
        PayoutLine(
            category="Most buncos",
            scope=f"Pod {i // 2 + 1}",
            place=ordinal(i % 2 + 1),
            winner=f"Winner {i}",
            code=f"W{i:04d}",
            amount_text=f"${100 - 50 * (i % 2)}.00",
            paid_by="Terry Toe" if i % 5 == 0 else "",
            paid_at="20:41" if i % 5 == 0 else "",
            voided="paid twice" if i == 7 else "",
            given_back="$25.00" if i == 10 else "",
        )
        for i in range(count)
    ]


@pytest.mark.parametrize("pagesize", [letter, A4], ids=["letter", "A4"])
def test_payout_sheet_has_every_line_and_repeats_its_header(pagesize):
    lines = payout_lines()
    pages = page_text(payout_sheet(EVENT, lines, pagesize))
    assert len(pages) > 1
    assert all("Paid by" in page and "checked" in page for page in pages)
    text = "\n".join(pages)
    for line in lines:
        assert line.winner in text and line.code in text
    assert "VOID: paid twice" in text and "Terry Toe, 20:41" in text
    assert "Terry Toe, 20:41; gave back $25.00" in " ".join(text.split())
    assert "Most buncos (Pod 1, 1st)" in text and "Most buncos (Pod 1, 2nd)" in text


# --- every document -------------------------------------------------------------------------


def all_documents(pagesize, progress=None):
    """Every document, each with its own progress callback when `progress` makes them."""
    report = progress or (lambda name: None)
    return {
        "cards": score_cards(EVENT, CARDS, pagesize, report("cards")),
        "tallies": tally_sheets(EVENT, TABLES, pagesize, report("tallies")),
        "charts": seating_charts(EVENT, PODS, pagesize, report("charts")),
        "results": results_sheet(EVENT, results_info(2), pagesize, report("results")),
        "payouts": payout_sheet(EVENT, payout_lines(5), pagesize, report("payouts")),
        "packet": packet(EVENT, CARDS, TABLES, PODS, pagesize, report("packet")),
    }


@pytest.mark.parametrize("name, pagesize", [("letter", letter), ("A4", A4)], ids=["letter", "A4"])
def test_letter_and_a4_give_valid_pdfs_of_that_size(name, pagesize):
    for pdf in [*all_documents(pagesize).values(), *all_documents(name).values()]:
        assert pdf.startswith(b"%PDF-")
        for page in read(pdf).pages:
            box = page.mediabox
            assert (float(box.width), float(box.height)) == pytest.approx(pagesize, abs=0.01)


def test_packet_is_cards_then_tallies_then_charts():
    parts = [
        len(read(score_cards(EVENT, CARDS, letter)).pages),
        len(read(tally_sheets(EVENT, TABLES, letter)).pages),
        len(read(seating_charts(EVENT, PODS, letter)).pages),
    ]
    pages = page_text(packet(EVENT, CARDS, TABLES, PODS, letter))
    assert len(pages) == sum(parts)
    assert "C0000Q" in pages[0]
    assert "Us - running total" in pages[parts[0]]
    assert "Starting seats" in pages[parts[0] + parts[1]]


def test_progress_counts_up_to_the_total():
    calls = defaultdict(list)
    all_documents(letter, lambda name: lambda done, total: calls[name].append((done, total)))
    assert set(calls) == {"cards", "tallies", "charts", "results", "payouts", "packet"}
    for name, seen in calls.items():
        dones = [done for done, _ in seen]
        assert dones == sorted(dones) and dones[-1] == seen[0][1], name
        assert {total for _, total in seen} == {seen[0][1]}, name
    assert calls["cards"][-1] == (len(CARDS), len(CARDS))
    assert calls["tallies"][-1][1] == len(TABLES) * EVENT.sets
    assert calls["charts"] == [(1, 3), (2, 3), (3, 3)]
    assert calls["packet"][-1][1] == len(CARDS) + len(TABLES) * EVENT.sets + len(PODS)


def test_same_input_same_bytes_and_compression_only_changes_size():
    assert score_cards(EVENT, CARDS[:6]) == score_cards(EVENT, CARDS[:6])
    packed = score_cards(EVENT, CARDS[:6], compress=True)
    plain = score_cards(EVENT, CARDS[:6], compress=False)
    assert len(packed) < len(plain)
    assert page_text(packed) == page_text(plain)


def test_empty_inputs_give_a_page_that_says_so():
    assert "no players" in page_text(score_cards(EVENT, []))[0]
    assert "no tables" in page_text(tally_sheets(EVENT, []))[0]
    assert "no pods" in page_text(seating_charts(EVENT, []))[0]
    assert "No prizes" in page_text(payout_sheet(EVENT, []))[0]
    assert "Nothing to print" in page_text(packet(EVENT, [], [], []))[0]


def test_bad_event_and_page_size_are_refused():
    with pytest.raises(ValueError, match="movement"):
        EventInfo(**{**EVENT.__dict__, "movement": "musical_chairs"})
    with pytest.raises(ValueError, match="sets"):
        EventInfo(**{**EVENT.__dict__, "sets": 0})
    with pytest.raises(ValueError, match="page size"):
        score_cards(EVENT, CARDS, "legal")
    with pytest.raises(ValueError, match="portrait"):
        score_cards(EVENT, CARDS, (letter[1], letter[0]))


def test_long_names_are_shrunk_then_cut_to_fit():
    text, size = fit("Margaret Elizabeth Worthington-Fairbanks " * 3, "Helvetica-Bold", 15, 150, 8)
    assert size == 8 and text.endswith("…")
    from reportlab.pdfbase.pdfmetrics import stringWidth

    assert stringWidth(text, "Helvetica-Bold", 8) <= 150
    assert fit("Ann", "Helvetica", 15, 150, 8) == ("Ann", 15)


def test_names_outside_the_base_fonts_keep_their_letters():
    if font_for("Łucja") == "Helvetica":
        pytest.skip("DejaVu Sans is not installed (fonts-dejavu-core); such names print as boxes")
    card = CardInfo("Łucja Wiśniewska", "L0001Q", 1, 1, 1, "https://b.example/c/L0001Q")
    assert "Łucja Wiśniewska" in page_text(score_cards(EVENT, [card]))[0]


def test_amounts_are_right_aligned_under_their_heading():
    """The charity summary's amounts (text such as "$1,250.00", not numbers) end where their
    heading ends, so the figures line up by their last digit as on a cash sheet."""
    from reportlab.pdfbase.pdfmetrics import stringWidth

    from tournaments.printouts import charity_summary
    from tournaments.printouts.layout import SANS, SANS_BOLD

    figures = [("Entry fees", "$1,250.00"), ("Donations", "$85.50"), ("Raised", "$7.00")]
    page = pypdf.PdfReader(io.BytesIO(charity_summary(EVENT, figures, "Thank you!"))).pages[0]
    drawn = []

    def visit(text, cm, tm, font, size):
        if text.strip():
            drawn.append((cm[4] + tm[4] * cm[0], text.strip()))

    page.extract_text(visitor_text=visit)
    left = {text: x for x, text in drawn}
    heading_end = left["Amount"] + stringWidth("Amount", SANS_BOLD, 8.5)
    for _, amount in figures:
        assert left[amount] + stringWidth(amount, SANS, 9) == pytest.approx(heading_end, abs=0.5)
