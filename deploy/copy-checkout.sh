#!/bin/sh
# Usage: copy-checkout.sh SRC DEST. Copies a dicebridge checkout's source to DEST (install.sh).
# Left out is what a checkout makes while it is used, as in .gitignore: its .venv (whose
# scripts and editable install run the checkout's code), ./data (the demo's ledger and admin
# PIN), build output, caches and the git history. These are matched at the top only (a
# vision/data folder would be source), the Python caches anywhere.
set -eu
SRC="$1"
DEST="$2"
mkdir -p "$DEST"
tar -C "$SRC" -cf - \
    --anchored \
    --exclude=./.venv --exclude=./data --exclude=./build --exclude=./dist \
    --exclude=./artifacts --exclude=./.git --exclude=./.pytest_cache \
    --exclude=./.mypy_cache --exclude=./.ruff_cache --exclude=./.hypothesis \
    --no-anchored \
    --exclude='*.egg-info' --exclude=__pycache__ --exclude='*.pyc' \
    . | tar -C "$DEST" --no-same-owner -xf -
