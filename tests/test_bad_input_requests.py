"""Malformed requests to the forms: bodies that are not valid form data at all.

Invalid UTF-8 and UTF-8-encoded lone surrogates, broken percent escapes, NUL bytes, a
multipart body with a broken boundary, JSON where a form is expected, a body over Django's
size limit, more fields than Django accepts. Whatever arrives, the answer is a 400 or the
form's own errors, never a 500, and nothing is saved unless the request was genuinely valid.
"""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from hypothesis import example, given
from hypothesis import strategies as st

from tests.bad_input import PAGES, Baseline, client_for, rolled_back, send, snapshot
from tests.support.factories import checked_in

pytestmark = pytest.mark.django_db

FORM = "application/x-www-form-urlencoded"
FORMS = ["register", "player-add", "checkin-walk-in", "login"]

# (body, must be refused): Django reads invalid UTF-8 with replacement characters, so a name
# of two "\ufffd" may register; a NUL, an oversized or an over-long body may not.
BODIES = [
    (b"name=%ff%fe&email=a%40example.org", False),  # not UTF-8
    (b"name=\xed\xa0\x80&email=a%40example.org", False),  # a lone surrogate, UTF-8 encoded
    (b"name=%ED%A0%80&email=a%40example.org", False),  # the same, percent-escaped
    (b"name=%zz%&email=%", True),  # broken escapes
    (b"name=Ann%00Bob&email=ann%40example.org", True),
    (b"name=Ann\x00Bob&email=ann%40example.org", True),
    (b"&&&==&name&email", True),
    (b"name=" + b"x" * 3_000_000, True),  # over DATA_UPLOAD_MAX_MEMORY_SIZE
    (b"&".join(b"f%d=1" % i for i in range(1500)), True),  # over DATA_UPLOAD_MAX_NUMBER_FIELDS
]
CONTENT_TYPES = [
    FORM,
    f"{FORM}; charset=utf-16",
    f"{FORM}; charset=no-such-charset",
    "multipart/form-data; boundary=",
    "multipart/form-data; boundary=xyz",
    "multipart/form-data",
    "application/json",
    "text/plain",
]


@pytest.fixture
def door(organiser, tournament):
    checked_in(tournament, 4)
    return tournament


def url_of(name: str, tournament) -> str:
    return reverse(name) if name == "login" else reverse(name, args=[tournament.slug])


def post_raw(client, url, body: bytes, content_type: str, baseline: Baseline):
    return send(
        client,
        "post",
        url,
        body,
        baseline=baseline,
        content_type=content_type,
        quiet_redirect=True,  # registration's and the walk-in's answers are pages
    )


@pytest.mark.parametrize("name", FORMS)
@pytest.mark.parametrize(("body", "must_refuse"), BODIES, ids=range(len(BODIES)))
def test_malformed_bodies_are_answered_without_saving_anything(
    door, organiser, name, body, must_refuse
):
    baseline = Baseline(snapshot(), {})
    with rolled_back():
        client = client_for(None if name in ("register", "login") else organiser)
        outcome = post_raw(client, url_of(name, door), body, FORM, baseline)
    assert outcome.refused or not must_refuse


@pytest.mark.parametrize("content_type", CONTENT_TYPES)
@PAGES
@given(name=st.sampled_from(["player-add", "player-import"]), body=st.binary(max_size=300))
@example(name="player-add", body=b'{"name": "Ann", "email": "ann@example.org"}')
@example(
    name="player-add",
    body=b'--xyz\r\nContent-Disposition: form-data; name="name"\r\n\r\nAnn\r\n--xy',
)
@example(
    name="player-add",
    body=b'--xyz\r\nContent-Disposition: form-data; name="file"; filename="\x00"\r\n\r\n',
)
def test_random_bodies_of_any_content_type(door, organiser, content_type, name, body):
    baseline = Baseline(snapshot(), {})
    with rolled_back():
        post_raw(client_for(organiser), url_of(name, door), body, content_type, baseline)


def test_an_upload_where_a_field_is_expected_and_text_where_a_file_is(door, organiser):
    baseline = Baseline(snapshot(), {})
    upload = SimpleUploadedFile("name.csv", b"Ann")
    with rolled_back():
        outcome = send(
            client_for(organiser),
            "post",
            url_of("player-add", door),
            {"name": upload, "email": upload},
            baseline=baseline,
        )
    assert outcome.refused
    with rolled_back():
        outcome = send(
            client_for(organiser),
            "post",
            url_of("player-import", door),
            {"file": "name\nAnn\n"},
            baseline=baseline,
        )
    assert outcome.refused
