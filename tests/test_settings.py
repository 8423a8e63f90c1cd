"""Production settings pass Django's deployment check; the defaults need no setup."""

import os
import stat
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def run_manage(args, env_extra, tmp_path):
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in {"DEBUG", "SECRET_KEY", "DJANGO_ALLOW_ASYNC_UNSAFE"}
    }
    env.update({"BUNCO_DATA_DIR": str(tmp_path), **env_extra})
    return subprocess.run(
        [sys.executable, "manage.py", *args], cwd=ROOT, env=env, capture_output=True, text=True
    )


def test_check_deploy_is_clean_with_production_settings(tmp_path):
    result = run_manage(
        ["check", "--deploy", "--fail-level", "WARNING"],
        {
            "DEBUG": "0",
            "SECRET_KEY": "k" * 20 + "-production-secret-" + "x9" * 20,
            "ALLOWED_HOSTS": "bunco.example.org",
            "BUNCO_HTTPS": "1",
        },
        tmp_path,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "WARNING" not in result.stdout + result.stderr
    assert "no issues" in result.stdout


def test_secret_key_is_generated_private_and_stable(tmp_path):
    result = run_manage(["check"], {}, tmp_path)
    assert result.returncode == 0, result.stderr
    key_file = tmp_path / "secret_key"
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    key = key_file.read_text()
    assert len(key) > 50
    run_manage(["check"], {}, tmp_path)
    assert key_file.read_text() == key


PRODUCTION_PROBE = """
from django.conf import settings
from django.test import Client

client = Client(HTTP_HOST="bunco.example.org")
page = client.get("/accounts/login/", secure=True)
print("STATUS", page.status_code)
print("CSP", page["Content-Security-Policy"])
print("HSTS", page["Strict-Transport-Security"])
print("FRAME", page["X-Frame-Options"])
print("REFERRER", page["Referrer-Policy"])
print("CSRF_COOKIE", page.cookies["csrftoken"]["secure"])
print("SESSION", settings.SESSION_COOKIE_SECURE, settings.SESSION_COOKIE_HTTPONLY)
for _ in range(settings.SIGN_IN_PAIR_LIMIT):
    tried = client.post(
        "/accounts/login/", {"username": "nobody", "password": "wrong"}, secure=True
    )
print("LOCKED", tried.status_code, "Too many wrong passwords" in tried.content.decode())
"""


def test_production_serves_the_policy_and_limits_sign_ins(tmp_path):
    """The same settings check --deploy passes, serving a real request in a fresh process."""
    production = {
        "DEBUG": "0",
        "SECRET_KEY": "k" * 20 + "-production-secret-" + "x9" * 20,
        "ALLOWED_HOSTS": "bunco.example.org",
        "BUNCO_HTTPS": "1",
        "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}",
        "BUNCO_PLAIN_STATIC": "1",
    }
    migrated = run_manage(["migrate", "--noinput"], production, tmp_path)
    assert migrated.returncode == 0, migrated.stderr
    probe = run_manage(["shell", "-c", PRODUCTION_PROBE], production, tmp_path)
    assert probe.returncode == 0, probe.stderr
    seen = dict(line.split(" ", 1) for line in probe.stdout.splitlines() if " " in line)
    assert seen["STATUS"] == "200"
    policy = dict(part.strip().split(" ", 1) for part in seen["CSP"].split(";"))
    assert policy["script-src"] == "'self'" and policy["default-src"] == "'self'"
    assert policy["frame-ancestors"] == "'none'" and policy["object-src"] == "'none'"
    assert seen["HSTS"].startswith("max-age=31536000")
    assert seen["FRAME"] == "DENY" and seen["REFERRER"] == "same-origin"
    assert seen["CSRF_COOKIE"] == "True"
    assert seen["SESSION"] == "True True"
    assert seen["LOCKED"] == "429 True"
