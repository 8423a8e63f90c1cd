"""Draw codes from a sealed secret, and the check anyone can run once it is published."""

import hashlib
import hmac
import subprocess
import sys

from hypothesis import given
from hypothesis import strategies as st

from tournaments.rules.draws import (
    FINAL_SEATS,
    SEED_BITS,
    Logged,
    Status,
    Used,
    draw_code,
    fingerprint,
    label,
    new_secret,
    pods_subject,
    prize_roll_off_subject,
    roll_off_subject,
    verify,
)

SECRET = "00" * 31 + "2a"
OTHER = "11" * 32


def by_hand(secret: str, text: str) -> int:
    """The documented recipe, written out again: the first 62 bits of HMAC-SHA256."""
    mac = hmac.new(bytes.fromhex(secret), text.encode(), hashlib.sha256).digest()
    return int.from_bytes(mac[:8], "big") >> 2


def logged(subject, attempt=1, secret=SECRET, **kwargs):
    return Logged(subject, attempt, draw_code(secret, label(subject, attempt)), **kwargs)


def test_the_fingerprint_is_the_sha256_of_the_secrets_bytes():
    assert fingerprint(SECRET) == hashlib.sha256(bytes(31) + b"\x2a").hexdigest()
    secret = new_secret()
    assert len(secret) == 64 and len(bytes.fromhex(secret)) == 32
    assert new_secret() != secret


def test_labels_are_fixed_strings_the_code_writes():
    assert label(pods_subject("qualifying"), 1) == "pods:qualifying#1"
    assert label(roll_off_subject("semi_final", "semi-final", "buncos"), 1) == (
        "roll-off:semi_final:semi-final:buncos#1"
    )
    assert label(prize_roll_off_subject("most_buncos:overall:1"), 2) == (
        "prize-roll-off:most_buncos:overall:1#2"
    )


@given(st.text(max_size=80), st.binary(min_size=32, max_size=32))
def test_a_draw_code_is_the_first_62_bits_of_the_hmac_of_its_label(text, key):
    code = draw_code(key.hex(), text)
    assert code == by_hand(key.hex(), text)
    assert 0 <= code < 2**SEED_BITS


def test_each_label_and_each_attempt_gets_its_own_code():
    codes = {
        draw_code(SECRET, label(subject, attempt))
        for subject in (pods_subject("qualifying"), pods_subject("semi_final"), FINAL_SEATS)
        for attempt in (1, 2)
    }
    assert len(codes) == 6
    assert draw_code(OTHER, "pods:qualifying#1") != draw_code(SECRET, "pods:qualifying#1")


def test_a_published_secret_and_its_draws_check_out():
    draws = [logged(pods_subject("qualifying")), logged(FINAL_SEATS)]
    used = [Used(d.subject, d.seed) for d in draws]
    result = verify(fingerprint(SECRET).upper(), SECRET, draws, used)
    assert result.published and result.secret_matches and result.ok
    assert [c.status for c in result.draws] == [Status.CHECKS, Status.CHECKS]


def test_a_code_that_is_not_the_labels_is_caught():
    good = logged(pods_subject("qualifying"))
    typed = Logged(FINAL_SEATS, 1, 123456789)  # a seed someone chose
    result = verify(fingerprint(SECRET), SECRET, [good, typed])
    status = {c.draw.subject: c.status for c in result.draws}
    assert status == {good.subject: Status.CHECKS, FINAL_SEATS: Status.WRONG}
    assert not result.ok


def test_another_secret_than_the_fingerprint_sealed_fails_every_draw():
    draws = [logged(pods_subject("qualifying"), secret=OTHER)]
    result = verify(fingerprint(SECRET), OTHER, draws)
    assert result.secret_matches is False and not result.ok
    assert [c.status for c in result.draws] == [Status.WRONG]


def test_before_publication_nothing_can_be_checked_yet():
    result = verify(fingerprint(SECRET), None, [logged(FINAL_SEATS)])
    assert not result.published and result.secret_matches is None and not result.ok
    assert [c.status for c in result.draws] == [Status.SEALED]


def test_a_practice_seed_is_listed_as_such_and_does_not_fail_the_check():
    practice = Logged(pods_subject("qualifying"), 1, 7, sealed=False)
    result = verify(fingerprint(SECRET), SECRET, [practice, logged(FINAL_SEATS)])
    assert [c.status for c in result.draws] == [Status.CHECKS, Status.UNSEALED]
    assert result.ok


def test_a_result_replaying_from_an_unlisted_code_is_caught():
    listed = logged(FINAL_SEATS)
    result = verify(fingerprint(SECRET), SECRET, [listed], [Used(FINAL_SEATS, listed.seed + 1)])
    assert result.unlisted == (Used(FINAL_SEATS, listed.seed + 1),) and not result.ok


def test_a_redraw_removed_from_the_list_is_caught():
    subject = prize_roll_off_subject("wins:1:1")
    kept = [logged(subject, 1), logged(subject, 3)]
    result = verify(fingerprint(SECRET), SECRET, kept, [Used(subject, kept[1].seed)])
    assert result.missing == ((subject, 2),) and not result.ok
    assert all(c.status == Status.CHECKS for c in result.draws)


def test_the_engine_imports_no_django():
    code = (
        "import sys, tournaments.rules.draws; "
        "print(any(m.startswith('django') for m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
