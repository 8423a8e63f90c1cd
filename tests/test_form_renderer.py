"""The form renderer writes plain inputs in Python: the markup must be exactly what Django's
own widget templates write, for every kind of value and attribute a form here uses."""

import pytest
from django import forms
from django.forms.renderers import DjangoTemplates
from django.utils.safestring import mark_safe

from bunco_site.renderers import PLAIN_INPUTS, FastInputs

WIDGETS = [
    forms.TextInput(
        attrs={"class": "form-control", "autocomplete": "off", "placeholder": "e.g. 5 vs 3"}
    ),
    forms.NumberInput(attrs={"inputmode": "numeric", "class": "form-control count", "min": 0}),
    forms.HiddenInput(),
    forms.EmailInput(attrs={"autocomplete": "email", "required": True, "disabled": False}),
    forms.PasswordInput(render_value=True),
    forms.CheckboxInput(attrs={"class": "form-check-input"}),
    forms.DateInput(attrs={"type": "date"}),
    forms.DateTimeInput(),
    forms.TimeInput(),
    forms.URLInput(),
    forms.SearchInput(),
    forms.ColorInput(),
    forms.TelInput(attrs={"autocomplete": "tel"}),
]
VALUES = [
    None,
    "",
    0,
    7,
    "a \"quoted\" & <b>bold</b> 'value'",
    mark_safe("<i>safe</i>"),
    True,
    False,
]


@pytest.mark.parametrize("widget", WIDGETS, ids=lambda w: type(w).__name__)
@pytest.mark.parametrize("value", VALUES, ids=repr)
def test_each_plain_input_is_written_exactly_as_django_writes_it(widget, value):
    attrs = {"id": "id_box", "data-x": '"&<>', "hidden": True, "readonly": False}
    fast = widget.render("box", value, attrs=attrs, renderer=FastInputs())
    templated = widget.render("box", value, attrs=attrs, renderer=DjangoTemplates())
    assert widget.template_name in PLAIN_INPUTS
    assert fast == templated


def test_other_widgets_still_use_their_templates():
    widget = forms.Select(choices=[(1, "One"), (2, "Two & more")])
    assert widget.render("pick", 2, renderer=FastInputs()) == widget.render(
        "pick", 2, renderer=DjangoTemplates()
    )


def test_the_site_renders_forms_with_it(settings):
    from django.forms.renderers import get_default_renderer

    get_default_renderer.cache_clear()
    try:
        assert isinstance(get_default_renderer(), FastInputs)
    finally:
        get_default_renderer.cache_clear()
