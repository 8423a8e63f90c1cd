"""Forms of the organiser's player pages: they only check input; services decide and save."""

from django import forms

from ..models import Player
from ..services.csv_io import MAX_BYTES
from ..services.players import STATUS_FILTERS
from ..services.registration import Registrant
from .contact import contact_widgets


def _max(name: str) -> int:
    return Player._meta.get_field(name).max_length


class PlayerForm(forms.Form):
    """Adding or correcting a registration at the organiser's desk.

    A plain form, not a ModelForm: a ModelForm copies the input onto the instance while
    validating, which would blur "what is stored" and "what was typed" before the service
    compares them to audit the changed fields.
    """

    name = forms.CharField(max_length=_max("name"))
    email = forms.EmailField(
        label="E-mail",
        required=False,
        max_length=_max("email"),
        help_text="Optional here; needed to reach prize winners. One per tournament.",
    )
    phone = forms.CharField(max_length=_max("phone"), required=False)
    group_name = forms.CharField(
        label="Group or team name",
        max_length=_max("group_name"),
        required=False,
        help_text="Friends with the same group name are spread over pods.",
    )
    costume_contest = forms.BooleanField(label="Enters the costume contest", required=False)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        contact_widgets(self, autofill=False)

    def clean_name(self) -> str:
        name = " ".join(self.cleaned_data["name"].split())
        if not name:
            raise forms.ValidationError("Please give the player's name.")
        return name

    def clean_email(self) -> str:
        return self.cleaned_data["email"].strip().lower()

    def registrant(self) -> Registrant:
        return Registrant(**self.cleaned_data)

    @staticmethod
    def initial_for(player: Player) -> dict:
        return {
            "name": player.name,
            "email": player.email,
            "phone": player.phone,
            "group_name": player.group_name,
            "costume_contest": player.costume_contest,
        }


class PlayerSearchForm(forms.Form):
    q = forms.CharField(label="Search", required=False, max_length=100)
    status = forms.ChoiceField(
        label="Status",
        required=False,
        choices=[("", "All players")]
        + [(key, label) for key, (label, _) in STATUS_FILTERS.items()],
    )


class StatusChangeForm(forms.Form):
    """Withdrawing or reinstating: the reason is optional and goes to the audit log."""

    reason = forms.CharField(
        required=False,
        max_length=200,
        help_text="Optional; kept in the audit log.",
    )


class ImportForm(forms.Form):
    file = forms.FileField(
        label="CSV file",
        allow_empty_file=True,  # the service says "The file is empty." in its own words
        help_text=f"UTF-8 CSV with a header row, at most {MAX_BYTES // (1024 * 1024)} MB.",
        widget=forms.ClearableFileInput(attrs={"accept": ".csv,text/csv"}),
    )
    skip_registered = forms.BooleanField(
        label="Skip rows already registered",
        required=False,
        help_text="A row with the e-mail of a registered player, or without an e-mail but "
        "with the same name and phone, is left out and listed instead of stopping the import.",
    )
