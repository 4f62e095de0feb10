"""What the install script and the kiosk launcher read from, or add to, the settings file.

    python3 toml_settings.py kiosk-url SETTINGS       the address the kiosk opens
    python3 toml_settings.py add-data-dir SETTINGS DIR

The standard library only: it runs on the system's python3, before the venv exists.
"""

from __future__ import annotations

import json
import os
import sys
import tomllib
from pathlib import Path

DEFAULT_HOST = "127.0.0.1"  # as server/config.py: the service's own defaults
DEFAULT_PORT = 8000


def _read(path: Path) -> dict[str, object] | None:
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as err:
        print(f"dicebridge: cannot read {path} ({err})", file=sys.stderr)
        return None


def kiosk_url(path: Path) -> str:
    """The address the service listens on, as this machine reaches it: 0.0.0.0 and :: (every
    address) through loopback, any other host as it is named."""
    settings = _read(path) or {}
    host, port = settings.get("host", DEFAULT_HOST), settings.get("port", DEFAULT_PORT)
    if not isinstance(host, str) or not isinstance(port, int) or isinstance(port, bool):
        host, port = DEFAULT_HOST, DEFAULT_PORT  # the service refuses these and says why
    host = {"": "127.0.0.1", "0.0.0.0": "127.0.0.1", "::": "::1"}.get(host, host)
    if ":" in host:  # an IPv6 address
        host = f"[{host}]"
    return f"http://{host}:{port}"


def add_data_dir(path: Path, folder: str) -> None:
    """Name ``folder`` as data_dir where the settings name none.  The unit once set
    DICEBRIDGE_DATA_DIR, which beat the file; without it a file that names no folder would
    put the ledger in ./data under /opt/dicebridge, where the service may not write."""
    settings = _read(path)
    if settings is None:
        return  # left as it is: the service says what is wrong with it
    if "data_dir" in settings:
        if settings["data_dir"] != folder:
            print(f"dicebridge: {path} names data_dir = {settings['data_dir']!r}: the "
                  "service keeps its data there (the dicebridge user must be able to write "
                  "it)")  # fmt: skip
        return
    line = f"data_dir = {json.dumps(folder)}  # the ledger, admin PIN and dice pictures\n"
    text = path.read_text(encoding="utf-8")
    part = path.with_name(f".{path.name}.part")
    part.write_text(line + text, encoding="utf-8")  # first: top-level keys precede tables
    os.chmod(part, path.stat().st_mode & 0o7777)
    os.replace(part, path)
    print(f"dicebridge: added data_dir = {json.dumps(folder)} to {path}")


def main(argv: list[str]) -> int:
    if len(argv) == 2 and argv[0] == "kiosk-url":
        print(kiosk_url(Path(argv[1])))
    elif len(argv) == 3 and argv[0] == "add-data-dir":
        add_data_dir(Path(argv[1]), argv[2])
    else:
        print(__doc__, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
