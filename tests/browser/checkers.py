"""The two outside checkers the page tests run: axe-core (accessibility, WCAG 2.1 A and AA) in
Chromium, and the Nu HTML checker (vnu.jar) on the HTML the server sent.

Both come from the npm registry (`package.json` at the repository's root; `make test` and
`.ci/run` run `npm ci`), never from a CDN. A machine without them skips the tests, which
BUNCO_REQUIRE_SERVICES=1 turns into a failure (tests/conftest.py).
"""

import json
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest
from django.conf import settings

NODE_MODULES = Path(settings.BASE_DIR) / "node_modules"
AXE_SCRIPT = NODE_MODULES / "axe-core" / "axe.min.js"
VNU_JAR = NODE_MODULES / "vnu-jar" / "build" / "dist" / "vnu.jar"
WCAG_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]
# What fails a page: axe's two top impacts. The two lower ones are reported, not failed.
FAILING_IMPACTS = {"serious", "critical"}
INSTALL_HINT = "run `npm ci` in the repository (make test does)"


def axe_source() -> str:
    if not AXE_SCRIPT.exists():
        pytest.skip(f"needs axe-core at {AXE_SCRIPT}: {INSTALL_HINT}")
    return AXE_SCRIPT.read_text()


def java_and_vnu() -> list[str]:
    java = shutil.which("java")
    if java is None:
        pytest.skip("needs Java for the Nu HTML checker (apt-get install default-jre-headless)")
    if not VNU_JAR.exists():
        pytest.skip(f"needs the Nu HTML checker at {VNU_JAR}: {INSTALL_HINT}")
    return [java, "-Xss8m", "-jar", str(VNU_JAR)]


@dataclass
class AxeFinding:
    rule: str
    impact: str
    help: str
    targets: list[str] = field(default_factory=list)
    detail: str = ""  # what axe says about the first element, e.g. the contrast it measured

    @property
    def fails(self) -> bool:
        return self.impact in FAILING_IMPACTS

    def __str__(self) -> str:
        shown = ", ".join(self.targets[:3]) + (" …" if len(self.targets) > 3 else "")
        return (
            f"{self.impact} {self.rule} ({self.help}) ×{len(self.targets)}: {shown} — {self.detail}"
        )


def run_axe(page, source: str) -> list[AxeFinding]:
    """axe-core on the page as the browser shows it now. The script goes in through the
    DevTools protocol, which the page's content security policy does not govern, so the
    page is checked under its real policy."""
    if not page.evaluate("() => typeof window.axe === 'object'"):
        page.evaluate(source)
    result = page.evaluate(
        """(tags) => axe.run(document, {runOnly: {type: "tag", values: tags},
                                        resultTypes: ["violations"]})""",
        WCAG_TAGS,
    )
    return [
        AxeFinding(
            rule=v["id"],
            impact=v.get("impact") or "minor",
            help=v["help"],
            targets=[" ".join(map(str, node["target"])) for node in v["nodes"]],
            detail=" ".join((v["nodes"][0].get("failureSummary") or "").split())[:300]
            if v["nodes"]
            else "",
        )
        for v in result["violations"]
    ]


@dataclass
class NuMessage:
    line: int
    message: str
    extract: str

    def __str__(self) -> str:
        return f"line {self.line}: {self.message} [{self.extract.strip()[:90]}]"


def run_nu(files: dict[str, Path]) -> dict[str, list[NuMessage]]:
    """The Nu HTML checker's errors for each named file, in one Java run over them all (a
    start of the JVM costs seconds; a page costs milliseconds)."""
    command = [*java_and_vnu(), "--format", "json", "--stdout", "--errors-only"]
    command.append("--exit-zero-always")
    by_path = {str(path.resolve()): name for name, path in files.items()}
    done = subprocess.run(
        [*command, *(str(p) for p in files.values())],
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    found: dict[str, list[NuMessage]] = {name: [] for name in files}
    for message in json.loads(done.stdout)["messages"]:
        if message["type"] not in ("error", "non-document-error"):
            continue
        url = message.get("url", "?")
        name = by_path.get(unquote(urlsplit(url).path), url)
        found.setdefault(name, []).append(
            NuMessage(message.get("lastLine", 0), message["message"], message.get("extract", ""))
        )
    return found
