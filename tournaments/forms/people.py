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

    def __init__(self, *args, **kwargs):
        # Both forms share a page and field names: ids of their own, so each label (and
        # crispy's wrappers and help texts) points at its own form's field. The posted
        # names stay the same.
        kwargs.setdefault("auto_id", "new_%s")
        super().__init__(*args, **kwargs)


class ExistingAccountForm(forms.Form):
    username = forms.CharField(max_length=150, help_text="An account that already exists.")
    # Staff unless the organiser picks another: an invitation is the one way to hand someone
    # the whole tournament, and it should never be that by default.
    role = forms.ChoiceField(choices=Role.choices, initial=Role.STAFF)

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("auto_id", "existing_%s")
        super().__init__(*args, **kwargs)
