"""Tiny wheels and a tiny project, so that pip can build a venv with no index at all."""

from __future__ import annotations

import base64
import hashlib
import zipfile
from pathlib import Path


def write_wheel(
    folder: Path,
    name: str,
    version: str,
    requires: tuple[str, ...] = (),
    files: dict[str, str] | None = None,
    scripts: dict[str, str] | None = None,
) -> Path:
    """A pure-Python wheel of ``files`` whose metadata asks for ``requires``."""
    dist = f"{name}-{version}.dist-info"
    entries = dict(files or {})
    entries[f"{dist}/METADATA"] = (
        f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n"
        + "".join(f"Requires-Dist: {r}\n" for r in requires)
    )
    entries[f"{dist}/WHEEL"] = (
        "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    )
    if scripts:
        lines = "".join(f"{k} = {v}\n" for k, v in scripts.items())
        entries[f"{dist}/entry_points.txt"] = f"[console_scripts]\n{lines}"
    record = ""
    for path, text in entries.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(text.encode()).digest()).rstrip(b"=")
        record += f"{path},sha256={digest.decode()},{len(text.encode())}\n"
    entries[f"{dist}/RECORD"] = record + f"{dist}/RECORD,,\n"
    wheel = folder / f"{name}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as out:
        for path, text in entries.items():
            out.writestr(path, text)
    return wheel


BACKEND = '''
"""A PEP 517 backend for the test project: its wheels from tests/deploy/wheels.py."""
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, {wheels_dir!r})
from wheels import write_wheel

REQUIRES = {requires!r}
SCRIPTS = {{"fakeapp": "fakeapp:main"}}


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    files = {{"fakeapp/__init__.py": (HERE / "fakeapp" / "__init__.py").read_text()}}
    return write_wheel(Path(wheel_directory), "fakeapp", "1", REQUIRES, files, SCRIPTS).name


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    files = {{"fakeapp.pth": f"{{HERE}}\\n"}}  # the project's folder itself on sys.path
    return write_wheel(Path(wheel_directory), "fakeapp", "1", REQUIRES, files, SCRIPTS).name
'''


def write_project(folder: Path, requires: tuple[str, ...]) -> None:
    """A project pip installs (-e too) with nothing from an index: its build backend is in
    the project, needing no setuptools."""
    (folder / "fakeapp").mkdir(parents=True)
    (folder / "fakeapp" / "__init__.py").write_text("def main():\n    print('fakeapp runs')\n")
    (folder / "pyproject.toml").write_text(
        '[build-system]\nrequires = []\nbuild-backend = "backend"\nbackend-path = ["."]\n'
    )
    source = BACKEND.format(wheels_dir=str(Path(__file__).parent), requires=requires)
    (folder / "backend.py").write_text(source)
