"""The signed-in user's hand-written statement builds what the ORM loads: the user, the
profile (or none, without a query), and the right to create tournaments through either path
(the user's own permission or a group's)."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Group, Permission
from django.db import connection
from django.test.utils import CaptureQueriesContext

from tests.support.factories import OrganiserFactory, UserFactory
from tournaments.foundation.signed_in import signed_in_user
from tournaments.models import UserProfile

pytestmark = pytest.mark.django_db


def values(instance) -> dict:
    return {
        f.attname: (type(getattr(instance, f.attname)), getattr(instance, f.attname))
        for f in type(instance)._meta.concrete_fields
    }


def test_the_user_and_profile_are_what_the_orm_loads():
    user = UserFactory(username="with-profile")
    UserProfile.objects.create(user=user, must_change_password=True, created_by=user)
    with CaptureQueriesContext(connection) as queries:
        found = signed_in_user(user.pk)
        assert found.profile.must_change_password is True
    assert len(queries) == 1
    expected = type(user).objects.select_related("profile").get(pk=user.pk)
    assert values(found) == values(expected)
    assert values(found.profile) == values(expected.profile)
    assert found.profile.user is found


def test_no_profile_raises_without_a_query():
    user = UserFactory(username="no-profile")
    found = signed_in_user(user.pk)
    with CaptureQueriesContext(connection) as queries, pytest.raises(UserProfile.DoesNotExist):
        found.profile  # noqa: B018 - the access is the assertion
    assert len(queries) == 0


def test_the_right_to_create_tournaments_comes_from_either_path():
    organiser = OrganiserFactory()
    plain = UserFactory(username="plain")
    in_group = UserFactory(username="in-group")
    other_perm = UserFactory(username="other-perm")
    group = Group.objects.create(name="Organisers")
    group.permissions.add(Permission.objects.get(codename="create_tournament"))
    in_group.groups.add(group)
    other_perm.user_permissions.add(Permission.objects.get(codename="change_tournament"))
    assert signed_in_user(organiser.pk).can_create_tournaments is True
    assert signed_in_user(in_group.pk).can_create_tournaments is True
    assert signed_in_user(plain.pk).can_create_tournaments is False
    assert signed_in_user(other_perm.pk).can_create_tournaments is False


def test_no_such_user_is_none():
    assert signed_in_user(987654) is None
