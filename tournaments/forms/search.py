from django import forms


class SearchForm(forms.Form):
    """One search box: a name, a code or part of an e-mail, with spaces tidied."""

    q = forms.CharField(required=False, max_length=100)

    @property
    def query(self) -> str:
        if not self.is_valid():
            return ""
        return " ".join(self.cleaned_data["q"].split())
