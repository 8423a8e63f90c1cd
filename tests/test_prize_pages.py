"""The prize pages: who may use them, the prize list form, the winners page, the prize table's
confirm step (present, photo ID, never twice), voids, the ledger and its CSV. Their query
counts are in test_prizes_rehearsed.py, beside the fully rehearsed event they use."""

from __future__ import annotations

import csv
import io
import re

import pytest
from django.urls import reverse
from django.utils import timezone

from tests.support.events import award_everything, rehearsal_organiser
from tests.support.factories import (
    PlayerFactory,
    PrizeCategoryFactory,
    UserFactory,
    grant,
    member,
)
from tests.support.scenarios import module_scenario, prizeless_event
from tests.support.web import text, url
from tournaments.foundation.text import money, ordinal
from tournaments.models import (
    AuditEntry,
    LastBuncoMark,
    Payout,
    Player,
    PrizeAward,
    PrizeCategory,
    PrizeNomination,
    RollOff,
    Tournament,
    TravelingPass,
)
from tournaments.rules.draws import draw_code
from tournaments.rules.phases import NextStep, Phase
from tournaments.rules.prizes import OVERALL
from tournaments.services import cashbook, checkin, payouts, prizes, rehearsal_event
from tournaments.services import ledger as ledger_service
from tournaments.services.phase import step_of
from tournaments.services.printouts.documents import payout_lines
from tournaments.services.rehearsal import rehearse

pytestmark = pytest.mark.django_db


def plain(response) -> str:
    """The page's words without tags, spaces collapsed."""
    return " ".join(re.sub(r"<[^>]+>", " ", text(response)).split())


def messages_of(response) -> list[str]:
    return [str(m) for m in response.context["messages"]] if response.context else []


played = module_scenario(prizeless_event)


@pytest.fixture
def event(played):
    """The module's played event (built once, see tests/support/scenarios.py), read fresh;
    what a test writes is rolled back after it."""
    return Tournament.objects.get(pk=played)


@pytest.fixture
def admin(event):
    return member(event, "admin", "prize-admin")


@pytest.fixture
def staff(event):
    return member(event, "staff", "pod-staff")


@pytest.fixture
def desk(admin, client_for):
    return client_for(admin)


@pytest.fixture
def awarded(event, admin):
    return award_everything(event, rehearsal_organiser())


# --- who may use the pages --------------------------------------------------------------------

PAGES = ["prizes", "prize-winners", "prize-last-bunco", "payouts", "ledger", "ledger-csv"]
ACTIONS = [
    "prize-category-add",
    "prize-template",
    "prize-one-per-player",
    "prize-nominate",
    "prize-traveling",
    "prize-award",
]


def every_url(tournament, awarded_rows):
    category = tournament.prize_categories.first()
    award = awarded_rows[0]
    payout = Payout.objects.first()
    return (
        [url(name, tournament) for name in PAGES + ACTIONS]
        + [
            url("prize-category-edit", tournament, category.pk),
            url("prize-category-delete", tournament, category.pk),
            url("payout-pay", tournament, award.pk),
            url("roll-off", tournament, "prize"),
        ]
        + ([url("payout-void", tournament, payout.pk)] if payout else [])
    )


POST = {
    "name": "mesquite",
    "value": "on",
    "label": "Sneaky",
    "measure": "most_buncos",
    "scope": "overall",
    "stage_kind": "qualifying",
    "amounts": "1000",
    "tie_policy": "split",
    "priority": "0",
    "present": "on",
    "id_checked": "on",
    "reason": "because",
    "key": "buncos:1:1",
    "roll": "1",
}


def state():
    return (
        AuditEntry.objects.count(),
        Payout.objects.count(),
        Payout.objects.filter(voided_at__isnull=False).count(),
        PrizeAward.objects.count(),
        PrizeCategory.objects.count(),
        RollOff.objects.filter(kind="prize").count(),
        PrizeNomination.objects.count(),
        TravelingPass.objects.count(),
        LastBuncoMark.objects.count(),
        Tournament.objects.filter(one_prize_per_player=True).count(),
    )


def test_staff_get_403_on_every_prize_page_on_get_and_post(event, awarded, staff, client_for):
    payouts.pay(awarded[0], actor=rehearsal_organiser(), present=True, id_checked=True)
    client = client_for(staff)
    before = state()
    addresses = every_url(event, awarded)
    assert len(addresses) == 17
    for address in addresses:
        assert client.get(address).status_code == 403, address
        assert client.post(address, POST).status_code == 403, address
    assert state() == before


def test_anonymous_is_sent_to_login(event, awarded, client):
    payouts.pay(awarded[0], actor=rehearsal_organiser(), present=True, id_checked=True)
    before = state()
    for address in every_url(event, awarded):
        for response in (client.get(address), client.post(address, POST)):
            assert response.status_code == 302, address
            assert response["Location"].startswith(reverse("login")), address
    assert state() == before


def test_admins_and_organisers_open_every_page_and_no_get_changes_anything(
    event, awarded, desk, client_for
):
    payouts.pay(awarded[0], actor=rehearsal_organiser(), present=True, id_checked=True)
    before = state()
    for client in (desk, client_for(rehearsal_organiser())):
        for address in every_url(event, awarded):
            response = client.get(address)
            if any(address.endswith(s) for s in ("/delete/", "/template/", "/award/")):
                assert response.status_code == 405, address  # POST only
            elif "/void/" in address or address.rstrip("/").endswith(
                ("nominate", "traveling", "roll-offs/prize", "one-per-player")
            ):
                assert response.status_code == 405, address
            elif (
                "/manage/prizes/" in address
                and "winners" not in address
                and (address.endswith("/add/") or re.search(r"/prizes/\d+/$", address))
            ):
                # The prize list is fixed once money has been paid: back to the list.
                assert response.status_code == 302, address
            else:
                assert response.status_code == 200, address
    assert state() == before


def test_links_from_the_dashboard_and_the_menu(event, desk, client_for, staff):
    page = text(desk.get(url("tournament-dashboard", event)))
    assert url("prizes", event) in page
    staff_page = text(client_for(staff).get(url("tournament-dashboard", event)))
    assert url("prizes", event) not in staff_page and url("payouts", event) not in staff_page


# --- the prize list ---------------------------------------------------------------------------


def test_loading_the_rule_sheet_suggested_by_the_preset(event, desk):
    page = text(desk.get(url("prizes", event)))
    assert "No prizes yet" in page
    assert re.search(r'<option value="mesquite" selected>[^<]*this event', page)
    response = desk.post(url("prize-template", event), {"name": "mesquite"}, follow=True)
    assert "6 prize categories loaded" in text(response)
    page = text(response)
    for label in ("Most Buncos", "Team with Overall Most Buncos", "$100.00", "Best pod (team)"):
        assert label in page
    response = desk.post(url("prize-template", event), {"name": "classic"}, follow=True)
    assert "This tournament has prize categories already." in messages_of(response)
    assert PrizeCategory.objects.count() == 6


def test_category_form_checks_amounts_and_the_engines_rules(event, desk):
    add = url("prize-category-add", event)
    good = {
        "label": "Most Losses",
        "measure": "most_losses",
        "scope": "pod",
        "stage_kind": "qualifying",
        "amounts": "$20, 12.50",
        "tie_policy": "split",
        "priority": "70",
    }
    cases = [
        ({"amounts": ""}, "This field is required."),
        ({"amounts": "twenty"}, "twenty: Enter the amount in numbers, like 20 or 12.50."),
        ({"amounts": "100,,50"}, "Separate the places' amounts by single commas"),
        ({"amounts": "-5"}, "-5: Enter the amount without a minus sign"),
        ({"amounts": "10.005"}, "10.005: Use at most two decimals (cents)."),
        ({"amounts": "100001"}, "100001: That is more than $100,000.00"),
        # Read as the cash book reads an amount: no exponent, sign or other digits.
        ({"amounts": "1e3"}, "1e3: Enter the amount in numbers"),
        ({"amounts": "+5"}, "+5: Enter the amount in numbers"),
        ({"amounts": "10_000"}, "10_000: Enter the amount in numbers"),
        # Commas separate places: a thousands separator or a decimal comma is not guessed at.
        ({"amounts": "1,000"}, "'000' reads as a place of its own"),
        ({"amounts": "12,50"}, "2nd place pays more than 1st ($50.00 against $12.00)"),
        ({"measure": "even_split", "scope": "pod_group"}, "cannot be summed over a pod"),
        (
            {"measure": "traveling_holder", "scope": "overall", "amounts": "20, 10"},
            "one player holds the traveling item at the end",
        ),
        ({"measure": "traveling_holder", "scope": "pod", "amounts": "20"}, "choose Overall"),
        ({"label": "!!!"}, "Use some letters or digits"),
        ({"priority": "-1"}, "greater than or equal to 0"),
    ]
    for change, message in cases:
        response = desk.post(add, {**good, **change})
        assert response.status_code == 200, change
        assert message in text(response), change
    assert not PrizeCategory.objects.exists()
    response = desk.post(add, good, follow=True)
    assert "Most Losses added." in messages_of(response)
    category = PrizeCategory.objects.get()
    assert (category.key, category.amounts_cents, category.scope) == (
        "most-losses",
        [2000, 1250],
        "pod",
    )
    # A second one with the same name gets its own key; editing keeps the key.
    desk.post(add, {**good, "amounts": "5"})
    assert sorted(PrizeCategory.objects.values_list("key", flat=True)) == [
        "most-losses",
        "most-losses-2",
    ]
    edit = url("prize-category-edit", event, category.pk)
    assert 'value="20, 12.50"' in text(desk.get(edit))
    desk.post(edit, {**good, "label": "Most losses (pity prize)", "amounts": "25"})
    category.refresh_from_db()
    assert (category.key, category.label, category.amounts_cents) == (
        "most-losses",
        "Most losses (pity prize)",
        [2500],
    )
    assert AuditEntry.objects.filter(action="prizes.category_changed").count() == 1
    # A category of another tournament is not found here.
    other = rehearsal_event.create_event(players=4, preset="classic", seed=9, slug="other-night")[0]
    foreign = PrizeCategoryFactory(
        tournament=other, key="x", label="X", measure="most_wins", scope="overall",
        amounts_cents=[100],
    )  # fmt: skip
    assert desk.get(url("prize-category-edit", event, foreign.pk)).status_code == 404
    assert desk.post(url("prize-category-delete", event, foreign.pk)).status_code == 404


def test_deleting_is_refused_once_awarded_and_the_list_is_fixed_once_paid(event, awarded, desk):
    buncos = PrizeCategory.objects.get(tournament=event, key="buncos")
    response = desk.post(url("prize-category-delete", event, buncos.pk), follow=True)
    assert messages_of(response)[0].startswith("Most Buncos has been awarded")
    assert PrizeCategory.objects.filter(pk=buncos.pk).exists()
    extra = PrizeCategoryFactory(
        tournament=event, key="extra", label="Extra", measure="most_losses", scope="overall",
        amounts_cents=[100],
    )  # fmt: skip
    response = desk.post(url("prize-category-delete", event, extra.pk), follow=True)
    assert "Extra deleted." in messages_of(response)
    # Once a prize is paid the list cannot change, whatever the form says.
    payouts.pay(awarded[0], actor=rehearsal_organiser(), present=True, id_checked=True)
    before = list(PrizeCategory.objects.values_list("pk", "label", "amounts_cents"))
    response = desk.post(
        url("prize-category-edit", event, buncos.pk),
        {**POST, "label": "Changed", "amounts": "1"},
        follow=True,
    )
    assert "Prizes are being paid, so the prize list can no longer change." in messages_of(response)
    desk.post(url("prize-one-per-player", event), {"value": "on"})
    desk.post(url("prize-category-add", event), POST)
    assert list(PrizeCategory.objects.values_list("pk", "label", "amounts_cents")) == before
    event.refresh_from_db()
    assert not event.one_prize_per_player
    page = text(desk.get(url("prizes", event)))
    assert "prize-list-locked" in page and "add-category" not in page


def test_one_prize_per_player_switch(event, desk):
    response = desk.post(url("prize-one-per-player", event), {"value": "on"}, follow=True)
    event.refresh_from_db()
    assert event.one_prize_per_player
    assert "a winner is passed over by later prizes" in messages_of(response)[0]
    desk.post(url("prize-one-per-player", event), {"value": "off"})
    event.refresh_from_db()
    assert not event.one_prize_per_player
    assert AuditEntry.objects.filter(action__startswith="prizes.one_per_player").count() == 2


# --- the winners page -------------------------------------------------------------------------


def test_winners_page_names_the_judged_winners_throws_roll_offs_and_awards(event, desk):
    prizes.load_template(event, "mesquite", actor=rehearsal_organiser())
    page = text(desk.get(url("prize-winners", event)))
    assert "Judged prizes" in page and "Best Costume" in page
    assert "roll-offs to throw" in page or "roll-off to throw" in page
    assert "Award these prizes" not in page
    # A pending tie: its players in throw order, with a box for each die.
    plan = prizes.plan_prizes(event)
    tie = plan.pending[0]
    names = dict(Player.objects.values_list("pk", "name"))
    order = [names[p] for p in tie.players]
    block = page[page.index(f'value="{tie.key}"') :]
    positions = [block.index(n) for n in order]
    assert positions == sorted(positions)
    # Dice typed in: not enough is the engine's refusal; then the last player throws a six.
    wrong = {"key": tie.key, "first": ["1"] * (len(tie.players) - 1) + [""]}
    response = desk.post(url("roll-off", event, "prize"), wrong, follow=True)
    assert "Enter every player's die of the first throw." in messages_of(response)
    bad = {"key": tie.key, "first": ["7"] * len(tie.players)}
    assert "Each die is a number from 1 to 6." in messages_of(
        desk.post(url("roll-off", event, "prize"), bad, follow=True)
    )
    form_id = "tie-" + re.sub(r"[^a-z0-9]+", "-", tie.key.lower())
    tied = {"key": tie.key, "form_id": form_id, "first": ["6"] * len(tie.players)}
    response = desk.post(url("roll-off", event, "prize"), tied, follow=True)
    assert "Ran out of entered dice" in messages_of(response)[0]
    kept = text(response).split(f'id="{form_id}"')[1].split("</form>")[0]
    assert kept.count('value="6"') == len(tie.players)  # the typed dice are still there
    faces = ["1"] * (len(tie.players) - 1) + ["6"]
    response = desk.post(
        url("roll-off", event, "prize"), {"key": tie.key, "first": faces}, follow=True
    )
    assert messages_of(response) == [f"Roll-off recorded: dice {', '.join(faces)}."]
    record = RollOff.objects.filter(kind="prize").get(key=tie.key)
    assert record.seed is None and record.recorded_by.username == "prize-admin"
    # The rest on screen; a seed slipped into the form is ignored: each roll-off's draw code
    # is the one the secret gives its label.
    while pending := prizes.plan_prizes(event).pending:
        key = pending[0].key
        response = desk.post(
            url("roll-off", event, "prize"), {"key": key, "roll": "1", "seed": "42"}, follow=True
        )
        assert messages_of(response)[0].startswith("Roll-off rolled on screen: dice")
        code = draw_code(event.draw_secret, f"prize-roll-off:{key}#1")
        assert RollOff.objects.filter(kind="prize").get(key=key).seed == code != 42
    assert (
        RollOff.objects.filter(kind="prize").exclude(seed=None).count()
        == RollOff.objects.filter(kind="prize").count() - 1
    )
    # The judges' picks through the page: a pod's costume, and the best-pod costume.
    costume = PrizeCategory.objects.get(tournament=event, key="costume")
    team = PrizeCategory.objects.get(tournament=event, key="team_costume")
    pod1 = [t.player for t in prizes.player_totals(event, "qualifying") if t.pod == 1]
    pod2 = [t.player for t in prizes.player_totals(event, "qualifying") if t.pod == 2]
    nominate = url("prize-nominate", event)
    response = desk.post(
        nominate, {"category": costume.pk, "group": "1", "winner": pod2[0]}, follow=True
    )
    assert "Choose a winner from the list." in messages_of(response)[0]
    desk.post(nominate, {"category": costume.pk, "group": "1", "winner": pod1[0]})
    desk.post(nominate, {"category": costume.pk, "group": "2", "winner": pod2[0]})
    response = desk.post(
        nominate, {"category": team.pk, "group": OVERALL, "winner": "2"}, follow=True
    )
    assert "Team with Best Costume (Overall): Pod 2." in messages_of(response)
    assert PrizeNomination.objects.get(category=costume, scope_group="1").winners == [pod1[0]]
    # The plan in full: winners, amounts, the dice and the roll-off notes with names.
    page = text(desk.get(url("prize-winners", event)))
    assert "No winner has been chosen" not in page
    assert f"Won 1st place in a roll-off with {order[0]}" in page
    assert "Throw 1:" in page
    assert "Award these prizes" in page
    response = desk.post(url("prize-award", event), follow=True)
    assert "prize shares awarded" in messages_of(response)[0]
    page = text(response)
    assert "Awarded prizes" in page and "Award these prizes again" in page
    assert PrizeAward.objects.filter(tournament=event).count() > 0
    # A change after awarding shows the stored awards are out of date, and its message says
    # the award already made stands: "Best Costume (Pod 1): Bob" alone read as if it moved.
    response = desk.post(
        nominate, {"category": costume.pk, "group": "1", "winner": pod1[1]}, follow=True
    )
    holder = PrizeAward.objects.current().get(category=costume, scope_group="1").player
    assert (
        f"{costume.label} (Pod 1) is already awarded to {holder.name}: that award stands "
        "until the prizes are awarded again" in " ".join(messages_of(response))
    )
    assert "have changed since these prizes were awarded" in text(
        desk.get(url("prize-winners", event))
    )


def guidance(response) -> str:
    """The winners page's opening guidance: what the admin does next with the prizes."""
    page = text(response)
    block = page[page.index('id="prize-guidance"') :]
    block = block[block.index(">") + 1 : block.index("\n")]  # one line of the template
    return " ".join(re.sub(r"<[^>]+>", " ", block).split())


def test_winners_page_says_to_award_then_what_is_left_to_pay(event, desk):
    """Before any award the page says how to award; once awarded, how many shares and how
    much the prize table has left to pay."""
    actor = rehearsal_organiser()
    before = desk.get(url("prize-winners", event))
    assert "then award the prizes" in plain(before) and "Left to pay" not in plain(before)
    award_everything(event, actor)
    # Awarded again: the superseded shares count neither here nor on the dashboard.
    shares = prizes.award(event, actor=actor)
    assert step_of(event) == NextStep(Phase.PAYING, "payouts", done=0, total=len(shares))
    total = sum(a.amount_cents for a in shares)
    response = desk.get(url("prize-winners", event))
    assert f"0 of {len(shares)} prize shares paid." in plain(response)
    unpaid = guidance(response)
    assert f"Left to pay: {len(shares)} shares, {money(total)} in all" in unpaid
    assert "award the prizes" not in unpaid
    payouts.pay(shares[0], actor=actor, present=True, id_checked=True)
    response = desk.get(url("prize-winners", event))
    rest = guidance(response)
    assert f"1 of {len(shares)} prize shares paid." in rest
    assert f"Left to pay: {len(shares) - 1} shares, {money(total - shares[0].amount_cents)}" in rest
    assert f'href="{url("payouts", event)}"' in text(response).split('id="prize-guidance"')[1]


def test_winners_page_of_an_event_with_every_prize_paid_says_so(client_for):
    """A reviewer found the winners page of a finished event, every prize paid, still telling
    the admin to award the prizes. It says they are all paid and points to the ledger and the
    results; a voided payment brings back what is left to pay."""
    done = rehearse(players=24, preset="mesquite", seed=3).tournament
    desk = client_for(member(done, "admin", "paid-admin"))
    response = desk.get(url("prize-winners", done))
    assert "award the prizes" not in plain(response)
    said = guidance(response)
    assert said.startswith("Every prize is awarded and paid.") and "Left to pay" not in said
    block = text(response).split('id="prize-guidance"')[1].split("</div>")[0]
    assert f'href="{url("ledger", done)}"' in block and f'href="{url("results", done)}"' in block
    payout = Payout.objects.filter(award__tournament=done, voided_at__isnull=True).first()
    payouts.void(payout, actor=rehearsal_organiser(), reason="counted twice")
    again = guidance(desk.get(url("prize-winners", done)))
    assert f"Left to pay: 1 share, {money(payout.amount_cents)} in all" in again


def test_traveling_item_through_the_page(event, desk):
    PrizeCategoryFactory(
        tournament=event, key="fuzzy", label="Fuzzy Die", measure="traveling_holder",
        scope="overall", amounts_cents=[2000],
    )  # fmt: skip
    page = text(desk.get(url("prize-winners", event)))
    assert "Nobody holds it yet." in page
    assert "Nobody was named as holding the traveling item" in page
    first, second = Player.objects.filter(tournament=event).order_by("pk")[:2]
    round_5 = event.stages.get(kind="qualifying").rounds.get(number=5)
    desk.post(url("prize-traveling", event), {"player": first.pk, "round": round_5.pk})
    response = desk.post(url("prize-traveling", event), {"player": second.pk}, follow=True)
    assert f"{second.name} now holds the traveling item." in messages_of(response)
    page = plain(response)
    assert f"Held by {second.name}" in page and "round 5" in page
    assert "Held the traveling item at the end" in page
    response = desk.post(url("prize-traveling", event), {"player": "999999"}, follow=True)
    assert "Select a valid choice" in messages_of(response)[0]
    assert TravelingPass.objects.count() == 2


def test_one_prize_per_player_note_names_the_player_passed_over(event, desk):
    PrizeCategoryFactory(
        tournament=event, key="wins", label="Most Wins", measure="most_wins", scope="overall",
        amounts_cents=[3000], tie_policy="split", priority=1,
    )  # fmt: skip
    PrizeCategoryFactory(
        tournament=event, key="wins2", label="Runner-up", measure="most_wins", scope="overall",
        amounts_cents=[1000], tie_policy="split", priority=2,
    )  # fmt: skip
    desk.post(url("prize-one-per-player", event), {"value": "on"})
    plan = prizes.plan_prizes(event)
    (first,) = [a for a in plan.result.awards if a.category_key == "wins"]
    name = Player.objects.get(pk=first.players[0]).name
    page = text(desk.get(url("prize-winners", event)))
    assert f"Moved up because {name} already won Most Wins (the whole event)" in page


# --- the prize table --------------------------------------------------------------------------


def test_awarding_again_keeps_the_earlier_awards_and_the_pages_show_only_those_in_force(
    event, awarded, desk
):
    """Nothing is deleted by a re-award: the earlier shares stay, superseded, and the prize
    table, its pay page, the winners page, the ledger and the payout sheet leave them out."""
    again = prizes.award(event, actor=rehearsal_organiser())
    assert PrizeAward.objects.filter(tournament=event).count() == 2 * len(awarded)
    page = text(desk.get(url("payouts", event)))
    assert page.count('class="list-group-item share') == len(again)
    for old, new in zip(awarded, again, strict=True):
        assert url("payout-pay", event, new.pk) in page
        assert url("payout-pay", event, old.pk) not in page
        assert desk.get(url("payout-pay", event, old.pk)).status_code == 404
    winners = desk.get(url("prize-winners", event))
    assert [row["award"] for row in winners.context["stored"]] == list(
        PrizeAward.objects.current().filter(tournament=event).order_by(*PrizeAward._meta.ordering)
    )
    assert not winners.context["stale"]
    books = ledger_service.ledger(event)
    assert books.awarded_cents == sum(a.amount_cents for a in again)
    lines = payout_lines(event)
    assert len(lines) == len(again)
    # Deleting a category the earlier awards name is refused: they are kept.
    old_only = awarded[0].category
    PrizeAward.objects.current().filter(category=old_only).update(superseded_at=timezone.now())
    response = desk.post(url("prize-category-delete", event, old_only.pk), follow=True)
    assert "was in earlier awards, which are kept" in messages_of(response)[0]
    assert PrizeCategory.objects.filter(pk=old_only.pk).exists()


def test_search_by_name_or_code(event, awarded, desk):
    share = awarded[0]
    player = share.player
    page = text(desk.get(url("payouts", event)))
    assert page.count('class="list-group-item share') == len(awarded)
    by_code = desk.get(url("payouts", event), {"q": player.code.lower()})
    assert [r.award.pk for r in by_code.context["rows"]] == [
        a.pk for a in awarded if a.player_id == player.pk
    ]
    by_name = desk.get(url("payouts", event), {"q": player.name.split()[-1][:4]})
    assert player.pk in {r.award.player_id for r in by_name.context["rows"]}
    nobody = text(desk.get(url("payouts", event), {"q": "Zzyzx"}))
    assert "No prize for “Zzyzx”" in nobody


def test_pay_page_needs_both_boxes_then_pays_once(event, awarded, desk, client_for):
    share = awarded[0]
    pay_url = url("payout-pay", event, share.pk)
    page = text(desk.get(pay_url))
    for shown in (share.player.name, share.player.code, "$100.00", "Most Buncos"):
        assert shown in page
    assert "The winner is here in person" in page and "I checked their photo ID" in page
    for data in ({}, {"present": "on"}, {"id_checked": "on"}):
        response = desk.post(pay_url, data)
        assert response.status_code == 200
        body = text(response)
        assert "Not paid. Tick both boxes" in body
        if "present" not in data:
            assert "Tick this box: the winner must be here in person." in body
        if "id_checked" not in data:
            assert "Tick this box: check the winner's photo ID first." in body
    assert not Payout.objects.exists()
    response = desk.post(pay_url, {"present": "on", "id_checked": "on", "q": share.player.code})
    assert response.status_code == 302
    assert response["Location"] == f"{url('payouts', event)}?q={share.player.code}"
    payout = Payout.objects.get()
    assert payout.paid_by.username == "prize-admin" and payout.amount_cents == 10_000
    listing = desk.get(response["Location"])
    assert messages_of(listing)[0].startswith(f"Paid $100.00 to {share.player.name}")
    assert "✓ Paid by prize-admin at" in text(listing)
    # A second admin with the page still open presses Pay: refused, nothing changed.
    other = UserFactory(username="second-admin")
    grant(event, other, "admin")
    again = client_for(other).post(pay_url, {"present": "on", "id_checked": "on"})
    assert again.status_code == 409
    assert re.search(
        rf"Already paid: \$100\.00 to {re.escape(share.player.name)} by prize-admin at \d\d:\d\d",
        text(again),
    )
    assert Payout.objects.count() == 1
    # Re-opening the pay page says so and offers no Pay button.
    page = text(desk.get(pay_url))
    assert "Already paid" in page and 'id="pay-button"' not in page


def test_void_needs_a_reason_and_the_prize_can_be_paid_again(event, awarded, desk):
    share = awarded[0]
    payout = payouts.pay(share, actor=rehearsal_organiser(), present=True, id_checked=True)
    void_url = url("payout-void", event, payout.pk)
    response = desk.post(void_url, {"reason": "   "}, follow=True)
    assert "Not voided: Say why the payment is voided." in messages_of(response)
    payout.refresh_from_db()
    assert payout.voided_at is None
    response = desk.post(void_url, {"reason": "Paid the wrong Ann", "q": "x"})
    assert response["Location"] == f"{url('payouts', event)}?q=x"
    payout.refresh_from_db()
    assert payout.void_reason == "Paid the wrong Ann" and payout.voided_by.username == "prize-admin"
    response = desk.post(void_url, {"reason": "again"}, follow=True)
    assert "This payment is already voided." in messages_of(response)
    page = text(desk.get(url("payouts", event), {"q": share.player.code}))
    assert "voided" in page and "Paid the wrong Ann" in page and "Unpaid" in page
    desk.post(url("payout-pay", event, share.pk), {"present": "on", "id_checked": "on"})
    assert Payout.objects.filter(award=share).count() == 2
    ledger = text(desk.get(url("ledger", event)))
    assert "Reason: Paid the wrong Ann" in ledger
    assert ledger.count('data-kind="paid"') == 2 and ledger.count('data-kind="voided"') == 1


# --- the ledger -------------------------------------------------------------------------------


def read_csv(response) -> list[list[str]]:
    body = response.content.decode("utf-8")
    assert body.startswith("\ufeff")
    return list(csv.reader(io.StringIO(body[1:])))


def test_ledger_page_and_csv(event, awarded, desk):
    Player.objects.filter(pk=awarded[0].player_id).update(name='=HYPERLINK("http://x")')
    first = payouts.pay(awarded[0], actor=rehearsal_organiser(), present=True, id_checked=True)
    payouts.void(first, actor=rehearsal_organiser(), reason="+wrong player")
    for share in awarded[:3]:
        payouts.pay(share, actor=rehearsal_organiser(), present=True, id_checked=True)
    books = ledger_service.ledger(event)
    page = text(desk.get(url("ledger", event)))
    # Fees as the desk recorded them: 22 paid, the rehearsal's two volunteers comped.
    assert f"{books.players_paid_entry} recorded at the desk, 2 of them comped" in page
    assert "$440.00" in page  # 22 players × $20
    total = f"${books.awarded_cents / 100:,.2f}"
    assert total in page
    assert f"-${-books.charity_cents / 100:,.2f}" in page  # the sheet pays more than the fees
    response = desk.get(url("ledger-csv", event))
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    assert 'filename="rehearsal-mesquite-2-ledger.csv"' in response["Content-Disposition"]
    rows = read_csv(response)
    payments = [r for r in rows if r and r[0] == "payment"]
    assert len(payments) == 4
    assert [r[7] for r in payments] == ["voided", "paid", "paid", "paid"]
    assert payments[0][4] == '\'=HYPERLINK("http://x")'  # neutralised
    assert payments[0][14] == "'+wrong player"
    totals = {r[1]: r for r in rows if r and r[0] == "category total"}
    assert set(totals) == {line.category.label for line in books.lines}
    assert sum(float(r[2]) for r in totals.values()) == books.awarded_cents / 100
    (all_prizes,) = [r for r in rows if r and r[0] == "all prizes"]
    assert all_prizes[2:] == [
        f"{books.awarded_cents / 100:.2f}",
        f"{books.paid_cents / 100:.2f}",
        f"{books.unpaid_cents / 100:.2f}",
        f"{books.voided_cents / 100:.2f}",
    ]
    (fees,) = [r for r in rows if r and r[0] == "entry fees"]
    assert fees[2] == "440.00"
    (charity,) = [r for r in rows if r and r[0] == "to the charity"]
    assert float(charity[2]) == books.charity_cents / 100


def test_an_award_or_payment_of_another_tournament_is_not_found(event, awarded, client_for):
    """An admin of another event cannot reach this one's prizes through their own URL."""
    other = rehearsal_event.create_event(players=4, preset="classic", seed=9, slug="other-night")[0]
    stranger = UserFactory(username="other-admin")
    grant(other, stranger, "admin")
    client = client_for(stranger)
    payout = payouts.pay(awarded[0], actor=rehearsal_organiser(), present=True, id_checked=True)
    assert client.get(url("payout-pay", other, awarded[1].pk)).status_code == 404
    response = client.post(
        url("payout-pay", other, awarded[1].pk), {"present": "on", "id_checked": "on"}
    )
    assert response.status_code == 404
    assert client.post(url("payout-void", other, payout.pk), {"reason": "x"}).status_code == 404
    assert client.get(url("payouts", event)).status_code == 403
    assert Payout.objects.count() == 1 and Payout.objects.get().voided_at is None


def test_once_a_prize_is_paid_the_judges_picks_and_the_traveling_item_no_longer_change(
    event, awarded, desk
):
    """A pick saved after the first payment could never reach the awards (they are fixed from
    then on), so it is refused, and the page offers neither form; a voided payment still
    counts, as it does for awarding again."""
    PrizeCategoryFactory(
        tournament=event, key="fuzzy", label="Fuzzy Die", measure="traveling_holder",
        scope="overall", amounts_cents=[2000],
    )  # fmt: skip
    costume = PrizeCategoryFactory(
        tournament=event, key="costume2", label="Best Hat", measure="judged", scope="overall",
        amounts_cents=[1000],
    )  # fmt: skip
    player = Player.objects.filter(tournament=event).order_by("pk").first()
    page = text(desk.get(url("prize-winners", event)))
    assert 'id="judged"' in page and "Pass it" in page
    payout = payouts.pay(
        PrizeAward.objects.current().filter(tournament=event).first(),
        actor=rehearsal_organiser(),
        present=True,
        id_checked=True,
    )
    payouts.void(payout, actor=rehearsal_organiser(), reason="Paid the wrong player")
    page = text(desk.get(url("prize-winners", event)))
    assert 'id="judged"' not in page and "Pass it" not in page
    response = desk.post(
        url("prize-nominate", event),
        {"category": costume.pk, "group": OVERALL, "winner": player.pk},
        follow=True,
    )
    assert "Prizes are being paid" in messages_of(response)[0]
    response = desk.post(url("prize-traveling", event), {"player": player.pk}, follow=True)
    assert "Prizes are being paid" in messages_of(response)[0]
    assert not PrizeNomination.objects.filter(category=costume).exists()
    assert not TravelingPass.objects.filter(tournament=event).exists()


def test_the_payout_sheet_says_what_a_winner_gave_back(event, awarded, desk):
    """The treasurer counts the prize box against this paper: a give-back stayed in the box,
    and the sheet did not say so. A voided payment's give-back is reversed with it."""
    first, second = awarded[0], awarded[1]
    paid = payouts.pay(
        first, actor=rehearsal_organiser(), present=True, id_checked=True, give_back_cents=5_00
    )
    payouts.pay(second, actor=rehearsal_organiser(), present=True, id_checked=True)
    lines = {
        (line.category, line.scope, line.place): line.given_back for line in payout_lines(event)
    }
    place = {a.pk: (a.category.label, a.where_won, ordinal(a.place)) for a in (first, second)}
    assert lines[place[first.pk]] == "$5.00" and lines[place[second.pk]] == ""
    payouts.void(paid, actor=rehearsal_organiser(), reason="Wrong player")
    lines = payout_lines(event)
    assert not any(line.given_back for line in lines)


def test_the_ledger_says_what_fees_are_still_owed(event, desk):
    """A walk read "To the charity $169" on the ledger beside "Left for the charity $405" on
    the prize pages: the projection counts fees still owed, the ledger only money recorded.
    The ledger now says what it leaves out."""
    assert 'id="fees-owed"' not in text(desk.get(url("ledger", event)))
    late = PlayerFactory(tournament=event)
    Tournament.objects.filter(pk=event.pk).update(check_in_open=True)
    checkin.check_in(Player.objects.get(pk=late.pk), rehearsal_organiser())
    page = text(desk.get(url("ledger", event)))
    owed = money(cashbook.fee_cents(event))
    assert f"; {owed} of fees still owed, not counted here" in page
