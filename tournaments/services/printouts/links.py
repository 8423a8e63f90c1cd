"""The link a score card's QR code opens: the player's pk and the stage, signed with the
site's key (nothing to guess, nothing stored), checked by the card-check page."""

from __future__ import annotations

from django.core import signing
from django.urls import reverse

from ...models import Stage

_STAGE_CODES = {Stage.Kind.QUALIFYING: "q", Stage.Kind.SEMI_FINAL: "s", Stage.Kind.FINAL: "f"}
_STAGE_KINDS = {code: kind for kind, code in _STAGE_CODES.items()}
_SIGNER_SALT = "tournaments.printouts.card"


def card_token(player_pk: int, stage_kind: str) -> str:
    """`<pk>.<stage letter>:<signature>`: short enough for a small QR code, and only the
    site's key can make one."""
    return signing.Signer(salt=_SIGNER_SALT).sign(f"{player_pk}.{_STAGE_CODES[stage_kind]}")


def read_card_token(token: str) -> tuple[int, str] | None:
    """(player pk, stage kind) from a token, or None when it is not one the site signed."""
    try:
        value = signing.Signer(salt=_SIGNER_SALT).unsign(token)
        pk, code = value.split(".")
        return int(pk), _STAGE_KINDS[code]
    except (signing.BadSignature, ValueError, KeyError):
        return None


def card_url(base_url: str, slug: str, player_pk: int, stage_kind: str) -> str:
    path = reverse("card-check", args=[slug, card_token(player_pk, stage_kind)])
    return f"{base_url.rstrip('/')}{path}"
