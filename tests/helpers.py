"""Ways to set up an event in a given state, shared by the test modules."""

import datetime
import html
import json
import random
import threading
from dataclasses import replace
from decimal import Decimal
from io import StringIO
from types import SimpleNamespace
from urllib.parse import urlsplit

from django.apps import apps
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.urls import reverse
from django.utils import timezone

from scoring.services import cards as card_service
from scoring.services.results import ResultEntry, record_result
from tests.factories import PASSWORD, PlayerFactory
from tournaments.models import FinalTable, PrizeAward, PrizeCategory, Stage, Tournament
from tournaments.prizes import OVERALL
from tournaments.services import advancement, prizes, rehearsal
from tournaments.services import stages as stage_service
from tournaments.services.errors import UserFacingError
from tournaments.services.rehearsal import (
    PODS_PER_STAFF,
    _staff_accounts,
    create_event,
    derived_seed,
    pod_seeds,
    settle_roll_offs,
    staff_pods,
)
from tournaments.services.rehearsal import play_stage as play_whole_stage
from tournaments.services.rounds import start_next_round
from tournaments.services.stages import draw_qualifying

# 24 players, seed 2: in pod 1 players 12 and 16 share the most wins (12), and among the
# rest players 1 and 14 share the most buncos (2) whoever wins the first roll-off.
TIES_SEED = 2


def url(name, tournament, *args):
    return reverse(name, args=[tournament.slug, *args])


def text(response) -> str:
    return html.unescape(response.content.decode())


def log_in(page, user, next_url, *, tap=False):
    """Signs in through the login form in a browser, as a person would; `tap` on a phone.
    Waits by path: the login page's own URL ends with "?next=<next_url>"."""
    page.goto(f"{reverse('login')}?next={next_url}")
    page.locator("#id_username").fill(user.username)
    page.locator("#id_password").fill(PASSWORD)
    button = page.get_by_role("button", name="Log in")
    button.tap() if tap else button.click()
    page.wait_for_url(lambda address: urlsplit(address).path == next_url)


def sign_in(username, password, address="127.0.0.1", client=None):
    """Posts the login page from `address`, as a phone behind it would: (client, response)."""
    from django.test import Client

    client = client or Client()
    response = client.post(
        reverse("login"), {"username": username, "password": password}, REMOTE_ADDR=address
    )
    return client, response


def signed_in(client) -> bool:
    return "_auth_user_id" in client.session


def fail_sign_ins(username, times, address):
    for _ in range(times):
        sign_in(username, "wrong", address)


def checked_in(tournament, n, **kwargs):
    return PlayerFactory.create_batch(
        n, tournament=tournament, checked_in_at=timezone.now(), **kwargs
    )


def drawn_stage(tournament, organiser, players=12, *, staff=None, start=True, seed=1, names=()):
    """Checked-in players drawn into pods; `staff` assigned to pod 1; round 1 started."""
    for name in names:
        PlayerFactory(tournament=tournament, name=name, checked_in_at=timezone.now())
    checked_in(tournament, players - len(names))
    stage = draw_qualifying(tournament, actor=organiser, seed=seed)
    if staff is not None:
        stage.pods.get(number=1).staff.add(staff)
    if start:
        start_next_round(stage, actor=organiser)
    return stage


def record_pod(pod, round_, actor, winners):
    """Records every table of a pod with just the winning pairs, as staff tapping would."""
    for table, winner in enumerate(winners, start=1):
        record_result(
            round_=round_,
            pod=pod,
            table=table,
            entry=ResultEntry(winner=winner),
            actor=actor,
            base_version=0,
        )


def at_once(*calls):
    """Runs each call in its own thread (so on its own database connection), released
    together by a barrier so they really race; returns each result or the exception it
    raised, in order."""
    barrier = threading.Barrier(len(calls))
    outcomes = [None] * len(calls)

    def run(i, call):
        try:
            barrier.wait(timeout=10)
            outcomes[i] = call()
        except Exception as exc:  # noqa: BLE001 - the caller sorts them out
            outcomes[i] = exc
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(i, call)) for i, call in enumerate(calls)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
        assert not thread.is_alive(), "a racing call hung"
    return outcomes


def one_wins(*calls):
    """Races the calls with `at_once`: exactly one succeeds and every other is refused with a
    message for the person (a UserFacingError, never a database error). Returns the winner's
    result and the others' messages."""
    outcomes = at_once(*calls)
    refused = [o for o in outcomes if isinstance(o, Exception)]
    unexpected = [o for o in refused if not isinstance(o, UserFacingError)]
    assert not unexpected, f"not a user-facing refusal: {unexpected!r}"
    done = [o for o in outcomes if not isinstance(o, Exception)]
    assert len(done) == 1, outcomes
    return done[0], [r.message for r in refused]


def most_wins_per_pod(tournament, key="wins", amounts=(4000,), tie="roll_off") -> PrizeCategory:
    """A "Most wins" prize per pod counted over the qualifying stage."""
    return PrizeCategory.objects.create(
        tournament=tournament,
        key=key,
        label="Most wins",
        measure="most_wins",
        scope="pod",
        amounts_cents=list(amounts),
        tie_policy=tie,
    )


def awarded_directly(tournament, players, cents=5000):
    """A "Most Buncos" prize of `cents` for each player (1st, 2nd, ...), stored as the
    awarding service stores it, without playing an event."""
    category = PrizeCategory.objects.create(
        tournament=tournament,
        key="buncos",
        label="Most Buncos",
        measure="most_buncos",
        scope="overall",
        amounts_cents=[cents] * len(players),
    )
    return [
        PrizeAward.objects.create(
            tournament=tournament,
            category=category,
            scope_group="overall",
            place=place,
            player=player,
            amount_cents=cents,
        )
        for place, player in enumerate(players, start=1)
    ]


def award_everything(tournament, actor):
    """The mesquite sheet loaded, judges' picks made, roll-offs rolled, prizes awarded."""
    prizes.load_template(tournament, "mesquite", actor=actor)
    totals = [t for t in prizes.player_totals(tournament, "qualifying") if t.eligible]
    for category in tournament.prize_categories.filter(measure="judged"):
        if category.scope == "pod":
            for pod in sorted({t.pod for t in totals}):
                first = next(t.player for t in totals if t.pod == pod)
                prizes.nominate(category, str(pod), [first], actor=actor)
        else:
            prizes.nominate(category, OVERALL, [1], actor=actor)
    while pending := prizes.plan_prizes(tournament).pending:
        for tie in pending:
            prizes.record_prize_roll_off(tournament, tie.key, actor=actor)
    return prizes.award(tournament, actor=actor)


def rehearsal_organiser():
    """The organiser account `rehearse` signs everything with."""
    return get_user_model().objects.get(username="organiser")


def played_without_prizes(monkeypatch, *, players=24, seed=2, preset="mesquite") -> Tournament:
    """A whole event played and verified by the rehearsal, without its prize table, so a
    test can award (or not) the prizes itself."""
    monkeypatch.setattr(rehearsal, "award_and_pay", lambda *args, **kwargs: {})
    return rehearsal.rehearse(players=players, preset=preset, seed=seed).tournament


def played_qualifying(players: int, seed: int, *, slug: str | None = None, **settings):
    """Registered, drawn, played and every card verified: ready for the cut, nothing saved."""
    tournament, organiser = create_event(
        players=players, preset="classic", seed=seed, slug=slug or f"adv-{players}-{seed}"
    )
    if settings:
        Tournament.objects.filter(pk=tournament.pk).update(**settings)
        tournament.refresh_from_db()
    stage = stage_service.draw_qualifying(
        tournament, actor=organiser, seed=seed, spread_groups=False
    )
    staff = _staff_accounts(tournament, max(1, -(-stage.pods.count() // PODS_PER_STAFF)))
    staff_pods(stage, staff, organiser)
    seeds = {n: random.Random(s) for n, s in enumerate(pod_seeds(players, seed), start=1)}
    play_whole_stage(stage, seeds, organiser=organiser, last=stage.round_count)
    stage.refresh_from_db()
    # Those who play: rehearsals also have a cancelled and a waitlisted registration.
    pks = sorted(tournament.players.filter(status="registered").values_list("pk", flat=True))
    return SimpleNamespace(
        tournament=tournament,
        organiser=organiser,
        stage=stage,
        staff=staff,
        seed=seed,
        pk=lambda n: pks[n - 1],  # the simulator's player n
    )


def semi_played(event) -> Stage:
    """Qualifiers saved (roll-offs on screen), the semi-final drawn, played and verified."""
    settle_roll_offs(event.stage, organiser=event.organiser)
    advancement.save_qualifiers(event.stage, actor=event.organiser)
    semi = advancement.draw_semi_final(event.tournament, actor=event.organiser)
    staff_pods(semi, event.staff, event.organiser)
    seeds = {
        pod.number: random.Random(derived_seed(event.seed, "semi", pod.number))
        for pod in semi.pods.all()
    }
    play_whole_stage(semi, seeds, organiser=event.organiser, last=semi.round_count)
    semi.refresh_from_db()
    return semi


def seated_final(seed: int = 7, players: int = 24) -> tuple[SimpleNamespace, FinalTable]:
    event = played_qualifying(players, seed)
    semi = semi_played(event)
    settle_roll_offs(semi, organiser=event.organiser)
    final = advancement.seat_final(event.tournament, actor=event.organiser)
    return event, final


def verified_after_three_rounds():
    """12 players stopped after round 3 with every card so far verified: the cards agree with
    the tables and tie (seed 4), yet the stage is not over."""
    r = rehearsal.rehearse(players=12, preset="classic", seed=4, stop_after_round=3)
    stage = Stage.objects.get(tournament=r.tournament, kind="qualifying")
    organiser = r.tournament.created_by
    cards = card_service.load_stage(stage)
    staff = stage.pods.get().staff.order_by("username").first()
    for pid in cards.in_pod(1):
        player = cards.players[pid]
        card_service.enter_card(stage, player, cards.records[pid], actor=staff, base_version=0)
        card_service.confirm_card(stage, player, actor=organiser, version=1)
    return r.tournament, stage, organiser


def reenter_card(stage, player_pk, actor, change=lambda card: card) -> None:
    """A new version of a player's card: the current one, passed through `change`."""
    cards = card_service.load_stage(stage)
    current = cards.versions[player_pk][-1]
    card_service.enter_card(
        stage,
        cards.players[player_pk],
        change(card_service.card_of(current)),
        actor=actor,
        base_version=current.version,
    )


def miscount(stage, player_pk, actor) -> None:
    """A new version of a verified card that disagrees with the tables: the player is no
    longer eligible until it is resolved, whatever the preset's verification. (A mere
    re-entry would not do: under the Mesquite sheet one staff member's matching entry
    verifies the card at once.)"""
    reenter_card(stage, player_pk, actor, lambda card: replace(card, buncos=card.buncos + 1))


def unverify(stage, player_pk, actor) -> None:
    """A new, unconfirmed version of a verified card: under a second person's check the card
    is no longer verified until someone else confirms it."""
    reenter_card(stage, player_pk, actor)


def settings_data(tournament, **changes):
    """The tournament settings form as saved, with `changes` applied."""
    data = {
        "name": tournament.name,
        "charity": tournament.charity,
        "date": tournament.date.isoformat(),
        "venue": tournament.venue,
        "entry_fee": tournament.entry_fee,
        "capacity": tournament.capacity,
        "qualifying_sets": tournament.qualifying_sets,
        "preset": tournament.preset_id,
        "wins_places": tournament.wins_places,
        "buncos_places": tournament.buncos_places,
        "top_both": tournament.top_both,
        "semi_final_sets": tournament.semi_final_sets,
    }
    return {**data, **changes}


def export_to(tmp_path, slug, name):
    """`export_tournament` to a file in `tmp_path`, read back."""
    out = tmp_path / name
    call_command("export_tournament", slug, "--out", str(out), stdout=StringIO())
    return json.loads(out.read_text())


def database_counts():
    """Every model's rows (many-to-many tables too): what a refused import must leave as is."""
    return {
        m._meta.label_lower: m._base_manager.count()
        for m in apps.get_models(include_auto_created=True)
    }


def migrate(target):
    """Moves the test database's schema to `target` (a list of (app, migration)) and gives
    the historical models there, for the tests of a data migration."""
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(target)
    return executor.loader.project_state(target).apps


def newest_migrations():
    """Every app's newest migration: where the tests after a migration test expect the schema."""
    return MigrationExecutor(connection).loader.graph.leaf_nodes()


def charging(tournament, fee="20.00"):
    """The tournament with an entry fee, so the desk takes money."""
    tournament.entry_fee = Decimal(fee)
    tournament.save()
    return tournament


def full_with_waitlist(tournament, *names):
    """Four registered players fill the event; each of `names` then waits, in order."""
    from tournaments.services.registration import Registrant, register_party

    tournament.capacity = 4
    tournament.save()
    playing = PlayerFactory.create_batch(4, tournament=tournament)
    waiting = [
        register_party(tournament, [Registrant(n, f"{n.lower()}@example.org")], waitlist_ok=True)[0]
        for n in names
    ]
    return playing, waiting


def old_tournament(apps, players: int = 0):
    """A tournament and its players made with the historical models of `apps` (from
    `migrate`): the factories use today's models, whose newer columns an older schema lacks."""
    Tournament = apps.get_model("tournaments", "Tournament")
    Player = apps.get_model("tournaments", "Player")
    n = Tournament.objects.count()
    tournament = Tournament.objects.create(
        name=f"Old Bunco Night {n}",
        slug=f"old-bunco-night-{n}",
        charity="Breast Cancer Research",
        date=datetime.date.today() + datetime.timedelta(days=30),
        venue="Grand Ballroom",
        capacity=120,
        qualifying_sets=3,
        preset=apps.get_model("tournaments", "RulePreset").objects.get(slug="classic"),
    )
    ids = [
        Player.objects.create(
            tournament=tournament, name=f"Player {i}", email=f"old{n}.{i}@example.org"
        ).pk
        for i in range(players)
    ]
    return tournament, ids
