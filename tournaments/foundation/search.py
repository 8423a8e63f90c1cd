"""The one player search: the seat finder, the check-in desk, the players list and the prize
table all find players by the same rule.

The rule: the query is tidied like the search box tidies it, and every word of it must
appear somewhere in what the page may search, ignoring case and accents ("jose", "JOSE" and
"josé" all find José; "zoe" finds Zoë). Staff pages search the name, group, e-mail and code;
the public seat finder searches names only, plus the exact code, because a fragment of an
e-mail or of a code (which opens a player's card) is nobody else's business.

How: `Player.search_text` and `Player.search_name` hold the folded text (casefolded, NFKD
with combining marks dropped, spaces tidied), written whenever a player is saved, created
or updated in bulk, and a query folded the same way is matched with `contains`. That works
the same on SQLite and PostgreSQL: SQLite's LIKE folds ASCII case only and PostgreSQL's
`unaccent` is an extension SQLite lacks, so folding in the database would need two rules.
"""

from __future__ import annotations

import unicodedata

from django.db.models import Q

# Each word is one condition; a pasted paragraph must not build a thousand-way query.
MAX_WORDS = 6
# The model fields the folded columns are made from, and the columns.
SOURCES = frozenset({"name", "group_name", "email", "code"})
COLUMNS = ("search_name", "search_text")


def fold(text: str) -> str:
    """ "  José  ZOË " -> "jose zoe": what the search compares, on both sides.

    Control and format characters go too: an invisible joiner pasted into a name must not
    hide it, and PostgreSQL refuses a NUL anywhere in a query."""
    decomposed = unicodedata.normalize("NFKD", unicodedata.normalize("NFKD", text).casefold())
    kept = (c for c in decomposed if not unicodedata.combining(c))
    shown = (c for c in kept if c.isspace() or unicodedata.category(c) not in ("Cc", "Cf"))
    return " ".join("".join(shown).split())


def words(query: str) -> list[str]:
    return fold(query).split()[:MAX_WORDS]


def columns(*, name: str, group_name: str, email: str, code: str) -> dict[str, str]:
    """The folded columns of a player with these details."""
    return {
        "search_name": fold(name),
        "search_text": fold(" ".join((name, group_name, email, code))),
    }


def fill(player) -> None:
    """Sets `player`'s folded columns from its details (before it is written)."""
    for column, value in columns(
        name=player.name, group_name=player.group_name, email=player.email, code=player.code
    ).items():
        setattr(player, column, value)


def player_matches(query: str, *, public: bool = False, prefix: str = "") -> Q:
    """The condition a player meets when `query` finds them; `prefix` reaches the player
    through a relation ("player__"). An empty query is no condition: callers decide whether
    that lists everyone or no one."""
    column = "search_name" if public else "search_text"
    found = Q()
    for word in words(query):
        found &= Q(**{f"{prefix}{column}__contains": word})
    if public:
        code = "".join(words(query)).upper()
        found = (found | Q(**{f"{prefix}code": code})) if code else found
    return found
