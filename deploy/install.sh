#!/bin/sh
# Install dicebridge as a service on Raspberry Pi OS (Bookworm). Run as root from the checkout;
# run it again to update: the settings (/etc/dicebridge) and the data (/var/lib/dicebridge) stay.
set -eu
SRC="$(cd "$(dirname "$0")/.." && pwd)"
DEST=/opt/dicebridge
DATA=/var/lib/dicebridge
SETTINGS=/etc/dicebridge/dicebridge.toml

if [ "$(id -u)" != 0 ]; then
    echo "deploy/install.sh: run it as root: sudo deploy/install.sh" >&2
    exit 1
fi
if [ "$SRC" = "$DEST" ]; then
    echo "deploy/install.sh: run it from a checkout, not from $DEST, which it replaces" >&2
    exit 1
fi

apt-get update -qq
apt-get install -y -qq python3 python3-venv
# The Pi camera (picamera2) and gpiozero's pin factory (lgpio, the one a Pi 5 needs) are
# Raspberry Pi OS packages, not PyPI ones; the venv sees them (build-venv.sh).
# The display's fonts: DejaVu Sans, and GNU Unifont for every other script and one-colour
# emoji (hardware/fonts.py; without it such characters show as "?").
for package in python3-picamera2 python3-lgpio fonts-dejavu-core fonts-unifont; do
    if apt-cache show "$package" >/dev/null 2>&1; then
        apt-get install -y -qq --no-install-recommends "$package"
    else
        echo "deploy/install.sh: $package is not in this system's archive (not Raspberry Pi OS?)" >&2
    fi
done
id dicebridge >/dev/null 2>&1 || useradd --system --home "$DATA" --shell /usr/sbin/nologin dicebridge
for group in gpio dialout video i2c spi; do
    getent group "$group" >/dev/null && usermod -aG "$group" dicebridge
done

# A fresh copy each time (files gone from the checkout go from here too), and a venv built
# here, never copied: see copy-checkout.sh and build-venv.sh.
systemctl stop dicebridge.service 2>/dev/null || true
rm -rf "$DEST"
sh "$SRC/deploy/copy-checkout.sh" "$SRC" "$DEST"
sh "$DEST/deploy/build-venv.sh" "$DEST"
ln -sfn "$DEST/.venv/bin/dicebridge" /usr/local/bin/dicebridge  # on everyone's PATH, sudo's too

mkdir -p /etc/dicebridge
if [ -f "$SETTINGS" ]; then  # an older one may lack data_dir (the unit had set it)
    python3 "$DEST/deploy/toml_settings.py" add-data-dir "$SETTINGS" "$DATA"
else
    install -m 0644 "$DEST/deploy/dicebridge.toml" "$SETTINGS"
fi
install -m 0644 "$DEST/deploy/dicebridge.service" /etc/systemd/system/dicebridge.service
install -m 0644 "$DEST/deploy/99-dicebridge-towers.rules" /etc/udev/rules.d/99-dicebridge-towers.rules
udevadm control --reload-rules && udevadm trigger
if [ "${KIOSK:-0}" = 1 ]; then  # an HDMI screen: Chromium in kiosk mode on /kiosk
    apt-get install -y -qq chromium-browser curl || apt-get install -y -qq chromium curl
    install -m 0644 "$DEST/deploy/dicebridge-kiosk.desktop" /etc/xdg/autostart/dicebridge-kiosk.desktop
fi
systemctl daemon-reload
systemctl enable dicebridge.service
systemctl restart dicebridge.service
echo "dicebridge is running: systemctl status dicebridge; settings in $SETTINGS"
