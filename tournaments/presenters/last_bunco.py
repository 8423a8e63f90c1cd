"""The night's last bunco in words: who, where, when, and whether staff marked it."""

from django.utils.timezone import localtime

from ..services import last_bunco as service


def bunco_text(bunco: service.Bunco, names: dict[int, str]) -> str:
    return (
        f"{names.get(bunco.player_id, bunco.player_id)}, round {bunco.round_number}, "
        f"pod {bunco.pod_number}, table {bunco.table}"
    )


def night_line(stage, names: dict[int, str]) -> str:
    """The winners page's one line: who holds the last bunco now, and whether staff said so."""
    night = service.last_bunco(stage)
    if not night.last:
        return "No bunco recorded yet."
    held = "; ".join(
        f"{bunco_text(b, names)}, recorded {localtime(b.recorded_at):%H:%M}" for b in night.last
    )
    return f"Last bunco of the night: {held}" + (" (marked by staff)" if night.marked else "")
