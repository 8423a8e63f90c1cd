"""The cash book's pages: who may see and record money, the desk's one-tap fee, donations,
expenses with receipts, the prize table's give-back, counting a box, the summary, its CSV
and its PDF, and bad input changing nothing."""

from __future__ import annotations

import csv
import io
import uuid
from decimal import Decimal

import pypdf
import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from PIL import Image

from tests.support.events import (
    award_everything,
    awarded_directly,
    charging,
    played_without_prizes,
    rehearsal_organiser,
)
from tests.support.factories import PlayerFactory, member
from tests.support.web import text, url
from tournaments.models import AuditEntry, CashBox, LedgerEntry, Printout
from tournaments.rules import cashbook as book
from tournaments.services import cash_boxes, cash_planner, cash_summary, cashbook, checkin
from tournaments.services import printouts as printout_service
from tournaments.services.player_links import player_page_path

pytestmark = pytest.mark.django_db


@pytest.fixture
def event(tournament):
    return charging(tournament)


@pytest.fixture
def desk(event, organiser, client_for):
    return client_for(organiser)


@pytest.fixture
def entry(event, organiser):
    player = PlayerFactory(tournament=event)
    return cashbook.pay_fee(player, method=book.CASH, actor=organiser).entry


def money_urls(event, entry):
    player = PlayerFactory(tournament=event)
    return [
        url("cashbook", event),
        url("cashbook-donation", event),
        url("cashbook-expense", event),
        url("cashbook-planner", event),
        url("cashbook-reverse", event, entry.pk),
        url("cashbook-receipt", event, entry.pk),
        url("cash-box", event, "desk"),
        url("cash-box-float", event, "desk"),
        url("cashbook-summary", event),
        url("cashbook-csv", event),
        url("checkin-pay", event, player.pk),
    ]


def test_staff_without_the_money_permission_cannot_see_or_add_entries(
    event, entry, staff_user, client_for
):
    staff = client_for(staff_user)
    before = LedgerEntry.objects.count(), AuditEntry.objects.count()
    for address in money_urls(event, entry):
        assert staff.get(address).status_code in (403, 405), address
        data = {"amount": "5", "method": "cash", "box": "desk", "key": str(uuid.uuid4())}
        assert staff.post(address, data).status_code in (403, 405), address
    assert (LedgerEntry.objects.count(), AuditEntry.objects.count()) == before


def test_an_admin_sees_the_cash_book(event, entry, client_for):
    admin = client_for(member(event, "admin", "cash-admin"))
    page = text(admin.get(url("cashbook", event)))
    assert "$20.00" in page and "Entry fee" in page


def test_the_desk_takes_a_fee_in_one_tap_and_a_resend_stores_one_payment(event, desk):
    player = PlayerFactory(tournament=event)
    key = str(uuid.uuid4())
    address = url("checkin-pay", event, player.pk)
    for _ in range(2):
        response = desk.post(address, {"method": "card", "key": key}, HTTP_HX_REQUEST="true")
        assert response.status_code == 200
    assert "Paid $20.00 · card" in text(response)
    assert LedgerEntry.objects.filter(player=player).count() == 1
    player.refresh_from_db()
    assert player.checked_in


def test_checked_in_unpaid_shows_as_owing_then_pays(event, desk, organiser):
    player = PlayerFactory(tournament=event, name="Olive Owing")
    checkin.check_in(player, organiser)
    page = text(desk.get(url("checkin-desk", event) + "?q=Olive"))
    assert "Owes $20.00" in page
    assert "Olive Owing" in text(desk.get(url("cashbook", event)))
    desk.post(url("checkin-pay", event, player.pk), {"method": "cash", "key": str(uuid.uuid4())})
    assert "Paid $20.00 · cash" in text(desk.get(url("checkin-desk", event) + "?q=Olive"))


def test_comping_needs_a_reason(event, desk):
    player = PlayerFactory(tournament=event)
    address = url("checkin-pay", event, player.pk)
    response = desk.post(
        address, {"method": "comped", "key": str(uuid.uuid4())}, HTTP_HX_REQUEST="true"
    )
    assert "Say why the fee is comped." in text(response)
    assert not LedgerEntry.objects.exists()
    desk.post(address, {"method": "comped", "reason": "Volunteer", "key": str(uuid.uuid4())})
    assert LedgerEntry.objects.get().method == book.COMPED


def test_a_walk_in_pays_as_they_register(event, desk):
    desk.post(
        url("checkin-walk-in", event),
        {"name": "Wally Walk", "payment": "cash", "key": str(uuid.uuid4())},
    )
    entry = LedgerEntry.objects.get()
    assert entry.player.name == "Wally Walk" and entry.amount_cents == 20_00


@pytest.mark.parametrize(
    "amount, message",
    [
        ("-5", "minus sign"),
        ("5.123", "two decimals"),
        ("five", "in numbers"),
        ("99999999999", "more than"),
        ("", "Enter an amount"),
    ],
)
def test_bad_amounts_get_a_clear_message_and_change_nothing(event, desk, amount, message):
    before = LedgerEntry.objects.count(), AuditEntry.objects.count()
    for name in ("cashbook-donation", "cashbook-expense"):
        data = {"amount": amount, "method": "cash", "box": "desk", "note": "Dice", "donor": "Ann"}
        response = desk.post(url(name, event), {**data, "key": str(uuid.uuid4())})
        assert response.status_code == 400
        page = text(response)
        assert message in page
        assert 'value="Dice"' in page or 'value="Ann"' in page  # what was typed is kept
    assert (LedgerEntry.objects.count(), AuditEntry.objects.count()) == before


def png_bytes() -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (8, 8), "white").save(out, "PNG")
    return out.getvalue()


@pytest.mark.parametrize(
    "name, data, message",
    [
        ("receipt.pdf", b"<script>alert(1)</script>", "photo (JPEG or PNG) or a PDF"),
        ("receipt.png", b"\x89PNG\r\n\x1a\n" + b"0" * 100, "damaged or not an image"),
        ("receipt.pdf", b"%PDF-1.4 no end", "incomplete or damaged"),
        ("big.pdf", b"%PDF-" + b"0" * (5 * 1024 * 1024) + b"%%EOF", "the most is 5 MB"),
        ("empty.jpg", b"", "empty"),
    ],
)
def test_bad_receipts_get_a_clear_message_and_change_nothing(event, desk, name, data, message):
    before = LedgerEntry.objects.count(), AuditEntry.objects.count()
    response = desk.post(
        url("cashbook-expense", event),
        {
            "amount": "12.50",
            "method": "card",
            "note": "Dice",
            "key": str(uuid.uuid4()),
            "receipt": SimpleUploadedFile(name, data),
        },
    )
    assert response.status_code == 400
    assert message in text(response)
    assert (LedgerEntry.objects.count(), AuditEntry.objects.count()) == before


def test_an_expense_with_a_receipt_is_stored_under_a_random_name(event, desk, settings):
    desk.post(
        url("cashbook-expense", event),
        {
            "amount": "12.50",
            "method": "cash",
            "box": "desk",
            "note": "Dice",
            "key": str(uuid.uuid4()),
            "receipt": SimpleUploadedFile("my receipt.png", png_bytes()),
        },
    )
    entry = LedgerEntry.objects.get()
    assert entry.amount_cents == 12_50 and entry.kind == book.EXPENSE
    assert entry.receipt.name.startswith("receipts/") and "my" not in entry.receipt.name
    assert entry.receipt_type == "image/png"
    download = desk.get(url("cashbook-receipt", event, entry.pk))
    assert download.status_code == 200 and "attachment" in download["Content-Disposition"]
    assert b"".join(download.streaming_content) == png_bytes()


def test_reversing_from_the_page_keeps_both_entries(event, desk, entry):
    response = desk.post(url("cashbook-reverse", event, entry.pk), {"reason": "Wrong player"})
    assert response.status_code == 302
    assert LedgerEntry.objects.filter(reverses=entry).count() == 1
    assert LedgerEntry.objects.filter(pk=entry.pk).exists()
    assert cashbook.totals(event).fees_cents == 0


def test_the_prize_table_pays_and_records_a_give_back_in_one_step(event, organiser, desk):
    player = PlayerFactory(tournament=event)
    (award,) = awarded_directly(event, [player], cents=100_00)
    response = desk.post(
        url("payout-pay", event, award.pk),
        {"present": "on", "id_checked": "on", "give_back": "40"},
    )
    assert response.status_code == 302
    t = cashbook.totals(event)
    assert t.prizes_paid_cents == 100_00 and t.given_back_cents == 40_00
    bad = desk.post(
        url("payout-pay", event, award.pk),
        {"present": "on", "id_checked": "on", "give_back": "4.001"},
    )
    assert "two decimals" in text(bad)


def test_counting_a_box_with_a_difference_closes_it(event, desk, entry):
    address = url("cash-box", event, "desk")
    assert "$20.00" in text(desk.get(address))
    response = desk.post(address, {"d1000": "1", "d500": "1"})
    assert response.status_code == 400 and "say why they differ" in text(response)
    response = desk.post(address, {"d1000": "999999", "d500": "x"})
    assert "That is more than 100,000 of one kind; check the count." in text(response)
    assert "Type how many, as a whole number." in text(response)
    response = desk.post(address, {"d1000": "1", "d500": "1", "reason": "Change given"})
    assert response.status_code == 302
    box = CashBox.objects.get(tournament=event, key="desk")
    assert box.closed and box.counted_cents == 15_00 and box.difference_cents == -5_00
    assert box.counts == {"1000": 1, "500": 1}
    page = text(desk.get(address))
    assert "-$5.00" in page and "Change given" in page
    refused = desk.post(
        url("cashbook-donation", event),
        {"amount": "5", "method": "cash", "box": "desk", "key": str(uuid.uuid4())},
    )
    assert refused.status_code == 400 and "takes no more entries" in text(refused)
    # Said above the entries as well, where a phone lands, not only by the form far below.
    page = refused.content.decode()
    alert = page.index('role="alert"')
    assert alert < page.index('id="cash-entries"')
    assert "Nothing was recorded." in page[alert : page.index('id="cash-entries"')]
    # Paid by card, the same donation needs no box: the form offers none and records it.
    assert 'value="">No box (paid by card, cheque or online)</option>' in page
    taken = desk.post(
        url("cashbook-donation", event),
        {"amount": "5", "method": "card", "box": "", "key": str(uuid.uuid4())},
    )
    assert taken.status_code == 302
    assert LedgerEntry.objects.get(kind=book.DONATION).box == ""


def test_a_late_cash_donation_keeps_what_was_typed_and_is_sent_to_the_open_box(
    event, desk, organiser
):
    """After the desk's box is counted, the form starts on the prize table's box and says the
    desk is closed; cash typed for the desk is refused with the box still open named, and the
    form comes back as typed (same key), so choosing that box records it once."""
    cash_boxes.close_box(event, book.DESK, {}, reason="", actor=organiser)
    page = desk.get(url("cashbook", event)).content.decode()
    form = page.split('id="donation"')[1].split("</form>")[0]
    assert '<option value="desk">The desk (counted and closed)</option>' in form
    assert '<option value="prize" selected>The prize table</option>' in form
    key = str(uuid.uuid4())
    typed = {"amount": "12.50", "method": "cash", "donor": "Table 4", "note": "Late round up"}
    refused = desk.post(url("cashbook-donation", event), {**typed, "box": "desk", "key": key})
    assert refused.status_code == 400
    said = text(refused)
    assert "Choose the prize table instead: that box is still open" in said
    form = refused.content.decode().split('id="donation"')[1].split("</form>")[0]
    for value in ("12.50", "Table 4", "Late round up", key):
        assert f'value="{value}"' in form
    assert not LedgerEntry.objects.filter(kind=book.DONATION).exists()
    for _ in range(2):  # sent again with the box changed, and once more by a shaky phone
        taken = desk.post(url("cashbook-donation", event), {**typed, "box": "prize", "key": key})
        assert taken.status_code == 302
    (entry,) = LedgerEntry.objects.filter(kind=book.DONATION)
    assert (entry.box, entry.amount_cents, entry.donor) == (book.PRIZE_TABLE, 12_50, "Table 4")


def test_summary_csv_and_pdf_agree_with_the_ledger(
    event, desk, organiser, entry, django_capture_on_commit_callbacks, eager_tasks
):
    cashbook.donate(
        event,
        amount_cents=7_55,
        method=book.CARD,
        box=book.DESK,
        donor='=HYPERLINK("x")',
        actor=organiser,
    )
    summary = cash_summary.summary(event)
    page = text(desk.get(url("cashbook-summary", event)))
    for label, amount in summary.figures():
        assert f'{label}</th><td class="num">{amount}</td>' in page
    assert "Net raised" in page and "$27.55" in page
    assert f"players · {event.date:%A} {event.date.day} {event.date:%B %Y}" in page  # as elsewhere
    response = desk.get(url("cashbook-csv", event))
    body = response.content.decode("utf-8")
    assert body.startswith("\ufeff")
    rows = list(csv.DictReader(io.StringIO(body[1:])))
    assert len(rows) == 2
    assert rows[1]["donor"] == '\'=HYPERLINK("x")'
    total = sum(Decimal(r["signed_amount"]) for r in rows)
    assert total * 100 == cashbook.totals(event).net_raised_cents == 27_55
    with django_capture_on_commit_callbacks(execute=True):
        printout = printout_service.request_printout(
            event, Printout.Kind.CHARITY_SUMMARY, organiser, base_url="http://x"
        )
    printout.refresh_from_db()
    assert printout.status == Printout.Status.DONE, printout.error
    with printout.file.open("rb") as handle:
        pdf = " ".join(p.extract_text() for p in pypdf.PdfReader(handle).pages)
    for _label, amount in summary.figures():
        assert amount in pdf
    assert "raised $27.55" in pdf


def test_a_box_counted_short_is_in_the_summary_and_the_thanks_say_what_the_charity_has(
    event, desk, organiser, entry
):
    """The book says $20 came in; the desk's box counts $15 ("Change given"). The charity
    has $15, and the summary says so below the book's net raised, on the page and in the
    figures the PDF prints."""
    desk.post(url("cash-box", event, "desk"), {"d1000": "1", "d500": "1", "reason": "Change given"})
    summary = cash_summary.summary(event)
    assert summary.figures()[-3:] == [
        ("Net raised", "$20.00"),
        ("The desk: cash counted short (Change given)", "-$5.00"),
        ("Net raised, as the cash was counted", "$15.00"),
    ]
    page = text(desk.get(url("cashbook-summary", event)))
    assert "together you raised $15.00 for" in page
    assert 'id="summary-net"><th scope="row">Net raised, as the cash was counted' in page


def test_the_cash_book_page_takes_the_same_queries_for_more_entries(
    event, desk, organiser, django_assert_max_num_queries
):
    for player in PlayerFactory.create_batch(3, tournament=event):
        cashbook.pay_fee(player, method=book.CASH, actor=organiser)
    with django_assert_max_num_queries(30) as few:
        desk.get(url("cashbook", event))
    for player in PlayerFactory.create_batch(20, tournament=event):
        cashbook.pay_fee(player, method=book.CARD, actor=organiser)
    with django_assert_max_num_queries(len(few.captured_queries)) as many:
        desk.get(url("cashbook", event))
    # The whole book is read once (totals, signs, the planner's projection), and as models
    # only the page's entries.
    reads = [q["sql"] for q in many.captured_queries]
    books = [sql for sql in reads if sql.startswith('SELECT "tournaments_ledgerentry".')]
    assert len(books) == 2, books


def test_the_prize_page_warns_before_awarding_prizes_that_break_the_floor(monkeypatch, client_for):
    event = played_without_prizes(monkeypatch)
    organiser = rehearsal_organiser()
    award_everything(event, organiser)
    page = client_for(organiser)
    cash_planner.save_settings(
        event, floor_kind=book.PERCENT, floor_value=0, board_shows_raised=False, actor=organiser
    )
    # The mesquite sheet pays more than 24 fees bring in: below even a floor of nothing.
    shown = text(page.get(url("prize-winners", event)))
    assert 'id="planner"' in shown and 'id="award-floor-warning"' in shown
    assert (
        "would leave Rehearsal charity -$115.00, below the floor of $0.00 (0% of money in)."
        in shown
    )
    cashbook.donate(event, amount_cents=1000_00, method=book.CARD, box=book.DESK, actor=organiser)
    shown = text(page.get(url("prize-winners", event)))
    assert 'id="planner"' in shown and 'id="award-floor-warning"' not in shown
    cash_planner.save_settings(
        event,
        floor_kind=book.AMOUNT,
        floor_value=10_000_00,
        board_shows_raised=False,
        actor=organiser,
    )
    shown = text(page.get(url("prize-winners", event)))
    assert 'id="award-floor-warning"' in shown and "below the floor of $10,000.00." in shown
    # The planner's card names the floor it measures against, on both pages that show it.
    assert "Floor ($10,000.00)" in shown
    cash_planner.save_settings(
        event, floor_kind=book.PERCENT, floor_value=25, board_shows_raised=False, actor=organiser
    )
    assert "Floor (25% of money in)" in text(page.get(url("cashbook", event)))


def test_the_board_shows_the_running_total_when_switched_on(event, organiser, entry, client):
    board = url("board", event)
    assert 'id="board-raised"' not in text(client.get(board))
    cash_planner.save_settings(
        event, floor_kind=book.PERCENT, floor_value=0, board_shows_raised=True, actor=organiser
    )
    assert "Raised for Breast Cancer Research: <strong>$20.00</strong>" in text(client.get(board))


def test_the_planner_form_refuses_a_bad_floor(event, desk):
    for kind, value, message in (
        ("percent", "120", "from 0 to 100"),
        ("amount", "-3", "minus sign"),
        ("amount", "1.001", "two decimals"),
    ):
        response = desk.post(url("cashbook-planner", event), {"floor_kind": kind, "value": value})
        assert response.status_code == 400 and message in text(response)
    assert not AuditEntry.objects.filter(action="cashbook.settings").exists()


def test_the_entries_come_a_page_at_a_time_newest_first(event, desk, organiser):
    """A door that took 60 fees shows the latest 50, then the 10 before them; a page number
    that is no number or past the end shows the first or the last page."""
    from tournaments.views.cashbook.book import ENTRIES_PER_PAGE

    paid = [
        cashbook.pay_fee(player, method=book.CASH, actor=organiser).entry
        for player in PlayerFactory.create_batch(60, tournament=event)
    ]

    def shown(query: str = "") -> list[int]:
        page = text(desk.get(url("cashbook", event) + query))
        return [e.pk for e in paid if f'id="entry-{e.pk}"' in page]

    newest = [e.pk for e in reversed(paid)]
    assert shown() == sorted(newest[:ENTRIES_PER_PAGE])
    assert shown("?page=2") == sorted(newest[ENTRIES_PER_PAGE:])
    assert shown("?page=x") == shown()
    assert shown("?page=99") == shown("?page=2")
    first = text(desk.get(url("cashbook", event)))
    assert "60 in all" in first and "Page 1 of 2" in first and 'rel="next"' in first
    assert first.index(f'id="entry-{paid[-1].pk}"') < first.index(f'id="entry-{paid[-2].pk}"')


def test_counting_the_prize_box_warns_of_prizes_still_to_pay_and_the_pay_page_names_the_box(
    event, organiser, desk
):
    players = PlayerFactory.create_batch(2, tournament=event)
    first, second = awarded_directly(event, players, cents=30_00)
    shown = text(desk.get(url("cash-box", event, "prize")))
    assert "2 prizes ($60.00) are still to pay from this box. Once it is closed, they are " in (
        shown
    )
    assert 'id="box-unpaid"' not in text(desk.get(url("cash-box", event, "desk")))
    desk.post(url("cash-box", event, "prize"), {"reason": "Nothing in it"})
    cashbook.donate(event, amount_cents=30_00, method=book.CASH, box=book.DESK, actor=organiser)
    pay = url("payout-pay", event, first.pk)
    assert "prizes are paid from the desk&#x27;s box" in desk.get(pay).content.decode()
    response = desk.post(pay, {"present": "on", "id_checked": "on"}, follow=True)
    assert first.payouts.filter(voided_at=None).exists()
    assert "The cash came out of the desk's box: the prize table's was counted." in text(response)
    shown = text(desk.get(url("cash-box", event, "desk")))
    assert "1 prize ($30.00) is still to pay from this box" in shown
    assert "no box is left to pay them from tonight" in shown
    desk.post(url("cash-box", event, "desk"), {"reason": "Prize paid from it"})
    shown = text(desk.get(url("payout-pay", event, second.pk)))
    assert book.NO_BOX_TO_PAY_FROM in shown and 'id="pay-form"' not in shown
    response = desk.post(url("payout-pay", event, second.pk), {"present": "on", "id_checked": "on"})
    assert response.status_code == 409 and not second.payouts.exists()
    # Every page that sends a winner to the prize table says it is too late tonight.
    table = text(desk.get(url("payouts", event)))
    assert book.NO_BOX_TO_PAY_FROM in table and url("payout-pay", event, second.pk) not in table
    assert book.NO_BOX_TO_PAY_FROM in text(desk.get(url("prize-winners", event)))
    own = text(desk.get(player_page_path(second.player, event.slug)))
    assert "(the cash boxes are counted: the treasurer pays it later)" in own
    # A payment voided after its box was counted: the cash handed back is outside the boxes.
    response = desk.post(
        url("payout-void", event, first.payouts.get().pk), {"reason": "Wrong winner"}, follow=True
    )
    assert "keep it apart for the treasurer" in text(response)
