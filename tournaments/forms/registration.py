from django import forms

from ..models import Player
from .contact import contact_widgets


class RegistrationForm(forms.ModelForm):
    """The public form: e-mail is required here so a player can be reached about prizes."""

    class Meta:
        model = Player
        fields = ["name", "email", "phone", "group_name", "costume_contest"]
        labels = {"name": "Your name", "costume_contest": "I'm entering the costume contest"}
        help_texts = {
            "group_name": "Optional. Friends with the same group name are spread over pods.",
            "phone": "Optional.",
            "email": "",
        }

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["email"].required = True
        contact_widgets(self, autofill=True)
        self.fields["name"].widget.attrs["autocomplete"] = "name"

    def clean_name(self):
        name = " ".join(self.cleaned_data["name"].split())
        if not name:
            raise forms.ValidationError("Please give your name.")
        return name
