"""A player's own link: the page, the e-mail again button and the card problem form."""

from __future__ import annotations

from django.http import Http404

from ..models import Player
from ..permissions import PUBLIC, TournamentPermissionMixin
from ..services.player_links import player_from_link, player_page_path


class PlayerLinkMixin(TournamentPermissionMixin):
    """The player a link names, or a 404 for a link whose code or signature was changed."""

    permission = PUBLIC

    def player(self) -> Player:
        player = player_from_link(self.tournament, self.kwargs["code"], self.kwargs["token"])
        if player is None:
            raise Http404("This link is not valid.")
        return player

    def page_path(self, player: Player) -> str:
        return player_page_path(player, self.tournament.slug)
