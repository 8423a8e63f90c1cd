from django import forms

from ..models import Player
from ..services.registration import Registrant
from .contact import contact_widgets


class RegistrationForm(forms.ModelForm):
    """The public form: e-mail is required here so a player can be reached about prizes."""

    join_waitlist = forms.BooleanField(
        label="Put me (and my party) on the waitlist if there is no place left",
        required=False,
    )
    email_each = forms.BooleanField(
        label="Send each player of my party their own e-mail (where an address is given)",
        required=False,
    )

    class Meta:
        model = Player
        fields = ["name", "email", "phone", "group_name", "costume_contest"]
        labels = {"name": "Your name", "costume_contest": "I'm entering the costume contest"}
        help_texts = {
            "group_name": "Optional. Friends with the same group name are spread over pods.",
            "phone": "Optional.",
            "email": "",
        }
        widgets = {
            "name": forms.TextInput(attrs={"autocomplete": "name"}),
            "email": forms.EmailInput(attrs={"autocomplete": "email"}),
            "phone": forms.TextInput(attrs={"type": "tel", "autocomplete": "tel"}),
        }

    def __init__(self, *args, party_size_max: int = 1, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["email"].required = True
        contact_widgets(self, autofill=True)
        self.fields["name"].widget.attrs["autocomplete"] = "name"
        if party_size_max < 2:
            del self.fields["email_each"]

    def clean_name(self):
        name = " ".join(self.cleaned_data["name"].split())
        if not name:
            raise forms.ValidationError("Please give your name.")
        return name

    def registrant(self) -> Registrant:
        data = self.cleaned_data
        return Registrant(
            name=data["name"],
            email=data["email"],
            phone=data["phone"],
            group_name=data["group_name"],
            costume_contest=data["costume_contest"],
        )


class MemberForm(forms.Form):
    """Another player of the party: a name is enough; the party shares the booker's group."""

    # Not marked required: a row left empty is nobody. A row with anything in it needs a name.
    name = forms.CharField(label="Name", max_length=100, required=False)
    email = forms.EmailField(label="E-mail (optional)", required=False)
    costume_contest = forms.BooleanField(label="Enters the costume contest", required=False)

    def clean_name(self):
        return " ".join(self.cleaned_data["name"].split())

    def clean(self):
        data = super().clean()
        if self.has_changed() and not data.get("name") and "name" not in self.errors:
            self.add_error("name", "Please give this player's name, or clear the row.")
        return data


class BaseMemberFormSet(forms.BaseFormSet):
    def registrants(self, group_name: str) -> list[Registrant]:
        return [
            Registrant(
                name=form.cleaned_data["name"],
                email=form.cleaned_data.get("email", ""),
                group_name=group_name,
                costume_contest=form.cleaned_data.get("costume_contest", False),
            )
            for form in self.forms
            if form.has_changed() and form.cleaned_data
        ]


def member_formset(party_size_max: int, data=None):
    """One optional row per friend the booker may bring (blank rows are ignored)."""
    others = max(party_size_max - 1, 0)
    formset_class = forms.formset_factory(
        MemberForm, formset=BaseMemberFormSet, extra=others, max_num=others, validate_max=True
    )
    return formset_class(data, prefix="member")
