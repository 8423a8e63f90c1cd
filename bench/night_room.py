"""The event-night bench's room: the rehearsed event, the people in it (staff phones, seat
finders, projectors, the admin's printouts), and the check of every accepted save against the
database afterwards.

Split from `event_night` (starting, driving and reporting a run) so `floor` and `dropout` play
the same staff and check the same way.
"""

from __future__ import annotations

import json
import random
import re
import time
from collections import defaultdict
from dataclasses import dataclass, field
from itertools import pairwise
from urllib.parse import urlencode, urlsplit

from bench.night_client import (
    CONFLICT,
    SAVE_PAGE,
    SLUG,
    STALE,
    Client,
    Ledger,
    Save,
    Stats,
    first_error,
    form_inputs,
    pause,
)

# --- the event --------------------------------------------------------------------------------


@dataclass
class Event:
    round_number: int
    tables: int  # per pod
    pods_of: dict[str, list[int]]  # staff username -> pod numbers
    passwords: dict[str, str]
    admin: str
    searches: list[str]  # names and codes players type into the seat finder
    pods: int


def prepare_event(players: int, preset: str, seed: int, round_number: int, staff: int) -> Event:
    """The rehearsal up to the round before, the bell for this round, and the accounts, all
    through the services the pages use."""
    from scoring.services import rounds
    from tournaments.models import Player, Stage, UserProfile
    from tournaments.services import accounts, stages
    from tournaments.services.rehearsal import rehearse

    rehearsal = rehearse(
        players=players, preset=preset, seed=seed, slug=SLUG, stop_after_round=round_number - 1
    )
    tournament = rehearsal.tournament
    organiser = tournament.created_by
    stage = tournament.stages.get(kind=Stage.Kind.QUALIFYING)
    if round_number > stage.round_count:
        raise SystemExit(f"--round must be at most {stage.round_count} for this preset")
    current = rounds.start_next_round(stage, actor=organiser)
    assert current.number == round_number

    passwords: dict[str, str] = {}
    users = []
    for i in range(1, staff + 1):
        user, password = accounts.create_account(
            tournament,
            username=f"staff{i:02}",
            full_name=f"Staff {i}",
            role="staff",
            actor=organiser,
        )
        users.append(user)
        passwords[user.username] = password
    admin, passwords["admin"] = accounts.create_account(
        tournament, username="admin", full_name="Prize Admin", role="admin", actor=organiser
    )
    # The accounts chose their own passwords before the doors opened (a password change is
    # two more slow hashes per account, which the evening itself never sees).
    UserProfile.objects.filter(user__in=[*users, admin]).update(must_change_password=False)

    pods = list(stage.pods.order_by("number"))
    pods_of: dict[str, list[int]] = defaultdict(list)
    for i, pod in enumerate(pods):
        team = sorted({users[i % staff], users[(i + 1) % staff]}, key=lambda u: u.username)
        stages.assign_staff(pod, team, actor=organiser)
        for user in team:
            pods_of[user.username].append(pod.number)

    rng = random.Random(seed)
    registered = list(Player.objects.filter(tournament=tournament).values_list("name", "code"))
    searches = [name if rng.random() < 0.7 else code for name, code in registered]
    return Event(
        round_number=round_number,
        tables=pods[0].tables,
        pods_of=dict(pods_of),
        passwords=passwords,
        admin=admin.username,
        searches=searches,
        pods=len(pods),
    )


# --- the room -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Pace:
    """Seconds a staff member spends walking to the next table (from the pod page to a
    table's form) and filling in the form (from the form to tapping the winner)."""

    walk: tuple[float, float]
    fill: tuple[float, float]


LIVE_POLL = 2.0  # seconds between count polls on a page being looked at (static/js/live.js)
LIVE_COUNT = re.compile(r'data-live-count="(\d+)"')


@dataclass
class PodScreen:
    """The pod page a staff phone shows while its owner walks to the next table, and the
    ETags its browser keeps of live parts (by address) across pages."""

    path: str
    count: str
    etags: dict[str, str]


def look_at(client: Client, screen: PodScreen | None, seconds: float, until: float) -> bool:
    """`seconds` spent looking at the pod page, as static/js/live.js spends them: the count
    asked for every 2 s and, when it moved, the pod's live part fetched again (conditional, as
    the browser's cache revalidates it). False once the load's time is up."""
    end = min(time.monotonic() + max(0.0, seconds), until)
    while (left := end - time.monotonic()) > 0:
        time.sleep(min(LIVE_POLL, left))
        if screen is None or time.monotonic() >= end:
            continue
        asked = client.get("live count", f"/t/{SLUG}/changes/?since={screen.count}")
        if asked is None or asked.status != 200:
            continue
        screen.count = str(json.loads(asked.body)["count"])
        etag = screen.etags.get(screen.path, "")
        part = client.get("pod live part", screen.path, htmx=True, etag=etag)
        if part is not None and part.etag:
            screen.etags[screen.path] = part.etag
    return time.monotonic() < until


def staff_phone(
    client: Client,
    event: Event,
    pods: list[int],
    name: str,
    until: float,
    ledger: Ledger,
    pace: Pace,
) -> None:
    """Walks to a table of one of its pods, opens its form, fills it in, taps the winner (a
    correction when the table already has a result), follows the redirect back to the pod."""
    rng = random.Random(name)
    sent = 0
    screen = None
    etags: dict[str, str] = {}
    while look_at(client, screen, rng.uniform(*pace.walk), until):
        pod, table = rng.choice(pods), rng.randint(1, event.tables)
        url = f"/t/{SLUG}/pods/{pod}/round/{event.round_number}/table/{table}/"
        form_page = client.get("result form", url)
        if form_page is None:
            continue
        form = form_inputs(form_page.body, "result-form")
        if "base_version" not in form:
            client.stats.error("result form: no form on the page")
            continue
        if not pause(*pace.fill, until, rng):
            break
        sent += 1
        base = int(form["base_version"])
        save = Save(pod, table, base, rng.randint(0, 1), f"bench {name} #{sent}")
        post = {k: v for k, v in form.items() if k in ("csrfmiddlewaretoken", "base_version")}
        high, low = rng.randint(21, 60), rng.randint(0, 20)
        post.update(
            winner=save.winner,
            points_13=high if save.winner == 0 else low,
            points_24=low if save.winner == 0 else high,
            reason=save.note,
        )
        # A bunco is 21 points, so it goes to a seat of the pair with 21 or more (the site
        # refuses points below what the credited rolls score).
        winners = ("1", "3") if save.winner == 0 else ("2", "4")
        rollers = [k for k in form if k.startswith("buncos_") and k.endswith(winners)]
        if rollers and rng.random() < 0.3:
            post[rng.choice(rollers)] = 1
        answer = client.request(SAVE_PAGE, "POST", url, post)
        if answer is None:
            continue
        if answer.status == 302:
            ledger.add(save, accepted=True)
            path = urlsplit(answer.location).path or url
            pod_page = client.get("pod page", path)
            found = LIVE_COUNT.search(pod_page.body) if pod_page else None
            screen = PodScreen(path, found.group(1), etags) if found else None
        elif answer.status == CONFLICT or STALE.search(answer.body):
            ledger.add(save, accepted=False)
            client.stats.count_stale()
        else:
            client.stats.error(f"{SAVE_PAGE}: refused ({first_error(answer.body)})")


def seat_finder(client: Client, event: Event, name: str, until: float) -> None:
    """A player's phone: the page once, then a name or code typed every 2-5 s (htmx)."""
    rng = random.Random(name)
    client.get("seat finder page", f"/t/{SLUG}/seat/")
    while pause(2.0, 5.0, until, rng):
        query = urlencode({"q": rng.choice(event.searches)})
        client.get("seat finder search", f"/t/{SLUG}/seat/?{query}", htmx=True)


def projector(client: Client, event: Event, name: str, until: float, pods: str) -> None:
    """The board once, then its live part every 5 s as htmx polls it."""
    rng = random.Random(name)
    query = f"?{urlencode({'pods': pods})}" if pods else ""
    client.get("board page", f"/t/{SLUG}/board/{query}")
    while pause(4.5, 5.5, until, rng):
        client.get("board live", f"/t/{SLUG}/board/live/{query}", htmx=True)


@dataclass
class PrintRun:
    seconds: float
    status: str
    pages: str


def admin_desk(client: Client, until: float, runs: list[PrintRun], stats: Stats) -> None:
    """Asks for the pre-event packet, polls its row every second until it is made, downloads
    it; again after a pause while the load lasts."""
    rng = random.Random("admin")
    base = f"/t/{SLUG}/manage/printouts/"
    while pause(3.0, 6.0, until, rng):
        page = client.get("printouts page", base)
        if page is None:
            continue
        form = form_inputs(page.body)
        post = {
            "csrfmiddlewaretoken": form.get("csrfmiddlewaretoken", ""),
            "kind": "packet",
            "stage": "qualifying",
            "pod": "",
            "pagesize": "letter",
            # The bench serves on 127.0.0.1: the page asks to confirm QR codes to it.
            "print_anyway": "on",
        }
        start = time.monotonic()
        answer = client.request("printout request", "POST", base, post)
        found = re.search(r"#printout-(\d+)", answer.location) if answer else None
        if found is None:
            stats.error("printout request: no printout made")
            continue
        pk = found.group(1)
        client.get("printouts page", urlsplit(answer.location).path)
        status, row = "queued", ""
        while status not in ("done", "failed") and time.monotonic() < start + 120:
            time.sleep(1)
            reply = client.get("printout status", f"{base}{pk}/status/", htmx=True)
            if reply is not None:
                row = reply.body
                status = re.search(r'data-status="(\w+)"', row).group(1)
        seconds = time.monotonic() - start
        pages = re.search(r"(\d+) pages?", row)
        runs.append(PrintRun(seconds, status, pages.group(1) if pages else "?"))
        if status != "done":
            stats.error(f"printout: {status} after {seconds:.0f} s")
            continue
        pdf = client.get("printout download", f"{base}{pk}/download/")
        if pdf is not None and not pdf.body.startswith("%PDF"):
            stats.error("printout download: not a PDF")


# --- the database check ----------------------------------------------------------------------


@dataclass
class Check:
    accepted: int = 0
    refused: int = 0
    lost: list[str] = field(default_factory=list)
    duplicated: list[str] = field(default_factory=list)
    wrong: list[str] = field(default_factory=list)  # stored, but not as the client was told
    unacknowledged: list[str] = field(default_factory=list)  # stored, client saw no answer
    tables: int = 0
    versions: int = 0

    @property
    def failed(self) -> bool:
        return bool(self.lost or self.duplicated or self.wrong)


def check_database(event: Event, ledger: Ledger) -> Check:
    """The clients' ledger against TableResult: each accepted save is exactly one row with the
    version the form implied (base + 1) and its winner; no refused save has a row; each
    table's versions run 1..n, each superseding the one before, with only the last current."""
    from scoring.models import TableResult

    rows = list(
        TableResult.objects.filter(
            round__stage__tournament__slug=SLUG, round__number=event.round_number
        ).values(
            "pk",
            "pod__number",
            "table",
            "version",
            "is_current",
            "winner",
            "reason",
            "supersedes_id",
        )
    )
    check = Check(accepted=len(ledger.accepted), refused=len(ledger.refused), versions=len(rows))
    by_note: dict[str, list[dict]] = defaultdict(list)
    by_table: dict[tuple[int, int], list[dict]] = defaultdict(list)
    for row in rows:
        by_note[row["reason"]].append(row)
        by_table[(row["pod__number"], row["table"])].append(row)
    for save in ledger.accepted:
        found = by_note.pop(save.note, [])
        if not found:
            check.lost.append(save.note)
        elif len(found) > 1:
            check.duplicated.append(save.note)
        elif (
            found[0]["pod__number"],
            found[0]["table"],
            found[0]["version"],
            found[0]["winner"],
        ) != (save.pod, save.table, save.base + 1, save.winner):
            check.wrong.append(f"{save.note}: stored as {found[0]}")
    for save in ledger.refused:
        if by_note.pop(save.note, []):
            check.duplicated.append(f"{save.note} (refused as stale, yet stored)")
    check.unacknowledged = sorted(note for note in by_note if note.startswith("bench "))
    for (pod, table), versions in sorted(by_table.items()):
        versions.sort(key=lambda row: row["version"])
        numbers = [row["version"] for row in versions]
        chained = all(b["supersedes_id"] == a["pk"] for a, b in pairwise(versions))
        current = [row["version"] for row in versions if row["is_current"]]
        if numbers != list(range(1, len(versions) + 1)) or not chained or current != numbers[-1:]:
            check.duplicated.append(
                f"pod {pod} table {table}: versions {numbers}, current {current}"
            )
    check.tables = len(by_table)
    return check
