"""The audit log in sentences: one template per action code, so an organiser reads "anna
recorded a table result", never `result.recorded`.

Every code passed to `audit.record` has a sentence here; tests/test_audit_words.py reads the
source for the codes and fails on one without.
"""

from __future__ import annotations

NOBODY = "Someone without an account"  # a player registering, a command on the server

SENTENCES: dict[str, str] = {
    "account.password_reset": "{who} gave an account a new one-time password",
    "account.unlocked": "{who} unlocked an account's sign-in",
    "advancement.roll_off": "{who} recorded a roll-off for the cut",
    "advancement.saved": "{who} saved who advances",
    "card.confirmed": "{who} confirmed a score card",
    "card.entered": "{who} entered a score card",
    "card.problem_reported": "{who} reported a problem with a score card",
    "card.resolved": "{who} resolved a difference on a score card",
    "cards.exported": "{who} downloaded the score cards as a spreadsheet",
    "cashbook.box_closed": "{who} counted and closed a cash box",
    "cashbook.donation": "{who} recorded a donation",
    "cashbook.expense": "{who} recorded an expense",
    "cashbook.fee": "{who} recorded an entry fee",
    "cashbook.float": "{who} put a float in a cash box",
    "cashbook.give_back": "{who} recorded a prize given back to the charity",
    "cashbook.reversal": "{who} reversed a cash book entry",
    "cashbook.settings": "{who} changed the charity's share and the board's total",
    "draws.published": "{who} published the draw secret, so anyone can check the draws",
    "email.code_again": "{who} asked for a registration code by e-mail again",
    "email.confirmation_again": "{who} asked for the confirmation e-mail again",
    "final.order": "{who} recorded the final table's throwing order",
    "final.seated": "{who} seated the final table",
    "final.throw_voided": "{who} voided a final-table throw",
    "final.won": "{who} recorded the throw that won the grand prize",
    "invitation.accepted": "{who} accepted an invitation to a role",
    "invitation.declined": "{who} declined an invitation to a role",
    "invitation.sent": "{who} invited someone to a role",
    "invitation.withdrawn": "{who} withdrew an invitation",
    "player.cancelled": "{who} cancelled their place",
    "player.check_in_undone": "{who} undid a check-in",
    "player.checked_in": "{who} checked a player in",
    "player.edited": "{who} changed a registration",
    "player.exported": "{who} downloaded the player list",
    "player.imported": "{who} imported players from a spreadsheet",
    "player.promoted": "{who} gave a waitlisted player a place",
    "player.registered": "{who} registered a player",
    "player.reinstated": "{who} reinstated a withdrawn player",
    "player.withdrawn": "{who} withdrew a player",
    "pod.hostess": "{who} chose a pod's hostess",
    "pod.staff": "{who} assigned staff to a pod",
    "printout.requested": "{who} asked for a printout",
    "printout.retried": "{who} tried a printout again",
    "prizes.awarded": "{who} awarded the prizes",
    "prizes.category_added": "{who} added a prize",
    "prizes.category_changed": "{who} changed a prize",
    "prizes.category_deleted": "{who} removed a prize",
    "prizes.last_bunco": "{who} marked which bunco was the last",
    "prizes.nominated": "{who} named the winners of a judged prize",
    "prizes.one_per_player_off": "{who} let a player win more than one prize",
    "prizes.one_per_player_on": "{who} limited each player to one prize",
    "prizes.paid": "{who} paid a prize",
    "prizes.roll_off": "{who} recorded a roll-off for a prize",
    "prizes.template": "{who} loaded a prize list",
    "prizes.traveling": "{who} passed on the traveling prize",
    "prizes.voided": "{who} voided a payment",
    "result.corrected": "{who} corrected a table result",
    "result.recorded": "{who} recorded a table result",
    "role.granted": "{who} gave someone a role",
    "role.revoked": "{who} took away someone's role",
    "round.closed": "{who} closed a round",
    "round.started": "{who} rang the bell for a round",
    "stage.drawn": "{who} drew the pods",
    "stage.ended_early": "{who} ended a stage early",
    "stage.player_joined": "{who} seated a late arrival in a free seat",
    "stage.player_left": "{who} took a player out of a pod",
    "tournament.check_in_closed": "{who} closed check-in",
    "tournament.check_in_opened": "{who} opened check-in",
    "tournament.created": "{who} created the tournament",
    "tournament.edited": "{who} changed the tournament's settings",
    "tournament.registration_closed": "{who} closed registration",
    "tournament.registration_opened": "{who} opened registration",
    "tournament.standings_closed": "{who} hid the standings from the public",
    "tournament.standings_opened": "{who} published the standings",
    "waitlist.moved": "{who} reordered the waitlist",
    "waitlist.offer_lapsed": "{who} let a waitlist offer lapse, passing the place on",
    "waitlist.offer_reminded": "{who} reminded a player that their offered place lapses soon",
    "waitlist.offered": "{who} offered a freed place to the next on the waitlist",
}

# For the log's filter: the first part of a code, as a heading.
KINDS: dict[str, str] = {
    "tournament": "Tournament settings",
    "player": "Players and check-in",
    "role": "Staff and admins",
    "account": "Accounts",
    "invitation": "Invitations",
    "stage": "Draws and pods",
    "pod": "Pods",
    "round": "Rounds",
    "result": "Table results",
    "card": "Score cards",
    "cards": "Score card downloads",
    "advancement": "Advancement",
    "final": "Final table",
    "prizes": "Prizes and payments",
    "printout": "Printouts",
    "draws": "Draw secret",
    "cashbook": "Cash book",
    "email": "E-mails",
    "waitlist": "Waitlist",
}


def sentence(action: str, who: str | None) -> str:
    """The entry as a sentence; a code added without one still reads as words."""
    template = SENTENCES.get(action)
    person = who or NOBODY
    if template is None:
        return f"{person}: {action.replace('.', ' ').replace('_', ' ')}"
    return template.format(who=person)
