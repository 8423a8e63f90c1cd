"""Staff pages for table results: my pods, the pod page and the table result form."""

import html

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from scoring.models import RollCredit, TableResult
from scoring.rules.seating import next_seating
from scoring.services.results import ResultEntry, Tally, record_result
from scoring.services.rounds import close_round, start_next_round
from scoring.services.seating import tables_from_seats
from tests.support.factories import UserFactory, drawn_stage, grant, record_pod
from tournaments.models import Pod, RulePreset, Seat

pytestmark = pytest.mark.django_db


# --- helpers (the other result and seating tests import these) --------------------------------


def round_of(stage, number):
    return stage.rounds.get(number=number)


def table_url(tournament, pod_number, round_number, table):
    return reverse("table-result", args=[tournament.slug, pod_number, round_number, table])


def pod_url(tournament, pod_number):
    return reverse("pod-detail", args=[tournament.slug, pod_number])


def engine_tables(round_, pod):
    """The pod's seating as the engine sees it: player ids, None for ghosts."""
    seats = Seat.objects.filter(round=round_, pod=pod)
    return [
        tuple(None if token < 0 else token for token in table)
        for table in tables_from_seats(seats, pod.tables)
    ]


def result_count():
    return TableResult.objects.count(), RollCredit.objects.count()


@pytest.fixture
def stage(tournament, organiser, staff_user):
    return drawn_stage(tournament, organiser, staff=staff_user)


@pytest.fixture
def pod(stage):
    return stage.pods.get(number=1)


@pytest.fixture
def staff(client_for, staff_user):
    return client_for(staff_user)


# --- permissions ------------------------------------------------------------------------------


def test_staff_not_assigned_to_the_pod_gets_403_on_get_and_post(tournament, organiser, client_for):
    stage = drawn_stage(tournament, organiser, players=24)
    other = UserFactory(username="otherstaff")
    grant(tournament, other, "staff")
    stage.pods.get(number=2).staff.add(other)  # assigned, but to pod 2
    client = client_for(other)
    assert client.get(pod_url(tournament, 1)).status_code == 403
    assert client.get(table_url(tournament, 1, 1, 1)).status_code == 403
    response = client.post(table_url(tournament, 1, 1, 1), {"winner": "0", "base_version": "0"})
    assert response.status_code == 403
    assert result_count() == (0, 0)
    # Their own pod works, and "my pods" lists only it.
    assert client.get(pod_url(tournament, 2)).status_code == 200
    body = client.get(reverse("my-pods", args=[tournament.slug])).content.decode()
    assert pod_url(tournament, 2) in body and pod_url(tournament, 1) not in body


def test_admin_and_anonymous_cannot_enter_results(
    tournament, stage, admin_user, client_for, client
):
    url = table_url(tournament, 1, 1, 1)
    assert client_for(admin_user).get(url).status_code == 403
    assert client_for(admin_user).post(url, {"winner": "0", "base_version": "0"}).status_code == 403
    response = client.post(url, {"winner": "0", "base_version": "0"})
    assert response.status_code == 302 and response.url.startswith(reverse("login"))
    assert result_count() == (0, 0)


def test_my_pods_lists_assigned_pods_with_reported_count(
    tournament, organiser, staff_user, client_for
):
    stage = drawn_stage(tournament, organiser, players=36, staff=staff_user)
    pod = stage.pods.get(number=1)
    record_result(
        round_=round_of(stage, 1),
        pod=pod,
        table=2,
        entry=ResultEntry(winner=1),
        actor=staff_user,
        base_version=0,
    )
    body = client_for(staff_user).get(reverse("my-pods", args=[tournament.slug])).content.decode()
    assert "Pod 1" in body and "1/3 reported" in body
    assert "Pod 2" not in body and "Pod 3" not in body
    everything = client_for(organiser).get(reverse("my-pods", args=[tournament.slug]))
    assert all(f"Pod {n}" in everything.content.decode() for n in (1, 2, 3))


# --- recording --------------------------------------------------------------------------------


def test_assigned_staff_records_a_table_with_one_tap(tournament, stage, pod, staff, staff_user):
    url = table_url(tournament, 1, 1, 2)
    form = staff.get(url)
    assert form.status_code == 200
    seats = {s.seat: s.player for s in Seat.objects.filter(round__number=1, pod=pod, table=2)}
    body = form.content.decode()
    assert f"Seats 1 &amp; 3: {seats[1].name} &amp; {seats[3].name}" in body
    assert f"Seats 2 &amp; 4: {seats[2].name} &amp; {seats[4].name}" in body
    assert 'name="base_version" value="0"' in body

    # The winner buttons are the submit buttons: one tap sends winner + base_version.
    response = staff.post(url, {"winner": "1", "base_version": "0"})
    assert response.status_code == 302 and response.url == pod_url(tournament, 1)
    result = TableResult.objects.get(pod=pod, table=2)
    assert (result.winner, result.version, result.is_current) == (1, 1, True)
    assert result.entered_by == staff_user and result.points_13 is None
    page = staff.get(response.url).content.decode()
    assert "Table 2 saved" in page and "1 of 3 tables reported" in page


def test_points_and_credits_are_saved(tournament, stage, pod, staff):
    seats = {s.seat: s.player for s in Seat.objects.filter(round__number=1, pod=pod, table=1)}
    response = staff.post(
        table_url(tournament, 1, 1, 1),
        {
            "winner": "0",
            "base_version": "0",
            "points_13": "52",
            "points_24": "31",
            "buncos_1": "1",
            "minis_3": "2",
            "buncos_2": "",
        },
    )
    assert response.status_code == 302
    result = TableResult.objects.get(pod=pod, table=1)
    assert (result.points_13, result.points_24) == (52, 31)
    credits = {c.player: (c.buncos, c.minis) for c in result.credits.all()}
    assert credits == {seats[1]: (1, 0), seats[3]: (0, 2)}
    page = staff.get(pod_url(tournament, 1)).content.decode()
    assert f"{seats[1].name}: 1 bunco" in page and f"{seats[3].name}: 2 minis" in page


def test_points_contradicting_the_winner_are_refused_and_kept(tournament, stage, staff):
    response = staff.post(
        table_url(tournament, 1, 1, 1),
        {
            "winner": "0",
            "base_version": "0",
            "points_13": "17",
            "points_24": "43",
            "buncos_2": "2",
            "tie_note": "",
        },
    )
    assert response.status_code == 200
    body = response.content.decode()
    assert "The points (17–43) say seats 2 &amp; 4 won, not the pair you picked" in body
    assert result_count() == (0, 0)
    # What was typed is still there.
    assert 'name="points_13" value="17"' in body and 'name="points_24" value="43"' in body
    assert 'name="buncos_2" value="2"' in body
    assert "your choice" in body  # the tapped winner stays highlighted


def test_points_below_what_the_credited_buncos_score_are_refused_and_kept(tournament, stage, staff):
    """A walk saved 3–2 with two buncos credited to seat 1: 42 points at the least."""
    response = staff.post(
        table_url(tournament, 1, 1, 1),
        {"winner": "0", "base_version": "0", "points_13": "3", "points_24": "2", "buncos_1": "2"},
    )
    assert response.status_code == 200
    body = html.unescape(response.content.decode())
    assert (
        "Seats 1 & 3 have 3 points, but their buncos and mini buncos alone score 42: check the "
        "points or the counts." in body
    )
    assert result_count() == (0, 0)
    assert 'name="points_13" value="3"' in body and 'name="buncos_1" value="2"' in body
    # The same counts with points that cover them are saved.
    response = staff.post(
        table_url(tournament, 1, 1, 1),
        {"winner": "0", "base_version": "0", "points_13": "47", "points_24": "2", "buncos_1": "2"},
    )
    assert response.status_code == 302 and result_count()[0] == 1


def test_a_tie_needs_level_points_and_keeps_its_roll_off_note(tournament, stage, pod, staff):
    url = table_url(tournament, 1, 1, 3)
    response = staff.post(
        url,
        {"winner": "1", "base_version": "0", "tie": "on", "points_13": "30", "points_24": "20"},
    )
    assert "A tie needs level points." in response.content.decode()
    assert result_count() == (0, 0)

    level = staff.post(
        url, {"winner": "0", "base_version": "0", "points_13": "25", "points_24": "25"}
    )
    assert "mark it a tie and give the roll-off winner" in level.content.decode()
    assert result_count() == (0, 0)

    no_points = staff.post(url, {"winner": "0", "base_version": "0", "tie": "on"})
    assert "A tie needs both teams&#x27; points, and they must be level." in (
        no_points.content.decode()
    )
    assert result_count() == (0, 0)

    note_only = staff.post(url, {"winner": "0", "base_version": "0", "tie_note": "6 vs 2"})
    assert "Tick “tie” to record a roll-off" in note_only.content.decode()
    assert result_count() == (0, 0)

    ok = staff.post(
        url,
        {
            "winner": "1",
            "base_version": "0",
            "tie": "on",
            "points_13": "25",
            "points_24": "25",
            "tie_note": " 6  vs 2 ",
        },
    )
    assert ok.status_code == 302
    result = TableResult.objects.get(pod=pod, table=3)
    assert result.tie and result.winner == 1 and result.tie_break == {"note": "6 vs 2"}


def test_a_round_that_is_not_open_is_refused(tournament, stage, staff):
    url = table_url(tournament, 1, 2, 1)  # round 2 has not started
    page = staff.get(url).content.decode()
    assert "Round 2 has not started yet" in page
    assert 'name="winner"' not in page  # no form
    response = staff.post(url, {"winner": "0", "base_version": "0"})
    assert response.status_code == 200
    assert "Round 2 has not started." in response.content.decode()
    assert result_count() == (0, 0)


def test_ghost_seats_cannot_get_credits(tournament, organiser, staff_user, client_for):
    stage = drawn_stage(tournament, organiser, players=11, staff=staff_user)
    pod = stage.pods.get()
    ghost = Seat.objects.get(round__number=1, pod=pod, ghost__isnull=False)
    url = table_url(tournament, 1, 1, ghost.table)
    client = client_for(staff_user)
    form = client.get(url).content.decode()
    assert f'name="buncos_{ghost.seat}"' not in form  # no boxes for the ghost
    assert "ghost (partner rolls)" in form

    response = client.post(url, {"winner": "0", "base_version": "0", f"buncos_{ghost.seat}": "1"})
    assert f"Seat {ghost.seat} is a ghost: credit its rolls to its partner" in (
        response.content.decode()
    )
    assert result_count() == (0, 0)

    partner = Seat.objects.get(
        round__number=1, pod=pod, table=ghost.table, seat=(ghost.seat + 1) % 4 + 1
    )
    ok = client.post(url, {"winner": "0", "base_version": "0", f"buncos_{partner.seat}": "1"})
    assert ok.status_code == 302
    assert RollCredit.objects.get().player_id == partner.player_id


def test_snake_eyes_boxes_only_when_the_rules_have_them(
    tournament, organiser, staff_user, client_for
):
    tournament.preset = RulePreset.objects.get(slug="mingle")
    tournament.save()
    drawn_stage(tournament, organiser, staff=staff_user)
    mingle = client_for(staff_user).get(table_url(tournament, 1, 1, 1)).content.decode()
    assert 'name="snake_eyes_1"' in mingle


def test_classic_rules_have_no_snake_eyes_box(tournament, stage, staff):
    assert 'name="snake_eyes_1"' not in staff.get(table_url(tournament, 1, 1, 1)).content.decode()


# --- corrections and conflicts ----------------------------------------------------------------


def test_a_correction_adds_version_2_and_reseats_the_next_round(
    tournament, stage, pod, staff, staff_user
):
    first = round_of(stage, 1)
    for table, winner in enumerate([0, 1, 0], start=1):
        staff.post(table_url(tournament, 1, 1, table), {"winner": winner, "base_version": "0"})
    second = round_of(stage, 2)
    before = engine_tables(second, pod)
    r1 = engine_tables(first, pod)
    assert before == next_seating(r1, [0, 1, 0], stage.rules["movement"])

    form = staff.get(table_url(tournament, 1, 1, 1)).content.decode()
    assert 'name="base_version" value="1"' in form
    response = staff.post(
        table_url(tournament, 1, 1, 1),
        {"winner": "1", "base_version": "1", "reason": "Tally sheet misread"},
        follow=True,
    )
    assert "Table 1 corrected" in response.content.decode()
    versions = list(TableResult.objects.filter(pod=pod, round=first, table=1).order_by("version"))
    assert [(r.version, r.is_current, r.winner) for r in versions] == [
        (1, False, 0),
        (2, True, 1),
    ]
    assert versions[1].supersedes == versions[0] and versions[1].reason == "Tally sheet misread"

    after = engine_tables(second, pod)
    assert after != before
    assert after == next_seating(r1, [1, 1, 0], stage.rules["movement"])

    history = staff.get(table_url(tournament, 1, 1, 1)).content.decode()
    assert "Version 1" in history and "Version 2" in history and "Tally sheet misread" in history


def test_the_form_shows_the_newest_versions_and_the_rest_on_request(
    tournament, stage, pod, staff, django_assert_num_queries
):
    """A table corrected all night costs the form no more than one corrected once: the
    newest versions are shown, the older ones one tap away."""
    url = table_url(tournament, 1, 1, 1)

    def save(version):
        reason = f"Correction {version}" if version else ""
        staff.post(url, {"winner": str(version % 2), "base_version": version, "reason": reason})

    save(0)
    with CaptureQueriesContext(connection) as first:
        staff.get(url)
    once = len(first)  # now: the next request empties the connection's query log
    for version in range(1, 6):
        save(version)
    assert TableResult.objects.filter(pod=pod, table=1).count() == 6

    with django_assert_num_queries(once):
        page = staff.get(url).content.decode()
    history = page[page.index('id="history"') :]
    assert [f"Version {n}" in history for n in range(6, 0, -1)] == [True] * 3 + [False] * 3
    assert "Versions 1 to 3 are not shown." in history
    assert f'href="{url}?history=all#history"' in history

    whole = staff.get(url, {"history": "all"}).content.decode()
    whole = whole[whole.index('id="history"') :]
    assert all(f"Version {n}" in whole for n in range(1, 7)) and "not shown" not in whole
    assert "Correction 1" in whole


def test_a_stale_form_shows_the_other_version_and_saves_nothing(
    tournament, stage, pod, staff, client_for, organiser
):
    url = table_url(tournament, 1, 1, 2)
    assert 'name="base_version" value="0"' in staff.get(url).content.decode()
    # Meanwhile the organiser saves the same table.
    record_result(
        round_=round_of(stage, 1),
        pod=pod,
        table=2,
        entry=ResultEntry(winner=0, points=(40, 12)),
        actor=organiser,
        base_version=0,
    )
    response = staff.post(
        url, {"winner": "1", "base_version": "0", "points_13": "12", "points_24": "40"}
    )
    body = response.content.decode()
    assert f"{organiser.username} saved table 2 at" in body
    assert "Seats 1 &amp; 3 won 40–12" in body  # their version
    assert "Seats 2 &amp; 4 won 12–40" in body  # what this user typed
    assert 'name="base_version" value="1"' in body  # a deliberate correction from here
    assert 'name="points_13" value="12"' in body
    assert TableResult.objects.filter(pod=pod, table=2).count() == 1

    # Tapping again now corrects their version on purpose.
    data = {"winner": "1", "base_version": "1", "points_13": "12", "points_24": "40"}
    assert staff.post(url, data).status_code == 302
    current = TableResult.objects.get(pod=pod, table=2, is_current=True)
    assert (current.version, current.winner) == (2, 1)


def test_closed_round_correction_needs_a_reason_and_frozen_next_round_warns(
    tournament, stage, pod, staff, organiser
):
    first = round_of(stage, 1)
    record_pod(pod, first, organiser, [0, 0, 1])
    close_round(first, actor=organiser)
    url = table_url(tournament, 1, 1, 3)
    page = staff.get(url).content.decode()
    assert "required: the round is closed" in page
    refused = staff.post(url, {"winner": "0", "base_version": "1"})
    assert "Say why a closed round" in refused.content.decode()
    assert TableResult.objects.filter(table=3).count() == 1

    start_next_round(stage, actor=organiser)  # round 2 is now being played
    second_before = engine_tables(round_of(stage, 2), pod)
    response = staff.post(
        url, {"winner": "0", "base_version": "1", "reason": "Wrong pair ticked"}, follow=True
    )
    body = response.content.decode()
    assert (
        "Round 2 had already started, so nobody moves: its seats stay as they are being "
        "played. This correction changes the wins and losses on the score cards and in the "
        "standings."
    ) in body
    assert engine_tables(round_of(stage, 2), pod) == second_before


def test_closed_round_table_without_result_shows_a_message(
    tournament, organiser, staff_user, client_for
):
    stage = drawn_stage(tournament, organiser, staff=staff_user)
    pod = stage.pods.get()
    first = round_of(stage, 1)
    record_pod(pod, first, organiser, [0, 0, 1])
    close_round(first, actor=organiser)
    TableResult.objects.filter(table=3).update(is_current=False)  # as if never reported
    page = client_for(staff_user).get(table_url(tournament, 1, 1, 3)).content.decode()
    assert "Round 1 is closed and table 3 has no result" in page and 'name="winner"' not in page


# --- the pod page -----------------------------------------------------------------------------


def test_pod_page_shows_seats_partners_ghosts_hostess_results_and_next_seats(
    tournament, organiser, staff_user, client_for
):
    stage = drawn_stage(tournament, organiser, players=11, staff=staff_user)
    pod = Pod.objects.select_related("hostess").get(stage=stage)
    client = client_for(staff_user)
    body = client.get(pod_url(tournament, 1)).content.decode()
    assert "Round 1 · rolling for 1s" in body and "Set 1" in body
    assert "head table" in body
    assert "ghost (partner rolls)" in body
    assert "hostess" in body and pod.hostess.name in body
    assert body.count("Record table") == 3
    assert "Next round:" not in body

    first = round_of(stage, 1)
    record_result(
        round_=first,
        pod=pod,
        table=1,
        entry=ResultEntry(winner=0, points=(30, 10), tallies={1: Tally(buncos=1)}),
        actor=staff_user,
        base_version=0,
    )
    record_result(
        round_=first,
        pod=pod,
        table=2,
        entry=ResultEntry(winner=1),
        actor=staff_user,
        base_version=0,
    )
    record_result(
        round_=first,
        pod=pod,
        table=3,
        entry=ResultEntry(winner=0),
        actor=staff_user,
        base_version=0,
    )
    body = client.get(pod_url(tournament, 1)).content.decode()
    assert "3 of 3 tables reported" in body and "Correct table 1" in body
    assert "30–10" in body and "1 bunco" in body and "Version 1 · staffer" in body
    assert "Round 2 seating" in body
    for seat in Seat.objects.filter(round__number=2, pod=pod).exclude(player=None):
        assert seat.player.name in body
    some = Seat.objects.filter(round__number=2, pod=pod).exclude(player=None).first()
    assert f"Next round: table {some.table} seat {some.seat}" in body


POD_PAGE_QUERIES = 15


@pytest.mark.parametrize("players", [24, 240])
def test_pod_page_runs_a_fixed_number_of_queries(
    players, tournament, organiser, staff_user, client_for, django_assert_max_num_queries
):
    tournament.capacity = 300
    tournament.save()
    stage = drawn_stage(tournament, organiser, players=players, staff=staff_user)
    pod = stage.pods.get(number=1)
    record_pod(pod, round_of(stage, 1), organiser, [0, 1, 0])
    client = client_for(staff_user)
    with django_assert_max_num_queries(POD_PAGE_QUERIES):
        response = client.get(pod_url(tournament, 1))
    assert response.status_code == 200 and "Round 2 seating" in response.content.decode()


def test_pod_page_before_the_bell_offers_no_entry(tournament, organiser, staff_user, client_for):
    drawn_stage(tournament, organiser, staff=staff_user, start=False)
    body = client_for(staff_user).get(pod_url(tournament, 1)).content.decode()
    assert "Round 1 has not started" in body and "Record table" not in body
    # A later round, not seated yet: no pairs line of empty names under "No seating".
    later = client_for(staff_user).get(pod_url(tournament, 1) + "?round=4").content.decode()
    assert "No seating for this round." in later and "pair-chip" not in later


def test_earlier_stage_pods_are_reached_with_the_stage_parameter(
    tournament, organiser, stage, staff_user, client_for
):
    from tournaments.services.stages import draw_stage

    semi = draw_stage(
        tournament,
        list(tournament.players.values_list("pk", flat=True))[:4],
        kind="semi_final",
        sets=1,
        actor=organiser,
        seed=3,
    )
    semi.pods.get().staff.add(staff_user)
    client = client_for(staff_user)
    latest = client.get(pod_url(tournament, 1)).content.decode()
    assert "Semi-final" in latest
    earlier = client.get(pod_url(tournament, 1) + "?stage=qualifying")
    assert "Qualifying" in earlier.content.decode()
    response = client.post(
        table_url(tournament, 1, 1, 1) + "?stage=qualifying", {"winner": "0", "base_version": "0"}
    )
    assert response.status_code == 302 and "stage=qualifying" in response.url
    assert TableResult.objects.get().pod.stage.kind == "qualifying"


def test_a_stage_the_site_does_not_know_means_the_latest_and_never_reaches_the_database(
    tournament, stage, staff
):
    """`?stage=` with a NUL byte (PostgreSQL refuses it in a text comparison) or any other
    kind the site does not have shows the latest stage's pod, like a link without it."""
    for odd in ("%00x", "final-ish", ""):
        response = staff.get(pod_url(tournament, 1) + f"?stage={odd}")
        assert response.status_code == 200
        assert response.context["stage"] == stage
