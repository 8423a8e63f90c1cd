"""The charity's cash book, as arithmetic on plain entries (no ORM).

Every money movement is an entry that is never edited: a mistake is undone by a reversal
that names it. So every figure the charity sees is a sum over entries, and the same sums
are used by the pages, the CSV, the PDF and the tests. Amounts are whole cents, always
positive; the entry's kind says which way the money went.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

FEE, DONATION, PAYOUT, GIVE_BACK, EXPENSE, REVERSAL = (
    "fee",
    "donation",
    "payout",
    "give_back",
    "expense",
    "reversal",
)
KINDS = (FEE, DONATION, PAYOUT, GIVE_BACK, EXPENSE, REVERSAL)
MONEY_IN = frozenset({FEE, DONATION, GIVE_BACK})
MONEY_OUT = frozenset({PAYOUT, EXPENSE})

CASH, CARD, CHEQUE, ONLINE, COMPED = "cash", "card", "cheque", "online", "comped"
METHODS = (CASH, CARD, CHEQUE, ONLINE, COMPED)
METHOD_LABELS = {
    CASH: "Cash",
    CARD: "Card",
    CHEQUE: "Cheque",
    ONLINE: "Online",
    COMPED: "Comped",
}

DESK, PRIZE_TABLE = "desk", "prize"
BOXES = (DESK, PRIZE_TABLE)
BOX_LABELS = {DESK: "The desk", PRIZE_TABLE: "The prize table"}

# Bills and coins a box is counted in, largest first, in cents.
DENOMINATIONS = (10000, 5000, 2000, 1000, 500, 200, 100, 25, 10, 5, 1)

# No single entry at a charity night comes near this; a typo with extra zeros does.
MAX_CENTS = 10_000_000
# Said in words here, not formatted: the engine sits below foundation/text.py.
TOO_MUCH = "That is more than $100,000.00; check the amount."
_AMOUNT = re.compile(r"\$?\s*([0-9]{1,9})(?:\.([0-9]{0,2}))?")
_GROUPED = re.compile(r"\$?\s*[0-9]{1,3}(?:,[0-9]{3})+")  # whole dollars, thousands grouped


class AmountError(ValueError):
    """A typed amount the cash book cannot take; the message is for the person typing."""


def parse_amount(text: str, *, allow_zero: bool = False) -> int:
    """Cents from what was typed ("20", "20.5", "$1,020.50"); refuses anything doubtful.

    Negative amounts, a third decimal, letters and absurd sizes are refused rather than
    rounded or clipped: a wrong figure in the books is worse than asking again.
    """
    typed = (text or "").strip()
    if not typed:
        raise AmountError("Enter an amount.")
    if typed.startswith("-"):
        raise AmountError("Enter the amount without a minus sign; amounts are never negative.")
    if "," in typed and not _GROUPED.fullmatch(typed.split(".", 1)[0]):
        # "12,50" is twelve and a half on many phones' keyboards, not 1,250.
        raise AmountError(
            "Use a point for cents, like 12.50; a comma only groups thousands, like 1,250."
        )
    cleaned = typed.replace(",", "")
    match = _AMOUNT.fullmatch(cleaned)
    if match is None:
        if re.fullmatch(r"\$?\s*[0-9]+\.[0-9]{3,}", cleaned):
            raise AmountError("Use at most two decimals (cents).")
        if re.fullmatch(r"\$?\s*[0-9]{10,}(\.[0-9]*)?", cleaned):
            raise AmountError(TOO_MUCH)
        raise AmountError("Enter the amount in numbers, like 20 or 12.50.")
    cents = int(match[1]) * 100 + int((match[2] or "").ljust(2, "0"))
    if cents > MAX_CENTS:
        raise AmountError(TOO_MUCH)
    if cents == 0 and not allow_zero:
        raise AmountError("Enter an amount above zero.")
    return cents


@dataclass(frozen=True)
class Entry:
    """One line of the cash book, as the engine sees it."""

    id: int
    kind: str
    method: str
    amount_cents: int
    box: str = ""
    reverses: int | None = None
    player: int | None = None

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"unknown kind {self.kind!r}")
        if self.method not in METHODS:
            raise ValueError(f"unknown method {self.method!r}")
        if self.amount_cents < 0:
            raise ValueError("amounts are never negative")
        if (self.kind == REVERSAL) != (self.reverses is not None):
            raise ValueError("a reversal, and only a reversal, names the entry it reverses")


def signed(entry: Entry, by_id: dict[int, Entry]) -> int:
    """What the entry did to the charity's money: in is positive, out negative."""
    if entry.kind == REVERSAL:
        return -signed(by_id[entry.reverses], by_id)
    return entry.amount_cents if entry.kind in MONEY_IN else -entry.amount_cents


def reversed_ids(entries: Iterable[Entry]) -> frozenset[int]:
    return frozenset(e.reverses for e in entries if e.reverses is not None)


def standing(entries: Iterable[Entry]) -> list[Entry]:
    """The entries still in force: neither a reversal nor reversed."""
    entries = list(entries)
    gone = reversed_ids(entries)
    return [e for e in entries if e.kind != REVERSAL and e.id not in gone]


@dataclass(frozen=True)
class Totals:
    """The charity's figures, each a sum of entries in force."""

    money_in_by_method: dict[str, int] = field(default_factory=dict)
    fees_cents: int = 0
    fees_count: int = 0
    comped_count: int = 0
    donations_cents: int = 0
    prizes_paid_cents: int = 0
    given_back_cents: int = 0
    expenses_cents: int = 0

    @property
    def money_in_cents(self) -> int:
        return sum(self.money_in_by_method.values())

    @property
    def prizes_net_cents(self) -> int:
        """Prizes that left the room: paid, less what winners gave back."""
        return self.prizes_paid_cents - self.given_back_cents

    @property
    def net_raised_cents(self) -> int:
        return self.money_in_cents - self.prizes_paid_cents - self.expenses_cents


def totals(entries: Iterable[Entry]) -> Totals:
    by_method = dict.fromkeys(METHODS, 0)
    sums = dict.fromkeys(KINDS, 0)
    fees = comped = 0
    for e in standing(entries):
        sums[e.kind] += e.amount_cents
        if e.kind in MONEY_IN:
            by_method[e.method] += e.amount_cents
        if e.kind == FEE:
            fees += 1
            comped += e.method == COMPED
    return Totals(
        money_in_by_method={m: c for m, c in by_method.items() if c or m != COMPED},
        fees_cents=sums[FEE],
        fees_count=fees,
        comped_count=comped,
        donations_cents=sums[DONATION],
        prizes_paid_cents=sums[PAYOUT],
        given_back_cents=sums[GIVE_BACK],
        expenses_cents=sums[EXPENSE],
    )


def balance(entries: Iterable[Entry]) -> int:
    """The plain sum of every entry, reversals included: always equals the net raised."""
    entries = list(entries)
    by_id = {e.id: e for e in entries}
    return sum(signed(e, by_id) for e in entries)


def expected_cash(entries: Iterable[Entry], box: str, float_cents: int = 0) -> int:
    """The cash a box should hold: its opening float, and cash in and out through it
    (reversals included)."""
    entries = list(entries)
    by_id = {e.id: e for e in entries}
    return float_cents + sum(
        signed(e, by_id)
        for e in entries
        if e.box == box and (by_id[e.reverses] if e.reverses else e).method == CASH
    )


def box_refusal(method: str, box: str, *, money_in: bool) -> str:
    """Why an entry cannot be recorded in (or outside) that box, or "". Cash is counted in a
    box, so cash needs one; money paid by card, cheque or online is in no box's count and may
    be recorded outside them all (a card donation after the desk's box was counted)."""
    if method == CASH and not box:
        return f"Say which box the cash {'went into' if money_in else 'came out of'}."
    return ""


NO_BOX_TO_PAY_FROM = (
    "Both cash boxes are counted and closed, so no prize can be paid in cash tonight: the "
    "treasurer pays it later, and the ledger shows it still to pay."
)


def payout_box(closed: Iterable[str]) -> str:
    """The box a prize's cash comes out of: the prize table's; once that was counted (a count
    is final), the desk's while it is open, where the night's cash is; "" with both counted."""
    gone = frozenset(closed)
    return next((key for key in (PRIZE_TABLE, DESK) if key not in gone), "")


def open_boxes(closed: Iterable[str]) -> list[str]:
    """The boxes still taking cash, in the book's order: a counted box is closed for good."""
    gone = frozenset(closed)
    return [b for b in BOXES if b not in gone]


def counted_box_advice(box: str, closed: Iterable[str], *, money_in: bool) -> str:
    """What to do with cash meant for `box` once it was counted. The count is final, so the
    cash goes through a box still open, named here: the money handed over at a table late in
    the night after the desk was counted goes into the prize table's box. With every box
    counted the book has no box left to hold cash (a count is never reopened), so the person
    is told to keep it apart for the treasurer rather than left guessing."""
    others = [b for b in open_boxes(closed) if b != box]
    if others:
        names = " or ".join(BOX_LABELS[b].lower() for b in others)
        still = "that box is" if len(others) == 1 else "those boxes are"
        move = "go into" if money_in else "come out of"
        return f"Choose {names} instead: {still} still open, so the cash can {move} it."
    keep = (
        "keep this cash apart for the treasurer, with the amount and the donor's name"
        if money_in
        else "keep the receipt for the treasurer"
    )
    return f"Every cash box is counted and closed, so no more cash can be recorded tonight: {keep}."


def may_reverse(entry: Entry, entries: Iterable[Entry]) -> str:
    """Why an entry cannot be reversed, or "" when it can."""
    entries = list(entries)
    if entry.kind == REVERSAL:
        return "A reversal cannot itself be reversed; record the entry again instead."
    if entry.id in reversed_ids(entries):
        return "This entry is already reversed."
    return ""


def counted_cents(counts: dict[int, int]) -> int:
    """The value of a box counted by denomination ({2000: 3} is three $20 bills)."""
    for value, n in counts.items():
        if value not in DENOMINATIONS:
            raise ValueError(f"not a denomination: {value}")
        if n < 0:
            raise ValueError("a count is never negative")
    return sum(value * n for value, n in counts.items())


# --- the prize-pool planner -------------------------------------------------------------------

PERCENT, AMOUNT = "percent", "amount"


@dataclass(frozen=True)
class Floor:
    """The least the charity must keep: a share of money in, or a fixed amount."""

    kind: str = PERCENT
    value: int = 0  # a whole percentage, or cents

    def cents(self, money_in_cents: int) -> int:
        if self.kind == PERCENT:
            return money_in_cents * self.value // 100
        return self.value


@dataclass(frozen=True)
class Projection:
    money_in_cents: int
    prizes_cents: int
    expenses_cents: int
    floor_cents: int

    @property
    def charity_cents(self) -> int:
        return self.money_in_cents - self.prizes_cents - self.expenses_cents

    @property
    def breaks_floor(self) -> bool:
        return self.charity_cents < self.floor_cents

    @property
    def room_cents(self) -> int:
        """How much more could go to prizes before the floor is broken (negative: over)."""
        return self.charity_cents - self.floor_cents


def project(book: Totals, *, owing_cents: int, prizes_cents: int, floor: Floor) -> Projection:
    """The night's figures if every player owing pays and every planned prize is paid.

    Prizes are the larger of what is planned and what was already paid, and winners'
    give-backs are money in, so a prize given back never counts against the floor twice.
    """
    money_in = book.money_in_cents + owing_cents
    prizes = max(prizes_cents, book.prizes_paid_cents)
    return Projection(money_in, prizes, book.expenses_cents, floor.cents(money_in))
