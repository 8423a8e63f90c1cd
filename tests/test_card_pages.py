"""Score card pages: a pod's cards, one card with its actions, and a player's own card."""

import html
import re
from dataclasses import dataclass, replace

import pytest
from django.db import IntegrityError, transaction
from django.urls import reverse

from scoring.models import CardEntry, RollCredit, TableResult
from scoring.rules.cards import Card, Status
from scoring.services import cards as card_service
from tests.support.factories import UserFactory, drawn_stage, flip_table_of, grant, record_pod
from tournaments.models import AuditEntry, Pod, Seat, Stage
from tournaments.services.rehearsal import rehearse

pytestmark = pytest.mark.django_db


# --- helpers ----------------------------------------------------------------------------------


def pod_cards_url(tournament, number):
    return reverse("pod-cards", args=[tournament.slug, number])


def card_url(tournament, number, player):
    return reverse("card-detail", args=[tournament.slug, number, player.pk])


def enter_data(card: Card, *, layout="rounds", base_version=0, **extra) -> dict:
    """What a staff member types for `card` on the card form."""
    data = {"action": "enter", "base_version": base_version, "layout": layout}
    if layout == "rounds":
        data.update({f"r{n}": mark or "" for n, mark in enumerate(card.rounds, start=1)})
    else:
        data.update(wins=card.wins, losses=card.losses)
    data.update(buncos=card.buncos, minis=card.minis)
    data.update(extra)
    return data


def state_of(stage, player):
    return card_service.current_state(stage, player)


def text(response) -> str:
    return html.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", response.content.decode())))


@dataclass
class Event:
    tournament: object
    stage: Stage
    pod: Pod
    anna: object  # staff of pod 1
    bert: object  # staff of pod 1 too
    organiser: object

    def player(self, i=0, pod=1):
        cards = card_service.load_stage(self.stage)
        return cards.players[cards.in_pod(pod)[i]]

    def record(self, player) -> Card:
        return card_service.load_stage(self.stage).records[player.pk]


def staff_of(tournament, name, *pods):
    user = UserFactory(username=name)
    grant(tournament, user, "staff")
    for pod in pods:
        pod.staff.add(user)
    return user


@pytest.fixture
def event():
    """24 players (two pods) after two rounds: every table reported, no cards entered."""
    r = rehearse(players=24, preset="classic", seed=5, stop_after_round=2)
    stage = Stage.objects.get(tournament=r.tournament, kind="qualifying")
    pod = stage.pods.get(number=1)
    from django.contrib.auth import get_user_model

    organiser = get_user_model().objects.get(username="organiser")
    return Event(
        r.tournament,
        stage,
        pod,
        staff_of(r.tournament, "anna", pod),
        staff_of(r.tournament, "bert", pod),
        organiser,
    )


# --- permissions ------------------------------------------------------------------------------


def test_staff_not_assigned_to_the_pod_get_403_and_nothing_is_saved(event, client_for, client):
    other = staff_of(event.tournament, "otto", event.stage.pods.get(number=2))
    player = event.player()
    record = event.record(player)
    entry = card_service.enter_card(event.stage, player, record, actor=event.anna, base_version=0)
    c = client_for(other)
    assert c.get(pod_cards_url(event.tournament, 1)).status_code == 403
    assert c.get(card_url(event.tournament, 1, player)).status_code == 403
    url = card_url(event.tournament, 1, player)
    assert c.post(url, enter_data(record, base_version=1)).status_code == 403
    assert c.post(url, {"action": "confirm", "version": 1}).status_code == 403
    assert (
        c.post(
            url, {"action": "resolve", "version": 1, "choice": "card", "reason": "x"}
        ).status_code
        == 403
    )
    assert CardEntry.objects.count() == 1
    entry.refresh_from_db()
    assert entry.confirmed_by is None
    # Their own pod is fine; a card of pod 1 is not found through pod 2's URL.
    assert c.get(pod_cards_url(event.tournament, 2)).status_code == 200
    assert c.get(card_url(event.tournament, 2, player)).status_code == 404
    # Admins have no cards.verify; anonymous visitors are sent to log in.
    admin = UserFactory(username="cashier")
    grant(event.tournament, admin, "admin")
    assert client_for(admin).get(pod_cards_url(event.tournament, 1)).status_code == 403
    assert client_for(admin).post(url, {"action": "confirm", "version": 1}).status_code == 403
    response = client.post(url, {"action": "confirm", "version": 1})
    assert response.status_code == 302 and response.url.startswith(reverse("login"))
    assert CardEntry.objects.get().confirmed_by is None


# --- entering, confirming, resolving ----------------------------------------------------------


def test_form_prefills_nothing_and_keeps_what_was_typed_on_error(event, client_for):
    player = event.player()
    record = event.record(player)
    c = client_for(event.anna)
    url = card_url(event.tournament, 1, player)
    body = c.get(url).content.decode()
    assert 'id="card-form"' in body
    assert not re.search(r'value="[WL]" checked', body)  # no W/L ticked
    assert not re.search(r'name="buncos"[^>]*value=', body)
    # Wins typed that disagree with the marks: the service's message, nothing saved, marks kept.
    wrong = enter_data(record, wins=record.wins + 1)
    response = c.post(url, wrong)
    assert response.status_code == 200
    assert "The rounds show" in text(response)
    assert CardEntry.objects.count() == 0
    page = response.content.decode()
    first = record.rounds[0]
    assert f'id="r1-{first}" value="{first}" checked' in page
    assert re.search(rf'name="wins"[^>]*value="{record.wins + 1}"', page)
    # No mark at all is refused by the form.
    response = c.post(url, {"action": "enter", "base_version": 0, "layout": "rounds"})
    assert "Mark W or L" in text(response) and CardEntry.objects.count() == 0


def test_paper_card_that_differs_is_flagged_until_resolved(event, client_for):
    player = event.player(3)
    record = event.record(player)
    paper = replace(record, buncos=record.buncos + 1)
    anna, bert = client_for(event.anna), client_for(event.bert)
    url = card_url(event.tournament, 1, player)

    response = anna.post(url, enter_data(paper))
    assert response.status_code == 302 and response.url == url  # to the card, to see why
    assert state_of(event.stage, player).status == Status.DIFFERS
    detail = text(anna.get(url))
    difference = f"Buncos: card {paper.buncos}, tables {record.buncos}"
    assert difference in detail and "Resolve the difference" in detail
    pod_page = anna.get(pod_cards_url(event.tournament, 1))
    card_html = pod_page.content.decode().split(f'id="card-{player.pk}"')[1].split("</article>")[0]
    assert "differs" in card_html and difference in card_html
    assert "Pod verified" not in pod_page.content.decode()

    # A confirmation cannot paper over it.
    response = bert.post(url, {"action": "confirm", "version": 1})
    assert "resolve the difference first" in text(response)
    assert not state_of(event.stage, player).verified
    # A resolution needs a reason.
    response = bert.post(
        url, {"action": "resolve", "version": 1, "choice": "tables", "reason": " "}
    )
    assert "Say why" in text(response) and CardEntry.objects.count() == 1

    response = bert.post(
        url,
        {"action": "resolve", "version": 1, "choice": "tables", "reason": "Tally sheet checked"},
    )
    assert response.status_code == 302
    versions = list(CardEntry.objects.filter(player=player).order_by("version"))
    assert [(v.version, v.kind, v.is_current) for v in versions] == [
        (1, "paper", False),
        (2, "resolution", True),
    ]
    assert versions[0].buncos == paper.buncos  # the paper entry is kept as it was
    assert versions[1].buncos == record.buncos and versions[1].reason == "Tally sheet checked"
    assert state_of(event.stage, player).status == Status.TO_CONFIRM
    # The resolver cannot confirm their own resolution; the other staff member can.
    assert "someone else must confirm" in text(bert.post(url, {"action": "confirm", "version": 2}))
    assert anna.post(url, {"action": "confirm", "version": 2}).status_code == 302
    assert state_of(event.stage, player).verified
    history = text(anna.get(url))
    assert "Version 1" in history and "Version 2" in history and "Tally sheet checked" in history
    assert "confirmed by bert" not in history and "confirmed by anna" in history


def test_a_resolution_sent_after_the_card_was_resolved_says_why_nothing_was_saved(
    event, client_for
):
    """Two staff open the same differing card; the second to send their resolution (or a
    garbled one) has no resolve form on the page any more, so the refusal must be said above
    the card, not as errors under a form that is not shown."""
    player = event.player(3)
    record = event.record(player)
    anna, bert = client_for(event.anna), client_for(event.bert)
    url = card_url(event.tournament, 1, player)
    anna.post(url, enter_data(replace(record, buncos=record.buncos + 1)))
    resolve = {"action": "resolve", "version": 1, "choice": "tables", "reason": "Tally checked"}
    assert bert.post(url, resolve).status_code == 302
    before = CardEntry.objects.count()
    for late in (resolve, {**resolve, "version": "x", "reason": "r" * 400}):
        page = text(anna.post(url, late))
        assert (
            f"Nothing was resolved: {player.name}'s card has no difference to resolve now "
            "(it is marked “needs a second person to confirm”)." in page
        )
        assert "Resolve the difference" not in page
    assert CardEntry.objects.count() == before


def test_self_confirmation_is_refused_and_a_second_person_verifies(event, client_for):
    player = event.player(1)
    record = event.record(player)
    anna, bert = client_for(event.anna), client_for(event.bert)
    url = card_url(event.tournament, 1, player)
    assert anna.post(url, enter_data(record, layout="totals")).status_code == 302
    entry = CardEntry.objects.get(player=player)
    assert state_of(event.stage, player).status == Status.TO_CONFIRM

    page = anna.get(url).content.decode()
    assert 'id="confirm-button"' not in page and 'id="wait-for-other"' in page
    response = anna.post(url, {"action": "confirm", "version": entry.version})
    assert response.status_code == 200
    assert "You entered this version yourself; someone else must confirm it." in text(response)
    entry.refresh_from_db()
    assert entry.confirmed_by is None
    # The database refuses it too.
    with pytest.raises(IntegrityError), transaction.atomic():
        CardEntry.objects.filter(pk=entry.pk).update(confirmed_by=event.anna)

    assert 'id="confirm-button"' in bert.get(url).content.decode()
    response = bert.post(url, {"action": "confirm", "version": entry.version})
    assert response.status_code == 302
    assert response.url == pod_cards_url(event.tournament, 1) + f"#card-{player.pk}"
    entry.refresh_from_db()
    assert entry.confirmed_by == event.bert
    card_html = (
        bert.get(pod_cards_url(event.tournament, 1))
        .content.decode()
        .split(f'id="card-{player.pk}"')[1]
        .split("</article>")[0]
    )
    assert card_html.startswith(' data-status="verified"')
    assert (
        "confirmed by <strong>bert</strong>" in card_html and 'class="paper verified"' in card_html
    )


def test_pod_verified_banner_once_every_card_is_verified(event, client_for):
    cards = card_service.load_stage(event.stage)
    members = cards.in_pod(1)
    for pid in members[:-1]:
        player = cards.players[pid]
        card_service.enter_card(
            event.stage, player, cards.records[pid], actor=event.anna, base_version=0
        )
        card_service.confirm_card(event.stage, player, actor=event.bert, version=1)
    c = client_for(event.bert)
    body = c.get(pod_cards_url(event.tournament, 1)).content.decode()
    assert "No problem in the table results entered so far" in body
    assert "Pod verified" not in body
    assert f"{len(members) - 1} of {len(members)} verified" in body
    last = cards.players[members[-1]]
    client_for(event.anna).post(
        card_url(event.tournament, 1, last), enter_data(cards.records[last.pk])
    )
    c.post(card_url(event.tournament, 1, last), {"action": "confirm", "version": 1})
    body = c.get(pod_cards_url(event.tournament, 1)).content.decode()
    # Two rounds of 18 played: verified against them, and said to be so far only.
    assert 'id="pod-verified"' in body and "Pod verified so far" in body


def test_mid_stage_the_checks_name_the_tables_without_a_result(event, client_for):
    """Reviewers read "All checks pass" after two rounds of 18: the checks had looked at
    two rounds' tables, and round 3 was seated and still to play."""
    body = client_for(event.bert).get(pod_cards_url(event.tournament, 1)).content.decode()
    assert "All checks pass" not in body
    checks = body.split('id="pod-checks"')[1].split("</section>")[0]
    assert "Round 3: tables 1, 2 and 3" in checks
    early = body.split('id="cards-early"')[1].split("</div>")[0]
    assert "Round 3 of 18 is still to play." in early
    assert "Players total their cards after round 18." in early
    player = event.player()
    card_page = client_for(event.anna).get(card_url(event.tournament, 1, player))
    assert "Round 3 of 18 is still to play." in card_page.content.decode()


def test_once_every_round_is_reported_all_checks_pass_without_the_early_note(client_for):
    r = rehearse(players=12, preset="classic", seed=5)
    stage = Stage.objects.get(tournament=r.tournament, kind="qualifying")
    staff = stage.pods.get().staff.order_by("username").first()
    page = pod_cards_url(r.tournament, 1) + "?stage=qualifying"
    body = client_for(staff).get(page).content.decode()
    assert "All checks pass" in body and 'id="cards-early"' not in body
    assert "Pod verified so far" not in body and "Pod verified" in body


# --- a pod that played on paper only ----------------------------------------------------------


@pytest.fixture
def paper_pod(tournament, organiser):
    """Round 1 open; pod 1 reported its tables, pod 2 did not: pod 2's cards have no record."""
    stage = drawn_stage(tournament, organiser, players=24)
    record_pod(stage.pods.get(number=1), stage.rounds.get(number=1), organiser, [0, 1, 0])
    pod = stage.pods.get(number=2)
    return stage, pod, staff_of(tournament, "pia", pod), staff_of(tournament, "paul", pod)


def round_one_card(mark: str, rounds: int = 18, **totals) -> Card:
    marks = (mark,) + (None,) * (rounds - 1)
    return Card(marks, wins=int(mark == "W"), losses=int(mark == "L"), **totals)


def test_paper_only_pod_needs_a_second_agreeing_entry(tournament, paper_pod, client_for):
    stage, pod, pia, paul = paper_pod
    cards = card_service.load_stage(stage)
    first, second = (cards.players[p] for p in cards.in_pod(2)[:2])
    assert cards.records[first.pk] is None
    card = round_one_card("W", minis=1)
    url = card_url(tournament, 2, first)
    assert client_for(pia).post(url, enter_data(card)).status_code == 302
    assert state_of(stage, first).status == Status.SECOND_ENTRY
    page = client_for(pia).get(pod_cards_url(tournament, 2)).content.decode()
    assert "needs a second person to enter it" in page and "played on paper only" not in page
    assert "no table results" in page

    # The second person types blind: the first entry's numbers are hidden from them.
    def first_card_html(client, page_url, marker):
        return client.get(page_url).content.decode().split(marker)[1].split("</article>")[0]

    theirs = first_card_html(
        client_for(paul), pod_cards_url(tournament, 2), f'id="card-{first.pk}"'
    )
    assert (
        "stay hidden until a second person" in theirs and '<span class="hl">W</span>' not in theirs
    )
    detail = client_for(paul).get(url).content.decode()
    assert "stay hidden" in detail and '<span class="hl">W</span>' not in detail
    assert detail.index('id="card-form"') < detail.index('id="compare"')  # form first
    own = first_card_html(client_for(pia), pod_cards_url(tournament, 2), f'id="card-{first.pk}"')
    assert '<span class="hl">W</span>' in own
    # Confirming is not how a paper-only card is checked, for the enterer or anyone else.
    response = client_for(paul).post(url, {"action": "confirm", "version": 1})
    assert "enter the card yourself from the paper" in text(response)
    # A second entry by the same person does not count.
    client_for(pia).post(url, enter_data(card, base_version=1))
    assert state_of(stage, first).status == Status.SECOND_ENTRY
    # A different person typing the same card verifies it.
    assert client_for(paul).post(url, enter_data(card, base_version=2)).status_code == 302
    assert state_of(stage, first).verified
    assert CardEntry.objects.filter(player=first).count() == 3
    body = text(client_for(pia).get(pod_cards_url(tournament, 2)))
    assert "Entered by pia and again by paul : the two entries agree." in body

    # A second entry that disagrees is flagged, with the difference.
    url2 = card_url(tournament, 2, second)
    client_for(pia).post(url2, enter_data(round_one_card("L", buncos=1)))
    response = client_for(paul).post(
        url2, enter_data(round_one_card("W", buncos=1), base_version=1)
    )
    assert response.status_code == 302 and response.url == url2
    state = state_of(stage, second)
    assert state.status == Status.DIFFERS
    body = text(client_for(paul).get(url2))
    assert "Round 1: card says W, the other entry say L" in body
    assert "The latest entry (version 2) is right" in body


def test_pod_checks_list_two_winning_pairs_and_a_stray_bunco(
    tournament, organiser, paper_pod, client_for
):
    stage, pod, pia, paul = paper_pod
    # Every player at pod 2's table 1 has a W for round 1 on their card.
    seats = Seat.objects.filter(round__number=1, pod=pod, table=1).select_related("player")
    for seat in seats:
        card_service.enter_card(stage, seat.player, round_one_card("W"), actor=pia, base_version=0)
    body = text(client_for(pia).get(pod_cards_url(tournament, 2)))
    assert "Round 1, table 1: two winning pairs" in body
    assert "All checks pass" not in body

    # Pod 1: a bunco credited at table 1 to someone who sat at table 2.
    pod1 = stage.pods.get(number=1)
    result = TableResult.objects.get(pod=pod1, round__number=1, table=1, is_current=True)
    stray = Seat.objects.select_related("player").filter(round__number=1, pod=pod1, table=2)[0]
    RollCredit.objects.create(result=result, player=stray.player, buncos=1)
    body = text(client_for(organiser).get(pod_cards_url(tournament, 1)))
    assert (
        f"Round 1, table 1: {stray.player.name} is credited with rolls but did not sit there"
        in body
    )


# --- my card ----------------------------------------------------------------------------------


def test_my_card_by_code_shows_the_card_and_never_the_email(event, client):
    player = event.player(2)
    record = event.record(player)
    url = reverse("my-card", args=[event.tournament.slug])
    response = client.get(url, {"code": f" {player.code.lower()} "})
    assert response.status_code == 200
    body = response.content.decode()
    assert player.name in body and "Qualifying · pod 1" in body
    assert player.email not in body and "@" not in body.split("<main")[1]
    assert "Not verified yet" in body
    marks = re.findall(r'<span class="box-mark"><span class="hl">([WL])</span>', body)
    assert marks == [m for m in record.rounds if m]
    assert f'<dt>Wins</dt><dd><span class="hl">{record.wins}</span>' in body

    card_service.enter_card(event.stage, player, record, actor=event.anna, base_version=0)
    card_service.confirm_card(event.stage, player, actor=event.bert, version=1)
    body = client.get(url, {"code": player.code}).content.decode()
    assert "✓ Verified" in body and 'class="paper verified"' in body

    unknown = client.get(url, {"code": "ZZZZZZ"})
    assert "No player has the code “ZZZZZZ”" in unknown.content.decode()


# --- audit log by pod -------------------------------------------------------------------------


def test_audit_log_filters_by_pod_and_person(event, client_for):
    p1, p2 = event.player(0, pod=1), event.player(0, pod=2)
    card_service.enter_card(event.stage, p1, event.record(p1), actor=event.anna, base_version=0)
    card_service.enter_card(
        event.stage, p2, event.record(p2), actor=event.organiser, base_version=0
    )
    c = client_for(event.organiser)
    url = reverse("audit-log", args=[event.tournament.slug])
    body = text(c.get(url, {"pod": 1}))
    assert f"{p1.name}'s card entered" in body and f"{p2.name}'s card entered" not in body
    assert "Pod 1, table" in body and "Pod 2, table" not in body  # results of pod 1 only
    body = text(c.get(url, {"pod": 2, "person": "organiser"}))
    assert f"{p2.name}'s card entered" in body and p1.name not in body
    assert AuditEntry.objects.filter(action="card.entered", data__pod=1).count() == 1


# --- query counts -----------------------------------------------------------------------------

POD_PAGE_QUERIES = 17  # +1 since the page lists the players' "problem with my card?" notes
CARD_PAGE_QUERIES = 16
MY_CARD_QUERIES = 8


@pytest.mark.parametrize("players", [24, 240])
def test_card_pages_run_a_fixed_number_of_queries(
    players, client_for, client, django_assert_max_num_queries
):
    r = rehearse(players=players, preset="classic", seed=2, stop_after_round=2)
    stage = Stage.objects.get(tournament=r.tournament, kind="qualifying")
    pod = stage.pods.get(number=1)
    anna, bert = staff_of(r.tournament, "anna", pod), staff_of(r.tournament, "bert", pod)
    cards = card_service.load_stage(stage)
    for i, pid in enumerate(cards.in_pod(1)):
        player = cards.players[pid]
        card_service.enter_card(stage, player, cards.records[pid], actor=anna, base_version=0)
        if i % 2:
            card_service.confirm_card(stage, player, actor=bert, version=1)
    c = client_for(bert)
    player = cards.players[cards.in_pod(1)[0]]
    with django_assert_max_num_queries(POD_PAGE_QUERIES):
        assert c.get(pod_cards_url(r.tournament, 1)).status_code == 200
    with django_assert_max_num_queries(CARD_PAGE_QUERIES):
        assert c.get(card_url(r.tournament, 1, player)).status_code == 200
    with django_assert_max_num_queries(MY_CARD_QUERIES):
        body = client.get(reverse("my-card", args=[r.tournament.slug]), {"code": player.code})
    assert player.name in body.content.decode()


def test_a_card_flagged_again_still_names_who_confirmed_its_settled_version(event, client_for):
    """A walk: once a correction flagged a settled card again, its header read "confirmed by"
    with no name (the name came from the check that counts, which it no longer is)."""
    player = event.player()
    paper = replace(event.record(player), buncos=event.record(player).buncos + 1)
    card_service.enter_card(event.stage, player, paper, actor=event.anna, base_version=0)
    settled = card_service.resolve_card(
        event.stage, player, choice="tables", reason="Tally", actor=event.anna, version=1
    )
    card_service.confirm_card(event.stage, player, actor=event.bert, version=settled.version)
    flip_table_of(event.stage, player, event.organiser)
    assert state_of(event.stage, player).status == Status.DIFFERS
    page = text(client_for(event.anna).get(card_url(event.tournament, 1, player)))
    assert "· confirmed by bert " in page
