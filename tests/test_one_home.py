"""Each rule has one home in the engine; these check that the pages, printouts and exports
that show a rule say what the engine says, seat by seat and label by label."""

import csv
import io
import random
import re
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from scoring.forms import ResultForm
from scoring.models import TableResult
from scoring.rules import PRESETS
from scoring.rules.cards import PUBLIC_LABELS, STATUS_LABELS, Status
from scoring.rules.ruleset import MOVEMENT_STYLES, MOVEMENTS, TIE_BREAK_LABELS
from scoring.rules.seating import draw_pods
from scoring.rules.table import (
    PAIR_LABELS,
    pair_label,
    pair_of,
    pair_seats,
    partner_number,
    partner_of,
    partner_pairs,
)
from scoring.rules.tiebreak import ROLL_OFF_RULE
from scoring.services import cards as card_service
from tests.support.factories import UserFactory, drawn_stage, grant
from tournaments.foundation import csv_files, text
from tournaments.models import Player, RulePreset, Seat, Stage
from tournaments.printouts.seating_charts import PAIR_COLOURS
from tournaments.printouts.tally_sheets import PARTNERS_TEXT
from tournaments.services.rehearsal import rehearse

pytestmark = pytest.mark.django_db


def test_partners_sit_across_and_every_marking_agrees():
    for seat in range(4):
        assert partner_of(partner_of(seat)) == seat != partner_of(seat)
        assert pair_of(partner_of(seat)) == pair_of(seat)
        colour = PAIR_COLOURS[pair_of(seat)]
        for other in range(4):
            same = PAIR_COLOURS[pair_of(other)] == colour
            assert same == (other in (seat, partner_of(seat)))
    assert partner_pairs() == ((1, 3), (2, 4))
    assert PARTNERS_TEXT == "1 & 3, 2 & 4"


def test_a_drawn_table_never_pairs_two_ghosts_under_the_partner_rule():
    pods = draw_pods(list(range(29)), random.Random(7))
    for pod in pods:
        for table in pod:
            for seat in range(4):
                assert table[seat] is not None or table[partner_of(seat)] is not None


def test_the_seat_finder_names_the_engine_partner_for_every_seat(client, tournament, organiser):
    drawn_stage(tournament, organiser, players=24)
    url = reverse("seat-finder", args=[tournament.slug])
    for seat in Seat.objects.filter(round__number=1).select_related("player"):
        partner = Seat.objects.select_related("player").get(
            round=seat.round, pod=seat.pod, table=seat.table, seat=partner_number(seat.seat)
        )
        body = client.get(url, {"q": seat.player.code}).content.decode()
        assert f"Partner: <strong>{partner.player.name}</strong> (seat {partner.seat})" in body


def test_preset_pages_and_choices_use_the_engine_labels(organiser, client_for):
    assert [v for v, _ in RulePreset._meta.get_field("movement").choices] == list(MOVEMENT_STYLES)
    client = client_for(organiser)
    listing = client.get(reverse("preset-list")).content.decode()
    for slug, rules in PRESETS.items():
        assert MOVEMENTS[rules.movement].label in listing
        detail = client.get(reverse("preset-detail", args=[slug])).content.decode()
        assert MOVEMENTS[rules.movement].label in detail
        assert TIE_BREAK_LABELS[rules.table_tie_break] in detail


def test_new_tournament_page_says_each_presets_tie_rules(organiser, client_for):
    page = client_for(organiser).get(reverse("tournament-create")).content.decode()
    notes = page.split('id="preset-notes"')[1].split("</dl>")[0]
    for slug, rules in PRESETS.items():
        note = notes.split(f'data-preset="{slug}">')[1].split("</dd>")[0]
        table = TIE_BREAK_LABELS[rules.table_tie_break].lower()
        assert f"Tied tables: {table}." in note
        assert f"Ties for advancing or a prize are settled by roll-offs: {ROLL_OFF_RULE}." in note


def test_card_status_in_the_csv_equals_the_card_page(client_for):
    r = rehearse(players=24, preset="classic", seed=5, stop_after_round=3)
    tournament = r.tournament
    stage = Stage.objects.get(tournament=tournament, kind="qualifying")
    cards = card_service.load_stage(stage)
    player = cards.players[cards.in_pod(1)[0]]
    actor = get_user_model().objects.get(username="organiser")  # the one `rehearse` makes
    card_service.enter_card(stage, player, cards.records[player.pk], actor=actor, base_version=0)
    admin = UserFactory(username="cashier")
    grant(tournament, admin, "admin")
    client = client_for(admin)
    response = client.get(reverse("cards-csv", args=[tournament.slug]) + "?stage=qualifying")
    content = b"".join(response.streaming_content) if response.streaming else response.content
    rows = list(csv.reader(io.StringIO(content.decode("utf-8")[1:])))
    status_at = rows[0].index("status")
    by_code = {row[1]: row[status_at] for row in rows[1:]}
    state = card_service.load_stage(stage).states[player.pk]
    assert by_code[player.code] == STATUS_LABELS[state.status] == state.label
    assert state.status == Status.TO_CONFIRM
    page = client.get(reverse("standings", args=[tournament.slug])).content.decode()
    assert STATUS_LABELS[Status.TO_CONFIRM] in page
    other = Player.objects.filter(tournament=tournament).exclude(pk=player.pk).first()
    assert by_code[other.code] == STATUS_LABELS[Status.UNCHECKED]


def test_the_cut_is_walked_by_the_engine_alone_and_pages_share_one_presenter():
    """The advancement page, the results page and the board present the service's plan: no
    page re-walks the cut (rank, eligibility, cut) and no page imports another page's module."""
    root = Path(__file__).resolve().parent.parent
    for path in (root / "scoring" / "views").glob("*.py"):
        assert "tournaments.views" not in path.read_text(), path
    for path in (
        root / "tournaments" / "views" / "advancement.py",
        *(root / "tournaments" / "presenters").glob("*.py"),
        root / "tournaments" / "views" / "results_public.py",
        root / "tournaments" / "views" / "board.py",
    ):
        source = path.read_text()
        for walk in ("eligibility(", "rank(", " cut(", "load_stage("):
            assert walk not in source, f"{path.name} calls {walk}"


PAIR_WORDING = ("1 & 3", "2 & 4", "1 &amp; 3", "2 &amp; 4")


def test_the_pair_names_are_written_once_in_the_engine():
    """ "Seats 1 & 3 / seats 2 & 4" is stated in scoring/rules/table.py only: the model's
    choices, the form, the messages, the pages and the printouts take it from there."""
    assert PAIR_LABELS == ("Seats 1 & 3", "Seats 2 & 4")
    assert [pair_label(p) for p in (0, 1)] == list(PAIR_LABELS)
    assert [label for _, label in TableResult.Pair.choices] == list(PAIR_LABELS)
    assert [label for _, label in ResultForm.base_fields["winner"].choices] == list(PAIR_LABELS)
    root = Path(__file__).resolve().parent.parent
    home = root / "scoring" / "rules" / "table.py"
    sources = [
        path
        for folder in ("scoring", "tournaments", "bunco_site", "templates", "static")
        for path in (root / folder).rglob("*")
        if path.suffix in (".py", ".html", ".txt", ".js") and "migrations" not in path.parts
    ]
    assert home in sources and len(sources) > 100
    for path in sources:
        if path == home:
            continue
        source = path.read_text()
        for words in PAIR_WORDING:
            assert words not in source, f"{path.relative_to(root)} writes {words!r}"


def test_pages_and_messages_name_the_pairs_with_the_engine_labels(
    client_for, tournament, organiser
):
    drawn_stage(tournament, organiser, players=8)
    client = client_for(organiser)
    address = reverse("table-result", args=[tournament.slug, 1, 1, 1])
    body = client.get(address).content.decode()
    for pair in (0, 1):
        assert f"{pair_label(pair).replace('&', '&amp;')}: " in body
        assert f">{pair_seats(pair).replace('&', '&amp;')}</span>" in body
    refused = client.post(address, {"winner": "7", "base_version": "0"})
    assert "Tap the winning pair: seats 1 &amp; 3 or seats 2 &amp; 4." in refused.content.decode()


# --- one helper per job (tournaments/foundation/) ---------------------------------------------

ROOT = Path(__file__).resolve().parent.parent
FOUNDATION = ROOT / "tournaments" / "foundation"


def code_files(*suffixes: str) -> list[Path]:
    """The site's own code and templates, migrations left out."""
    found = [
        path
        for folder in ("scoring", "tournaments", "bunco_site", "templates")
        for path in (ROOT / folder).rglob("*")
        if path.suffix in (suffixes or (".py", ".html")) and "migrations" not in path.parts
    ]
    assert len(found) > 100
    return found


def written_outside(home: Path, *patterns: str, suffixes=(".py",)) -> list[str]:
    """Every `file: line` outside `home` whose code (comments aside) matches a pattern."""
    found = []
    for path in code_files(*suffixes):
        if path == home:
            continue
        for number, line in enumerate(path.read_text().splitlines(), start=1):
            code = line.split("#")[0] if path.suffix == ".py" else line
            if any(re.search(p, code, re.IGNORECASE) for p in patterns):
                found.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    return found


def test_money_is_worded_in_one_place():
    """ "$1,234.50" and the spreadsheet's "1234.50" come from foundation/text.py alone."""
    assert text.money(123450) == "$1,234.50" and text.money(-1200) == "-$12.00"
    assert text.amount(123450) == "1234.50" and text.amount(-5) == "-0.05"
    home = FOUNDATION / "text.py"
    assert not written_outside(home, r":,\.2f", r"/ ?100:\.2f", r"def (dollars|_cents)\(")
    assert not written_outside(home, r"\$\{\{", suffixes=(".html",))  # "${{ fee }}"


def test_ordinals_and_whole_numbers_are_read_and_written_in_one_place():
    assert [text.ordinal(n) for n in (1, 2, 3, 4, 11, 12, 13, 21, 112)] == [
        "1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "112th"
    ]  # fmt: skip
    assert text.whole_number("12") == 12 and text.whole_number("²") is None
    assert text.whole_number("1" * 19) is None and text.whole_number(" 1") is None
    home = FOUNDATION / "text.py"
    assert not written_outside(home, r"""["']nd["']""", r"\.isdigit\(\)")
    for gone in ("tournaments/words.py", "tournaments/forms/numbers.py"):
        assert not (ROOT / gone).exists(), gone


def test_csv_files_are_written_in_one_place():
    """The byte-order mark, the formula guard and the download response live in
    foundation/csv_files.py; every export goes through it."""
    home = FOUNDATION / "csv_files.py"
    assert not written_outside(
        home,
        r"\\ufeff",
        r"BOM_UTF8",
        r"csv\.writer\(",
        r'content_type="text/csv',
        r"FORMULA_STARTS\s*[:=]",
        r"def (un)?neutralise\(",
    )
    assert csv_files.to_csv([["=1+1", "x"]]).startswith("\ufeff")
    assert csv_files.neutralise("=1+1") == "'=1+1"


def test_one_search_form_and_one_player_matching_rule():
    home = FOUNDATION / "search.py"
    assert len(written_outside(home, r"^class SearchForm\b")) == 1
    # No page matches players by a rule of its own: name/e-mail/code lookups by fragment.
    assert not written_outside(
        home, r"(name|email|code)__i?(contains|startswith)", r"unaccent", r"code__iexact"
    )


def test_cards_are_worded_in_one_place():
    """Staff see STATUS_LABELS, players and the public PUBLIC_LABELS, both in
    scoring/rules/cards.py."""
    assert PUBLIC_LABELS == {True: "verified", False: "not verified yet"}
    home = ROOT / "scoring" / "rules" / "cards.py"
    wordings = [*STATUS_LABELS.values(), PUBLIC_LABELS[False], "provisional"]
    quoted = [rf"""["'>]{re.escape(w)}["'<]""" for w in wordings if " " in w or w == "provisional"]
    assert not written_outside(home, *quoted, suffixes=(".py", ".html"))
