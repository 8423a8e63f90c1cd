"""Recording money: fees at the desk, donations, expenses, prizes paid and given back, and
reversals. Each is one transaction with its audit entry; the sums are `tournaments.rules.cashbook`.

A phone on a bad connection may send the same form twice. Forms carry an idempotency key
made when the form was shown; a key seen before returns the entry it first made, and the
unique index on the key settles two copies arriving at once. A player's fee is also
serialised on the player's row, so two desk phones paying the same player store one fee.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from django.db import IntegrityError, transaction
from django.db.models import Count, Exists, OuterRef, Q, Sum

from tournaments.foundation import audit, changes
from tournaments.foundation.errors import UserFacingError
from tournaments.rules import cashbook as book

from ..foundation.text import money
from ..models import CashBox, LedgerEntry, Player, PrizeAward, Tournament
from . import checkin
from .receipts import Receipt


@dataclass(frozen=True)
class Outcome:
    """What a tap recorded: `changed` is False when it had been recorded already."""

    entry: LedgerEntry | None
    changed: bool
    message: str


def entries(tournament: Tournament) -> list[book.Entry]:
    """The whole book as engine entries, in one query."""
    rows = LedgerEntry.objects.filter(tournament=tournament).values_list(
        "pk", "kind", "method", "amount_cents", "box", "reverses_id", "player_id"
    )
    return [book.Entry(*row) for row in rows]


def totals(tournament: Tournament) -> book.Totals:
    return book.totals(entries(tournament))


def _seen(tournament: Tournament, key: uuid.UUID | None) -> Outcome | None:
    if key is None:
        return None
    entry = LedgerEntry.objects.filter(idempotency_key=key).first()
    if entry is None:
        return None
    if entry.tournament_id != tournament.pk:
        raise UserFacingError("This form belongs to another tournament; open the page again.")
    return Outcome(entry, False, f"Already recorded: {_describe(entry)}.")


def open_box(tournament: Tournament, key: str) -> CashBox:
    """The box, locked, refusing when it was closed: its count is final."""
    if key not in book.BOXES:
        raise UserFacingError("Choose the desk or the prize table.")
    CashBox.objects.get_or_create(tournament=tournament, key=key)
    box = CashBox.objects.select_for_update().get(tournament=tournament, key=key)
    if box.closed:
        raise UserFacingError(
            f"{box} was counted and closed at {checkin.hhmm(box.closed_at)}; "
            "it takes no more entries."
        )
    return box


def closed_boxes(tournament: Tournament) -> frozenset[str]:
    """The keys of the boxes already counted (a box never opened is open)."""
    return frozenset(
        CashBox.objects.filter(tournament=tournament, closed_at__isnull=False).values_list(
            "key", flat=True
        )
    )


def chosen_box(tournament: Tournament, key: str, method: str, *, money_in: bool) -> str:
    """Where an entry whose box was chosen on a form goes (a donation, an expense).

    Cash goes through the chosen box, which must be open; when it was counted, the refusal
    also says which box is still open (`book.counted_box_advice`), since the staff member
    with a late donation in hand has no other way to know. Money paid by card, cheque or
    online moves no cash through a box: once the box was counted it is recorded outside the
    boxes, as a late fee paid by card is (`_box_unless_counted`), instead of being refused."""
    if not key:
        return ""
    if key not in book.BOXES:
        raise UserFacingError("Choose the desk or the prize table.", field="box")
    try:
        return _entry_box(tournament, key, method)
    except UserFacingError as exc:
        advice = book.counted_box_advice(key, closed_boxes(tournament), money_in=money_in)
        raise UserFacingError(f"{exc.message} {advice}", field="box") from exc


def _entry_box(tournament: Tournament, key: str, method: str) -> str:
    """The box an entry of `method` goes to: cash through the box, which must be open; any
    other money to the box while it is open, else outside it (`_box_unless_counted`)."""
    if method == book.CASH:
        return open_box(tournament, key).key
    return _box_unless_counted(tournament, key)


def _fee_box(tournament: Tournament, method: str) -> str:
    """Where a fee goes: the desk's box. A late fee in cash after the desk's box was counted
    goes into the prize table's box while that is open (its count is still to come); with
    both counted it is refused, saying what to do with the cash. Other money follows
    `_entry_box` (recorded outside a counted box)."""
    if method != book.CASH:
        return _entry_box(tournament, book.DESK, method)
    closed = closed_boxes(tournament)
    still_open = book.open_boxes(closed)  # the desk's first
    if still_open:
        return open_box(tournament, still_open[0]).key
    raise UserFacingError(
        "Both cash boxes are counted and closed, so no more cash can be recorded tonight: "
        "keep this fee apart for the treasurer, with the player's name."
    )


def _describe(entry: LedgerEntry) -> str:
    what = entry.get_kind_display()
    who = f" from {entry.donor}" if entry.donor else ""
    if entry.player_id and entry.kind == book.FEE:
        who = f" for {entry.player.name}"
    return f"{what} {money(entry.amount_cents)} ({entry.get_method_display()}){who}"


def _create(key: uuid.UUID | None, **fields) -> LedgerEntry:
    """Inserts the entry; a key that arrived twice at once is stopped by its unique index."""
    try:
        with transaction.atomic():
            return LedgerEntry.objects.create(idempotency_key=key, **fields)
    except IntegrityError as exc:
        if key is not None and LedgerEntry.objects.filter(idempotency_key=key).exists():
            raise UserFacingError("This was just recorded from another tap.") from exc
        raise


def _record(entry: LedgerEntry, actor, summary: str) -> None:
    audit.record(
        f"cashbook.{entry.kind}",
        summary,
        actor=actor,
        tournament=entry.tournament,
        target=entry,
        data={"amount_cents": entry.amount_cents, "method": entry.method, "box": entry.box},
    )


def _actor(actor):
    return actor if actor is not None and actor.is_authenticated else None


def fee_entry(player: Player) -> LedgerEntry | None:
    """The player's fee in force (not reversed), if they paid or were comped."""
    return (
        LedgerEntry.objects.filter(player=player, kind=book.FEE, reversed_by__isnull=True)
        .order_by("pk")
        .first()
    )


def fee_cents(tournament: Tournament) -> int:
    return int(tournament.entry_fee * 100)


@dataclass(frozen=True)
class Fees:
    """The entry fees of the players who came: recorded in the book, and still owed."""

    taken_cents: int
    comped: int
    owed_cents: int

    @property
    def due_cents(self) -> int:
        """What the fees come to once everyone owing pays: the prizes' budget."""
        return self.taken_cents + self.owed_cents


def fees(tournament: Tournament) -> Fees:
    """Two sums, not the ledger's rows (the winners page reads it on event night): the fees
    in force (as `fee_entry` finds one) and the players `owing`."""
    taken = LedgerEntry.objects.filter(
        tournament=tournament, kind=book.FEE, reversed_by__isnull=True
    ).aggregate(cents=Sum("amount_cents"), comped=Count("pk", filter=Q(method=book.COMPED)))
    return Fees(taken["cents"] or 0, taken["comped"], owed_cents(tournament))


@changes.announces
def pay_fee(
    player: Player,
    *,
    method: str,
    actor,
    reason: str = "",
    key: uuid.UUID | None = None,
    check_in: bool = True,
) -> Outcome:
    """Records the entry fee (and checks the player in, the same tap); once per player."""
    seen = _seen(player.tournament, key)
    if seen is not None:
        return seen
    if method not in book.METHODS:
        raise UserFacingError("Choose how the fee was paid.")
    reason = " ".join(reason.split())[:300]
    if method == book.COMPED and not reason:
        raise UserFacingError("Say why the fee is comped.", field="reason")
    locked = checkin.lock(player)
    if locked.checked_in_at is None or locked.status != Player.Status.REGISTERED:
        checkin.refuse_unless_allowed(locked)  # paying later needs no open desk
    paid = fee_entry(locked)
    if paid is not None:
        return Outcome(
            paid, False, f"{locked.name} already paid at {checkin.hhmm(paid.recorded_at)}."
        )
    amount = 0 if method == book.COMPED else fee_cents(locked.tournament)
    if method != book.COMPED and amount == 0:
        raise UserFacingError("This tournament charges no entry fee.")
    box = _fee_box(locked.tournament, method)
    if check_in and locked.checked_in_at is None:
        checkin.check_in(locked, actor)
    entry = _create(
        key,
        tournament=locked.tournament,
        kind=book.FEE,
        method=method,
        amount_cents=amount,
        box=box,
        note=reason if method == book.COMPED else "",
        player=locked,
        recorded_by=_actor(actor),
    )
    _record(entry, actor, f"Entry fee of {locked.name} ({locked.code}): {_describe(entry)}")
    changes.bump(player.tournament_id)
    described = _describe(entry)
    where = (
        f" into {book.BOX_LABELS[box].lower()}'s box, as the desk's was counted"
        if box and box != book.DESK
        else ""
    )
    return Outcome(
        entry, True, f"{locked.name}: {described[:1].lower()}{described[1:]} recorded{where}."
    )


@changes.announces
def walk_in(
    tournament: Tournament, registrant, *, method: str, actor, key: uuid.UUID | None = None
) -> Player:
    """Registers and checks in a walk-in and, when they paid, records the fee: one step."""
    seen = _seen(tournament, key)
    if seen is not None and seen.entry.player is not None:
        return seen.entry.player
    player = checkin.walk_in(tournament, registrant, actor=actor)
    if method and fee_cents(tournament):
        pay_fee(player, method=method, actor=actor, key=key)
    changes.bump(tournament.pk)
    return player


def owed_cents(tournament: Tournament) -> int:
    """The fees still owed: one for each player `owing`."""
    return owing(tournament).count() * fee_cents(tournament)


def owing(tournament: Tournament):
    """Checked-in players with no fee in force, when the event charges one."""
    if fee_cents(tournament) == 0:
        return Player.objects.none()
    paid = LedgerEntry.objects.filter(
        player=OuterRef("pk"), kind=book.FEE, reversed_by__isnull=True
    )
    return tournament.players.playing().filter(~Exists(paid))


@changes.announces
def donate(
    tournament: Tournament,
    *,
    amount_cents: int,
    method: str,
    box: str,
    actor,
    donor: str = "",
    note: str = "",
    key: uuid.UUID | None = None,
) -> Outcome:
    """A donation on top of the fee, at the desk or the prize table ("round up" included),
    or, when not paid in cash, outside the boxes."""
    seen = _first_time(tournament, key, method=method, amount_cents=amount_cents, what="donation")
    if seen is not None:
        return seen
    if refusal := book.box_refusal(method, box, money_in=True):
        raise UserFacingError(refusal, field="box")
    into = chosen_box(tournament, box, method, money_in=True)
    entry = _create(
        key,
        tournament=tournament,
        kind=book.DONATION,
        method=method,
        amount_cents=amount_cents,
        box=into,
        donor=" ".join(donor.split())[:100],
        note=" ".join(note.split())[:300],
        recorded_by=_actor(actor),
    )
    where = f"at {book.BOX_LABELS[into]}" if into else "outside the boxes"
    _record(entry, actor, f"Donation {where}: {_describe(entry)}")
    changes.bump(tournament.pk)
    return Outcome(entry, True, f"{_describe(entry)} recorded{_outside(box, into)}.")


def _outside(chosen: str, into: str) -> str:
    """Said after "recorded" when the chosen box was counted and the entry went outside it."""
    if chosen and not into:
        return f" outside the boxes: {book.BOX_LABELS[chosen].lower()} was already counted"
    return ""


def _first_time(
    tournament: Tournament, key: uuid.UUID | None, *, method: str, amount_cents: int, what: str
) -> Outcome | None:
    """What an earlier send of the same form recorded, or None once the new one is checked."""
    seen = _seen(tournament, key)
    if seen is None:
        if method not in book.METHODS or method == book.COMPED:
            raise UserFacingError(f"Choose how the {what} was paid.", field="method")
        if not isinstance(amount_cents, int) or not 0 < amount_cents <= book.MAX_CENTS:
            raise UserFacingError("Enter an amount above zero.", field="amount")
    return seen


@changes.announces
def expense(
    tournament: Tournament,
    *,
    amount_cents: int,
    method: str,
    note: str,
    actor,
    box: str = "",
    receipt: Receipt | None = None,
    key: uuid.UUID | None = None,
) -> Outcome:
    """Money spent on the night (venue, dice, prizes bought, food), paid from a box or not."""
    seen = _first_time(tournament, key, method=method, amount_cents=amount_cents, what="expense")
    if seen is not None:
        return seen
    note = " ".join(note.split())[:300]
    if not note:
        raise UserFacingError("Say what the money was spent on.", field="note")
    if refusal := book.box_refusal(method, box, money_in=False):
        raise UserFacingError(refusal, field="box")
    into = chosen_box(tournament, box, method, money_in=False)
    entry = _create(
        key,
        tournament=tournament,
        kind=book.EXPENSE,
        method=method,
        amount_cents=amount_cents,
        box=into,
        note=note,
        receipt=receipt.save() if receipt else "",
        receipt_type=receipt.content_type if receipt else "",
        recorded_by=_actor(actor),
    )
    _record(entry, actor, f"{_describe(entry)}: {note}")
    changes.bump(tournament.pk)
    return Outcome(entry, True, f"Expense {money(amount_cents)} recorded{_outside(box, into)}.")


def prize_paid(award: PrizeAward, amount_cents: int, *, actor, give_back_cents: int = 0) -> None:
    """The ledger's side of a payment at the prize table (the caller holds the award's lock):
    the cash out of the prize table's box (or the desk's, `book.payout_box`) and, if the
    winner gives some back, the donation into the same box."""
    key = book.payout_box(closed_boxes(award.tournament))
    if not key:
        raise UserFacingError(book.NO_BOX_TO_PAY_FROM)
    box = open_box(award.tournament, key)
    if not 0 <= give_back_cents <= amount_cents:
        raise UserFacingError(
            f"A winner can give back at most the prize, {money(amount_cents)}.",
            field="give_back",
        )
    if key == book.DESK:
        # The desk's box holds the night's fees, not prize money: it pays only what the book
        # says is in it, or the box would be counted "over" by what it never held.
        held = book.expected_cash(entries(award.tournament), key, box.float_cents)
        if held < amount_cents - give_back_cents:
            raise UserFacingError(
                f"The desk's box holds {money(held)} by the cash book, less than this prize "
                f"({money(amount_cents)}): the treasurer pays it later."
            )
    common = {"tournament": award.tournament, "box": box.key, "method": book.CASH}
    _create(
        None,
        **common,
        kind=book.PAYOUT,
        amount_cents=amount_cents,
        award=award,
        player=award.player,
        recorded_by=_actor(actor),
    )
    # No audit entry of its own: the payment's entry (payouts) is this write's, and one write
    # says once what it stored; the give-back below is a second fact, so it gets one.
    if give_back_cents:
        back = _create(
            None,
            **common,
            kind=book.GIVE_BACK,
            amount_cents=give_back_cents,
            award=award,
            player=award.player,
            donor=award.player.name[:100],
            recorded_by=_actor(actor),
        )
        _record(back, actor, f"{award.player.name} gave back {money(give_back_cents)}")


def prize_voided(award: PrizeAward, *, actor, reason: str) -> None:
    """Reverses the voided payment's entries (and any give-back with it)."""
    for entry in LedgerEntry.objects.filter(
        award=award, kind__in=(book.PAYOUT, book.GIVE_BACK), reversed_by__isnull=True
    ).select_related("tournament"):
        _reverse(entry, actor=actor, reason=f"Payment voided: {reason}")


@changes.announces
def reverse(entry: LedgerEntry, *, actor, reason: str) -> Outcome:
    """Undoes an entry by a counter-entry with a reason; both stay in the book."""
    reason = " ".join(reason.split())[:300]
    if not reason:
        raise UserFacingError("Say why the entry is reversed.", field="reason")
    if entry.kind in (book.PAYOUT, book.GIVE_BACK):
        raise UserFacingError("Void the payment at the prize table; its entries follow.")
    if entry.player_id:
        checkin.lock(entry.player)
    entry = LedgerEntry.objects.select_for_update().select_related("tournament").get(pk=entry.pk)
    made = _reverse(entry, actor=actor, reason=reason)
    changes.bump(entry.tournament_id)
    return Outcome(made, True, f"{_describe(entry)} reversed.")


def _box_unless_counted(tournament: Tournament, key: str) -> str:
    """Where an entry that moves no cash through a box goes: the box while it is open. Once
    the box was counted the count stands, and the entry is recorded outside any box, so the
    charity's totals are still right (a payment voided after the count, a fee found to be a
    mistake, a late fee paid by card or comped)."""
    if not key:
        return ""
    CashBox.objects.get_or_create(tournament=tournament, key=key)
    box = CashBox.objects.select_for_update().get(tournament=tournament, key=key)
    return "" if box.closed else key


def _reverse(entry: LedgerEntry, *, actor, reason: str) -> LedgerEntry:
    problem = book.may_reverse(
        entry.to_engine(),
        [e.to_engine() for e in LedgerEntry.objects.filter(reverses=entry)],
    )
    if problem:
        raise UserFacingError(problem)
    box = _box_unless_counted(entry.tournament, entry.box)
    made = _create(
        None,
        tournament=entry.tournament,
        kind=book.REVERSAL,
        method=entry.method,
        amount_cents=entry.amount_cents,
        box=box,
        note=reason
        if box == entry.box
        else f"{reason} (after {entry.get_box_display().lower()} was counted)",
        player=entry.player,
        award=entry.award,
        reverses=entry,
        recorded_by=_actor(actor),
    )
    _record(made, actor, f"Reversed {_describe(entry)}: {reason}")
    return made
