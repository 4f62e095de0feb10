#!/bin/sh
# Create the project's virtual environment with nothing but python3.
# Debian and Raspberry Pi OS split ensurepip into the python3-venv package;
# when it is missing we install it (as root, or through sudo) and say so.
set -eu
VENV="${1:-.venv}"
PYTHON="${PYTHON:-python3}"

if ! command -v "$PYTHON" >/dev/null 2>&1; then
    echo "dicebridge needs Python 3.11 or newer ($PYTHON not found)." >&2
    exit 1
fi
"$PYTHON" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else 1)' || {
    echo "dicebridge needs Python 3.11 or newer; $PYTHON is $("$PYTHON" -V 2>&1)." >&2
    exit 1
}

if [ -x "$VENV/bin/python" ]; then
    exit 0
fi

if "$PYTHON" -m venv "$VENV" 2>/dev/null; then
    exit 0
fi
rm -rf "$VENV"

echo "python3 -m venv failed (Debian ships it in python3-venv); installing python3-venv..." >&2
if [ "$(id -u)" = 0 ]; then SUDO=""; else SUDO="sudo"; fi
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq python3-venv
"$PYTHON" -m venv "$VENV"
