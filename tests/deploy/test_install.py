"""deploy/: the install script's steps, run for real into folders of the test's own.

Nothing here runs apt, useradd or systemctl: install.sh itself is run only as a user who
is not root, whom it turns away before anything else.
"""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

from tests.deploy.unprivileged import run_unprivileged
from tests.deploy.wheels import write_project, write_wheel

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"


def test_the_copy_leaves_the_checkout_s_venv_data_and_build_output_behind(
    tmp_path: Path,
) -> None:
    """install.sh had copied everything with `cp -a`: a venv made by `make run` (its
    scripts running the checkout's code), the demo's ledger and PIN, screenshots."""
    src, dest = tmp_path / "checkout", tmp_path / "opt"
    made = {
        ".venv/bin/dicebridge": f"#!{src}/.venv/bin/python\n",
        ".venv/.installed": "",
        "data/admin.json": "{}",
        "data/ledger.sqlite3": "",
        "build/screenshots/table.png": "",
        "server/__pycache__/app.cpython-311.pyc": "",
        ".git/HEAD": "ref: refs/heads/main\n",
        "dicebridge.egg-info/PKG-INFO": "",
        ".pytest_cache/README.md": "",
        ".mypy_cache/3.11/x.json": "",
    }
    source = {
        "pyproject.toml": "",
        ".gitignore": "",
        "server/app.py": "",
        "vision/data/keep.txt": "",  # a folder named data below the top is source
        "deploy/install.sh": "#!/bin/sh\n",
    }
    for name, text in {**made, **source}.items():
        (src / name).parent.mkdir(parents=True, exist_ok=True)
        (src / name).write_text(text)
    (src / "deploy/install.sh").chmod(0o755)
    subprocess.run(["sh", DEPLOY / "copy-checkout.sh", src, dest], check=True)
    landed = {str(p.relative_to(dest)) for p in dest.rglob("*") if p.is_file()}
    assert landed == set(source)
    assert (dest / "deploy/install.sh").stat().st_mode & stat.S_IXUSR
    install = (DEPLOY / "install.sh").read_text()
    assert 'sh "$SRC/deploy/copy-checkout.sh" "$SRC" "$DEST"' in install
    assert 'sh "$DEST/deploy/build-venv.sh" "$DEST"' in install
    assert "cp -a" not in install


SYSTEM_PYTHON = """#!/bin/sh
# A system Python whose site folder holds apt's packages: a venv made with
# --system-site-packages finds them after its own (a .pth there stands for that).
for arg; do
    [ "$arg" = --system-site-packages ] && system=yes
    last="$arg"
done
"{python}" "$@" || exit
if [ "$1 $2" = "-m venv" ] && [ -n "${{system:-}}" ]; then
    echo "{site}" > "$(echo "$last"/lib/python3*/site-packages)/apt.pth"
fi
"""


def _apt_site(site: Path) -> None:
    """Raspberry Pi OS's numpy 1.24, and picamera2 with the simplejpeg apt built against
    that numpy (it fails to load under numpy 2, as the real one does)."""
    packages = {
        "numpy/__init__.py": "__version__ = '1.24.2'\n",
        "simplejpeg/__init__.py": (
            "import numpy\n"
            "if not numpy.__version__.startswith('1.'):\n"
            "    raise ValueError('numpy.dtype size changed: binary incompatibility')\n"
        ),
        "picamera2/__init__.py": "import simplejpeg\n",
        "lgpio.py": "",
    }
    for path, text in packages.items():
        (site / path).parent.mkdir(parents=True, exist_ok=True)
        (site / path).write_text(text)
    for name, version in (("numpy", "1.24.2"), ("simplejpeg", "1.8.1")):
        (site / f"{name}-{version}.dist-info").mkdir()
        (site / f"{name}-{version}.dist-info/METADATA").write_text(
            f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n"
        )


def test_the_venv_is_built_in_place_and_loads_the_system_s_pi_camera(tmp_path: Path) -> None:
    """A venv copied along had run the checkout's code; one made without the system's
    packages could not see Raspberry Pi OS's picamera2 and lgpio; and one that sees them
    but takes numpy 2 from opencv's wheels cannot load apt's simplejpeg under picamera2."""
    dest, wheels, site = tmp_path / "opt", tmp_path / "wheels", tmp_path / "apt"
    wheels.mkdir()
    _apt_site(site)
    system_python = tmp_path / "python3"
    system_python.write_text(SYSTEM_PYTHON.format(python=sys.executable, site=site))
    system_python.chmod(0o755)
    write_project(dest, requires=("numpy>=1.24", "fakecv"))
    (dest / ".venv/bin").mkdir(parents=True)  # one copied from a checkout, newer than all
    (dest / ".venv/bin/fakeapp").write_text("#!/home/pi/dicebridge/.venv/bin/python\n")
    (dest / ".venv/.installed").touch()
    # fakecv stands for opencv, whose wheels ask for numpy 2
    write_wheel(wheels, "fakecv", "2.0", ("numpy>=2",), {"fakecv.py": ""})
    write_wheel(wheels, "numpy", "2.0.0", (), {"numpy/__init__.py": "__version__ = '2.0.0'\n"})
    simplejpeg = {"simplejpeg/__init__.py": "import numpy\n"}  # PyPI's: loads under either
    write_wheel(wheels, "simplejpeg", "1.9.0", ("numpy>=1.19.3",), simplejpeg)
    env = {**os.environ, "PYTHON": str(system_python), "PIP_NO_INDEX": "1",
           "PIP_FIND_LINKS": str(wheels)}  # fmt: skip
    built = subprocess.run(["sh", DEPLOY / "build-venv.sh", dest], env=env,
                           capture_output=True, text=True, timeout=300)  # fmt: skip
    assert (built.returncode, built.stderr) == (0, "")
    venv = dest / ".venv"
    assert (venv / "bin/fakeapp").read_text().splitlines()[0] == f"#!{venv}/bin/python"
    assert not (venv / ".installed").exists()
    ran = subprocess.run([venv / "bin/fakeapp"], capture_output=True, text=True, check=True)
    assert ran.stdout == "fakeapp runs\n"
    camera = subprocess.run(
        [venv / "bin/python", "-c", "import lgpio, numpy, picamera2; print(numpy.__version__)"],
        capture_output=True, text=True,
    )  # fmt: skip
    assert (camera.returncode, camera.stdout) == (0, "2.0.0\n"), camera.stderr


def test_install_sh_turns_away_all_but_root_before_anything() -> None:
    """It is only ever run here as a user who is not root: it must stop before apt."""
    got = run_unprivileged(["sh", str(DEPLOY / "install.sh")])
    assert (got.returncode, got.stdout) == (1, "")
    assert got.stderr == "deploy/install.sh: run it as root: sudo deploy/install.sh\n"
