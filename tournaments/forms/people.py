from django import forms
from django.contrib.auth.validators import UnicodeUsernameValidator

from ..models import Role


class NewAccountForm(forms.Form):
    username = forms.CharField(
        max_length=150,
        validators=[UnicodeUsernameValidator()],
        help_text="Letters, digits and @/./+/-/_ only.",
    )
    full_name = forms.CharField(max_length=150, required=False)
    role = forms.ChoiceField(choices=[(Role.STAFF, "Staff"), (Role.ADMIN, "Admin")])


class ExistingAccountForm(forms.Form):
    username = forms.CharField(max_length=150, help_text="An account that already exists.")
    role = forms.ChoiceField(choices=Role.choices)
