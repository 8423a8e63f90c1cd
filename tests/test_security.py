"""Pages run under a content security policy, public pages keep players' contact details to
themselves, and player links cannot be guessed or forged (sign-in limits: test_sign_in_limits)."""

import re
from pathlib import Path

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core import signing
from django.urls import reverse

from tests.support.factories import PASSWORD, OrganiserFactory, TournamentFactory, drawn_stage
from tournaments.models import Player, Stage, TournamentRole
from tournaments.services.printouts import card_token
from tournaments.services.rehearsal import rehearse
from tournaments.views.registration import CONFIRMATION_SALT

# --- content security policy -----------------------------------------------------------------

TEMPLATES = Path(settings.BASE_DIR) / "templates"
INLINE_SCRIPT = re.compile(r"<script(?![^>]*\bsrc=)(?![^>]*application/json)[^>]*>", re.I)
INLINE_STYLE = re.compile(r"<style\b|\sstyle\s*=", re.I)
INLINE_HANDLER = re.compile(r"\s(on[a-z]+|(?:data-)?hx-on[:\w-]*)\s*=|javascript:", re.I)


def csp_directives(response) -> dict[str, list[str]]:
    header = response["Content-Security-Policy"]
    parts = [part.split() for part in header.split(";") if part.strip()]
    return {part[0]: part[1:] for part in parts}


def test_pages_carry_the_content_security_policy(tournament, client):
    response = client.get(reverse("tournament-public", args=[tournament.slug]))
    directives = csp_directives(response)
    assert directives["default-src"] == ["'self'"]
    assert directives["script-src"] == ["'self'"]
    assert directives["style-src"] == ["'self'"]
    assert directives["img-src"] == ["'self'", "data:"]
    assert directives["object-src"] == ["'none'"]
    assert directives["frame-ancestors"] == ["'none'"]
    assert directives["form-action"] == ["'self'"]
    assert directives["base-uri"] == ["'self'"]
    assert response["X-Frame-Options"] == "DENY"
    assert response["Referrer-Policy"] == "same-origin"
    assert response["X-Content-Type-Options"] == "nosniff"


def test_no_template_runs_inline_script():
    """The policy blocks them, so one would silently stop working: say which instead."""
    found = []
    for path in sorted(TEMPLATES.rglob("*.html")):
        text = path.read_text()
        for pattern in (INLINE_SCRIPT, INLINE_HANDLER):
            found += [f"{path.relative_to(TEMPLATES)}: {m[0]!r}" for m in pattern.finditer(text)]
    assert not found, "Inline script (move it to static/js/): " + "; ".join(found)


def test_no_template_carries_an_inline_style():
    """The policy has no 'unsafe-inline' for styles: a <style> block or style="" attribute
    would silently not apply. (A template's own `with style=...` argument is not one.)"""
    found = []
    for path in sorted(TEMPLATES.rglob("*.html")):
        text = re.sub(r"\{%.*?%\}", "", path.read_text())
        found += [f"{path.relative_to(TEMPLATES)}: {m[0]!r}" for m in INLINE_STYLE.finditer(text)]
    assert not found, "Inline style (move it to static/css/): " + "; ".join(found)


# --- public pages and player links ------------------------------------------------------------


@pytest.fixture
def finished(db, django_user_model):
    """A whole event, published, whose players have contact details nobody else should see."""
    tournament = rehearse(players=24, preset="mesquite", seed=5, slug="leak-check").tournament
    tournament.standings_public = True
    tournament.save(update_fields=["standings_public"])
    for player in tournament.players.all():
        player.email = f"secret-{player.pk}@leak.example"
        player.phone = f"+1 555 77{player.pk:04d}"
        player.save(update_fields=["email", "phone"])
    return tournament


def public_pages(tournament) -> list[tuple[str, dict, dict]]:
    """Every page a visitor reaches, with what a player would type into it."""
    slug = tournament.slug
    players = list(tournament.players.order_by("pk"))
    player = players[0]
    stages = list(tournament.stages.all())
    pages = [
        (reverse("tournament-public", args=[slug]), {}, {}),
        (reverse("register", args=[slug]), {}, {}),
        (
            reverse("register-done", args=[slug, signing.dumps(player.pk, salt=CONFIRMATION_SALT)]),
            {},
            {},
        ),
        (reverse("board", args=[slug]), {}, {}),
        (reverse("board-live", args=[slug]), {}, {"HTTP_HX_REQUEST": "true"}),
        (reverse("results", args=[slug]), {}, {}),
        (reverse("home"), {}, {}),
    ]
    for query in (player.code, player.name, player.name.split()[0], "@leak", "555"):
        pages.append((reverse("seat-finder", args=[slug]), {"q": query}, {}))
        pages.append(
            (reverse("seat-finder", args=[slug]), {"q": query}, {"HTTP_HX_REQUEST": "true"})
        )
    for p in players:
        pages.append((reverse("my-card", args=[slug]), {"code": p.code}, {}))
    for stage in stages:
        pages.append((reverse("standings", args=[slug]), {"stage": stage.kind}, {}))
        pages.append((reverse("standings", args=[slug]), {"stage": stage.kind, "pod": "1"}, {}))
        for p in players:
            pages.append((reverse("card-check", args=[slug, card_token(p.pk, stage.kind)]), {}, {}))
    return pages


def test_public_pages_never_show_emails_or_phones(finished, client):
    secrets = []
    for email, phone in finished.players.values_list("email", "phone"):
        secrets += [email, email.split("@")[0], phone, phone.replace(" ", "")]
    shown = 0
    for url, query, headers in public_pages(finished):
        response = client.get(url, query, **headers)
        assert response.status_code in (200, 404), (url, query, response.status_code)
        if response.status_code == 200:
            shown += 1
            body = response.content.decode()
            leaked = [s for s in secrets if s in body]
            assert not leaked, (url, query, leaked[:3])
            assert "@leak.example" not in body, (url, query)
    # The walk really saw the pages full of names, not a row of "not found".
    assert shown > 50
    names = [name for name in finished.players.values_list("name", flat=True)]
    standings = client.get(
        reverse("standings", args=[finished.slug]), {"stage": Stage.Kind.QUALIFYING}
    ).content.decode()
    assert sum(name in standings for name in names) >= len(names) // 2


@pytest.fixture
def played(tournament, organiser):
    drawn_stage(tournament, organiser, players=12)
    return tournament


def test_forged_tampered_and_guessed_card_links_are_not_found(played, client):
    slug = played.slug
    player = played.players.order_by("pk").first()
    good = card_token(player.pk, Stage.Kind.QUALIFYING)
    assert client.get(reverse("card-check", args=[slug, good])).status_code == 200
    value, signature = good.split(":")
    next_pk = f"{player.pk + 1}.q"
    other = TournamentFactory(organiser=OrganiserFactory())
    stranger = Player.objects.create(tournament=other, name="Out Sider", email="o@x.example")
    forged = [
        f"{next_pk}:{signature}",  # the next player with this player's signature
        f"{value}:{signature[:-1]}{'A' if signature[-1] != 'A' else 'B'}",  # one letter changed
        value,  # no signature
        str(player.pk),  # a raw id
        f"{player.pk}",
        signing.Signer(key="not-the-site-key", salt="tournaments.printouts.card").sign(next_pk),
        signing.dumps(player.pk, salt=CONFIRMATION_SALT),  # another link's token
        card_token(stranger.pk, Stage.Kind.QUALIFYING),  # another tournament's player
    ]
    for token in forged:
        response = client.get(reverse("card-check", args=[slug, token]))
        assert response.status_code == 404, token
        assert player.name not in response.content.decode()


def test_forged_and_guessed_confirmation_links_are_not_found(played, client):
    slug = played.slug
    player = played.players.order_by("pk").first()
    good = signing.dumps(player.pk, salt=CONFIRMATION_SALT)
    assert player.code in client.get(reverse("register-done", args=[slug, good])).content.decode()
    head, signature = good.rsplit(":", 1)
    forged = [
        signing.dumps(player.pk + 1, salt="another-salt"),
        f"{head}:{signature[::-1]}",
        signing.dumps(player.pk + 1, salt=CONFIRMATION_SALT).rsplit(":", 1)[0] + f":{signature}",
        str(player.pk),
        card_token(player.pk, Stage.Kind.QUALIFYING),  # a QR token is not a confirmation
    ]
    for token in forged:
        response = client.get(reverse("register-done", args=[slug, token]))
        assert response.status_code == 404, token
        assert player.code not in response.content.decode()


def test_a_registration_code_only_opens_its_own_tournament(played, client):
    player = played.players.order_by("pk").first()
    other = TournamentFactory(organiser=OrganiserFactory())
    response = client.get(reverse("my-card", args=[other.slug]), {"code": player.code})
    assert response.status_code == 200 and player.name not in response.content.decode()
    mine = client.get(reverse("my-card", args=[played.slug]), {"code": player.code})
    assert player.name in mine.content.decode()


def test_staff_accounts_are_never_django_admin_staff(played):
    """The walk's Django-admin expectations rest on this: only superusers reach the admin."""
    users = get_user_model().objects.filter(tournament_roles__in=TournamentRole.objects.all())
    assert users.exists() and not users.filter(is_staff=True).exists()


# --- in the browser ---------------------------------------------------------------------------


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_main_pages_run_without_a_policy_violation(page):
    """Chromium logs every script, handler or style the policy blocks; the `page` fixture
    fails the test on any such message, and this visits the main pages and their htmx parts."""
    from playwright.sync_api import expect

    from tests.browser.test_register_and_check_in import log_in

    tournament = rehearse(players=24, preset="mesquite", seed=5, slug="csp-pages").tournament
    tournament.standings_public = True
    tournament.save(update_fields=["standings_public"])
    organiser = tournament.roles.get(role="organiser").user
    organiser.set_password(PASSWORD)
    organiser.save()
    player = tournament.players.order_by("pk").first()
    slug = tournament.slug
    page.goto(reverse("seat-finder", args=[slug]))
    page.locator("#seat-q").press_sequentially(player.code, delay=30)
    page.locator("#seat-q").press("Enter")
    expect(page.locator("#seat-results")).to_contain_text(player.name)
    for name in ("tournament-public", "register", "board", "standings", "results", "my-card"):
        page.goto(reverse(name, args=[slug]))
        page.wait_for_load_state("networkidle")
    page.goto(reverse("card-check", args=[slug, card_token(player.pk, Stage.Kind.QUALIFYING)]))
    log_in(page, organiser, reverse("tournament-dashboard", args=[slug]))
    for name, args in [
        ("checkin-desk", []),
        ("stage-control", []),
        ("advancement", []),
        ("final-table", []),
        ("prizes", []),
        ("prize-winners", []),
        ("payouts", []),
        ("ledger", []),
        ("printouts", []),
        ("player-list", []),
        ("people", []),
        ("my-pods", []),
        ("pod-detail", [1]),
        ("table-result", [1, 1, 1]),
        ("pod-cards", [1]),
        ("card-detail", [1, player.pk]),
    ]:
        response = page.goto(reverse(name, args=[slug, *args]))
        assert response.status < 500, name
        page.wait_for_load_state("networkidle")
    page.goto(reverse("checkin-desk", args=[slug]))
    page.locator("#checkin-q").press_sequentially(player.name[:4], delay=30)
    expect(page.locator("#checkin-results")).to_contain_text(player.name)
