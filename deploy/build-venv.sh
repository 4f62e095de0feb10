#!/bin/sh
# Usage: build-venv.sh DEST. Builds the appliance's virtual environment in DEST/.venv, from
# scratch each time: one copied from elsewhere runs the code of the place it was made.
# It sees the system's packages (--system-site-packages): on Raspberry Pi OS the camera's
# picamera2 and gpiozero's lgpio pin factory come from apt, not from PyPI.
set -eu
DEST="$(cd "$1" && pwd)"
PYTHON="${PYTHON:-python3}"
VENV="$DEST/.venv"
# root's own ~/.local packages would count as installed, yet the service's user lacks them
export PYTHONNOUSERSITE=1

has() {  # has MODULE: the venv can import MODULE, from itself or the system
    "$VENV/bin/python" -c "import importlib.util, sys; sys.exit(not importlib.util.find_spec('$1'))"
}

rm -rf "$VENV"
"$PYTHON" -m venv --system-site-packages "$VENV"
"$VENV/bin/python" -m pip install --quiet -e "$DEST"
# picamera2 loads simplejpeg, which apt builds against its numpy 1.24; the numpy 2 that
# opencv's wheels bring into the venv cannot load that build ("numpy.dtype size changed").
# PyPI's simplejpeg loads under either, so the venv gets its own.
if has simplejpeg; then
    "$VENV/bin/python" -m pip install --quiet --ignore-installed --no-deps simplejpeg
fi
if has picamera2 && ! "$VENV/bin/python" -c "import picamera2"; then
    echo "build-venv.sh: picamera2 does not load in $VENV: the Pi camera cannot open" >&2
fi
