"""Who wins each prize category: players' verified totals in, awards and unawarded places out.

Pure Python with no Django, like `seating.py`, so a results page, a payout sheet and a replay
from stored dice all run the same rules. A service loads the totals, the organiser's
categories, the judges' choices and any entered dice, calls `award_prizes` and stores what
comes back. What comes back is ids, numbers and codes (`results`); the pages word it
(`tournaments.presenters.prizes`).

The modules: `categories` (what goes in, checked), `templates` (each rule sheet's prize list),
`ranking` (places down a ranking, ties split or rolled off), `awarding` (the walk over the
categories and the two phases of dice) and `results` (what comes out, and `split_cents`).

Decisions that a person may ask about, kept here so they are explained in one place:

- Only eligible players win. A player whose card is not verified, or who is not present, is
  skipped and the next player moves up; the award does not say so (eligibility is shown
  beside the standings), but `Unawarded` says why a place stays empty (an `Unfilled` code).
- A count of zero wins nothing: "most buncos" with no bunco rolled is unawarded
  (`Unfilled.NOBODY_SCORED`), rather than an eleven-way tie at zero.
- `even_split` is for a player with as many wins as losses (at least one of each). Everyone
  with an even split is equally good, so they all share first place and the tie policy
  decides. `last_bunco` goes to the eligible player whose last bunco came latest in the
  order the service gives (see `PlayerTotals`); the order is not a count, so no value is shown.
- `traveling_holder` and `judged` are named by a person (`named`): the engine only checks
  that the person is in scope and eligible; an ineligible holder leaves the prize unawarded,
  because nobody else holds the item.
- A group prize (`pod_group`) goes to the pod whose eligible members have the highest sum,
  and is shared equally by those members. Only eligible members count, in the sum and in the
  share, so the pod's total shown on the award is exactly what the paid players rolled and no
  unverified card can decide a prize.
- Ties under "split" share the amounts of the places the tied players cover (two tied for 1st
  with two places share 1st + 2nd); the cents are divided by `split_cents`, so a category
  never pays more or less than its amounts. Ties under "roll_off" are settled by dice, every
  throw kept (see the two phases below).
- `one_prize_per_player`: categories are awarded in `priority` order (lowest first, list order
  among equals) and a player who already won a prize is skipped by later ones; the award that
  moved up lists whom it passed in `moved_up_because`. Only prizes ranked from the totals
  (pod or overall scope) take part: a judged or traveling prize goes to the person named, and
  a group prize to a whole pod, so they neither block a player nor are blocked.

Roll-offs come in two phases, as in `tournaments.rules.advancement`: at a venue the dice are
thrown after the cards are in. `pending_prize_roll_offs` names the ties that need dice now,
given the faces entered so far (a mapping from a tie's `key`, f"{category}:{group}:{place}", to
its faces). Staff roll, the faces are added and the call is repeated until nothing is
pending; `award_prizes` with the same mapping gives the result. With `one_prize_per_player`,
a tie that decides who is still free for a later category holds that category back until it
is thrown. Passing one seeded `random.Random` (or `DieSource`) instead rolls on screen: it
runs exactly those phases, throwing the pending ties in the order listed, so a replay from
the recorded faces gives the same result. Entered faces belong to the tie they were thrown
for; if a correction changes who is tied, the service should discard them.
"""

from .awarding import award_prizes, pending_prize_roll_offs
from .categories import (
    COUNTED,
    MAX_CENTS,
    MAX_PLACES,
    MEASURES,
    NAMED_MEASURES,
    OVERALL,
    SCOPES,
    TIE_POLICIES,
    CategoryRule,
    PlayerTotals,
    check_categories,
)
from .ranking import faces_thrown, settle_prize_tie
from .results import (
    Award,
    AwardNote,
    Decided,
    Passed,
    PrizeResult,
    PrizeTie,
    Unawarded,
    Unfilled,
    note_data,
    note_from_data,
    split_cents,
)
from .templates import CLASSIC, MESQUITE, MINGLE, ROLLING_FOR_PINK, TEMPLATES

__all__ = [
    "CLASSIC",
    "COUNTED",
    "MAX_CENTS",
    "MAX_PLACES",
    "MEASURES",
    "MESQUITE",
    "MINGLE",
    "NAMED_MEASURES",
    "OVERALL",
    "ROLLING_FOR_PINK",
    "SCOPES",
    "TEMPLATES",
    "TIE_POLICIES",
    "Award",
    "AwardNote",
    "CategoryRule",
    "Decided",
    "Passed",
    "PlayerTotals",
    "PrizeResult",
    "PrizeTie",
    "Unawarded",
    "Unfilled",
    "award_prizes",
    "check_categories",
    "faces_thrown",
    "note_data",
    "note_from_data",
    "pending_prize_roll_offs",
    "settle_prize_tie",
    "split_cents",
]
