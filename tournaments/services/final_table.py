"""The final table: who is present, the four seats, the order roll and the grand prize throws.

Split from `advancement` (the cut and its qualifiers) because the final is its own stage of
the night with its own dice code: it reads the semi-final only through `plan_stage` and
`standings_of`, and the board and results pages read its order roll and throws from here.
"""

from __future__ import annotations

import random

from django.utils import timezone

from scoring.rules import RuleError
from scoring.rules.final import OrderResult, order_of_play, roll_order, take_turn
from scoring.services.cards import load_stage
from tournaments.foundation import audit, changes
from tournaments.foundation.errors import UserFacingError
from tournaments.foundation.text import count
from tournaments.rules.advancement import (
    final_seats,
)
from tournaments.rules.draws import FINAL_DICE, FINAL_ORDER, FINAL_SEATS
from tournaments.rules.roll_offs import SEMI_GROUP

from ..models import (
    FinalSeat,
    FinalTable,
    FinalThrow,
    Player,
    Qualifier,
    RollOff,
    RosterChange,
    Stage,
    Tournament,
)
from . import draws
from .advancement import advancement_rules, plan_stage, standings_of


def present_participants(tournament: Tournament) -> list[int]:
    """Everyone checked in and still registered, less those who left and did not return."""
    left = set(
        RosterChange.objects.filter(
            pod__stage__tournament=tournament, kind=RosterChange.Kind.LEAVE
        ).values_list("player_id", flat=True)
    )
    back = set(
        RosterChange.objects.filter(
            pod__stage__tournament=tournament, kind=RosterChange.Kind.JOIN
        ).values_list("player_id", flat=True)
    )
    present = tournament.players.playing().values_list("pk", flat=True)
    return sorted(set(present) - (left - back))


def path_of(tournament: Tournament, player: int) -> str:
    """How a finalist got to the semi-final, for the board: "Most wins, pod 3"."""
    q = Qualifier.objects.filter(
        from_stage__tournament=tournament, from_stage__kind=Stage.Kind.QUALIFYING, player=player
    ).first()
    return f"{q.category_label}, {q.group.lower()}" if q else ""


@changes.announces
def seat_final(tournament: Tournament, *, actor) -> FinalTable:
    """The four final seats: semi-final most wins and most buncos, a draw, a wild card."""
    tournament = Tournament.objects.select_for_update().get(pk=tournament.pk)
    if FinalTable.objects.filter(tournament=tournament).exists():
        raise UserFacingError("The final table is already seated.")
    semi = tournament.stages.filter(kind=Stage.Kind.SEMI_FINAL).first()
    if semi is None or semi.status != Stage.Status.FINISHED:
        raise UserFacingError("The semi-final must be played to the end first.")
    (plan,) = plan_stage(semi)
    if plan.result is None:
        raise UserFacingError(
            plan.blocked or f"{plan.pending[0].category_label} needs a roll-off first."
        )
    seed = draws.next_seed(tournament, FINAL_SEATS, actor=actor)
    cards = load_stage(semi)
    standings = standings_of(cards, sorted(cards.pod_of))
    dice = plan.dice
    try:
        table = final_seats(
            standings,
            advancement_rules(tournament, semi=True),
            present_participants(tournament),
            random.Random(seed),
            semi_group_id=SEMI_GROUP,
            dice=dice,
        )
    except RuleError as exc:
        raise UserFacingError(str(exc)) from exc
    final = FinalTable.objects.create(
        tournament=tournament, semi_stage=semi, seed=seed, seated_by=actor
    )
    FinalSeat.objects.bulk_create(
        FinalSeat(
            final=final,
            seat=s.seat,
            player_id=s.player,
            reason=s.reason,
            path=path_of(tournament, s.player),
            pool=list(s.pool),
        )
        for s in table.seats
    )
    audit.record(
        "final.seated",
        f"Final table seated (draw code {seed})",
        actor=actor,
        tournament=tournament,
        target=final,
        data={"seed": seed, "players": table.players},
    )
    changes.bump(tournament.pk)
    return final


def players_by_seat(final: FinalTable) -> list[int]:
    return list(final.seats.order_by("seat").values_list("player_id", flat=True))


def order_roll(final: FinalTable) -> RollOff | None:
    """The newest version of the final's order roll: each re-throw of a tie for the lowest
    die is a new version holding every face so far, and the earlier ones stay."""
    return (
        RollOff.objects.filter(tournament_id=final.tournament_id, subject=FINAL_ORDER)
        .order_by("-version")
        .first()
    )


def order_faces(final: FinalTable) -> list[int]:
    """Every die of the order roll so far, in throw order."""
    record = order_roll(final)
    return list(record.faces) if record is not None else []


def order_state(
    final: FinalTable, players: list[int] | None = None, faces: list[int] | None = None
) -> OrderResult | None:
    """The order roll as the engine reads the stored dice: who throws next, or the order.

    None when the stored dice do not read as an order roll (a final played before the
    order rule was settled): the pages then show the stored order without its dice.
    """
    try:
        return order_of_play(
            players or players_by_seat(final), order_faces(final) if faces is None else faces
        )
    except RuleError:
        return None


@changes.announces
def roll_for_order(final: FinalTable, *, actor, faces: list[int] | None = None) -> FinalTable:
    """Records the next round of the order roll: the dice staff typed, or the site's roll.

    Typed dice are one per player throwing now (every finalist, then only those tied on
    the lowest die); the order is saved once it is decided. The site rolls the whole order
    at once from the "code:order" stream of the final's dice code, so it is refused after
    typed dice: a roll half typed, half drawn could not be checked against the code.
    """
    final = FinalTable.objects.select_for_update().get(pk=final.pk)
    if final.order:
        raise UserFacingError("The order of play is already decided.")
    players = players_by_seat(final)
    previous = order_roll(final)
    so_far = list(previous.faces) if previous is not None else []
    if faces is None:
        if so_far:
            raise UserFacingError(
                "The first dice of the order roll were typed in; type the re-throw too."
            )
        final.dice_seed = draws.next_seed(final.tournament, FINAL_DICE, actor=actor)
        rng = random.Random(f"{final.dice_seed}:order")
        result = roll_order(players, lambda: rng.randint(1, 6))
    else:
        if not faces:
            raise UserFacingError("Enter one die for each finalist throwing.")
        try:
            result = order_of_play(players, [*so_far, *faces])
        except RuleError as exc:
            if not so_far or not all(face in range(1, 7) for face in faces):
                raise UserFacingError(str(exc)) from exc
            # A wrong number of dice: the rule counts every face of the roll, but the
            # organiser typed only the re-throw, so say it in their terms.
            again = len(order_of_play(players, so_far).needed)
            raise UserFacingError(
                f"The first dice are recorded already: now the {again} players tied on the "
                f"lowest die throw again, one die each, but {count(len(faces), 'die', 'dice')} "
                f"{'was' if len(faces) == 1 else 'were'} entered: type one die for each of them."
            ) from exc
    record = RollOff.objects.create(
        tournament_id=final.tournament_id,
        kind=RollOff.Kind.ORDER,
        subject=FINAL_ORDER,
        version=previous.version + 1 if previous is not None else 1,
        group="final",
        key="order",
        category_key="order",
        category_label=RollOff.Kind.ORDER.label,
        players=players,
        faces=result.faces,
        winners=list(result.order),
        rounds=[{str(p): face for p, face in throw.items()} for throw in result.rounds],
        source=RollOff.Source.ENTERED if faces is not None else RollOff.Source.SITE,
        seed=final.dice_seed if faces is None else None,
        recorded_by=actor,
    )
    final.order = list(result.order)
    final.save(update_fields=["order", "dice_seed"])
    names = dict(Player.objects.filter(pk__in=players).values_list("pk", "name"))
    summary = (
        f"Order of play: {' then '.join(names[p] for p in result.order)}"
        if result.decided
        else f"Tie for the lowest die: {', '.join(names[p] for p in result.needed)} throw again"
    )
    audit.record(
        "final.order",
        summary,
        actor=actor,
        tournament=final.tournament,
        target=record,
        data={"faces": result.faces, "seed": final.dice_seed, "version": record.version},
    )
    changes.bump(final.tournament_id)
    return final


@changes.announces
def throw(
    final: FinalTable,
    *,
    actor,
    dice: tuple[int, int, int] | None = None,
    number: int | None = None,
) -> FinalThrow:
    """The next finalist's throw of three dice; three of a kind wins the grand prize.

    `number` is the throw the person meant to record (the page shows it): two phones, or a
    double tap, sending the same throw record it once and the second is told, instead of
    the second becoming the next finalist's throw.
    """
    final = FinalTable.objects.select_for_update().get(pk=final.pk)
    if not final.order:
        raise UserFacingError("Roll for the order of play first.")
    if final.winner_id is not None:
        raise UserFacingError("The grand prize is already won.")
    next_number = final.throws.count() + 1
    if number is not None and number != next_number:
        raise UserFacingError(
            f"Throw {number} is already recorded; the next is throw {next_number}."
            if number < next_number
            else f"The next throw is throw {next_number}; reload the page."
        )
    if dice is None:
        if final.dice_seed is None:
            final.dice_seed = draws.next_seed(final.tournament, FINAL_DICE, actor=actor)
            final.save(update_fields=["dice_seed"])
        rng = random.Random(f"{final.dice_seed}:{next_number}")
        dice = (rng.randint(1, 6), rng.randint(1, 6), rng.randint(1, 6))
    try:
        # A voided throw is thrown again by the same finalist: only the others count.
        counted = final.throws.filter(voided_at__isnull=True).count()
        turn = take_turn(final.order, counted, dice)
    except RuleError as exc:
        raise UserFacingError(str(exc)) from exc
    made = FinalThrow.objects.create(
        final=final,
        number=next_number,
        player_id=turn.player,
        dice=list(turn.dice),
        entered_by=actor,
    )
    if turn.wins:
        final.winner_id = turn.player
        final.finished_at = timezone.now()
        final.save(update_fields=["winner", "finished_at"])
        audit.record(
            "final.won",
            f"Grand prize won with {turn.dice}",
            actor=actor,
            tournament=final.tournament,
            target=final,
            data={"player": turn.player},
        )
    changes.bump(final.tournament_id)
    return made
