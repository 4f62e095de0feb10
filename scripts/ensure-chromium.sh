#!/bin/sh
# The page tests drive Debian's chromium headless. Install it when it is missing and this
# machine may (root, or sudo without a password); otherwise say so: those tests then skip.
command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 && exit 0
if [ "$(id -u)" = 0 ]; then SUDO=""; elif sudo -n true 2>/dev/null; then SUDO="sudo -n"; else
    echo "ensure-chromium: no chromium and no root: the browser tests will skip" >&2
    exit 0
fi
command -v apt-get >/dev/null 2>&1 || { echo "ensure-chromium: no apt-get here" >&2; exit 0; }
echo "ensure-chromium: installing Debian's chromium for the browser tests" >&2
$SUDO apt-get update -qq >/dev/null && \
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium >/dev/null \
    || echo "ensure-chromium: could not install chromium: the browser tests will skip" >&2
exit 0
