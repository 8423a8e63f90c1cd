"""The widgets of a player's contact details, shared by every form that asks for them, so
phones get the phone keypad and browsers offer the right saved values."""

from django import forms


class PhoneInput(forms.TextInput):
    input_type = "tel"


def contact_widgets(form: forms.Form, *, autofill: bool) -> None:
    """`type=email`/`type=tel` for the form's e-mail and phone fields. `autofill` is for a
    person typing their own details; the desk types other people's, where the browser's
    saved values would be wrong."""
    email, phone = form.fields["email"], form.fields["phone"]
    email.widget = forms.EmailInput(attrs=email.widget.attrs)
    phone.widget = PhoneInput(attrs=phone.widget.attrs)
    email.widget.attrs["autocomplete"] = "email" if autofill else "off"
    phone.widget.attrs["autocomplete"] = "tel" if autofill else "off"
