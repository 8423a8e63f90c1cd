"""The "Last Bunco" prize of the complete rules (complete-rules-with-examples.txt line 240,
"Last Bunco" among the suggested prize categories): the bunco recorded last, which staff
may correct with a reason."""

from __future__ import annotations

import json
import re

import pytest

from scoring.services.results import ResultEntry, Tally, record_result
from tests.support.events import played_without_prizes, rehearsal_organiser
from tests.support.factories import drawn_stage, member
from tests.support.web import url
from tests.test_prizes_service import category
from tournaments.foundation.errors import UserFacingError
from tournaments.models import AuditEntry, LastBuncoMark, Player, PrizeAward, Seat, Stage
from tournaments.services import prizes, transfer
from tournaments.services.last_bunco import last_bunco, mark_last_bunco

pytestmark = pytest.mark.django_db


def seated(round_, pod, table, seat):
    return Seat.objects.get(round=round_, pod=pod, table=table, seat=seat).player


def save(round_, pod, table, actor, *, buncos, version=0, reason="", winner=0):
    """Saves a table as staff would; `buncos` maps a seat (1 to 4) to its buncos."""
    entry = ResultEntry(
        winner=winner,
        tallies={seat: Tally(buncos=n) for seat, n in buncos.items()},
        reason=reason,
    )
    return record_result(
        round_=round_, pod=pod, table=table, entry=entry, actor=actor, base_version=version
    ).result


@pytest.fixture
def night(tournament, organiser, staff_user):
    stage = drawn_stage(tournament, organiser, staff=staff_user)
    pod = stage.pods.get(number=1)
    return stage, pod, stage.rounds.get(number=1)


def test_the_bunco_recorded_last_wins_not_the_highest_table(night, organiser):
    """Sheet line 240 ("Last Bunco"): the last bunco is the one recorded last. Table 2 is
    typed in first, table 1 later, in the same round: table 1's bunco is the last one."""
    stage, pod, round_ = night
    save(round_, pod, 2, organiser, buncos={1: 1})
    save(round_, pod, 1, organiser, buncos={2: 1})
    result = last_bunco(stage)
    (last,) = result.last
    assert (last.player_id, last.round_number, last.table) == (
        seated(round_, pod, 1, 2).pk,
        1,
        1,
    )
    earlier = seated(round_, pod, 2, 1).pk
    assert result.order() == {earlier: 1, last.player_id: 2}
    assert result.mark is None and not result.stale_mark


def test_a_correction_keeps_the_bunco_s_first_moment_unless_it_added_the_bunco(night, organiser):
    """Sheet line 240 ("Last Bunco"): a corrected result keeps the time its bunco was first
    recorded; only a correction that adds a bunco records a new one."""
    stage, pod, round_ = night
    first = save(round_, pod, 1, organiser, buncos={1: 1})
    save(round_, pod, 2, organiser, buncos={3: 1})
    # Table 1 is corrected (the other pair won): its bunco stays the earlier one.
    save(round_, pod, 1, organiser, buncos={1: 1}, version=1, winner=1, reason="Wrong pair")
    (last,) = last_bunco(stage).last
    assert last.player_id == seated(round_, pod, 2, 3).pk
    at_one = next(b for b in last_bunco(stage).recorded if b.table == 1)
    assert (at_one.recorded_id, at_one.recorded_at) == (first.pk, first.entered_at)
    # A correction that adds a second bunco at table 1 records a new bunco: now the last.
    added = save(round_, pod, 1, organiser, buncos={1: 2}, version=2, reason="Missed one")
    (last,) = last_bunco(stage).last
    assert (last.player_id, last.recorded_id) == (seated(round_, pod, 1, 1).pk, added.pk)
    # Taking one back off again does not move it: the bunco kept was recorded by `added`
    # or earlier, and a player newly credited at table 1 is recorded by the new save.
    save(round_, pod, 1, organiser, buncos={1: 1, 4: 1}, version=3, reason="Seat 4 too")
    moments = {b.player_id: b.recorded_id for b in last_bunco(stage).recorded if b.table == 1}
    newest = stage.rounds.get(number=1).results.get(pod=pod, table=1, is_current=True).pk
    assert moments == {seated(round_, pod, 1, 1).pk: added.pk, seated(round_, pod, 1, 4).pk: newest}


def test_staff_mark_a_different_bunco_with_a_reason_and_the_mark_is_audited(night, organiser):
    """Sheet line 240 ("Last Bunco"): table 1 shouted last but was typed in first. Without a
    reason nothing changes; with one, a mark of its own beside the site's answer."""
    stage, pod, round_ = night
    early = save(round_, pod, 1, organiser, buncos={1: 1})
    save(round_, pod, 2, organiser, buncos={2: 1})
    shouted_last = seated(round_, pod, 1, 1)
    automatic = last_bunco(stage).automatic
    with pytest.raises(UserFacingError, match="Say why this bunco is the last one"):
        mark_last_bunco(stage, result_id=early.pk, player=shouted_last, actor=organiser, reason=" ")
    assert LastBuncoMark.objects.count() == 0
    assert not AuditEntry.objects.filter(action="prizes.last_bunco").exists()
    # A bunco that is not on the results cannot be marked.
    with pytest.raises(UserFacingError, match="not on the current results"):
        mark_last_bunco(
            stage,
            result_id=early.pk,
            player=seated(round_, pod, 1, 2),
            actor=organiser,
            reason="Loudest",
        )
    mark = mark_last_bunco(
        stage, result_id=early.pk, player=shouted_last, actor=organiser, reason="Shouted last"
    )
    result = last_bunco(stage)
    assert result.mark == mark and result.last == (result.marked,)
    assert result.marked.player_id == shouted_last.pk
    assert result.automatic == automatic  # the site's own answer is kept beside the mark
    assert max(result.order(), key=result.order().get) == shouted_last.pk
    entry = AuditEntry.objects.get(action="prizes.last_bunco")
    assert entry.actor == organiser and "Shouted last" in entry.summary
    assert entry.data["player"] == shouted_last.pk
    # A correction that takes the marked bunco off the results: the mark no longer counts.
    save(round_, pod, 1, organiser, buncos={}, version=1, reason="No bunco after all")
    result = last_bunco(stage)
    assert result.stale_mark and result.last == result.automatic
    assert LastBuncoMark.objects.count() == 1  # never deleted


@pytest.fixture
def event(monkeypatch):
    return played_without_prizes(monkeypatch)


def test_the_prize_goes_to_the_marked_player_through_the_award_flow(event):
    """Sheet line 240 ("Last Bunco"): the prize follows staff's mark when there is one."""
    organiser = rehearsal_organiser()
    category(event, "last", "last_bunco", amounts=(1000,))
    stage = event.stages.get(kind=Stage.Kind.QUALIFYING)
    eligible = {t.player for t in prizes.player_totals(event, "qualifying") if t.eligible}
    night = last_bunco(stage)
    (automatic,) = {b.player_id for b in night.automatic}
    (award,) = prizes.award(event, actor=organiser)
    assert award.player_id == automatic
    first = next(b for b in night.recorded if b.player_id in eligible and b.player_id != automatic)
    player = event.players.get(pk=first.player_id)
    mark_last_bunco(
        stage, result_id=first.result_id, player=player, actor=organiser, reason="Shouted last"
    )
    (award,) = prizes.award(event, actor=organiser)
    assert award.player_id == player.pk and award.amount_cents == 1000
    assert (
        PrizeAward.objects.current().get().player == player
    )  # the first award is kept, superseded


def test_the_page_shows_the_last_bunco_and_takes_a_mark_only_with_a_reason(event, client_for):
    """Sheet line 240 ("Last Bunco"): staff with the prize permission see who holds it and
    correct it; a player's staff account without it cannot."""
    category(event, "last", "last_bunco", amounts=(1000,))
    stage = event.stages.get(kind=Stage.Kind.QUALIFYING)
    night = last_bunco(stage)
    (auto,) = night.automatic
    admin = client_for(member(event, "admin", "prize-admin"))
    address = url("prize-last-bunco", event)
    name = event.players.get(pk=auto.player_id).name
    page = " ".join(re.sub(r"<[^>]+>", "", admin.get(address).content.decode()).split())
    assert (
        f"Last bunco of the night: {name}, round {auto.round_number}, pod {auto.pod_number}, "
        f"table {auto.table}, recorded" in page
    )
    winners = admin.get(url("prize-winners", event)).content.decode()
    assert f"Last bunco of the night: {name}, round {auto.round_number}" in winners
    other = night.recorded[0]
    choice = f"{other.result_id}:{other.player_id}"
    response = admin.post(address, {"stage": stage.pk, "qualifying-bunco": choice})
    assert response.status_code == 400
    assert "Say why this bunco is the last one." in response.content.decode()
    assert f'value="{choice}" selected' in response.content.decode()  # the choice is kept
    assert LastBuncoMark.objects.count() == 0
    staff = client_for(member(event, "staff", "pod-staff"))
    posted = {"stage": stage.pk, "qualifying-bunco": choice, "qualifying-reason": "Loudest"}
    assert staff.get(address).status_code == 403
    assert staff.post(address, posted).status_code == 403
    assert LastBuncoMark.objects.count() == 0
    response = admin.post(address, posted)
    assert response.status_code == 302
    mark = LastBuncoMark.objects.get()
    assert (mark.player_id, mark.result_id, mark.reason) == (
        other.player_id,
        other.result_id,
        "Loudest",
    )
    assert last_bunco(stage).last[0].player_id == other.player_id


def test_a_mark_and_the_recording_order_travel_with_an_export(event):
    """Sheet line 240 ("Last Bunco"): a copy of the event names the same last bunco."""
    stage = event.stages.get(kind=Stage.Kind.QUALIFYING)
    first = last_bunco(stage).recorded[0]
    player = event.players.get(pk=first.player_id)
    mark_last_bunco(
        stage, result_id=first.result_id, player=player, actor=None, reason="Shouted last"
    )
    data = json.loads(json.dumps(transfer.export_tournament(event), default=str))
    transfer.import_tournament(data, slug="copy")
    copy = Stage.objects.get(tournament__slug="copy", kind=Stage.Kind.QUALIFYING)

    def described(night):
        names = dict(Player.objects.values_list("pk", "code"))
        return (
            [(names[b.player_id], b.chain, b.recorded_at) for b in night.recorded],
            [(names[b.player_id], b.chain) for b in night.last],
            night.mark.reason,
        )

    assert described(last_bunco(copy)) == described(last_bunco(stage))
