"""The form renderer: Django's, with plain `<input>` widgets written in Python.

Every text, number, hidden or checkbox box Django renders goes through a template of its own
(`number.html` includes `input.html`, which includes `attrs.html`), each with a fresh
context: about half a millisecond a box. A staff member's pod page has three tables' forms of
a dozen boxes each, and it is the page they reload all evening, so these widgets are written
here instead, to exactly the markup of Django's templates (`tests/test_form_renderer.py`
compares the two). Every other widget (selects, radios, text areas) still uses its template.
"""

from __future__ import annotations

from html import escape

from django.forms.renderers import DjangoTemplates
from django.utils.safestring import SafeString, mark_safe

# The stock widget templates that are nothing but `{% include "django/forms/widgets/input.html" %}`.
PLAIN_INPUTS = frozenset(
    f"django/forms/widgets/{name}.html"
    for name in (
        "checkbox",
        "color",
        "date",
        "datetime",
        "email",
        "hidden",
        "input",
        "number",
        "password",
        "search",
        "tel",
        "text",
        "time",
        "url",
    )
)


def _escaped(value) -> str:
    """`conditional_escape` without its lazy-string wrapper, which cost more than the
    escaping itself at a dozen calls a box: text marked safe stays as it is."""
    html = getattr(value, "__html__", None)
    return html() if html is not None else escape(str(value))


def input_html(widget: dict) -> SafeString:
    """`django/forms/widgets/input.html` for the widget context `widget`."""
    html = [f'<input type="{_escaped(widget["type"])}" name="{_escaped(widget["name"])}"']
    if widget["value"] is not None:
        html.append(f' value="{_escaped(widget["value"])}"')
    for name, value in widget["attrs"].items():
        if value is False:
            continue
        html.append(f" {_escaped(name)}")
        if value is not True:
            html.append(f'="{_escaped(value)}"')
    html.append(">")
    return mark_safe("".join(html))


class FastInputs(DjangoTemplates):
    """Django's template renderer, but plain inputs are built by `input_html`."""

    def render(self, template_name, context, request=None):
        if template_name in PLAIN_INPUTS and "widget" in context:
            return input_html(context["widget"])
        return super().render(template_name, context, request)
