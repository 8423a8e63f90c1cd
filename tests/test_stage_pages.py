"""The organiser's stage page: draw, pods, late arrivals and leavers, round control."""

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from scoring.services import rounds as round_service
from scoring.services.results import ResultEntry, record_result
from tests.support.factories import (
    PlayerFactory,
    TournamentFactory,
    UserFactory,
    checked_in,
    drawn_stage,
    grant,
)
from tests.support.web import text, url
from tournaments.models import AuditEntry, Draw, Player, Pod, RosterChange, Round, Seat, Stage
from tournaments.permissions import forget_cached_roles
from tournaments.rules.draws import draw_code
from tournaments.services import stages as stage_service
from tournaments.views.stages import PODS_PER_PAGE

pytestmark = pytest.mark.django_db

HTMX = {"HX-Request": "true"}


def draw(client, tournament, **data):
    return client.post(url("stage-draw", tournament), {"confirm": "on", **data}, follow=True)


def stage_of(tournament) -> Stage:
    return Stage.objects.get(tournament=tournament, kind=Stage.Kind.QUALIFYING)


def seats(round_) -> dict[tuple[int, int, int], int]:
    """{(pod, table, seat): player id, or -ghost number}."""
    return {
        (s.pod.number, s.table, s.seat): s.player_id or -s.ghost
        for s in Seat.objects.filter(round=round_).select_related("pod")
    }


def page_pods(content: str) -> list[list[tuple]]:
    """The seating shown on the page as the engine writes pods: None for a ghost."""
    found: dict[int, dict[int, dict[int, int | None]]] = {}
    for pod, table, seat, token in re.findall(
        r'data-seat="(\d+)\.(\d+)\.(\d+)" data-token="(-?\d+)"', content
    ):
        token = int(token)
        found.setdefault(int(pod), {}).setdefault(int(table), {})[int(seat)] = (
            token if token > 0 else None
        )
    return [
        [tuple(tables[t][s] for s in sorted(tables[t])) for t in sorted(tables)]
        for _, tables in sorted(found.items())
    ]


def report_all(round_, actor, pods=None):
    for pod in pods or round_.stage.pods.all():
        for table in range(1, pod.tables + 1):
            record_result(
                round_=round_,
                pod=pod,
                table=table,
                entry=ResultEntry(winner=0),
                actor=actor,
                base_version=0,
            )


@pytest.fixture
def org(organiser, client_for):
    return client_for(organiser)


@pytest.fixture
def drawn(tournament, organiser):
    """22 checked-in players: two pods of three tables, one ghost seat in each."""
    checked_in(tournament, 22)
    return stage_service.draw_qualifying(tournament, actor=organiser, seed=20260501)


# Permissions ---------------------------------------------------------------------------


def every_url(tournament):
    return [
        url("stage-control", tournament),
        url("stage-draw", tournament),
        url("stage-rounds", tournament),
        url("stage-replay", tournament),
        url("stage-start", tournament),
        url("stage-close", tournament),
        url("stage-join", tournament),
        url("stage-leave", tournament),
        url("stage-hostess", tournament, 1),
        url("stage-staff", tournament, 1),
    ]


@pytest.mark.parametrize("role", ["staff", "admin"])
def test_staff_and_admin_get_403_on_every_url(tournament, drawn, role, client_for, request):
    user = request.getfixturevalue(f"{role}_user")
    client = client_for(user)
    before = (AuditEntry.objects.count(), Round.objects.filter(status="open").count())
    player = drawn.pods.get(number=1).hostess
    for address in every_url(tournament):
        assert client.get(address).status_code == 403, address
        assert client.get(address, headers=HTMX).status_code == 403, address
        response = client.post(address, {"player": player.pk, "confirm": "on", "round": 1})
        assert response.status_code == 403, address
    assert (AuditEntry.objects.count(), Round.objects.filter(status="open").count()) == before


def test_anonymous_is_sent_to_login(tournament, drawn, client):
    for address in every_url(tournament):
        for response in (client.get(address), client.post(address, {"confirm": "on"})):
            assert response.status_code == 302, address
            assert response["Location"].startswith(reverse("login")), address
    # An expired session polling the round card reloads the whole page at the login form.
    response = client.get(url("stage-rounds", tournament), headers=HTMX)
    assert response["HX-Redirect"].startswith(reverse("login"))
    assert Round.objects.filter(status="open").count() == 0


def test_organiser_of_another_tournament_is_refused(tournament, drawn, client_for):
    other = UserFactory()
    grant(TournamentFactory(), other, "organiser")
    client = client_for(other)
    assert client.get(url("stage-control", tournament)).status_code == 403
    assert client.post(url("stage-start", tournament)).status_code == 403


def test_no_get_changes_anything(tournament, drawn, org):
    for name in ("stage-start", "stage-close", "stage-join", "stage-leave"):
        assert org.get(url(name, tournament)).status_code == 405
    # The draw's confirmation page, opened again from the address bar: the stage page.
    response = org.get(url("stage-draw", tournament))
    assert response.status_code == 302 and response.url == url("stage-control", tournament)
    assert org.get(url("stage-hostess", tournament, 1)).status_code == 405
    assert org.get(url("stage-staff", tournament, 1)).status_code == 405
    assert not Round.objects.filter(status="open").exists()


def test_links_to_the_stage_page(tournament, org, staff_user, client_for):
    address = url("stage-control", tournament)
    assert address in text(org.get(url("tournament-dashboard", tournament)))
    assert address not in text(client_for(staff_user).get(url("tournament-dashboard", tournament)))


# The draw ----------------------------------------------------------------------------


def test_page_before_the_draw_shows_the_pod_plan(tournament, org):
    checked_in(tournament, 50)
    PlayerFactory.create_batch(3, tournament=tournament)  # registered, not here
    page = text(org.get(url("stage-control", tournament)))
    assert re.search(r'id="checked-in">50<', page)
    assert "50 players → 5 pods, 13 tables, 2 ghost seats" in page
    assert "Pods 1–3, each: 3 tables, 12 players" in page
    assert "Pods 4–5, each: 2 tables, 7 players, a ghost at table 2" in page
    # Nothing to type a seed into: the draw code comes from the sealed secret, whose
    # fingerprint is shown before anyone is drawn.
    assert 'name="spread_groups"' in page and 'name="seed"' not in page
    assert tournament.draw_fingerprint in page and tournament.draw_secret not in page


def test_page_with_nobody_checked_in_offers_no_draw(tournament, org):
    PlayerFactory.create_batch(3, tournament=tournament)
    page = text(org.get(url("stage-control", tournament)))
    assert "Nobody is checked in" in page
    assert url("stage-draw", tournament) not in page


def test_one_checked_in_player_is_not_offered_a_draw_nor_drawn(tournament, org):
    """A reviewer was offered the draw with one player at the desk: it would have seated
    them against a team of two ghosts nobody can roll for."""
    checked_in(tournament, 1)
    page = text(org.get(url("stage-control", tournament)))
    assert "Only 1 player to draw: a draw needs at least 2" in page
    assert url("checkin-desk", tournament) in page
    assert url("stage-draw", tournament) not in page
    for data in ({"spread_groups": "on"}, {"spread_groups": "on", "confirm": "on"}):
        answer = text(org.post(url("stage-draw", tournament), data, follow=True))
        assert "Only 1 player to draw" in answer and "Close check-in and draw" not in answer
    assert not Stage.objects.exists()
    tournament.refresh_from_db()
    assert tournament.check_in_open


def test_draw_asks_for_confirmation_first(tournament, org):
    checked_in(tournament, 13)
    response = org.post(url("stage-draw", tournament), {"seed": "77", "spread_groups": "on"})
    assert response.status_code == 200
    page = text(response)
    assert "Close check-in and draw" in page
    assert "13 checked-in players → 2 pods" in page
    assert 'name="confirm" value="on"' in page
    assert 'name="seed"' not in page  # a typed seed is not carried into the draw
    assert not Stage.objects.exists()
    tournament.refresh_from_db()
    assert tournament.check_in_open


def confirm_page(org, tournament, players: int) -> str:
    """The draw's confirm page for this many checked-in players (nothing drawn yet)."""
    checked_in(tournament, players)
    return text(org.post(url("stage-draw", tournament), {"spread_groups": "on"}))


def test_the_confirm_page_shows_the_pods_and_ghosts_before_drawing(tournament, org):
    """complete-rules-with-examples.txt: "Arrange four players at each table."; 40 players are
    10 full tables (the even split made 12 tables with 8 ghosts), and the organiser sees
    that before anything is drawn."""
    page = confirm_page(org, tournament, 40)
    assert "40 checked-in players → 4 pods, 10 tables, 0 ghost seats" in page
    assert "Pods 1–2, each: 3 tables, 12 players" in page
    assert "Pods 3–4, each: 2 tables, 8 players" in page
    assert "No ghost seats: every table has four players." in page
    assert not Stage.objects.exists()


def test_the_confirm_page_says_where_the_ghosts_sit_and_the_draw_keeps_it(
    tournament, organiser, org
):
    """mingle-event-pods-of-12.txt: a ghost is the "Name given to replace a missing person":
    31 players leave one seat over, and the page says which."""
    page = confirm_page(org, tournament, 31)
    assert "31 checked-in players → 3 pods, 8 tables, 1 ghost seat" in page
    assert "Pods 1–2, each: 3 tables, 12 players</li>" in page
    assert "Pod 3: 2 tables, 7 players, a ghost at table 2" in page
    assert "1 ghost seat, only because 31 players do not fill whole tables of four" in page
    stage = stage_service.draw_qualifying(tournament, actor=organiser)
    ghosts = Seat.objects.filter(round__stage=stage, round__number=1, player=None)
    assert [(s.pod.number, s.table) for s in ghosts] == [(3, 2)]


def test_draw_through_the_page(tournament, org):
    here = checked_in(tournament, 30)
    late = PlayerFactory(tournament=tournament)  # registered but not checked in
    gone = PlayerFactory(
        tournament=tournament, checked_in_at=timezone.now(), status=Player.Status.WITHDRAWN
    )
    response = draw(org, tournament, spread_groups="on")
    page = text(response)
    stage = stage_of(tournament)
    assert "Drawn: 30 players in 3 pods, 2 ghost seats" in page

    drawn_ids = {s.player_id for s in Seat.objects.filter(round__stage=stage, player__isnull=False)}
    assert drawn_ids == {p.pk for p in here}
    assert late.pk not in drawn_ids and gone.pk not in drawn_ids
    assert stage.pods.count() == 3
    tournament.refresh_from_db()
    assert not tournament.check_in_open

    # The draw code on the page is the stored one, and it replays the pods shown on the page.
    page = text(org.get(url("stage-control", tournament)))
    assert int(re.search(r'id="stage-seed">(\d+)<', page).group(1)) == stage.seed
    assert stage.seed == draw_code(tournament.draw_secret, "pods:qualifying#1")
    assert "Draw code" in page and tournament.draw_secret not in page
    assert "Derived from the event's sealed draw secret; nobody chose it." in page
    assert "Nobody, the organiser included, can choose an outcome." in page
    assert stage_service.replay_matches(stage)
    pods, hostesses = stage_service.draw_with(stage.seed, stage.draw_input)
    assert page_pods(page) == pods
    assert [p.hostess_id for p in stage.pods.order_by("number")] == hostesses
    # The rules snapshot and status.
    assert stage.rules["label"] in page
    assert "1, 2, 3, 4, 5, 6" in page
    assert "Progressive" in page or "Losers walk" in page or "Winners up" in page
    assert "Pods drawn" in page

    replay = org.get(url("stage-replay", tournament), headers=HTMX)
    assert "give the same pods" in text(replay)


@pytest.mark.parametrize("typed", ["123456789", "twelve", ""])
def test_a_typed_seed_never_becomes_the_draw_code(tournament, org, typed):
    checked_in(tournament, 12, group_name="Dice Divas")
    page = text(draw(org, tournament, seed=typed))  # groups not spread: checkbox left off
    stage = stage_of(tournament)
    code = draw_code(tournament.draw_secret, "pods:qualifying#1")
    assert stage.seed == code != 123456789
    assert f"draw code {code}" in page
    assert stage.draw_input["groups"] == {}
    assert stage_service.replay_matches(stage)
    (listed,) = Draw.objects.filter(tournament=tournament)
    assert (listed.label, listed.seed, listed.source) == ("pods:qualifying#1", code, "secret")


def test_second_draw_is_refused(tournament, org):
    checked_in(tournament, 16)
    draw(org, tournament, seed="4")
    page = text(draw(org, tournament, seed="5"))
    assert "The qualifying pods are already drawn." in page
    assert Stage.objects.count() == 1
    assert stage_of(tournament).seed == draw_code(tournament.draw_secret, "pods:qualifying#1")
    assert AuditEntry.objects.filter(action="stage.drawn").count() == 1
    assert Draw.objects.filter(tournament=tournament).count() == 1


def saved_rows(tournament) -> tuple:
    return (
        Stage.objects.count(),
        Draw.objects.count(),
        AuditEntry.objects.count(),
        Seat.objects.count(),
        Stage.objects.get(tournament=tournament).seed,
    )


def test_replay_with_a_typed_code_compares_and_writes_nothing(tournament, drawn, org):
    before = saved_rows(tournament)
    replay = url("stage-replay", tournament)
    page = text(org.get(replay, {"code": str(drawn.seed)}, follow=True))
    assert f"Replay check: draw code {drawn.seed} gives the same pods." in page
    page = text(org.get(replay, {"code": str(drawn.seed + 1)}, follow=True))
    assert f"Replay check: draw code {drawn.seed + 1} gives different pods." in page
    page = text(org.get(replay, {"code": "twelve"}, follow=True))
    assert "Draw code: Enter a whole number." in page
    assert saved_rows(tournament) == before
    # Only a GET: the replay check cannot be posted to.
    assert org.post(replay, {"code": "5"}).status_code == 405
    assert saved_rows(tournament) == before


# Pods: hostess and staff ---------------------------------------------------------------


def test_hostess_change_is_saved(tournament, drawn, org):
    pod = drawn.pods.get(number=1)
    other = next(
        s.player
        for s in Seat.objects.filter(pod=pod, player__isnull=False)
        .exclude(player_id=pod.hostess_id)
        .select_related("player")
    )
    page = text(org.post(url("stage-hostess", tournament, 1), {"player": other.pk}, follow=True))
    assert f"{other.name} is the hostess of Pod 1." in page
    pod.refresh_from_db()
    assert pod.hostess == other and not pod.hostess_drawn
    assert "picked by hand" in page


def test_hostess_from_another_pod_is_refused(tournament, drawn, org):
    pod = drawn.pods.get(number=1)
    drawn_hostess = pod.hostess_id
    stranger = Seat.objects.filter(pod__number=2, pod__stage=drawn, player__isnull=False)[0].player
    page = text(org.post(url("stage-hostess", tournament, 1), {"player": stranger.pk}, follow=True))
    assert f"{stranger.name} does not play in Pod 1." in page
    pod.refresh_from_db()
    assert pod.hostess_id == drawn_hostess and pod.hostess_drawn


def test_staff_assignment_is_saved(tournament, drawn, org, staff_user):
    second = UserFactory(username="second")
    grant(tournament, second, "staff")
    org.post(url("stage-staff", tournament, 1), {"staff": [staff_user.pk, second.pk]})
    page = text(
        org.post(url("stage-staff", tournament, 2), {"staff": [staff_user.pk]}, follow=True)
    )
    assert "Pod 2: staff staffer." in page
    assert set(drawn.pods.get(number=1).staff.all()) == {staff_user, second}
    assert list(drawn.pods.get(number=2).staff.all()) == [staff_user]
    assert re.search(rf'id="pod-2-staff-{staff_user.pk}"[^>]* checked', page)
    assert not re.search(rf'id="pod-2-staff-{second.pk}"[^>]* checked', page)

    page = text(org.post(url("stage-staff", tournament, 1), {}, follow=True))
    assert "Pod 1 has no staff now." in page
    assert not drawn.pods.get(number=1).staff.exists()


def test_only_staff_accounts_can_be_assigned(tournament, drawn, org, admin_user):
    page = text(
        org.post(url("stage-staff", tournament, 1), {"staff": [admin_user.pk]}, follow=True)
    )
    assert "not one of the available choices" in page
    assert not drawn.pods.get(number=1).staff.exists()


@pytest.mark.parametrize("pk", [2**63, 2**70, -(2**64)])
def test_an_id_too_large_for_the_database_is_an_unknown_choice(tournament, drawn, org, pk):
    """The bad-input fuzzer posted such an id: on SQLite the page answered 500."""
    response = org.post(url("stage-staff", tournament, 1), {"staff": [str(pk)]}, follow=True)
    assert response.status_code == 200
    assert "not one of the available choices" in text(response)
    assert not drawn.pods.get(number=1).staff.exists()


def test_unknown_pod_is_404(tournament, drawn, org):
    assert org.post(url("stage-staff", tournament, 9), {}).status_code == 404


# Late arrivals and leaving players -------------------------------------------------------


def test_late_arrival_takes_a_ghost_seat_without_moving_anyone(tournament, drawn, org):
    late = PlayerFactory(tournament=tournament, name="Laura Late")
    page = text(org.get(url("stage-control", tournament)))
    assert "Changes take effect from <strong>round 1</strong>" in page
    assert f'<option value="{late.pk}">Laura Late ({late.code}) — not checked in' in page

    first = drawn.rounds.get(number=1)
    before = seats(first)
    response = org.post(
        url("stage-join", tournament),
        {"player": late.pk, "pod": drawn.pods.get(number=2).pk},
        follow=True,
    )
    assert "Laura Late takes a ghost seat in Pod 2 from round 1." in text(response)
    after = seats(first)
    changed = {key for key in before if before[key] != after[key]}
    assert len(changed) == 1
    (key,) = changed
    assert key[0] == 2 and before[key] < 0 and after[key] == late.pk
    late.refresh_from_db()
    assert late.checked_in
    assert RosterChange.objects.get(player=late).kind == RosterChange.Kind.JOIN
    assert "took ghost 1's seat" in text(response)


def test_seated_player_cannot_join_again(tournament, drawn, org):
    seated = Seat.objects.filter(round__stage=drawn, player__isnull=False)[0].player
    page = text(org.post(url("stage-join", tournament), {"player": seated.pk}, follow=True))
    assert f"{seated.name} already has a seat in Pod" in page
    assert not RosterChange.objects.exists()


def test_no_ghost_seat_left_is_refused(tournament, organiser, org):
    checked_in(tournament, 12)
    stage_service.draw_qualifying(tournament, actor=organiser)
    late = PlayerFactory(tournament=tournament)
    # The page says so instead of offering a form the service would refuse.
    page = text(org.get(url("stage-control", tournament)))
    assert "No ghost seat is free from round 1: every seat has a player." in page
    assert url("stage-join", tournament) not in page
    page = text(org.post(url("stage-join", tournament), {"player": late.pk}, follow=True))
    assert "There is no ghost seat in any pod for round 1." in page


def test_leaving_player_is_replaced_by_a_ghost(tournament, drawn, org):
    first = drawn.rounds.get(number=1)
    before = seats(first)
    # A player whose partner (seat 1 <-> 3, 2 <-> 4) is not a ghost.
    key = next(
        k
        for k, token in before.items()
        if token > 0 and before[(k[0], k[1], (k[2] + 1) % 4 + 1)] > 0
    )
    leaver = Player.objects.get(pk=before[key])
    page = text(org.get(url("stage-control", tournament)))
    assert f'<option value="{leaver.pk}">{leaver.name} ({leaver.code}) — pod {key[0]}' in page

    page = text(org.post(url("stage-leave", tournament), {"player": leaver.pk}, follow=True))
    assert f"{leaver.name} leaves Pod {key[0]} from round 1; a ghost takes the seat." in page
    after = seats(first)
    assert after[key] < 0
    assert {k for k in before if before[k] != after[k]} == {key}
    # The leaver is now without a seat, so the late-arrival list offers them again.
    assert f'<option value="{leaver.pk}">{leaver.name} ({leaver.code})</option>' in page


def test_the_pod_counts_follow_a_leaver_from_the_round_they_leave(
    tournament, drawn, organiser, org
):
    """Reviewers saw a player leave during round 1 while pod 1 still counted 11 players and
    1 ghost: the counts described round 1. They now count the pod as the changes leave it,
    and say from which round."""
    round_service.start_next_round(drawn, actor=organiser)
    first = drawn.rounds.get(number=1)
    before = seats(first)
    key = next(
        k
        for k, token in before.items()
        if k[0] == 1 and token > 0 and before[(k[0], k[1], (k[2] + 1) % 4 + 1)] > 0
    )
    org.post(url("stage-leave", tournament), {"player": before[key]})
    late = PlayerFactory(tournament=tournament)
    org.post(url("stage-join", tournament), {"player": late.pk, "pod": drawn.pods.get(number=2).pk})
    page = org.get(url("stage-control", tournament)).content.decode()

    def counts(pod):
        row = page.split(f'id="pod-{pod}"')[1].split("</tr>")[0]
        players = re.search(r"data-players>(\d+)(.*?)</td>", row, re.S)
        ghosts = re.search(r"data-ghosts>(\d+)</td>", row)
        return int(players[1]), int(ghosts[1]), "from round 2" in players[2]

    assert counts(1) == (10, 2, True)  # 11 players and a ghost in round 1
    assert counts(2) == (12, 0, True)
    totals = re.sub(r"<[^>]+>", "", page)
    assert "22 players in 2 pods, 2 ghost seats (from round 2, with the changes below)." in totals


def test_leaving_player_without_a_seat_is_refused(tournament, drawn, org):
    stranger = PlayerFactory(tournament=tournament)
    page = text(org.post(url("stage-leave", tournament), {"player": stranger.pk}, follow=True))
    assert f"{stranger.name} has no seat in this stage." in page
    page = text(org.post(url("stage-leave", tournament), {}, follow=True))
    assert "Player: This field is required." in page


def test_changes_after_round_one_starts_apply_from_round_two(tournament, drawn, organiser, org):
    round_service.start_next_round(drawn, actor=organiser)
    page = text(org.get(url("stage-control", tournament)))
    assert "Changes take effect from <strong>round 2</strong>" in page
    late = PlayerFactory(tournament=tournament)
    before = seats(drawn.rounds.get(number=1))
    page = text(org.post(url("stage-join", tournament), {"player": late.pk}, follow=True))
    assert f"{late.name} takes a ghost seat in Pod 1 from round 2." in page
    assert seats(drawn.rounds.get(number=1)) == before
    assert RosterChange.objects.get(player=late).from_round == 2
    # Round 1's seats stay as played, but the lists already count the change.
    assert f'<option value="{late.pk}">{late.name} ({late.code}) — pod 1' in page
    assert f'<option value="{late.pk}">{late.name} ({late.code})</option>' not in page
    assert "From round 2, Pod 1:" in page


# Round control ---------------------------------------------------------------------------


def test_start_and_close_rounds(tournament, drawn, organiser, org):
    page = text(org.get(url("stage-control", tournament)))
    assert "Start round 1 (ring the bell)" in page

    page = text(org.post(url("stage-start", tournament), follow=True))
    assert "Round 1 started: everyone rolls for 1s." in page
    first = drawn.rounds.get(number=1)
    assert first.status == Round.Status.OPEN
    drawn.refresh_from_db()
    assert drawn.status == Stage.Status.PLAYING
    assert "Close round 1" in page and 'id="tables-reported">0/6<' in page

    # A second start is refused while a round is being played.
    page = text(org.post(url("stage-start", tournament), follow=True))
    assert "A round is still being played; close it first." in page

    page = text(org.post(url("stage-close", tournament), {"round": 1}, follow=True))
    assert "Tables still to report: pod 1 (0/3), pod 2 (0/3)." in page
    report_all(first, organiser, pods=[drawn.pods.get(number=1)])
    page = text(org.post(url("stage-close", tournament), {"round": 1}, follow=True))
    assert "Tables still to report: pod 2 (0/3)." in page
    first.refresh_from_db()
    assert first.status == Round.Status.OPEN

    report_all(first, organiser, pods=[drawn.pods.get(number=2)])
    page = text(org.post(url("stage-close", tournament), {"round": 1}, follow=True))
    assert "Round 1 closed." in page
    first.refresh_from_db()
    assert first.status == Round.Status.CLOSED
    assert "Start round 2 (ring the bell)" in page

    # A stale second click on Close names the round it saw.
    page = text(org.post(url("stage-close", tournament), {"round": 1}, follow=True))
    assert "Round 1 is not being played." in page


def test_progress_is_polled(tournament, drawn, organiser, org):
    round_service.start_next_round(drawn, actor=organiser)
    page = text(org.get(url("stage-control", tournament)))
    assert 'hx-trigger="room-changed from:body"' in page
    assert f'hx-get="{url("stage-rounds", tournament)}"' in page

    first = drawn.rounds.get(number=1)
    report_all(first, organiser, pods=[drawn.pods.get(number=2)])
    card = text(org.get(url("stage-rounds", tournament), headers=HTMX))
    assert 'id="round-control"' in card and "<html" not in card
    # Only the pods still playing are named; a finished pod is counted.
    assert re.search(r'id="progress-pod-1"[^>]*>Pod 1: 0/3<', card)
    assert 'id="progress-pod-2"' not in card
    assert 'id="tables-reported">3/6<' in card
    assert 'id="pods-complete">1 of 2 pods complete<' in card

    report_all(first, organiser, pods=[drawn.pods.get(number=1)])
    card = text(org.get(url("stage-rounds", tournament), headers=HTMX))
    assert "Every pod has reported: the round can be closed." in card
    assert 'id="pods-complete">2 of 2 pods complete<' in card

    plain = org.get(url("stage-rounds", tournament))
    assert plain.status_code == 302


def test_a_big_room_names_the_pods_still_playing_only_when_few_are_left(tournament, organiser, org):
    pods = PODS_PER_PAGE + 2
    tournament.capacity = pods * 12
    tournament.save()
    stage = drawn_stage(tournament, organiser, players=pods * 12)
    first = stage.rounds.get(number=1)
    card = text(org.get(url("stage-rounds", tournament), headers=HTMX))
    assert (
        f"{pods} pods still playing: they are named here once {PODS_PER_PAGE} or fewer are left."
        in card
    )
    assert "progress-pod-" not in card

    report_all(first, organiser, pods=list(stage.pods.filter(number__in=[2, 5])))
    card = text(org.get(url("stage-rounds", tournament), headers=HTMX))
    assert f'id="pods-complete">2 of {pods} pods complete<' in card
    named = re.findall(r'id="progress-pod-(\d+)"', card)
    assert named == [str(n) for n in range(1, pods + 1) if n not in (2, 5)]


def test_finished_stage_says_so(organiser, org):
    tournament = TournamentFactory(organiser=organiser, qualifying_sets=1)
    checked_in(tournament, 12)
    stage = stage_service.draw_qualifying(tournament, actor=organiser)
    for _ in range(stage.round_count):
        round_ = round_service.start_next_round(stage, actor=organiser)
        report_all(round_, organiser)
        round_service.close_round(round_, actor=organiser)
    page = text(org.get(url("stage-control", tournament)))
    assert f"The qualifying is finished: all {stage.round_count} rounds are closed." in page
    assert "room-changed" not in page
    assert "Start round" not in page
    assert "Every round of this stage has started" in page
    page = text(org.post(url("stage-start", tournament), follow=True))
    assert "Every round of this stage has been played." in page


# Queries -----------------------------------------------------------------------------------


def event(organiser, players: int) -> tuple:
    """A drawn event with round 1 open and one pod reported, staff on every pod."""
    tournament = TournamentFactory(organiser=organiser)
    forget_cached_roles(organiser)  # roles are cached on the user object per request
    checked_in(tournament, players)
    PlayerFactory.create_batch(3, tournament=tournament)  # not here (late arrivals)
    staff = [UserFactory() for _ in range(3)]
    for user in staff:
        grant(tournament, user, "staff")
    stage = stage_service.draw_qualifying(tournament, actor=organiser)
    leaver = Seat.objects.filter(round__stage=stage, pod__number=1, table=1, seat=1).get().player
    stage_service.player_leaves(stage, leaver, actor=organiser)
    for pod in stage.pods.all():
        stage_service.assign_staff(pod, staff[: pod.number % 3 + 1], actor=organiser)
    round_ = round_service.start_next_round(stage, actor=organiser)
    report_all(round_, organiser, pods=[stage.pods.get(number=1)])
    return tournament, stage


def page_queries(client, tournament) -> tuple[int, int]:
    with CaptureQueriesContext(connection) as page:
        assert client.get(url("stage-control", tournament)).status_code == 200
    with CaptureQueriesContext(connection) as card:
        assert client.get(url("stage-rounds", tournament), headers=HTMX).status_code == 200
    return len(page), len(card)


@pytest.mark.parametrize("players", [24, 240])
def test_page_queries_are_bounded(organiser, org, players, django_assert_max_num_queries):
    tournament, stage = event(organiser, players)
    assert stage.pods.count() == players // 12
    with django_assert_max_num_queries(22):
        page = text(org.get(url("stage-control", tournament)))
    # A page of PODS_PER_PAGE pods at a time; the last page holds the rest.
    first = stage.pods.filter(number__lte=PODS_PER_PAGE)
    assert page.count('data-token="') == 4 * sum(p.tables for p in first)
    last = -(-stage.pods.count() // PODS_PER_PAGE)
    with django_assert_max_num_queries(22):
        page = text(org.get(url("stage-control", tournament) + f"?page={last}"))
    rest = stage.pods.filter(number__gt=(last - 1) * PODS_PER_PAGE)
    assert page.count('data-token="') == 4 * sum(p.tables for p in rest)
    with django_assert_max_num_queries(10):
        org.get(url("stage-rounds", tournament), headers=HTMX)


def test_page_queries_do_not_grow_with_the_event(organiser, org):
    small = page_queries(org, event(organiser, 24)[0])
    large = page_queries(org, event(organiser, 240)[0])
    assert small == large


def test_page_queries_before_the_draw_are_constant(organiser, org):
    counts_ = []
    for players in (24, 240):
        tournament = TournamentFactory(organiser=organiser)
        checked_in(tournament, players)
        with CaptureQueriesContext(connection) as ctx:
            org.get(url("stage-control", tournament))
        counts_.append(len(ctx))
    assert counts_[0] == counts_[1]


def test_pod_table_lists_players_ghosts_and_hostess(tournament, drawn, org):
    page = text(org.get(url("stage-control", tournament)))
    for pod in Pod.objects.filter(stage=drawn).select_related("hostess"):
        row = re.search(rf'<tr id="pod-{pod.number}">(.*?)</tr>', page, re.S).group(1)
        assert re.search(r"data-players>11<", row) and re.search(r"data-ghosts>1<", row)
        assert f'<option value="{pod.hostess_id}" selected>' in row
        assert "drawn" in row


def test_a_practice_draw_code_is_not_said_to_come_from_the_secret(tournament, drawn, org):
    """The demo and a rehearsal draw with the simulator's code: the page says so, as the
    public draw list does, instead of "nobody chose it"."""
    page = text(org.get(url("stage-control", tournament)))
    assert "nobody chose it" not in page
    assert (
        "Not derived from the sealed draw secret: set by a practice run, so it replays the "
        "simulator." in page
    )
    assert "This is a practice run" in page and "Nobody, the organiser included" not in page
