"""The pod a staff URL names, with everything its page and its permission check read, in one
hand-written statement.

Staff open these pages all evening, once or twice a save. Pods are numbered within a stage,
so a pod URL means the latest stage's pod unless `?stage=<kind>` names an earlier stage
(correcting a qualifying result after the semi-final was drawn). The ORM spelled this as one
queryset (select_related, three role Exists, the latest-stage subquery, the staff Exists and
the round joined by number); compiling it cost more CPU than any other step of a save, so the
statement is written once here (`tournaments/foundation/rows.py` keeps its columns and values
the ORM's). tests/test_pod_lookup.py compares what it builds with what querysets load.
"""

from __future__ import annotations

from functools import cache

from django.db import connection

from tournaments.foundation.rows import Columns, fits, read_row
from tournaments.models import (
    ChangeCounter,
    Player,
    Pod,
    Role,
    Round,
    RulePreset,
    Stage,
    Tournament,
    TournamentRole,
)

POD = Columns(Pod, "p")
# What the draw used (every player of the room) is read only by the draw pages.
STAGE = Columns(Stage, "s", defer=("draw_input",))
TOURNAMENT = Columns(Tournament, "t")
PRESET = Columns(RulePreset, "rp")
COUNTER = Columns(ChangeCounter, "cc")
HOSTESS = Columns(Player, "h")
ROUND = Columns(Round, "r")
READ = (POD, STAGE, TOURNAMENT, PRESET, COUNTER, HOSTESS, ROUND)
ROLES = tuple(Role.values)


@cache
def _statement(by_kind: bool, vendor: str) -> str:
    """The SELECT, built once per shape (a named stage kind, or the latest stage) and
    database vendor; every value it compares is a parameter."""
    q = connection.ops.quote_name
    roles = TournamentRole._meta.db_table
    staff = Pod.staff.through._meta.db_table
    latest = (
        f"(SELECT l.{q('id')} FROM {STAGE.table} l WHERE l.{q('tournament_id')} = t.{q('id')} "
        f"ORDER BY l.{q('drawn_at')} DESC, l.{q('id')} DESC LIMIT 1)"
    )
    flags = ", ".join(
        f"EXISTS (SELECT 1 FROM {q(roles)} tr WHERE tr.{q('user_id')} = %s"
        f" AND tr.{q('tournament_id')} = t.{q('id')} AND tr.{q('role')} = %s)"
        for _ in ROLES
    )
    which_stage = f"s.{q('kind')} = %s" if by_kind else f"s.{q('id')} = {latest}"
    return (
        f"SELECT {', '.join(group.select() for group in READ)}, {latest}, {flags}, "
        f"EXISTS (SELECT 1 FROM {q(staff)} ps WHERE ps.{q('pod_id')} = p.{q('id')}"
        f" AND ps.{q('user_id')} = %s) "
        f"FROM {POD.table} p "
        f"JOIN {STAGE.table} s ON s.{q('id')} = p.{q('stage_id')} "
        f"JOIN {TOURNAMENT.table} t ON t.{q('id')} = s.{q('tournament_id')} "
        f"JOIN {PRESET.table} rp ON rp.{q('id')} = t.{q('preset_id')} "
        f"LEFT JOIN {COUNTER.table} cc ON cc.{q('tournament_id')} = t.{q('id')} "
        f"LEFT JOIN {HOSTESS.table} h ON h.{q('id')} = p.{q('hostess_id')} "
        f"LEFT JOIN {ROUND.table} r ON r.{q('stage_id')} = s.{q('id')} AND r.{q('number')} = %s "
        f"WHERE t.{q('slug')} = %s AND p.{q('number')} = %s AND {which_stage} "
        f"ORDER BY s.{q('drawn_at')} DESC, s.{q('id')} DESC LIMIT 1"
    )


def pod_for_request(
    user, slug: str, number: int, kind: str | None, round_number: int | None = None
) -> Pod | None:
    """The pod with its stage, tournament, preset, change counter and hostess; the user's
    roles at the tournament as `holds_<role>` (for `remember_roles`); `assigned_to` (the user
    and whether they are on its staff); `latest_stage` (the pk of the tournament's latest
    stage) and `url_round`, the round numbered `round_number` (None when there is none or
    none was asked for). None when the URL names no such pod: the caller then takes the long
    way, which says why (no tournament, no permission, no stage, no pod)."""
    if not fits(Pod, "number", number):
        return None
    if round_number is not None and not fits(Round, "number", round_number):
        round_number = -1  # no round has it
    user_id = user.pk if user.is_authenticated else None
    # `?stage=` names a stage kind; anything else (a typo, a crafted link) means the latest,
    # as `pick_stage` reads it, and never reaches the database.
    by_kind = kind in Stage.Kind.values
    params: list = []
    for role in ROLES:
        params += [user_id, role]
    params += [user_id, round_number, slug, number]
    if by_kind:
        params.append(kind)
    found = read_row(READ, _statement(by_kind, connection.vendor), params)
    if found is None:
        return None
    (pod, stage, tournament, preset, counter, hostess, url_round), extras = found
    latest, *flags, assigned = extras
    tournament.preset = preset
    if counter is not None:
        counter.tournament = tournament  # also fills `tournament.change_counter`
    stage.tournament = tournament
    pod.stage = stage
    pod.hostess = hostess
    pod.latest_stage = latest
    for role, held in zip(ROLES, flags, strict=True):
        setattr(pod, f"holds_{role}", bool(held))
    if user_id is not None:
        pod.assigned_to = (user_id, bool(assigned))
    if url_round is not None:
        url_round.stage = stage
    pod.url_round = url_round
    return pod
