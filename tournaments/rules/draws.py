"""Draw codes nobody can choose, and the check that they were fixed before the event.

Pure Python with no Django, like `scoring/rules/seating.py` and the prize rules, so the site, the
`verify_draws` command and anyone holding the published secret run the same check.

Why it is built this way (a person checking an event may ask):

- Each tournament gets a secret of 256 random bits when it is created. Its SHA-256, the
  *fingerprint*, is public from the start (board, results page, stage page); the secret is
  not. Nobody can find another secret with the same fingerprint, so the secret, and with it
  every draw code, is fixed before anyone knows who checked in or who qualified.
- A draw's code (its seed) is HMAC-SHA256 of a *label* under the secret, cut to the 62 bits
  the seed columns hold. The label says what is drawn (`pods:qualifying#1`,
  `roll-off:qualifying:3:wins#1`, ...) and is decided by the code, never typed, so the
  organiser cannot try labels until one suits them. A code shown after its draw reveals
  nothing about the secret or about any other draw's code.
- The attempt number after "#" counts draws of the same thing. The only thing drawn again
  is a prize roll-off whose tie changed after a corrected card; its next attempt gets a new
  code and every attempt stays in the list, so a redraw can never happen unseen.
- The secret is published only when nothing is left to draw (the grand prize is won and the
  prizes are being paid, or the organiser publishes it after the final): published earlier,
  anyone could work out the codes of draws still to come and steer their inputs.
- Once it is published, anyone can check: SHA-256(secret) is the fingerprint they saw before
  the draws, and every listed code is HMAC(secret, label). `verify` does exactly that.
"""

from __future__ import annotations

import enum
import hashlib
import hmac
import secrets
from collections.abc import Iterable
from dataclasses import dataclass

SEED_BITS = 62  # the seed columns are signed 64-bit; 62 bits leave room to spare
SECRET_BYTES = 32

FINAL_SEATS = "final:seats"
FINAL_DICE = "final:dice"
# What the final's order roll settles (its roll-off's subject); a site roll's code is the
# final's dice code, drawn under FINAL_DICE.
FINAL_ORDER = "final:order"


def new_secret() -> str:
    return secrets.token_hex(SECRET_BYTES)


def fingerprint(secret: str) -> str:
    return hashlib.sha256(bytes.fromhex(secret)).hexdigest()


def label(subject: str, attempt: int) -> str:
    return f"{subject}#{attempt}"


def draw_code(secret: str, draw_label: str) -> int:
    digest = hmac.new(bytes.fromhex(secret), draw_label.encode(), hashlib.sha256).digest()
    return int.from_bytes(digest[:8], "big") >> (64 - SEED_BITS)


def pods_subject(stage_kind: str) -> str:
    return f"pods:{stage_kind}"


def roll_off_subject(stage_kind: str, group: str, category_key: str) -> str:
    return f"roll-off:{stage_kind}:{group}:{category_key}"


def prize_roll_off_subject(tie_key: str) -> str:
    return f"prize-roll-off:{tie_key}"


class Status(enum.StrEnum):
    CHECKS = "checks"  # the code is HMAC(secret, label)
    WRONG = "wrong"  # it is not: this draw did not come from the secret
    UNSEALED = "unsealed"  # not drawn from the secret: a practice run's, or an older draw
    SEALED = "sealed"  # the secret is not published yet


@dataclass(frozen=True)
class Logged:
    """One draw as the site listed it when it made it."""

    subject: str
    attempt: int
    seed: int
    sealed: bool = True  # drawn from the secret

    @property
    def label(self) -> str:
        return label(self.subject, self.attempt)


@dataclass(frozen=True)
class Used:
    """A seed a stored result replays from (a stage's pods, a roll-off's dice...)."""

    subject: str
    seed: int


@dataclass(frozen=True)
class Checked:
    draw: Logged
    status: Status


@dataclass(frozen=True)
class Verification:
    fingerprint: str
    secret: str | None  # None until published
    secret_matches: bool | None  # SHA-256(secret) == fingerprint; None until published
    draws: tuple[Checked, ...]
    unlisted: tuple[Used, ...]  # results whose seed is no listed attempt of their subject
    missing: tuple[tuple[str, int], ...]  # (subject, attempt) absent between listed ones

    @property
    def published(self) -> bool:
        return self.secret is not None

    @property
    def ok(self) -> bool:
        """Published, matching, the list whole, and no code that should check fails."""
        return (
            bool(self.secret_matches)
            and not self.unlisted
            and not self.missing
            and all(c.status in (Status.CHECKS, Status.UNSEALED) for c in self.draws)
        )


def verify(
    expected_fingerprint: str,
    secret: str | None,
    logged: Iterable[Logged],
    used: Iterable[Used] = (),
) -> Verification:
    """Checks the secret against the fingerprint and each listed code against its label.

    Also checks that the list is whole: every stored result replays from a listed attempt
    of its own subject, and no attempt number is skipped (a redraw deleted from the list).
    """
    logged = sorted(logged, key=lambda d: (d.subject, d.attempt))
    matches = None if secret is None else fingerprint(secret) == expected_fingerprint.lower()
    checked = []
    for draw in logged:
        if not draw.sealed:
            status = Status.UNSEALED
        elif secret is None:
            status = Status.SEALED
        else:
            good = matches and draw_code(secret, draw.label) == draw.seed
            status = Status.CHECKS if good else Status.WRONG
        checked.append(Checked(draw, status))
    seeds: dict[str, set[int]] = {}
    attempts: dict[str, set[int]] = {}
    for draw in logged:
        seeds.setdefault(draw.subject, set()).add(draw.seed)
        attempts.setdefault(draw.subject, set()).add(draw.attempt)
    unlisted = tuple(u for u in used if u.seed not in seeds.get(u.subject, ()))
    missing = tuple(
        (subject, n)
        for subject, found in sorted(attempts.items())
        for n in range(1, max(found) + 1)
        if n not in found
    )
    return Verification(
        expected_fingerprint.lower(), secret, matches, tuple(checked), unlisted, missing
    )
