from django import forms

from ..services.player_self import MAX_NOTE


class CardProblemForm(forms.Form):
    message = forms.CharField(
        label="What looks wrong on your card?",
        max_length=MAX_NOTE,
        widget=forms.Textarea(attrs={"rows": 3}),
        error_messages={"required": "Please say what looks wrong on your card."},
    )
