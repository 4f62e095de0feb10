#!/bin/sh
# Install dicebridge as a service on Raspberry Pi OS (Bookworm). Run as root from the checkout.
set -eu
SRC="$(cd "$(dirname "$0")/.." && pwd)"
DEST=/opt/dicebridge

apt-get update -qq
apt-get install -y -qq python3 python3-venv make
id dicebridge >/dev/null 2>&1 || useradd --system --home /var/lib/dicebridge --shell /usr/sbin/nologin dicebridge
for group in gpio dialout video i2c spi; do
    getent group "$group" >/dev/null && usermod -aG "$group" dicebridge
done

mkdir -p "$DEST" /etc/dicebridge
cp -a "$SRC/." "$DEST/"
cd "$DEST" && make .venv/.installed
[ -f /etc/dicebridge/dicebridge.toml ] || cp "$DEST/deploy/dicebridge.toml" /etc/dicebridge/dicebridge.toml
install -m 0644 "$DEST/deploy/dicebridge.service" /etc/systemd/system/dicebridge.service
install -m 0644 "$DEST/deploy/99-dicebridge-towers.rules" /etc/udev/rules.d/99-dicebridge-towers.rules
udevadm control --reload-rules && udevadm trigger
if [ "${KIOSK:-0}" = 1 ]; then  # an HDMI screen: Chromium in kiosk mode on /kiosk
    apt-get install -y -qq chromium-browser curl || apt-get install -y -qq chromium curl
    install -m 0644 "$DEST/deploy/dicebridge-kiosk.desktop" /etc/xdg/autostart/dicebridge-kiosk.desktop
fi
systemctl daemon-reload
systemctl enable --now dicebridge.service
echo "dicebridge is running: systemctl status dicebridge; settings in /etc/dicebridge/dicebridge.toml"
