from django import forms

MAX_QUERY = 100


class SearchForm(forms.Form):
    """One search box: a name, a code or part of an e-mail, with spaces tidied."""

    q = forms.CharField(required=False, max_length=MAX_QUERY)

    @property
    def query(self) -> str:
        """What to search for. A box pasted too long is cut to its first 100 characters and a
        stray NUL dropped, not read as an empty search: that showed nothing (the seat finder)
        or everything (the prize table) with no word of why."""
        raw = self.data.get("q", "")
        text = raw if isinstance(raw, str) else ""
        return " ".join(text.replace("\x00", "")[:MAX_QUERY].split())
