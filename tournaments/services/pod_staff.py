"""Staff for every pod of a stage from one Save on the stage page.

The page sends, per pod, the staff ticked and the staff it showed. A pod whose ticks were
left as shown is not touched, so saving the table never undoes what another organiser
changed in a pod this one did not; a pod changed here that someone else changed since the
page was read is refused, naming the pod, and nothing at all is saved.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db import transaction

from tournaments.foundation import audit
from tournaments.foundation.errors import UserFacingError

from ..models import Pod, Stage


@dataclass(frozen=True)
class PodStaffChoice:
    number: int
    chosen: frozenset[int]  # user ids ticked
    shown: frozenset[int]  # user ids the page showed ticked


@transaction.atomic
def assign_all_staff(stage: Stage, choices: list[PodStaffChoice], *, actor, users) -> list[Pod]:
    """Saves every pod whose ticks changed; `users` maps the allowed ids to accounts.
    Returns the pods saved."""
    unknown = {u for c in choices for u in c.chosen} - set(users)
    if unknown:
        raise UserFacingError("Only staff accounts of this tournament can staff a pod.")
    Stage.objects.select_for_update().get(pk=stage.pk)
    changed = [c for c in choices if c.chosen != c.shown]
    pods = {
        p.number: p
        for p in Pod.objects.select_for_update()
        .filter(stage=stage, number__in=[c.number for c in changed])
        .order_by("pk")
    }
    current: dict[int, set[int]] = {n: set() for n in pods}
    for number, user_id in Pod.staff.through.objects.filter(pod__in=pods.values()).values_list(
        "pod__number", "user_id"
    ):
        current[number].add(user_id)
    missing = [c.number for c in changed if c.number not in pods]
    if missing:
        raise UserFacingError(f"This stage has no pod {missing[0]}.")
    moved = [c.number for c in changed if current[c.number] != set(c.shown)]
    if moved:
        listed = ", ".join(str(n) for n in moved)
        raise UserFacingError(
            f"Someone else changed the staff of pod {listed} since this page was opened. "
            "Nothing was saved: check the table as it is now and save again."
        )
    saved = []
    for choice in changed:
        pod = pods[choice.number]
        chosen = sorted((users[u] for u in choice.chosen), key=lambda u: u.username)
        pod.staff.set(chosen)
        audit.record(
            "pod.staff",
            f"{pod}: staff {', '.join(u.username for u in chosen) or 'none'}",
            actor=actor,
            tournament=stage.tournament,
            target=pod,
            data={"staff": [u.username for u in chosen]},
        )
        saved.append(pod)
    return saved
