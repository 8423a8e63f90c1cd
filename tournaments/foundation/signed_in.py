"""The signed-in user of a request, read in one hand-written statement.

Every signed-in request reads its user, the user's profile (the password-change middleware
asks whether the one-time password is still in use) and whether they may create tournaments
(the menu asks on every page). As a queryset that was one query but a costly one to compile
(a reverse one-to-one and an Exists over two permission paths), paid on every request of a
staff phone; `rows.Columns` reads the same instances the ORM would build.
tests/test_signed_in.py compares them.
"""

from __future__ import annotations

from functools import cache

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group, Permission
from django.contrib.contenttypes.models import ContentType
from django.db import connection

from tournaments.models import UserProfile

from .rows import Columns, read_row

# The permission the menu's "New tournament" link needs (tournaments.create_tournament).
CREATE = ("tournaments", "create_tournament")


@cache
def _statement(vendor: str) -> str:
    q = connection.ops.quote_name
    user_model = get_user_model()
    direct = user_model.user_permissions.through._meta
    in_group = user_model.groups.through._meta
    group_perms = Group.permissions.through._meta

    def col(meta, name: str) -> str:
        return q(meta.get_field(name).column)

    user, profile = _columns()
    may_create = (
        f"EXISTS (SELECT 1 FROM {q(Permission._meta.db_table)} pm "
        f"JOIN {q(ContentType._meta.db_table)} ct ON ct.{q('id')} = pm.{q('content_type_id')} "
        f"WHERE ct.{q('app_label')} = %s AND pm.{q('codename')} = %s AND ("
        f"pm.{q('id')} IN (SELECT d.{col(direct, 'permission')} FROM {q(direct.db_table)} d "
        f"WHERE d.{col(direct, 'user')} = u.{q('id')}) OR "
        f"pm.{q('id')} IN (SELECT gp.{col(group_perms, 'permission')} "
        f"FROM {q(group_perms.db_table)} gp JOIN {q(in_group.db_table)} ug "
        f"ON ug.{col(in_group, 'group')} = gp.{col(group_perms, 'group')} "
        f"WHERE ug.{col(in_group, 'user')} = u.{q('id')})))"
    )
    return (
        f"SELECT {user.select()}, {profile.select()}, {may_create} "
        f"FROM {user.table} u LEFT JOIN {profile.table} up "
        f"ON up.{q(UserProfile._meta.get_field('user').column)} = u.{q('id')} "
        f"WHERE u.{q('id')} = %s"
    )


@cache
def _columns() -> tuple[Columns, Columns]:
    return Columns(get_user_model(), "u"), Columns(UserProfile, "up")


def signed_in_user(user_id):
    """The user with `profile` read (raising DoesNotExist without a query when there is none)
    and `can_create_tournaments` set; None when no such user exists."""
    found = read_row(_columns(), _statement(connection.vendor), [*CREATE, user_id])
    if found is None:
        return None
    (user, profile), (may_create,) = found
    if profile is None:
        UserProfile.user.field.remote_field.set_cached_value(user, None)
    else:
        profile.user = user  # also fills `user.profile`
    user.can_create_tournaments = bool(may_create)
    return user
