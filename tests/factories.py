import datetime

import factory
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission

from tournaments.models import Player, RulePreset, Tournament, TournamentRole

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


class TournamentFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Tournament
        skip_postgeneration_save = True

    name = factory.Sequence(lambda n: f"Pink Bunco Night {n}")
    slug = factory.Sequence(lambda n: f"pink-bunco-night-{n}")
    charity = "Breast Cancer Research"
    date = factory.LazyFunction(lambda: datetime.date.today() + datetime.timedelta(days=30))
    venue = "Grand Ballroom"
    capacity = 120
    qualifying_sets = 3
    registration_open = True
    check_in_open = True
    preset = factory.LazyFunction(lambda: RulePreset.objects.get(slug="classic"))

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
