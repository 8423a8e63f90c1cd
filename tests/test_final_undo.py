"""The organiser takes back the final table's last throw with a reason: the throw is kept and
marked voided, the same finalist throws again, and a grand prize it won is taken back."""

from __future__ import annotations

import pytest
from django.urls import reverse

from tests.support.events import seated_final
from tournaments.foundation.errors import UserFacingError
from tournaments.models import AuditEntry, FinalThrow, Role, TournamentRole
from tournaments.services import draws, final_table
from tournaments.services.final_undo import void_last_throw

pytestmark = pytest.mark.django_db


def ordered_final():
    event, final = seated_final()
    final = final_table.roll_for_order(final, actor=event.organiser, faces=[2, 5, 1, 5])
    return event, final


def test_a_mistyped_winning_throw_is_voided_and_the_same_finalist_throws_again():
    event, final = ordered_final()
    organiser = event.organiser
    first, second = final.order[0], final.order[1]
    final_table.throw(final, actor=organiser, dice=(1, 2, 3))
    final_table.throw(final, actor=organiser, dice=(4, 4, 4))  # meant 4 4 5
    final.refresh_from_db()
    assert final.winner_id == second

    with pytest.raises(UserFacingError, match="Say why"):
        void_last_throw(final, actor=organiser, number=2, reason="  ")
    with pytest.raises(UserFacingError, match="Only the last throw"):
        void_last_throw(final, actor=organiser, number=1, reason="typo")
    final.refresh_from_db()
    assert final.winner_id == second and not FinalThrow.objects.filter(voided_at__isnull=False)

    voided = void_last_throw(final, actor=organiser, number=2, reason="die 3 was a 5")
    final.refresh_from_db()
    assert final.winner_id is None and final.finished_at is None
    assert voided.voided_by == organiser and voided.void_reason == "die 3 was a 5"
    assert FinalThrow.objects.filter(final=final).count() == 2  # nothing deleted
    entry = AuditEntry.objects.get(action="final.throw_voided")
    assert "die 3 was a 5" in entry.summary and "no longer wins the grand prize" in entry.summary
    assert entry.data["winner_taken_back"] is True
    with pytest.raises(UserFacingError, match="Only the last throw"):
        void_last_throw(final, actor=organiser, number=2, reason="again")

    # The same finalist throws again, as throw 3; then throw 2 can no longer be voided.
    again = final_table.throw(final, actor=organiser, dice=(4, 4, 5), number=3)
    assert again.number == 3 and again.player_id == second
    nxt = final_table.throw(final, actor=organiser, dice=(1, 2, 3))
    assert nxt.player_id == final.order[2]
    assert first != second


def test_a_throw_cannot_be_voided_once_the_next_one_is_recorded():
    event, final = ordered_final()
    final_table.throw(final, actor=event.organiser, dice=(1, 2, 3))
    final_table.throw(final, actor=event.organiser, dice=(1, 2, 4))
    with pytest.raises(UserFacingError, match="throw 1 is not it"):
        void_last_throw(final, actor=event.organiser, number=1, reason="late")
    assert not AuditEntry.objects.filter(action="final.throw_voided").exists()


def test_the_organiser_voids_on_the_page_and_staff_cannot(client_for):
    event, final = ordered_final()
    tournament = event.tournament
    final_table.throw(final, actor=event.organiser, dice=(6, 6, 6))
    page = reverse("final-table", args=[tournament.slug])
    organiser = client_for(event.organiser)
    html = organiser.get(page).content.decode()
    assert 'id="void-form"' in html and "takes back the grand prize" in html

    staff = TournamentRole.objects.filter(tournament=tournament, role=Role.STAFF).first().user
    refused = client_for(staff).post(
        reverse("final-void", args=[tournament.slug]), {"number": 1, "reason": "x"}
    )
    assert refused.status_code == 403
    assert "void-form" not in client_for(staff).get(page).content.decode()

    empty = organiser.post(
        reverse("final-void", args=[tournament.slug]), {"number": 1, "reason": ""}, follow=True
    )
    assert "Say why the throw is voided" in empty.content.decode()
    final.refresh_from_db()
    assert final.winner_id is not None

    done = organiser.post(
        reverse("final-void", args=[tournament.slug]),
        {"number": 1, "reason": "the dice were still rolling"},
        follow=True,
    )
    html = done.content.decode()
    assert "Throw 1 is voided" in html and "data-voided" in html
    assert 'id="throw-form"' in html and 'name="number" value="2"' in html
    final.refresh_from_db()
    assert final.winner_id is None
    board = client_for(event.organiser).get(reverse("board", args=[tournament.slug]))
    assert "voided" in board.content.decode()


def test_once_the_draw_secret_is_published_the_page_offers_no_void(client_for):
    """The void service refuses once the secret is out (the result is final); the page said
    'Mistyped? Void throw 1: this takes back the grand prize' all the same."""
    event, final = ordered_final()
    tournament = event.tournament
    final_table.throw(final, actor=event.organiser, dice=(6, 6, 6))
    draws.publish(tournament, actor=event.organiser)
    html = client_for(event.organiser).get(reverse("final-table", args=[tournament.slug]))
    html = html.content.decode()
    assert 'id="void-form"' not in html and "takes back the grand prize" not in html
    assert 'id="result-final"' in html
    with pytest.raises(UserFacingError, match="published"):
        void_last_throw(final, actor=event.organiser, number=1, reason="too late")
