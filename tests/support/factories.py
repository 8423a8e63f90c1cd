"""Factories: one row (or one small, valid piece of an event) per call, with sensible
defaults. Pieces a service owns (a drawn stage, a round, a table result, a card version) are
made through that service, so they are as valid as the real thing."""

import datetime

import factory
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.utils import timezone

from scoring.models import TableResult
from scoring.services import cards as card_service
from scoring.services.results import ResultEntry, record_result
from scoring.services.rounds import start_next_round
from tournaments.models import (
    ChangeCounter,
    Player,
    PrizeAward,
    PrizeCategory,
    RulePreset,
    Seat,
    Tournament,
    TournamentRole,
    UserProfile,
)
from tournaments.services.stages import draw_qualifying

PASSWORD = "dice-and-bells-2026"


class UserFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = get_user_model()
        django_get_or_create = ("username",)
        skip_postgeneration_save = True

    username = factory.Sequence(lambda n: f"user{n}")
    password = factory.PostGenerationMethodCall("set_password", PASSWORD)

    @factory.post_generation
    def _save(obj, create, extracted, **kwargs):
        if create:
            obj.save()


class OrganiserFactory(UserFactory):
    username = factory.Sequence(lambda n: f"organiser{n}")

    @factory.post_generation
    def _organiser(obj, create, extracted, **kwargs):
        if create:
            obj.user_permissions.add(Permission.objects.get(codename="create_tournament"))


def grant(tournament, user, role):
    return TournamentRole.objects.get_or_create(tournament=tournament, user=user, role=role)[0]


def member(tournament, role, username):
    """A new account (password PASSWORD) holding `role` in the tournament."""
    user = UserFactory(username=username)
    grant(tournament, user, role)
    return user


class StaffFactory(UserFactory):
    """An account with a role in a tournament and the profile every account the site makes
    has: `StaffFactory(tournament=t)` for staff, `StaffFactory(tournament=t,
    tournament__role="admin")` for another role."""

    username = factory.Sequence(lambda n: f"staff{n}")

    @factory.post_generation
    def tournament(obj, create, extracted, role="staff", **kwargs):
        if create:
            UserProfile.objects.get_or_create(user=obj)
            if extracted is not None:
                grant(extracted, obj, role)


class TournamentFactory(factory.django.DjangoModelFactory):
    """A tournament open for registration and check-in; `preset_slug` picks its rules."""

    class Meta:
        model = Tournament
        skip_postgeneration_save = True

    class Params:
        preset_slug = "classic"

    name = factory.Sequence(lambda n: f"Pink Bunco Night {n}")
    slug = factory.Sequence(lambda n: f"pink-bunco-night-{n}")
    charity = "Breast Cancer Research"
    date = factory.LazyFunction(lambda: datetime.date.today() + datetime.timedelta(days=30))
    venue = "Grand Ballroom"
    capacity = 120
    qualifying_sets = 3
    registration_open = True
    check_in_open = True
    preset = factory.LazyAttribute(lambda o: RulePreset.objects.get(slug=o.preset_slug))

    @factory.post_generation
    def change_counter(obj, create, extracted, **kwargs):
        # As create_tournament makes it: a write then bumps it with one update.
        if create:
            ChangeCounter.objects.create(tournament=obj)

    @factory.post_generation
    def organiser(obj, create, extracted, **kwargs):
        if create and extracted is not None:
            grant(obj, extracted, "organiser")


class PlayerFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Player

    tournament = factory.SubFactory(TournamentFactory)
    name = factory.Faker("name")
    email = factory.Sequence(lambda n: f"player{n}@example.org")


class PrizeCategoryFactory(factory.django.DjangoModelFactory):
    """A prize category paying `amounts_cents` by place; the label follows the key."""

    class Meta:
        model = PrizeCategory

    tournament = factory.SubFactory(TournamentFactory)
    key = factory.Sequence(lambda n: f"prize-{n}")
    label = factory.LazyAttribute(lambda o: o.key.replace("_", " ").capitalize())
    measure = "most_buncos"
    scope = "overall"
    amounts_cents = factory.LazyFunction(lambda: [1000])
    tie_policy = "split"
    priority = 0


class PrizeAwardFactory(factory.django.DjangoModelFactory):
    """A prize share stored as the awarding service stores it, without playing an event."""

    class Meta:
        model = PrizeAward

    tournament = factory.SelfAttribute("category.tournament")
    category = factory.SubFactory(PrizeCategoryFactory)
    scope_group = "overall"
    place = 1
    player = factory.SubFactory(PlayerFactory, tournament=factory.SelfAttribute("..tournament"))
    amount_cents = 5000


def checked_in(tournament, n, **kwargs):
    return PlayerFactory.create_batch(
        n, tournament=tournament, checked_in_at=timezone.now(), **kwargs
    )


def drawn_stage(tournament, organiser, players=12, *, staff=None, start=True, seed=1, names=()):
    """A qualifying stage: checked-in players drawn and seated in pods (each pod a table of
    four per seat), `staff` assigned to pod 1, and round 1 started unless `start` is false:
    the stage, pod and round factories in one, as the draw and round services make them."""
    for name in names:
        PlayerFactory(tournament=tournament, name=name, checked_in_at=timezone.now())
    checked_in(tournament, players - len(names))
    stage = draw_qualifying(tournament, actor=organiser, seed=seed)
    if staff is not None:
        stage.pods.get(number=1).staff.add(staff)
    if start:
        start_next_round(stage, actor=organiser)
    return stage


def table_result(pod, round_, actor, *, table=1, winner=1, base_version=0, **entry):
    """One table's result, recorded as staff tapping would (`winner` is the winning pair)."""
    return record_result(
        round_=round_,
        pod=pod,
        table=table,
        entry=ResultEntry(winner=winner, **entry),
        actor=actor,
        base_version=base_version,
    )


def flip_table_of(stage, player, actor, *, round_number=1):
    """Corrects the table `player` sat at in round `round_number`: the other pair won."""
    seat = Seat.objects.get(round__stage=stage, round__number=round_number, player=player)
    result = TableResult.objects.get(
        round=seat.round, pod=seat.pod, table=seat.table, is_current=True
    )
    return table_result(
        seat.pod,
        seat.round,
        actor,
        table=seat.table,
        winner=1 - result.winner,
        base_version=result.version,
        reason="Wrong pair ticked",
    )


def record_pod(pod, round_, actor, winners):
    """Records every table of a pod with just the winning pairs, as staff tapping would."""
    for table, winner in enumerate(winners, start=1):
        table_result(pod, round_, actor, table=table, winner=winner)


def card_version(stage, player_pk, actor, change=lambda card: card):
    """A new version of a player's card: the current one, passed through `change`."""
    cards = card_service.load_stage(stage)
    current = cards.versions[player_pk][-1]
    return card_service.enter_card(
        stage,
        cards.players[player_pk],
        change(card_service.card_of(current)),
        actor=actor,
        base_version=current.version,
    )
