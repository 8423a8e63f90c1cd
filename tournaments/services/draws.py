"""Draw codes from the tournament's secret, the list of every draw, and publishing the secret.

Every service that draws or rolls on screen asks `next_seed` for its code, inside its own
transaction and lock, so the code is listed with the draw it made or not at all. Why codes
come from a secret and when it is published is explained in `tournaments/rules/draws.py`.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Max, OuterRef, Subquery
from django.utils import timezone

from tournaments.foundation import audit, changes
from tournaments.foundation.errors import UserFacingError
from tournaments.rules import draws as engine

from ..foundation.text import whole_number
from ..models import (
    Draw,
    FinalTable,
    Payout,
    RollOff,
    Stage,
    Tournament,
)
from ..rules.advancement import CUT_LABELS
from ..rules.prizes import OVERALL

PUBLISHED = (
    "The draw secret is already published, so anything the site rolled now could be "
    "worked out in advance. Throw real dice at the table and type them in."
)
STAGE_NAMES = {Stage.Kind.QUALIFYING: "qualifying", Stage.Kind.SEMI_FINAL: "semi-final"}


def is_published(tournament: Tournament) -> bool:
    """Public once nothing is left to draw: the grand prize is won and the first prize paid
    (after that the awards cannot change), or the organiser published it after the final."""
    if tournament.draws_published_at is not None:
        return True
    final = cached_final(tournament)
    if final is None or final.winner_id is None:
        return False
    return Payout.objects.filter(
        award__tournament=tournament, award__superseded_at__isnull=True
    ).exists()


def next_seed(tournament: Tournament, subject: str, *, actor, seed: int | None = None) -> int:
    """The code of a new draw of `subject` (its next attempt), listed before it is used.

    `seed` is for practice runs only: `rehearse` draws its qualifying pods with the
    simulator's seed so that the two can be compared, and the list says so. No page passes
    one.
    """
    tournament = Tournament.objects.get(pk=tournament.pk)
    if seed is None and is_published(tournament):
        raise UserFacingError(PUBLISHED)
    done = Draw.objects.filter(tournament=tournament, subject=subject).aggregate(n=Max("attempt"))
    attempt = (done["n"] or 0) + 1
    if seed is None:
        seed = engine.draw_code(tournament.draw_secret, engine.label(subject, attempt))
        source = Draw.Source.SECRET
    else:
        source = Draw.Source.PRACTICE
    Draw.objects.create(
        tournament=tournament,
        subject=subject,
        attempt=attempt,
        seed=seed,
        source=source,
        drawn_by=actor if actor is not None and actor.is_authenticated else None,
    )
    return seed


@changes.announces
def publish(tournament: Tournament, *, actor) -> Tournament:
    """Publishes the secret before the prizes are paid, e.g. at an event without cash prizes.

    Only after the grand prize is won: published earlier, the codes of the draws still to
    come (the semi-final, the final table) would be known before their inputs are final.
    """
    tournament = Tournament.objects.select_for_update().get(pk=tournament.pk)
    if is_published(tournament):
        raise UserFacingError("The draw secret is already published.")
    if not FinalTable.objects.filter(tournament=tournament, winner__isnull=False).exists():
        raise UserFacingError("The draw secret can be published once the grand prize is won.")
    tournament.draws_published_at = timezone.now()
    tournament.save(update_fields=["draws_published_at"])
    audit.record(
        "draws.published",
        "Draw secret published: anyone can now check every draw",
        actor=actor,
        tournament=tournament,
        data={"fingerprint": tournament.draw_fingerprint},
    )
    changes.bump(tournament.pk)
    return tournament


# --- the check, in words ---------------------------------------------------------------------


VERDICTS = {
    engine.Status.CHECKS: "checks out",
    engine.Status.WRONG: "does not match the secret",
    engine.Status.SEALED: "checked once the secret is published",
}
UNSEALED = {
    Draw.Source.PRACTICE: "set by a practice run, so it replays the simulator",
    Draw.Source.EARLIER: "made before the site sealed its draws",
}


def code_source(tournament: Tournament, subject: str, seed: int) -> str:
    """Where a draw's code came from (`Draw.Source`): the stage page must not say "nobody
    chose it" of a code a practice run set (the demo's, a rehearsal's)."""
    source = (
        Draw.objects.filter(tournament=tournament, subject=subject, seed=seed)
        .order_by("-attempt")
        .values_list("source", flat=True)
        .first()
    )
    return source or Draw.Source.SECRET


def origin_words(source: str) -> str:
    """`code_source` in the words the draw list uses."""
    if source == Draw.Source.SECRET:
        return "Derived from the event's sealed draw secret; nobody chose it."
    return f"Not derived from the sealed draw secret: {UNSEALED[source]}."


def unsealed_source() -> Subquery:
    """Beside a tournament's row: the source of one of its draws not made from the secret
    (NULL when every draw was), so a page that claims the draws were sealed reads it with the
    tournament, in the same statement."""
    return Subquery(
        Draw.objects.filter(tournament=OuterRef("pk"))
        .exclude(source=Draw.Source.SECRET)
        .values("source")[:1]
    )


def unsealed_words(tournament: Tournament) -> str:
    """Why the event's draws may not be called sealed, in the draw list's words (`UNSEALED`),
    or "" when they may: the board must not tell the room "sealed before the event" under a
    practice run's pods. Needs `unsealed_source()` on the tournament."""
    source = tournament.unsealed_source
    return UNSEALED[source] if source else ""


@dataclass(frozen=True)
class DrawLine:
    draw: Draw
    status: engine.Status
    what: str

    @property
    def label(self) -> str:
        return self.draw.label

    @property
    def verdict(self) -> str:
        if self.status == engine.Status.UNSEALED:
            return UNSEALED.get(self.draw.source, "not drawn from the secret")
        return VERDICTS[self.status]


@dataclass(frozen=True)
class DrawReport:
    tournament: Tournament
    verification: engine.Verification
    lines: list[DrawLine]
    problems: list[str]

    @property
    def published(self) -> bool:
        return self.verification.published

    @property
    def fingerprint(self) -> str:
        return self.verification.fingerprint

    @property
    def secret(self) -> str | None:
        return self.verification.secret

    @property
    def ok(self) -> bool:
        return self.verification.ok

    @property
    def failed(self) -> list[DrawLine]:
        return [line for line in self.lines if line.status == engine.Status.WRONG]

    @property
    def unsealed(self) -> list[DrawLine]:
        return [line for line in self.lines if line.status == engine.Status.UNSEALED]


def cached_final(tournament: Tournament) -> FinalTable | None:
    """The final table through `tournament.final`, which the board and results page load
    with the tournament, so asking costs no query there."""
    try:
        return tournament.final
    except FinalTable.DoesNotExist:
        return None


def seeds_used(tournament: Tournament) -> list[engine.Used]:
    """The seed every stored result replays from, under the subject it was drawn for."""
    used = [
        engine.Used(engine.pods_subject(kind), seed)
        for kind, seed in Stage.objects.filter(tournament=tournament).values_list("kind", "seed")
    ]
    # Every version of every roll-off: a re-throw's code is a later attempt of its subject.
    # The final's order roll is rolled from the final's dice code, listed below.
    used += [
        engine.Used(subject, seed)
        for subject, seed in RollOff.objects.filter(tournament=tournament, seed__isnull=False)
        .exclude(kind=RollOff.Kind.ORDER)
        .values_list("subject", "seed")
    ]
    final = cached_final(tournament)
    if final is not None:
        used.append(engine.Used(engine.FINAL_SEATS, final.seed))
        if final.dice_seed is not None:
            used.append(engine.Used(engine.FINAL_DICE, final.dice_seed))
    return used


def describe(subject: str, prize_labels: dict[str, str]) -> str:
    """What a subject drew, in the words the pages use."""
    kind, _, rest = subject.partition(":")
    if kind == "pods":
        return f"{STAGE_NAMES.get(rest, rest).capitalize()} pods and hostesses"
    if kind == "roll-off":
        stage, group, category = rest.split(":", 2)
        where = (
            f"pod {group} ({STAGE_NAMES[stage]})"
            if whole_number(group) is not None
            else "the semi-final"
        )
        label = CUT_LABELS[category].lower() if category in CUT_LABELS else category
        return f"Roll-off for {label} in {where}"
    if subject == engine.FINAL_SEATS:
        return "Final table: the seat drawn from the semi-finalists and the wild card"
    if subject == engine.FINAL_DICE:
        return "Final table: dice rolled on screen (order of play and throws)"
    if kind == "prize-roll-off":
        category, group, place = rest.split(":", 2)
        where = "the whole event" if group == OVERALL else f"pod {group}"
        name = prize_labels.get(category, category)
        return f"Prize roll-off: {name} ({where}, from place {place})"
    return subject


def draw_report(tournament: Tournament, noted_fingerprint: str | None = None) -> DrawReport:
    """Every listed draw checked against the secret once it is published, in plain words.

    `noted_fingerprint` is one a person wrote down before the draws; without it the check
    uses the fingerprint the pages show.
    """
    listed = list(Draw.objects.filter(tournament=tournament).order_by("drawn_at", "pk"))
    published = is_published(tournament)
    verification = engine.verify(
        noted_fingerprint or tournament.draw_fingerprint,
        tournament.draw_secret if published else None,
        [
            engine.Logged(d.subject, d.attempt, d.seed, d.source == Draw.Source.SECRET)
            for d in listed
        ],
        seeds_used(tournament),
    )
    status = {c.draw.label: c.status for c in verification.draws}
    prize_labels = {}
    if any(d.subject.startswith("prize-roll-off:") for d in listed):
        prize_labels = dict(tournament.prize_categories.values_list("key", "label"))
    lines = []
    for d in listed:
        what = describe(d.subject, prize_labels)
        if d.attempt > 1:
            what += f", attempt {d.attempt}"
        lines.append(DrawLine(d, status[d.label], what))
    problems = [
        f"{describe(u.subject, prize_labels)} replays from draw code {u.seed}, "
        "which is not in the list of draws."
        for u in verification.unlisted
    ] + [
        f"{describe(subject, prize_labels)}: attempt {n} is missing from the list."
        for subject, n in verification.missing
    ]
    return DrawReport(tournament, verification, lines, problems)
