"""Draws nobody can choose: codes from a sealed secret, its fingerprint public from the start,
the secret published when nothing is left to draw, and the check on the results page, in
`verify_draws` and after moving the event to another site.

The typed-seed tests of the other draw pages live with those pages (stage, advancement,
prizes); the final table's dice are here.
"""

import hashlib
import random
import re
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from tests.support.events import (
    miscount,
    most_wins_per_pod,
    played_without_prizes,
    seated_final,
    staff_accounts,
)
from tests.support.factories import checked_in
from tests.support.web import text, url
from tournaments.foundation.errors import UserFacingError
from tournaments.models import Draw, RollOff, Tournament
from tournaments.rules.draws import Status, draw_code
from tournaments.services import (
    draws,
    final_table,
    prizes,
    rehearsal,
    rehearsal_event,
    transfer,
)
from tournaments.services.stages import draw_qualifying

pytestmark = pytest.mark.django_db

FINGERPRINT = re.compile(r"data-fingerprint>([0-9a-f]{64})<")


def board_fingerprint(client, tournament) -> str:
    page = text(client.get(url("board", tournament)))
    return re.search(r'id="board-fingerprint">.*?([0-9a-f]{64})', page, re.S).group(1)


def test_the_fingerprint_shown_before_the_draws_is_the_sha256_of_the_secret_shown_after(
    client, client_for
):
    tournament, organiser = rehearsal_event.create_event(
        players=24, preset="mesquite", seed=4, slug="sealed-night"
    )
    Tournament.objects.filter(pk=tournament.pk).update(standings_public=True)
    org = client_for(organiser)
    before = board_fingerprint(client, tournament)
    stage_page = text(org.get(url("stage-control", tournament)))
    assert FINGERPRINT.search(stage_page).group(1) == before
    results = text(client.get(url("results", tournament)))
    assert before in results and "stays sealed" in results
    for page in (stage_page, results, text(client.get(url("board", tournament)))):
        assert tournament.draw_secret not in page

    # The evening, every draw from the secret: nobody gives the qualifying draw a seed here.
    stage = draw_qualifying(tournament, actor=organiser, spread_groups=False)
    staff = staff_accounts(tournament, 1)
    rehearsal.staff_pods(stage, staff, organiser)
    seeds = {pod.number: random.Random(pod.number) for pod in stage.pods.all()}
    rehearsal.play_stage(stage, seeds, organiser=organiser, last=stage.round_count)
    rehearsal.play_finals(tournament, stage, organiser=organiser, staff=staff, seed=4)
    tournament.refresh_from_db()
    assert tournament.final.winner_id is not None
    # The grand prize is won, but the prize table may still need dice: still sealed.
    results = text(client.get(url("results", tournament)))
    assert tournament.draw_secret not in results and "stays sealed" in results
    assert board_fingerprint(client, tournament) == before

    rehearsal.award_and_pay(tournament, organiser=organiser, seed=4)
    results = text(client.get(url("results", tournament)))
    secret = re.search(r'id="draws-secret">([0-9a-f]{64})<', results).group(1)
    assert hashlib.sha256(bytes.fromhex(secret)).hexdigest() == before
    assert "Every draw checks out" in results and "not made from the secret" not in results
    listed = list(Draw.objects.filter(tournament=tournament))
    assert {d.subject.split(":")[0] for d in listed} >= {"pods", "final"}
    for d in listed:
        assert d.source == Draw.Source.SECRET and d.seed == draw_code(secret, d.label)
        row = results.split(f'data-draw="{d.label}"')[1].split("</tr>")[0]
        assert str(d.seed) in row and "✓ checks out" in row
    # The board's winner screen shows the published secret too.
    assert secret in text(client.get(url("board", tournament)))


def test_final_table_dice_rolled_on_screen_ignore_a_typed_seed(client_for):
    event, final = seated_final()
    staff = client_for(event.staff[0])
    typed = {"roll": "on", "seed": "5", "dice_seed": "5"}
    staff.post(url("final-order", event.tournament), typed)
    staff.post(url("final-throw", event.tournament), {**typed, "number": 1})
    final.refresh_from_db()
    code = draw_code(event.tournament.draw_secret, "final:dice#1")
    assert final.dice_seed == code != 5
    (made,) = final.throws.all()
    rng = random.Random(f"{code}:1")
    assert made.dice == [rng.randint(1, 6) for _ in range(3)]
    (listed,) = Draw.objects.filter(tournament=event.tournament, subject="final:dice")
    assert listed.seed == code
    # Until the grand prize is won, the page does not show the code the next throws follow.
    page = text(staff.get(url("final-table", event.tournament)))
    assert 'id="dice-seed"' not in page and str(code) not in page


def test_the_secret_is_published_by_hand_only_after_the_grand_prize(client_for):
    event, final = seated_final()
    org = client_for(event.organiser)
    publish = url("advancement-publish-draws", event.tournament)
    page = text(org.post(publish, follow=True))
    assert "The draw secret can be published once the grand prize is won." in page
    assert not draws.is_published(Tournament.objects.get(pk=event.tournament.pk))
    final_table.roll_for_order(final, actor=event.organiser, faces=[1, 2, 3, 4])
    final_table.throw(final, actor=event.organiser, dice=(5, 5, 5))
    assert 'id="publish-draws"' in text(org.get(url("advancement", event.tournament)))
    # Staff may run the final table but not publish the secret.
    assert client_for(event.staff[0]).post(publish).status_code == 403
    response = org.post(publish, follow=True)
    assert response.redirect_chain[-1][0] == url("results", event.tournament) + "#draws"
    assert "Every draw checks out" in text(response)
    tournament = Tournament.objects.get(pk=event.tournament.pk)
    assert tournament.draws_published_at is not None
    assert "already published" in text(org.post(publish, follow=True))


def test_once_published_the_site_no_longer_rolls_on_screen(monkeypatch):
    tournament = played_without_prizes(monkeypatch, players=24, seed=2)
    organiser = tournament.created_by
    draws.publish(tournament, actor=organiser)
    prizes.load_template(tournament, "mesquite", actor=organiser)
    tie = prizes.plan_prizes(tournament).pending[0]
    with pytest.raises(UserFacingError, match="already published"):
        prizes.record_prize_roll_off(tournament, tie.key, actor=organiser)
    assert not Draw.objects.filter(subject__startswith="prize-roll-off").exists()
    # Real dice thrown at the table are still typed in.
    faces = [6] + [1] * (len(tie.players) - 1)
    assert prizes.record_prize_roll_off(tournament, tie.key, actor=organiser, faces=faces)


def test_a_prize_roll_off_thrown_again_gets_its_next_attempt_and_both_stay_listed(monkeypatch):
    tournament = played_without_prizes(monkeypatch, players=24, seed=2)
    organiser = tournament.created_by
    most_wins_per_pod(tournament)
    qualifying = tournament.stages.get(kind="qualifying")
    # Pod 1's tie on wins is the cut's tie, settled by its roll-off (one tie, one roll-off);
    # a tied player's card reopened makes it a tie of the prize alone.
    ((_, cut),) = [(k, r) for k, r in prizes.plan_prizes(tournament).shared if k == "wins:1:1"]
    miscount(qualifying, cut.players[0], organiser)
    (tie,) = [t for t in prizes.plan_prizes(tournament).pending if t.scope_group == 1]
    first = prizes.record_prize_roll_off(tournament, tie.key, actor=organiser)
    # Another tied player's card is reopened: the tie changes and is thrown again.
    miscount(qualifying, tie.players[0], organiser)
    second = prizes.record_prize_roll_off(tournament, tie.key, actor=organiser)
    subject = f"prize-roll-off:{tie.key}"
    secret = tournament.draw_secret
    assert (first.seed, second.seed) == (
        draw_code(secret, f"{subject}#1"),
        draw_code(secret, f"{subject}#2"),
    )
    assert RollOff.objects.current().get(key=tie.key).seed == second.seed
    listed = Draw.objects.filter(tournament=tournament, subject=subject).order_by("attempt")
    assert [(d.attempt, d.seed) for d in listed] == [(1, first.seed), (2, second.seed)]

    draws.publish(tournament, actor=organiser)
    report = draws.draw_report(Tournament.objects.get(pk=tournament.pk))
    assert report.ok and not report.problems
    lines = [line for line in report.lines if line.draw.subject == subject]
    assert [line.what for line in lines] == [
        "Prize roll-off: Most wins (pod 1, from place 1)",
        "Prize roll-off: Most wins (pod 1, from place 1), attempt 2",
    ]
    assert all(line.status == Status.CHECKS for line in lines)
    # Deleting the first attempt from the list would show, twice: the gap in the attempts,
    # and the first throw (kept as version 1 of the roll-off) replaying from an unlisted code.
    listed.filter(attempt=1).delete()
    report = draws.draw_report(Tournament.objects.get(pk=tournament.pk))
    assert not report.ok
    assert report.problems == [
        f"Prize roll-off: Most wins (pod 1, from place 1) replays from draw code {first.seed}, "
        "which is not in the list of draws.",
        "Prize roll-off: Most wins (pod 1, from place 1): attempt 1 is missing from the list.",
    ]


def verify_output(*args) -> str:
    out = StringIO()
    call_command("verify_draws", *args, stdout=out)
    return out.getvalue()


def test_verify_draws_prints_every_draw_and_fails_a_tampered_one():
    tournament = rehearsal.rehearse(players=24, preset="mesquite", seed=5).tournament
    listed = list(Draw.objects.filter(tournament=tournament))
    out = verify_output(tournament.slug)
    assert f"Fingerprint (SHA-256 of the secret): {tournament.draw_fingerprint}" in out
    assert f"Secret (published): {tournament.draw_secret}" in out
    assert "SHA-256 of the secret matches the fingerprint." in out
    practice, *drawn = listed
    assert (
        "[  --] Qualifying pods and hostesses: label pods:qualifying#1, draw code 5, "
        "set by a practice run, so it replays the simulator"
    ) in out
    for d in drawn:
        assert f"label {d.label}, draw code {d.seed}, checks out" in out
    assert f"Every draw checks out: {len(drawn)} from the secret; 1 not drawn" in out

    # A fingerprint noted before the draws that is not this secret's: nothing checks out.
    with pytest.raises(CommandError, match="Not every draw checks out"):
        verify_output(tournament.slug, "--fingerprint", "ab" * 32)
    # A draw code changed in the database after the fact.
    Draw.objects.filter(pk=drawn[0].pk).update(seed=drawn[0].seed + 1)
    out = StringIO()
    with pytest.raises(CommandError, match="Not every draw checks out"):
        call_command("verify_draws", tournament.slug, stdout=out)
    assert "[FAIL] " in out.getvalue() and "does not match the secret" in out.getvalue()
    assert "which is not in the list of draws" in out.getvalue()
    with pytest.raises(CommandError, match="No tournament has the slug"):
        verify_output("nowhere")


def test_verify_draws_before_the_secret_is_published(tournament, organiser):
    assert "Nothing has been drawn yet." in verify_output(tournament.slug)
    checked_in(tournament, 12)
    stage = draw_qualifying(tournament, actor=organiser)
    out = verify_output(tournament.slug)
    assert "Secret: still sealed." in out and tournament.draw_secret not in out
    assert (
        f"[  ..] Qualifying pods and hostesses: label pods:qualifying#1, draw code {stage.seed}"
        in out
    )


def test_a_moved_event_still_checks_out():
    tournament = rehearsal.rehearse(players=24, preset="mesquite", seed=5).tournament
    export = transfer.export_tournament(tournament)
    moved = transfer.import_tournament(export, slug="moved-night").tournament
    assert moved.draw_secret == tournament.draw_secret
    assert moved.draw_fingerprint == tournament.draw_fingerprint
    before, after = draws.draw_report(tournament), draws.draw_report(moved)
    assert after.ok and after.published
    assert [(line.label, line.draw.seed, line.status) for line in after.lines] == [
        (line.label, line.draw.seed, line.status) for line in before.lines
    ]
    assert "Every draw checks out" in verify_output("moved-night")


def test_the_board_does_not_call_a_practice_runs_pods_sealed(client, tournament, organiser):
    """The room reads the projector: pods a practice run set (the demo's, a rehearsal's) are
    not "sealed before the event", on the page or in the part it fetches again."""
    checked_in(tournament, 22)
    draw_qualifying(tournament, actor=organiser, seed=20260501)
    for name in ("board", "board-live"):
        footer = re.search(
            r'id="board-fingerprint">(.*?)</footer>', text(client.get(url(name, tournament))), re.S
        ).group(1)
        assert "sealed before the event" not in footer
        assert footer.startswith(
            "Draws not all from the sealed secret (set by a practice run, so it replays the "
            "simulator) · fingerprint"
        )
        # Draws still to come (the final table's dice, say) are made from the secret.
        assert tournament.draw_fingerprint in footer
