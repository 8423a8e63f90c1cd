"""The advancement page, the final table page, the final on the board and the results page."""

from __future__ import annotations

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from scoring.services import cards as card_service
from tests.support.events import (
    TIES_SEED,
    played_qualifying,
    seated_final,
    semi_played,
    unverify,
    verified_after_three_rounds,
)
from tests.support.factories import UserFactory, drawn_stage, grant
from tests.support.web import settings_data, text, url
from tournaments.models import AuditEntry, FinalTable, Qualifier, RollOff, Stage
from tournaments.rules.draws import draw_code
from tournaments.services import advancement, final_table
from tournaments.services.final_table import order_faces
from tournaments.services.rehearsal import rehearse, settle_roll_offs

pytestmark = pytest.mark.django_db


@pytest.fixture
def event():
    """24 players played and verified; pod 1 needs a wins roll-off, then a buncos one."""
    return played_qualifying(24, TIES_SEED)


@pytest.fixture
def org(event, client_for):
    return client_for(event.organiser)


def role_user(tournament, role, name):
    user = UserFactory(username=name)
    grant(tournament, user, role)
    return user


# --- permissions ------------------------------------------------------------------------------

ORGANISER_URLS = [
    ("advancement",),
    ("roll-off", "cut"),
    ("advancement-save",),
    ("advancement-semi-final",),
    ("advancement-seat-final",),
]
FINAL_URLS = [("final-table",), ("final-order",), ("final-throw",)]
POST = {"stage": "qualifying", "group": "1", "category": "wins", "roll": "on", "number": 1}


def test_staff_get_403_on_organiser_actions_on_get_and_post(event, client_for):
    staff = client_for(event.staff[0])
    before = (AuditEntry.objects.count(), RollOff.objects.count())
    for name, *args in ORGANISER_URLS:
        address = url(name, event.tournament, *args)
        assert staff.get(address).status_code == 403, name
        assert staff.post(address, POST).status_code == 403, name
    assert (AuditEntry.objects.count(), RollOff.objects.count()) == before
    assert Qualifier.objects.count() == 0 and Stage.objects.count() == 1


def test_staff_run_the_final_table_but_admins_and_strangers_do_not(client_for):
    event, final = seated_final()
    staff = client_for(event.staff[0])
    assert staff.get(url("final-table", event.tournament)).status_code == 200
    response = staff.post(url("final-order", event.tournament), {"roll": "on"})
    assert response.status_code == 302
    final.refresh_from_db()
    assert len(final.order) == 4
    # Seating is an organiser action even for staff who may throw.
    assert staff.post(url("advancement-seat-final", event.tournament)).status_code == 403
    admin = client_for(role_user(event.tournament, "admin", "prizes"))
    for (name,) in FINAL_URLS:
        assert admin.get(url(name, event.tournament)).status_code == 403, name
        assert admin.post(url(name, event.tournament), POST).status_code == 403, name
    assert not final.throws.exists()


def test_anonymous_is_sent_to_login(event, client):
    for name, *args in ORGANISER_URLS + FINAL_URLS:
        address = url(name, event.tournament, *args)
        for response in (client.get(address), client.post(address, POST)):
            assert response.status_code == 302, name
            assert response["Location"].startswith(reverse("login")), name
    assert not RollOff.objects.exists()


def test_links_to_the_advancement_page(event, org, client_for):
    assert url("advancement", event.tournament) in text(
        org.get(url("tournament-dashboard", event.tournament))
    )
    staff_page = text(client_for(event.staff[0]).get(url("my-pods", event.tournament)))
    assert url("advancement", event.tournament) not in staff_page
    assert url("final-table", event.tournament) in staff_page


# --- the advancement page -------------------------------------------------------------------------


def test_page_shows_each_step_and_a_blocked_pod_with_its_reason(event, org):
    cards = card_service.load_stage(event.stage)
    unverify(event.stage, cards.in_pod(2)[0], event.organiser)
    page = text(org.get(url("advancement", event.tournament)))
    for step in ("Standings", "Eligibility", "Cut", "Roll-offs", "Save the qualifiers"):
        assert step in page
    blocked = page.split('id="qualifying-eligible-2"')[1].split("</li>")[0]
    assert "blocked: Not verified: 11 of 12 cards verified." in blocked
    assert f"{url('pod-cards', event.tournament, 2)}?stage=qualifying" in blocked
    assert "every card verified" in page.split('id="qualifying-eligible-1"')[1].split("</li>")[0]
    # Pod 1's wins tie is shown with the names in the order their dice are typed.
    tie = page.split('id="tie-qualifying-1-wins"')[1].split("</form>")[0]
    names = [event.stage.tournament.players.get(pk=event.pk(n)).name for n in (12, 16)]
    assert f"1. {names[0]}" in tie and f"2. {names[1]}" in tie
    assert tie.index(names[0]) < tie.index(names[1])
    assert "tied at 12 wins" in tie
    assert re.search(r'id="save-qualifiers"\s+disabled>Save the qualifiers<', page)


def test_a_pod_waiting_for_a_roll_off_shows_who_is_clearly_in(event, org):
    # Pod 2 has one player with the most wins; its buncos list is a five-way tie.
    cards = card_service.load_stage(event.stage)
    pod2 = [cards.players[p] for p in cards.in_pod(2)]
    leader = max(pod2, key=lambda p: cards.official(p.pk).wins)
    page = text(org.get(url("advancement", event.tournament)))
    row = page.split('id="qualifying-cut-2"')[1].split("</tr>")[0]
    wins, buncos = row.split('data-category="wins"')[1].split('data-category="buncos"')
    assert leader.name in wins and f"{cards.official(leader.pk).wins} wins" in wins
    assert "Tied at 2 buncos" in buncos and leader.name not in buncos
    # Pod 1's buncos list waits for its wins roll-off.
    row = page.split('id="qualifying-cut-1"')[1].split("</tr>")[0]
    assert "decided after the most wins roll-off" in row.split('data-category="buncos"')[1]


def test_ties_before_the_end_of_the_stage_offer_no_dice_yet(client_for):
    tournament, _, organiser = verified_after_three_rounds()
    page = text(client_for(organiser).get(url("advancement", tournament)))
    assert "3 of 18" in page and "data-roll-off-later" in page
    assert url("roll-off", tournament, "cut") not in page
    assert "Close every round of the stage first." in page


def test_roll_off_form_refuses_the_wrong_number_of_dice_and_saves_nothing(event, org):
    address = url("roll-off", event.tournament, "cut")
    form = {"stage": "qualifying", "group": "1", "category": "wins"}
    # Both throw a 4 and nobody typed the re-throw.
    response = org.post(address, {**form, "first": ["4", "4"]}, follow=True)
    assert "Ran out of entered dice before the roll-off was decided." in text(response)
    # A spare die.
    response = org.post(address, {**form, "first": ["5", "2"], "rethrows": "6"}, follow=True)
    assert "3 dice were entered for the Most wins roll-off, but it was decided after 2" in text(
        response
    )
    # A blank box, or a face that is not on a die.
    response = org.post(address, {**form, "first": ["5", ""]}, follow=True)
    assert "Enter every player&#x27;s die" in response.content.decode() or "Enter every" in text(
        response
    )
    response = org.post(address, {**form, "first": ["5", "9"]}, follow=True)
    assert "Each die is a number from 1 to 6." in text(response)
    assert not RollOff.objects.exists()
    # What was typed comes back in the same tie's boxes (a walk had to type it all again),
    # once: a reload shows the form empty.
    tie = {**form, "form_id": "tie-qualifying-1-wins"}
    response = org.post(address, {**tie, "first": ["4", "4"], "rethrows": "3 3"})
    assert response.url.endswith("#tie-qualifying-1-wins")
    box = org.get(response.url).content.decode().split('id="tie-qualifying-1-wins"')[1]
    box = box.split("</form>")[0]
    assert box.count('value="4"') == 2 and 'value="3 3"' in box
    again = org.get(response.url).content.decode().split('id="tie-qualifying-1-wins"')[1]
    assert 'value="4"' not in again.split("</form>")[0]

    response = org.post(address, {**form, "first": ["4", "4"], "rethrows": "2 5"}, follow=True)
    record = RollOff.objects.get()
    assert record.faces == [4, 4, 2, 5] and record.source == "entered"
    assert record.winners == [event.pk(16)]
    page = text(response)
    winner = event.stage.tournament.players.get(pk=event.pk(16)).name
    assert f"Most wins in pod 1: {winner} wins the roll-off (4 dice entered)." in page
    shown = page.split(f'id="roll-off-{record.pk}"')[1].split('class="roll-off"')[0]
    assert "Throw 1:" in shown and "Throw 2:" in shown and "Physical dice entered" in shown
    # The buncos tie comes next; the site rolls it on screen and shows the draw code. A
    # seed slipped into the form is ignored: the code is the one the secret gives the label.
    assert 'id="tie-qualifying-1-buncos"' in page
    response = org.post(
        address,
        {"stage": "qualifying", "group": "1", "category": "buncos", "roll": "on", "seed": "7"},
        follow=True,
    )
    site = RollOff.objects.get(category_key="buncos")
    code = draw_code(event.tournament.draw_secret, "roll-off:qualifying:1:buncos#1")
    assert site.source == "site" and site.seed == code != 7
    assert f"draw code {site.seed}" in text(response)
    assert 'id="tie-qualifying-1-' not in text(response)


def test_save_draw_and_seat_through_the_page(event, org):
    settle_roll_offs(event.stage, organiser=event.organiser)
    page = text(org.get(url("advancement", event.tournament)))
    assert re.search(r'id="save-qualifiers">Save 4 qualifiers', page)
    response = org.post(
        url("advancement-save", event.tournament), {"stage": "qualifying"}, follow=True
    )
    assert "Saved: 4 players advance to the semi-final." in text(response)
    assert Qualifier.objects.count() == 4
    response = org.post(
        url("advancement-save", event.tournament), {"stage": "qualifying"}, follow=True
    )
    assert "already saved" in text(response)

    # A typed seed is ignored: the draw code is the one the secret gives the label.
    response = org.post(
        url("advancement-semi-final", event.tournament), {"seed": "99"}, follow=True
    )
    semi = Stage.objects.get(kind="semi_final")
    assert semi.seed == draw_code(event.tournament.draw_secret, "pods:semi_final#1") != 99
    page = text(response)
    assert f"Semi-final drawn: 4 players in 1 pod, draw code {semi.seed}." in page
    assert 'name="seed"' not in page
    assert url("stage-control", event.tournament) in page.split('id="semi-draw"')[1]
    # The stage page now runs the semi-final.
    stage_page = text(org.get(url("stage-control", event.tournament)))
    assert "Semi-final" in stage_page and "Start round 1" in stage_page
    assert 'id="seat-final-button"' not in page


def test_seat_the_final_after_the_semi_final(client_for):
    event = played_qualifying(24, 7)
    semi = semi_played(event)
    org = client_for(event.organiser)
    settle_roll_offs(semi, organiser=event.organiser)
    page = text(org.get(url("advancement", event.tournament)))
    assert 'id="stage-semi_final"' in page and 'id="seat-final-button"' in page
    assert 'name="seed"' not in page
    # A typed seed is ignored: the draw code is the one the secret gives the label.
    response = org.post(
        url("advancement-seat-final", event.tournament), {"seed": "12345"}, follow=True
    )
    final = FinalTable.objects.get()
    assert final.seed == draw_code(event.tournament.draw_secret, "final:seats#1") != 12345
    assert f"draw code {final.seed}" in text(response)
    assert response.redirect_chain[-1][0] == url("final-table", event.tournament)
    page = text(response)
    for seat in final.seats.select_related("player"):
        assert seat.player.name in page and seat.reason in page
    assert "(1 of " in page  # the drawn seats say how big their pool was
    # ... and who was in it: the footer says "from the pools shown" (a walk found none shown).
    names = dict(event.tournament.players.values_list("pk", "name"))
    for seat in final.seats.exclude(pool=[]):
        pool = page.split(f'id="pool-{seat.seat}"')[1].split("</details>")[0]
        assert f"drawn from {len(seat.pool)} player" in pool
        assert all(names[pk] in pool for pk in seat.pool)


def test_final_table_page_order_and_throws(client_for):
    event, final = seated_final()
    org = client_for(event.organiser)
    address = url("final-table", event.tournament)
    seat = dict(final.seats.values_list("seat", "player_id"))
    order = url("final-order", event.tournament)
    page = text(org.get(address))
    assert page.count('name="dice"') == 4 and 'id="order-roll"' in page  # one die per finalist
    # Seats 2 and 4 tie on the lowest die: the page asks those two, and nobody else, again.
    response = org.post(order, {"dice": ["5", "2", "6", "2"]}, follow=True)
    final.refresh_from_db()
    assert final.order == [] and order_faces(final) == [5, 2, 6, 2]
    page = text(response)
    names = dict(final.seats.values_list("seat", "player__name"))
    assert f"Tie for the lowest die: {names[2]} and {names[4]} throw again." in page
    form = page.split('id="order-form"')[1].split("</form>")[0]
    assert form.count('name="dice"') == 2 and names[2] in form and names[4] in form
    assert names[1] not in form and names[3] not in form
    assert 'id="order-roll"' not in page  # typed dice are finished by typing
    # One die for two players is refused with the reason; nothing is stored.
    page = text(org.post(order, {"form_id": "order-form", "dice": ["3"]}, follow=True))
    kept = page.split('id="order-form"')[1].split("</form>")[0]
    assert kept.count('value="3"') == 1  # the one die typed is back in its box
    assert (
        "now the 2 players tied on the lowest die throw again, one die each, but 1 die was "
        "entered: type one die for each of them." in page
    )
    final.refresh_from_db()
    assert order_faces(final) == [5, 2, 6, 2]
    # Seat 4 throws lower, so seat 4 starts and the dice go clockwise: 4, 1, 2, 3.
    response = org.post(order, {"dice": ["3", "1"]}, follow=True)
    final.refresh_from_db()
    assert final.order == [seat[4], seat[1], seat[2], seat[3]]
    page = text(response)
    assert f"{names[4]} throws first (lowest die), then the dice go clockwise" in page
    assert names[4] in page.split('id="next-thrower"')[1].split("</div>")[0]
    assert page.count("Throw 2:") == 1  # both rounds of the order roll are shown

    throw = url("final-throw", event.tournament)
    assert "Enter all three dice" in text(org.post(throw, {"number": 1, "die1": 2}, follow=True))
    bad = text(
        org.post(
            throw, {"form_id": "throw-form", "number": 1, "die1": 9, "die2": 3, "die3": 4},
            follow=True,
        )
    )  # fmt: skip
    assert "Die 1: Ensure this value is less than or equal to 6." in bad  # not "Die1: …"
    # What was typed is back in the boxes (a walk had to type every die again).
    boxes = bad.split('id="throw-form"')[1].split("</form>")[0]
    assert 'name="die1"' in boxes and 'value="9"' in boxes and 'value="3"' in boxes
    org.post(throw, {"number": 1, "die1": 2, "die2": 3, "die3": 4})
    # A double tap sends throw 1 again: refused, nothing recorded twice.
    response = org.post(throw, {"number": 1, "die1": 2, "die2": 3, "die3": 4}, follow=True)
    assert "Throw 1 is already recorded; the next is throw 2." in text(response)
    assert final.throws.count() == 1
    response = org.post(throw, {"number": 2, "die1": 6, "die2": 6, "die3": 6}, follow=True)
    winner = names[1]  # throw 2 is seat 1's, clockwise after seat 4
    page = text(response)
    assert f"three of a kind! {winner} wins the grand prize!" in page
    assert winner in page.split('id="winner"')[1].split("</div>")[1]
    assert 'id="throw-form"' not in page
    response = org.post(throw, {"number": 3, "roll": "on"}, follow=True)
    assert "The grand prize is already won." in text(response)
    assert final.throws.count() == 2
    assert org.get(address).status_code == 200


# --- the settings form -----------------------------------------------------------------------


def test_settings_form_has_the_advancement_settings(event, org):
    tournament = event.tournament
    address = url("tournament-edit", tournament)
    page = text(org.get(address))
    for field in ("wins_places", "buncos_places", "top_both", "semi_final_sets"):
        assert f'name="{field}"' in page
    response = org.post(address, settings_data(tournament, wins_places=0, buncos_places=0))
    assert "At least one player per pod must advance." in text(response)
    response = org.post(
        address, settings_data(tournament, wins_places=2, top_both="empty_seat", semi_final_sets=2)
    )
    assert response.status_code == 302
    tournament.refresh_from_db()
    assert (tournament.wins_places, tournament.top_both, tournament.semi_final_sets) == (
        2,
        "empty_seat",
        2,
    )
    # Once a roll-off is recorded the cut's settings stay as they are.
    settle_roll_offs(event.stage, organiser=event.organiser)
    response = org.post(address, settings_data(tournament, wins_places=1))
    assert "Fixed now: roll-offs or qualifiers of this event are recorded." in text(response)
    tournament.refresh_from_db()
    assert tournament.wins_places == 2


# --- the public pages ------------------------------------------------------------------------


@pytest.fixture
def finished():
    """A whole evening to the grand prize."""
    return rehearse(players=24, preset="classic", seed=7).tournament


def test_results_page_is_public_only_once_published(finished, client, client_for):
    address = url("results", finished)
    response = client.get(address)  # a player's shared link: told, not sent to sign in
    assert response.status_code == 403
    assert "The results are not published yet" in text(response)
    stranger = client_for(UserFactory(username="stranger"))
    assert stranger.get(address).status_code == 403
    organiser = finished.created_by
    assert client_for(organiser).get(address).status_code == 200
    public = text(client.get(url("tournament-public", finished)))
    assert url("seat-finder", finished) in public and url("my-card", finished) in public
    assert address not in public and url("standings", finished) not in public

    finished.standings_public = True
    finished.save()
    public = text(client.get(url("tournament-public", finished)))
    assert address in public and url("standings", finished) in public
    page = text(client.get(address))
    final = FinalTable.objects.get(tournament=finished)
    for q in Qualifier.objects.filter(from_stage__tournament=finished).select_related("player"):
        assert q.player.name in page.split('id="qualifying-results"')[1]
    for seat in final.seats.select_related("player"):
        row = page.split('id="finalists"')[1]
        assert seat.player.name in row and seat.reason in row
        assert (seat.path or "Did not advance from the qualifying stage") in row
    assert final.winner.name in page.split('id="grand-winner"')[1].split("</div>")[1]
    assert page.count("data-throw") == 0  # the public list has no staff controls
    throws = page.split('id="final-throws"')[1].split("</table>")[0]
    assert throws.count("<tr") == final.throws.count() + 1, (
        throws.count("<tr"),
        final.throws.count(),
    )
    for record in RollOff.objects.filter(stage__tournament=finished):
        assert str(record.seed) in page or record.source == "entered"


def test_no_email_or_code_on_public_pages(finished, client):
    finished.standings_public = True
    finished.save()
    for name in ("results", "board", "board-live", "tournament-public"):
        page = client.get(url(name, finished)).content.decode()
        assert "@" not in re.sub(r"@(media|keyframes)", "", page), name
        for code in finished.players.values_list("code", flat=True)[:30]:
            assert f">{code}<" not in page, name


def test_board_shows_the_final_table_and_the_winner(client):
    event, final = seated_final()
    board = url("board-live", event.tournament)
    page = text(client.get(board))
    assert 'id="final-table"' in page and "pod-no" not in page
    for seat in final.seats.select_related("player"):
        assert seat.player.name in page and seat.reason in page
        assert (seat.path or "did not advance from qualifying") in page
    assert 'hx-trigger="room-changed from:body"' in page and "Rolling for order" in page
    final_table.roll_for_order(final, actor=event.organiser, faces=[1, 2, 3, 4])
    final_table.throw(final, actor=event.organiser, dice=(1, 2, 3))
    page = text(client.get(board))
    first = final.seats.get(seat=1).player.name
    assert "Throw 1" in page and 'aria-label="Seat 2"' in page
    assert re.search(r'class="ft-seat next"[^>]*aria-label="Seat 2"', page)
    final_table.throw(final, actor=event.organiser, dice=(5, 5, 5))
    page = text(client.get(board))
    winner = final.seats.get(seat=2).player.name
    assert 'id="final-winner"' in page and winner in page.split('id="final-winner"')[1]
    assert 'hx-trigger="room-changed from:body"' not in page  # nothing more to wait for
    assert first in page
    assert client.get(url("board", event.tournament)).status_code == 200


# --- query counts ----------------------------------------------------------------------------


def queries(client, address) -> int:
    with CaptureQueriesContext(connection) as captured:
        assert client.get(address).status_code == 200
    return len(captured)


# 17 for the results (one of them every prize winner, not only the grand prize), and 5 for
# checking the draws (the list of draws, the seeds the stored stages, roll-offs and prize
# roll-offs replay from, whether the prizes are being paid).
RESULTS_QUERIES = 22
# The tournament with its final, the seats, the throws, and the order roll's newest version.
BOARD_FINAL_QUERIES = 5


def test_results_and_board_queries_do_not_grow_with_the_event(client):
    counts = {}
    for players in (24, 120):
        tournament = rehearse(
            players=players, preset="classic", seed=11, slug=f"counts-{players}"
        ).tournament
        tournament.standings_public = True
        tournament.save()
        counts[players] = (
            queries(client, url("results", tournament)),
            queries(client, url("board-live", tournament)),
            queries(client, url("board", tournament)),
        )
    assert counts[24] == counts[120], counts
    results, live, board = counts[120]
    assert (
        results <= RESULTS_QUERIES and live <= BOARD_FINAL_QUERIES and board <= BOARD_FINAL_QUERIES
    )


ADVANCEMENT_QUERIES = 24


def test_advancement_page_queries_do_not_grow_with_the_event(client_for):
    counts = {}
    for players in (24, 120):
        event = played_qualifying(players, TIES_SEED, slug=f"adv-counts-{players}")
        org = client_for(event.organiser)
        address = url("advancement", event.tournament)
        pending = queries(org, address)  # ties to settle: the cut so far is read as well
        settle_roll_offs(event.stage, organiser=event.organiser)
        counts[players] = (pending, queries(org, address))
    assert counts[24] == counts[120], counts
    assert max(counts[120]) <= ADVANCEMENT_QUERIES, counts


def test_while_the_stage_plays_unverified_pods_are_not_shown_as_blocked(
    tournament, organiser, client_for
):
    """Mid-game every pod has unverified cards: that is the game going on, not a fault, so it
    is not written in red as 'blocked' until every round is played."""
    drawn_stage(tournament, organiser, players=24)
    page = text(client_for(organiser).get(url("advancement", tournament)))
    pod = page.split('id="qualifying-eligible-1"')[1].split("</li>")[0]
    assert "still playing: Not verified: 0 of 12 cards verified." in pod
    assert "blocked:" not in pod and "text-danger" not in pod


def test_my_pods_says_when_the_new_stage_has_no_pod_for_this_staff_member(client_for):
    """A walk: with the semi-final drawn, staff saw only their closed qualifying pods and no
    word that a stage was under way without them."""
    event = played_qualifying(24, 7)
    settle_roll_offs(event.stage, organiser=event.organiser)
    advancement.save_qualifiers(event.stage, actor=event.organiser)
    advancement.draw_semi_final(event.tournament, actor=event.organiser)
    page = text(client_for(event.staff[0]).get(url("my-pods", event.tournament)))
    assert 'id="not-in-newest"' in page
    assert "The semi-final is under way and you have no pod in it yet." in page
