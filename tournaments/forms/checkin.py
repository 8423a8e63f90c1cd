import uuid

from django import forms

from tournaments.rules import cashbook as book

from ..models import Player
from ..services.registration import Registrant
from .contact import contact_widgets


def _model_field(name: str, **kwargs) -> forms.Field:
    """The model's own form field (length limits, e-mail check) with desk-friendly labels."""
    return Player._meta.get_field(name).formfield(**kwargs)


class WalkInForm(forms.Form):
    """A player who turns up at the door: only the name is required, e-mail is optional."""

    name = _model_field("name", label="Name")
    email = _model_field("email", label="E-mail", required=False, help_text="")
    phone = _model_field("phone", label="Phone", required=False)
    group_name = _model_field("group_name", label="Group", required=False)
    costume_contest = _model_field("costume_contest", label="Costume contest", required=False)
    payment = forms.ChoiceField(
        label="Entry fee",
        required=False,
        choices=[
            ("", "Not paid yet"),
            *((m, f"Paid by {book.METHOD_LABELS[m].lower()}") for m in book.METHODS[:-1]),
        ],
    )
    key = forms.UUIDField(required=False, widget=forms.HiddenInput)

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("auto_id", "walkin_%s")
        super().__init__(*args, **kwargs)
        if not self.is_bound:
            self.initial["key"] = uuid.uuid4()
        self.fields["name"].widget.attrs.update(autocomplete="off", autocapitalize="words")
        contact_widgets(self, autofill=False)
        self.fields["group_name"].widget.attrs.update(autocomplete="off")

    def clean_name(self):
        name = " ".join(self.cleaned_data["name"].split())
        if not name:
            raise forms.ValidationError("Please give the player's name.")
        return name

    def registrant(self) -> Registrant:
        data = {k: v for k, v in self.cleaned_data.items() if k not in ("payment", "key")}
        return Registrant(**data)
