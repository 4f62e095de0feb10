"""The project's shape: packages import anywhere, mechanics stays pure, the CLI answers."""

from __future__ import annotations

import ast
import importlib
import json
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest

from dicebridge.odds import OddsReport, to_json, to_text
from mechanics.distribution import Distribution

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("mechanics", "vision", "firmware_host", "hardware", "server", "audit", "dicebridge")
# Hardware and vendor libraries that must never be imported when a package is imported.
VENDOR = ("picamera2", "luma", "RPi", "lgpio", "spidev", "smbus2", "serial")


def test_every_package_imports_without_hardware_libraries() -> None:
    code = (
        "import sys, importlib\n"
        f"for p in {PACKAGES!r}: importlib.import_module(p)\n"
        f"loaded = sorted(m for m in sys.modules if m.split('.')[0] in {VENDOR!r})\n"
        "print(','.join(loaded))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == ""


FORBIDDEN_IMPORTS = {"os", "sys", "io", "pathlib", "socket", "subprocess", "sqlite3", "time"}
FORBIDDEN_RANDOM_CALLS = {"random", "randint", "randrange", "choice", "choices", "gauss", "seed"}


def mechanics_sources() -> list[Path]:
    return sorted((ROOT / "mechanics").glob("*.py"))


@pytest.mark.parametrize("path", mechanics_sources(), ids=lambda p: p.name)
def test_mechanics_is_pure(path: Path) -> None:
    """No I/O modules, no printing, no file access, no global random generator."""
    tree = ast.parse(path.read_text(), filename=str(path))
    problems = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            problems += [a.name for a in node.names if a.name.split(".")[0] in FORBIDDEN_IMPORTS]
        elif isinstance(node, ast.ImportFrom) and node.module:
            if node.module.split(".")[0] in FORBIDDEN_IMPORTS:
                problems.append(node.module)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            if node.func.id in {"print", "open", "input"}:
                problems.append(f"{node.func.id}() at line {node.lineno}")
        elif (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id == "random"
            and node.attr in FORBIDDEN_RANDOM_CALLS
        ):
            problems.append(f"random.{node.attr} at line {node.lineno}")
    assert problems == []


def test_module_level_state_is_constant() -> None:
    """mechanics keeps no mutable module-level containers (no caches, no registries)."""
    for path in mechanics_sources():
        module = importlib.import_module(f"mechanics.{path.stem}")
        for name, value in vars(module).items():
            if name.startswith("__"):
                continue
            assert not isinstance(value, list | dict | set), f"{path.name}: {name} is mutable"


def test_pictures_go_through_python_s_file_calls_not_opencv_s() -> None:
    """cv2.imread and cv2.imwrite crash the process on a file name that is not UTF-8, and
    imread waits for ever on a named pipe: the project's code reads and writes pictures
    with vision.pixels (decode_file, read_image, write_image), which do not."""
    calls = []
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if (
                    isinstance(node, ast.Attribute)
                    and isinstance(node.value, ast.Name)
                    and node.value.id == "cv2"
                    and node.attr in ("imread", "imwrite")
                ):
                    calls.append(f"{path.relative_to(ROOT)}:{node.lineno} cv2.{node.attr}")
    assert calls == []


def test_version_and_help() -> None:
    from dicebridge import __version__
    from dicebridge.cli import main

    with pytest.raises(SystemExit) as exit_info:
        main(["--version"])
    assert exit_info.value.code == 0
    assert __version__.count(".") == 2


def test_console_script_runs() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "dicebridge", "odds", "--help"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    for system in ("dphi", "peupfudge", "d6pool", "decibel", "d5"):
        assert system in out.stdout


def sample_report() -> OddsReport:
    d = Distribution.uniform(1, 6).repeat_sum(2)
    return OddsReport(
        system="test",
        description="2d6 >= 10",
        probability=float(d.p_at_least(10)),
        exact=d.p_at_least(10),
        distribution=d,
        success_from=10,
        facts=(("P(tie)", Fraction(1, 6)), ("swing", 8.0)),
        notes=("a note",),
    )


def test_report_json_carries_exact_and_float_values() -> None:
    out = to_json(sample_report())
    json.dumps(out)  # serialisable
    assert out["probability"] == pytest.approx(1 / 6)
    assert out["exact"] == "1/6"
    assert out["p_tie"] == {"probability": pytest.approx(1 / 6), "exact": "1/6"}
    assert out["swing"] == 8.0
    rows = {r["outcome"]: r for r in out["distribution"]}
    assert rows[7]["exact"] == "1/6"
    assert rows[10]["p_at_least"] == pytest.approx(6 / 36)
    assert out["notes"] == ["a note"]


def test_report_text_marks_the_success_region() -> None:
    text = to_text(sample_report())
    assert "P(success) = 16.67%" in text
    assert "exactly      1/6" in text
    bars = {
        int(line.split()[0]): line.split()[-1]
        for line in text.splitlines()
        if line.split() and line.split()[0].isdigit()
    }
    assert sorted(bars) == list(range(2, 13))
    assert all(set(bars[x]) == {"#"} for x in range(10, 13))
    assert all(set(bars[x]) == {"."} for x in range(2, 10))
    assert len(bars[7]) == 40  # the most likely outcome gets the full bar
