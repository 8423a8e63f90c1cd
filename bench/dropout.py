"""The event-night bench's drop-out (`python bench/event_night.py --drop-out`): a third of the
staff phones lose the network for 20 s in the middle of the load and replay their queues.

Such a phone works like static/js/queue.js on the pod page: every save goes into its queue
first (its form's fields, a fresh idempotency key when the form has none) and the queue is
sent in order with `X-Bunco-Queue: 1`, answered in JSON (docs/offline.md). While the network
is down it keeps tapping results into the forms of the pod pages it loaded before the drop;
a second save of a table still queued is sent on the version the first one makes, as the
script does. When the network returns it replays the queue with the same keys, in order, and
every other replayed save has its first answer lost on the way back and is sent again: it
must come back `duplicate` when the first was saved (a refused save keeps no receipt, so a
conflict comes back as a conflict again). Each save the server answered saved or duplicate
goes into the bench's ledger once, so the bench's database check (every accepted save stored
exactly once, with the version base + 1) is what shows 0 lost and 0 doubled.
"""

from __future__ import annotations

import json
import random
import threading
import time
import uuid
from dataclasses import dataclass, field

from bench.night_client import SLUG, Client, Ledger, Save, form_inputs, pause
from bench.night_room import Event, Pace

QUEUE_PAGE = "queued save"
DROP_SECONDS = 20.0


@dataclass
class Entry:
    """One queued save: where it goes, what it sends, and what the ledger learns of it."""

    url: str
    fields: dict[str, str]
    save: Save
    offline: bool  # queued while the network was down: replayed when it returns
    after: Entry | None = None  # a save of the same table queued before it, not sent yet
    version: int | None = None  # the version the server stored, once answered


@dataclass
class DropOut:
    """When the network is down for the phones that drop out, and what happened to them."""

    start: float
    end: float
    lock: threading.Lock = field(default_factory=threading.Lock)
    phones: int = 0
    queued_offline: int = 0
    replayed: int = 0
    resent: int = 0
    lost_saved: int = 0  # of those sent twice, saved by the send whose answer was lost
    duplicates: int = 0  # ... and then answered duplicate, as they must be
    conflicts: int = 0
    unanswered: list[str] = field(default_factory=list)

    @classmethod
    def mid_round(cls, start: float, duration: float) -> DropOut:
        middle = start + duration / 2
        return cls(middle - DROP_SECONDS / 2, middle + DROP_SECONDS / 2)

    def offline(self) -> bool:
        return self.start <= time.monotonic() < self.end

    def count(self, **changes: int) -> None:
        with self.lock:
            for name, step in changes.items():
                setattr(self, name, getattr(self, name) + step)

    def phone(
        self,
        client: Client,
        event: Event,
        pods: list[int],
        name: str,
        until: float,
        ledger: Ledger,
        pace: Pace,
    ) -> None:
        """A staff phone on the pod page that loses the network in the middle of the load."""
        rng = random.Random(name)
        self.count(phones=1)
        forms: dict[int, dict[int, dict[str, str]]] = {}  # pod -> table -> its form's fields
        queue: list[Entry] = []
        sent = 0
        while pause(*pace.walk, until, rng):
            offline = self.offline()
            if not offline:
                self.send(client, queue, ledger)
            elif not forms:
                continue  # no pod page loaded before the drop: wait for the network
            pod = rng.choice(sorted(forms) if offline else pods)
            if not offline:
                page = client.get("pod page", f"/t/{SLUG}/pods/{pod}/")
                if page is None:
                    continue
                forms[pod] = {
                    t: form_inputs(page.body, f"table-{t}-form") for t in range(1, event.tables + 1)
                }
            table = rng.randint(1, event.tables)
            form = forms[pod][table]
            if "base_version" not in form:
                client.stats.error("pod page: no form for a table")
                continue
            if not pause(*pace.fill, until, rng):
                break
            sent += 1
            queue.append(self.entry(form, pod, table, event, queue, f"bench {name} q{sent}", rng))
            if queue[-1].offline:
                self.count(queued_offline=1)
            else:
                self.send(client, queue, ledger)
        while queue and time.monotonic() < until + 30:  # what is left goes once the room stops
            if not self.send(client, queue, ledger):
                time.sleep(1)
        with self.lock:
            self.unanswered.extend(entry.save.note for entry in queue)

    def entry(
        self,
        form: dict[str, str],
        pod: int,
        table: int,
        event: Event,
        queue: list[Entry],
        note: str,
        rng: random.Random,
    ) -> Entry:
        url = f"/t/{SLUG}/pods/{pod}/round/{event.round_number}/table/{table}/"
        winner = rng.randint(0, 1)
        high, low = rng.randint(21, 60), rng.randint(0, 20)
        fields = {k: v for k, v in form.items() if k in ("csrfmiddlewaretoken", "base_version")}
        fields.update(
            idempotency_key=form.get("idempotency_key") or str(uuid.uuid4()),
            winner=str(winner),
            points_13=str(high if winner == 0 else low),
            points_24=str(low if winner == 0 else high),
            reason=note,
        )
        form["idempotency_key"] = ""  # the form's next save is a new write with its own key
        earlier = [e for e in queue if e.url == url]
        save = Save(pod, table, int(fields["base_version"]), winner, note)
        return Entry(url, fields, save, self.offline(), after=earlier[-1] if earlier else None)

    def send(self, client: Client, queue: list[Entry], ledger: Ledger) -> bool:
        """Sends the queue in order until it is empty or the network fails; False then."""
        while queue:
            entry = queue[0]
            if entry.after is not None:  # built on a queued save: on the version it made
                if entry.after.version is not None:
                    entry.fields["base_version"] = str(entry.after.version)
                    entry.save.base = entry.after.version
                entry.after = None
            lost = None
            if entry.offline and every_other(entry):
                lost = self.post(client, entry, len(queue) - 1)  # the answer never reaches it
            answer = self.post(client, entry, len(queue) - 1)
            if answer is None:
                return False
            queue.pop(0)
            self.count(replayed=int(entry.offline))
            if lost is not None:
                first, again = lost.get("status"), answer.get("status")
                self.count(resent=1, lost_saved=int(first == "saved"))
                self.count(duplicates=int(first == "saved" and again == "duplicate"))
            status = answer.get("status")
            if status in ("saved", "duplicate"):
                entry.version = answer.get("version")
                ledger.add(entry.save, accepted=True)
            elif status == "conflict":
                ledger.add(entry.save, accepted=False)
                client.stats.count_stale()
                self.count(conflicts=1)
            else:
                client.stats.error(f"{QUEUE_PAGE}: {status} ({answer.get('message')})")
        return True

    def post(self, client: Client, entry: Entry, waiting: int) -> dict | None:
        headers = {"X-Bunco-Queue": "1", "X-Bunco-Queued": str(waiting)}
        response = client.request(QUEUE_PAGE, "POST", entry.url, entry.fields, headers=headers)
        if response is None:
            return None
        try:
            return json.loads(response.body)
        except ValueError:
            client.stats.error(f"{QUEUE_PAGE}: answered HTTP {response.status} without JSON")
            return None

    def report(self) -> None:
        print(
            f"drop-out: {self.phones} staff phones offline for {self.end - self.start:.0f} s in "
            f"the middle of the load; {self.queued_offline} saves queued offline; "
            f"{self.replayed} replayed in order with their keys; {self.resent} sent twice "
            f"(the first answer lost): {self.lost_saved} saved by the first send, "
            f"{self.duplicates} of them answered duplicate by the second; "
            f"{self.conflicts} came back as conflicts; {len(self.unanswered)} never answered"
        )


def every_other(entry: Entry) -> bool:
    """Every other save of a phone (by its note's number) loses its first answer."""
    return int(entry.save.note.rsplit("q", 1)[1]) % 2 == 0
