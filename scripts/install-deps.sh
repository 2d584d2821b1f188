#!/usr/bin/env bash
# Installs the Debian packages the bot's build and tests need (servers used by the live tests,
# the -dev libraries the build links). Safe to run again: it installs only what is missing.
set -euo pipefail

packages=(inspircd ngircd atheme-services postgresql openssl libsqlite3-dev zlib1g-dev ca-certificates chromium chromium-driver python3-selenium
  curl irssi tmux tzdata iso-codes)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
echo "Installing: ${missing[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  SUDO="sudo"
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
# The Debian packages start system-wide daemons; the tests start their own on free ports.
for service in inspircd ngircd postgresql; do
  $SUDO systemctl stop "$service" >/dev/null 2>&1 || $SUDO service "$service" stop >/dev/null 2>&1 || true
done
