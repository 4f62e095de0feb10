#!/bin/sh
# Debian packages the tests use, installed when missing and this machine may (root, or
# sudo without a password); otherwise said: the tests that need them then skip.
#   chromium           the page tests drive it headless
#   fonts-dejavu-core  the display's font (hardware/fonts.py)
#   fonts-unifont      the display's fallback for other scripts and emoji
missing=""
command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 \
    || missing="$missing chromium"
[ -f /usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf ] || missing="$missing fonts-dejavu-core"
[ -f /usr/share/fonts/opentype/unifont/unifont.otf ] || missing="$missing fonts-unifont"
[ -z "$missing" ] && exit 0
if [ "$(id -u)" = 0 ]; then SUDO=""; elif sudo -n true 2>/dev/null; then SUDO="sudo -n"; else
    echo "ensure-test-packages: missing$missing and no root: the tests needing them will skip" >&2
    exit 0
fi
command -v apt-get >/dev/null 2>&1 || { echo "ensure-test-packages: no apt-get here" >&2; exit 0; }
echo "ensure-test-packages: installing$missing for the tests" >&2
# shellcheck disable=SC2086  # the list is words
$SUDO apt-get update -qq >/dev/null && \
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $missing >/dev/null \
    || echo "ensure-test-packages: could not install$missing: the tests needing them will skip" >&2
exit 0
