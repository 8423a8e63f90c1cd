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
