"""Counted nouns in messages: "1 pod", "2 pods", never "1 pods" or "pods 1 are"."""


def count(n: int, one: str, many: str | None = None) -> str:
    return f"{n} {one if n == 1 else (many or one + 's')}"
