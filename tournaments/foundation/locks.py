"""The one order in which services take row locks, so two of them never wait on each other.

Two transactions that lock the same rows in different orders can each hold what the other
waits for; PostgreSQL then kills one ("deadlock detected") and the person sees the
database-unavailable page. So every service that locks more than one row takes them in this
order, coarsest first, and never goes back up the list:

0. A write sent with an idempotency key claims its receipt before anything else
   (services/idempotency.py): the insert waits on the key's unique index while another
   request with the same key is writing, before this one holds any lock. Its foreign keys
   lock only what the write's audit entry locks anyway (key-share on the tournament and the
   account); its pod has no database constraint, so the pod row is not locked by it.
1. The tournament row (registration, player edits, the draw, seating the final table, the
   cut's and the prizes' roll-offs, awarding, paying and voiding). Taken first or not at
   all: every audit entry and every row that refers to the tournament takes a key-share
   lock on it, which waits for an awarding that holds it, so locking it after anything else
   deadlocks against that.
   Payments take it with `no_key=True`: they wait for an awarding and for each other, but
   not for audit entries being written.
2. The stage row (round start and close, late arrivals and leavers, roll-offs, the cut).
3. The stage's pod rows, in primary-key order: one pod when a result is saved (locked by the
   UPDATE that counts the change on it, `Pod.own_changes`), every pod of the stage when a
   round starts or closes or a player joins or leaves.
4. The stage's round rows, by number.
5. Single rows last: a player (check-in, score cards), a prize award and then its payouts,
   the final table, a printout, a role. A cash box comes after the player or the award
   whose money goes into it (a fee, a payment), and alone when it is counted and closed.
6. The tournament's change counter (`changes.bump`), last of all and as the transaction's
   last statement, after its audit entry: every write the room sees bumps it, so a
   transaction holding it must not wait for anything else before it commits.

A round's status only changes with every pod of its stage locked (`stage_and_pods`), so a
service holding one pod's lock (saving a result) reads a round status that cannot change
before it commits: a correction either re-seats the next round before it opens, or finds it
open and leaves its seats as they are.
"""

from __future__ import annotations

from tournaments.models import Pod, Stage, Tournament


def tournament_for_money(tournament_id: int) -> None:
    """Locks the tournament for a payment or a void: they wait for an awarding (which holds
    it FOR UPDATE) and for each other, but not for audit entries (FOR NO KEY UPDATE)."""
    Tournament.objects.select_for_update(no_key=True).only("pk").get(pk=tournament_id)


def stage_and_pods(stage_id: int) -> Stage:
    """Locks the stage, then all its pods in primary-key order; returns the fresh stage."""
    locked = (
        Stage.objects.select_for_update(of=("self",)).select_related("tournament").get(pk=stage_id)
    )
    list(Pod.objects.select_for_update().filter(stage_id=stage_id).order_by("pk"))
    return locked
