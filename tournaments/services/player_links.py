"""A player's own page: its address is the registration code plus a signature of it.

The signature ties the code to the registration's pk with the site's key, so the link works
forever (it goes in e-mails and QR codes) without anything stored, and a changed character
in either part finds nothing. The code alone still opens only the public "my card" page.
"""

from __future__ import annotations

from django.core import signing
from django.urls import reverse
from django.utils.crypto import constant_time_compare

from ..models import Player, Tournament
from ..printouts.qr import qr_matrix

_SALT = "tournaments.player.page"


def _value(player: Player) -> str:
    return f"{player.tournament_id}.{player.pk}.{player.code}"


def player_token(player: Player) -> str:
    return signing.Signer(salt=_SALT).signature(_value(player))


def player_page_path(player: Player, slug: str) -> str:
    return reverse("player-page", args=[slug, player.code, player_token(player)])


def player_from_link(tournament: Tournament, code: str, token: str) -> Player | None:
    """The registration a link names, or None when the code or the signature is not right."""
    code = code.strip().upper()
    if not code.isalnum() or len(code) > 12:
        return None
    player = tournament.players.filter(code=code).first()
    if player is None or not constant_time_compare(player_token(player), token):
        return None
    return player


def qr_svg_path(url: str) -> tuple[int, str]:
    """(size in modules, SVG path data) of a QR code for `url`; one path, no inline style."""
    rows = qr_matrix(url)
    parts = []
    for y, row in enumerate(rows):
        x = 0
        while x < len(row):
            if row[x]:
                start = x
                while x < len(row) and row[x]:
                    x += 1
                parts.append(f"M{start} {y}h{x - start}v1h{start - x}z")
            else:
                x += 1
    return len(rows), "".join(parts)
