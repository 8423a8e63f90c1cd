"""Registering players: the single path for the public form, walk-ins, the organiser and CSV.

Capacity and duplicate e-mails are checked with the tournament row locked, so two people
submitting the last seat at the same moment cannot both get it. Online, a full event puts
the newcomer (or the part of a party that does not fit) on the waitlist instead of turning
them away; the organiser's own ways in still refuse, since they can raise the capacity.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from django.db import IntegrityError, transaction
from django.db.models import BooleanField, Exists, ExpressionWrapper, Max, OuterRef, Q, QuerySet
from django.utils import timezone

from tournaments.foundation import audit, changes
from tournaments.foundation.errors import UserFacingError
from tournaments.rules import waitlist as rules

from ..foundation.text import count
from ..models import EmailLog, Party, Player, Stage, Tournament
from . import mail


@dataclass(frozen=True)
class Registrant:
    name: str
    email: str = ""
    phone: str = ""
    group_name: str = ""
    costume_contest: bool = False


def active_players(tournament: Tournament):
    return tournament.players.filter(status=Player.Status.REGISTERED)


def holding_email(tournament: Tournament):
    """Registrations whose e-mail is taken: those playing and those waiting for a place."""
    return tournament.players.filter(
        status__in=[Player.Status.REGISTERED, Player.Status.WAITLISTED]
    )


def closing_conditions(now) -> tuple[tuple[Q, str], ...]:
    """What closes the public form, each with what the form then says; the first that holds
    is said. Full is not among them: the waitlist takes the newcomers. Once pods are drawn the
    form is closed whatever the organiser left ticked: a sign-up then gets no seat, only a
    no-show mark (a late arrival is the desk's to seat, on the waitlist page's ghost seats).
    Written once, as conditions on the row, so the form and the home page's list of
    tournaments taking sign-ups cannot disagree."""
    drawn = Exists(Stage.objects.filter(tournament=OuterRef("pk")))
    return (
        (Q(registration_open=False), "Registration for this tournament is closed."),
        (
            Q(registration_closes_at__lte=now),
            "Registration for this tournament closed at its closing time.",
        ),
        (Q(drawn), "Registration closed when the games began: the pods are drawn."),
    )


def online_closed_reason(tournament: Tournament, now=None) -> str:
    """Why the public form is closed, or "" when it is open: one query."""
    closing = closing_conditions(now or timezone.now())
    flags = {
        f"closes_{i}": ExpressionWrapper(q, output_field=BooleanField())
        for i, (q, _) in enumerate(closing)
    }
    held = Tournament.objects.filter(pk=tournament.pk).annotate(**flags).values_list(*flags).get()
    return next((why for holds, (_, why) in zip(held, closing, strict=True) if holds), "")


def taking_registrations(tournaments: QuerySet[Tournament], now=None) -> QuerySet[Tournament]:
    """The tournaments whose public form is open (`online_closed_reason` is "")."""
    for condition, _ in closing_conditions(now or timezone.now()):
        tournaments = tournaments.exclude(condition)
    return tournaments


def lock_tournament(tournament: Tournament) -> Tournament:
    return Tournament.objects.select_for_update().get(pk=tournament.pk)


def held_offers(tournament: Tournament, now=None):
    """Waitlisted players offered a place they may still accept: the place is theirs until
    the offer lapses (`waitlist.fill_places`)."""
    return tournament.players.filter(
        status=Player.Status.WAITLISTED, offer_expires_at__gt=now or timezone.now()
    )


def places_taken(tournament: Tournament, now=None) -> int:
    """What the capacity is measured against on every way in: the registered players and the
    places held for an offer, so a walk-in or an import never takes a place someone on the
    waitlist was promised."""
    return active_players(tournament).count() + held_offers(tournament, now).count()


def check_room(tournament: Tournament, extra: int = 1) -> None:
    taken = places_taken(tournament)
    if taken + extra > tournament.capacity:
        left = max(tournament.capacity - taken, 0)
        message = (
            f"{tournament.name} is full: {tournament.capacity} places, {left} left."
            if extra > 1
            else f"Sorry, {tournament.name} is full ({tournament.capacity} players)."
        )
        if held := held_offers(tournament).count():  # only asked when refusing
            message += (
                f" {held} of the places {'is' if held == 1 else 'are'} held for the waitlist:"
                " offered and not answered yet."
            )
        raise UserFacingError(message)


def check_email_free(tournament: Tournament, email: str, *, exclude: Player | None = None) -> None:
    email = email.strip().lower()
    if not email:
        return
    taken = holding_email(tournament).filter(email=email)
    if exclude is not None:
        taken = taken.exclude(pk=exclude.pk)
    if taken.exists():
        raise UserFacingError(f"{email} is already registered for this tournament.", field="email")


def _create_with_unique_code(player: Player) -> Player:
    """Retries on the rare clash of a random code with an existing one."""
    for _ in range(20):
        if not Player.objects.filter(tournament=player.tournament, code=player.code).exists():
            try:
                with transaction.atomic():
                    player.save()
                return player
            except IntegrityError:
                pass
        player.code = Player._meta.get_field("code").default()
    raise RuntimeError("Could not find a free registration code")


def _new_player(tournament: Tournament, registrant: Registrant, source: str, **extra) -> Player:
    player = Player(
        tournament=tournament,
        name=registrant.name,
        email=registrant.email,
        phone=registrant.phone,
        group_name=registrant.group_name,
        costume_contest=registrant.costume_contest,
        source=source,
        **extra,
    )
    return _create_with_unique_code(player)


def _made_with(tournament: Tournament, form_key: uuid.UUID) -> list[Player]:
    booker = tournament.players.filter(form_key=form_key).first()
    if booker is None:
        return []
    others = booker.party.members.exclude(pk=booker.pk).order_by("pk") if booker.party_id else []
    return [booker, *others]


def _next_waitlist_position(tournament: Tournament) -> int:
    last = tournament.players.filter(status=Player.Status.WAITLISTED).aggregate(
        last=Max("waitlist_position")
    )["last"]
    return (last or 0) + 1


def _check_names(registrants: list[Registrant]) -> None:
    for registrant in registrants:
        if not registrant.name.strip():
            raise UserFacingError("Please give the player's name.", field="name")


@changes.announces
def register(
    tournament: Tournament,
    registrant: Registrant,
    *,
    source: str = Player.Source.WEB,
    actor=None,
    check_in: bool = False,
    waitlist_ok: bool = False,
) -> Player:
    if source == Player.Source.WEB:
        return register_party(tournament, [registrant], waitlist_ok=waitlist_ok)[0]
    tournament = lock_tournament(tournament)
    _check_names([registrant])
    check_room(tournament)
    check_email_free(tournament, registrant.email)
    extra = {}
    if check_in:
        extra["checked_in_at"] = timezone.now()
        extra["checked_in_by"] = actor if actor is not None and actor.is_authenticated else None
    player = _new_player(tournament, registrant, source, **extra)
    audit.record(
        "player.registered",
        f"{player.name} registered ({player.get_source_display()})"
        + (" and checked in" if check_in else ""),
        actor=actor,
        tournament=tournament,
        target=player,
    )
    changes.bump(tournament.pk)
    return player


@changes.announces
def register_party(
    tournament: Tournament,
    registrants: list[Registrant],
    *,
    email_each: bool = False,
    waitlist_ok: bool = False,
    form_key: uuid.UUID | None = None,
) -> list[Player]:
    """The public form: one player, or a party whose first member is the one booking.

    `form_key` is the drawn form's key: sent again, it answers with the registration it made
    (the booker first) and registers nobody.

    Places go to the party as the organiser chose (`waitlist.admit`); whoever does not get
    one goes on the waitlist, in the form's order, if they said yes to it (`waitlist_ok`):
    a place may have gone while they typed. Nobody jumps the queue: while anyone waits,
    newcomers wait behind them.
    """
    tournament = lock_tournament(tournament)
    if form_key is not None and (made := _made_with(tournament, form_key)):
        return made
    closed = online_closed_reason(tournament)
    if closed:
        raise UserFacingError(closed)
    if not registrants:
        raise UserFacingError("Please give the player's name.", field="name")
    if len(registrants) > tournament.party_size_max:
        raise UserFacingError(
            f"A party may have at most {tournament.party_size_max} players.", field="size"
        )
    _check_names(registrants)
    emails = [r.email.strip().lower() for r in registrants if r.email.strip()]
    if len(set(emails)) != len(emails):
        raise UserFacingError("Two players of the party have the same e-mail.", field="email")
    for registrant in registrants:
        check_email_free(tournament, registrant.email)
    booker = registrants[0]
    party = None
    if len(registrants) > 1:
        party = Party.objects.create(
            tournament=tournament, name=booker.name, email=booker.email, email_each=email_each
        )
    waiting = tournament.players.filter(status=Player.Status.WAITLISTED).exists()
    free = 0 if waiting else tournament.capacity - active_players(tournament).count()
    admitted = rules.admit(free, len(registrants), tournament.party_fit)
    if admitted < len(registrants) and not waitlist_ok:
        left = max(free, 0)
        said = (
            f"Sorry, {tournament.name} has only {count(left, 'place')} left, and this party "
            f"has {len(registrants)} players"
            if left
            else f"Sorry, {tournament.name} is full"
        )
        raise UserFacingError(
            f"{said}. Tick “Put me on the waitlist” to wait for a freed place.",
            field="waitlist",
        )
    position = _next_waitlist_position(tournament)
    players = []
    for index, registrant in enumerate(registrants):
        extra = {"party": party, "form_key": form_key if index == 0 else None}
        if index >= admitted:
            extra.update(status=Player.Status.WAITLISTED, waitlist_position=position)
            position += 1
        player = _new_player(tournament, registrant, Player.Source.WEB, **extra)
        where = "on the waitlist" if index >= admitted else "(Online registration)"
        audit.record(
            "player.waitlisted" if index >= admitted else "player.registered",
            f"{player.name} registered {where}" + (f" in {party.name}'s party" if party else ""),
            tournament=tournament,
            target=player,
        )
        players.append(player)
    _confirm_by_email(players, party)
    changes.bump(tournament.pk)
    return players


def _confirm_by_email(players: list[Player], party: Party | None) -> None:
    """One e-mail to the booker listing the party, plus, with `email_each`, one to every
    member who gave an address of their own."""
    booker, others = players[0], players[1:]
    own = [p for p in others if p.email] if party is not None and party.email_each else []
    listed = [booker, *(p for p in others if p not in own)]
    mail.queue(booker, EmailLog.Kind.CONFIRMATION, members=listed)
    for player in own:
        mail.queue(player, EmailLog.Kind.CONFIRMATION)


@transaction.atomic
def send_code_again(tournament: Tournament, email: str) -> None:
    """E-mails an already registered address its own code, to that address only; says
    nothing to the person asking, so the form does not tell who is registered."""
    email = email.strip().lower()
    holder = holding_email(tournament).filter(email=email).first() if email else None
    if holder is None or not mail.enabled():
        return
    mail.queue(holder, EmailLog.Kind.CODE_AGAIN)
    audit.record(
        "email.code_again",
        f"{holder.name} ({holder.code}): registration code e-mailed again on request",
        tournament=tournament,
        target=holder,
    )
