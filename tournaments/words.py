"""Words for numbers on pages and in messages: "1 pod", "2 pods" (never "1 pods" or "pods 1
are"), "3rd", "Pod 3" or "Overall"; shared by both apps' pages, so no page imports another's."""

from .prizes import OVERALL


def count(n: int, one: str, many: str | None = None) -> str:
    return f"{n} {one if n == 1 else (many or one + 's')}"


def ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def where(group, pod=None) -> str:
    """Pod 3, Overall, or the winning pod of a team prize."""
    if pod is not None:
        return f"Pod {pod} (team)"
    return "Overall" if str(group) == OVERALL else f"Pod {group}"
