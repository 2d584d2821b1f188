#!/usr/bin/env bash
# Installs the Debian packages the bot's build and tests need (servers used by the live tests,
# the -dev libraries the build links), and from PyPI what the browser tests need beside them
# (Tests/Browser/requirements.txt: axe-core for the accessibility checks). Safe to run again: it
# installs only what is missing.
set -euo pipefail

packages=(inspircd ngircd atheme-services postgresql openssl libsqlite3-dev zlib1g-dev ca-certificates chromium chromium-driver python3-selenium
  python3-pip curl irssi tmux tzdata iso-codes)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  SUDO="sudo"
fi
if [ ${#missing[@]} -gt 0 ]; then
  echo "Installing: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  # The Debian packages start system-wide daemons; the tests start their own on free ports.
  for service in inspircd ngircd postgresql; do
    $SUDO systemctl stop "$service" >/dev/null 2>&1 || $SUDO service "$service" stop >/dev/null 2>&1 || true
  done
fi
# The browser tests run Debian's /usr/bin/python3; PyPI's packages go beside its own (Debian marks
# that Python externally managed, hence --break-system-packages: only the pinned wheel, no
# dependency of it, is added). The hash pins the exact wheel.
if ! /usr/bin/python3 -c "import axe_selenium_python" >/dev/null 2>&1; then
  echo "Installing from PyPI: $(grep -v '^#' "$(dirname "$0")/../Tests/Browser/requirements.txt" | cut -d' ' -f1)"
  $SUDO /usr/bin/python3 -m pip install --quiet --disable-pip-version-check --root-user-action=ignore --no-deps --require-hashes \
    --break-system-packages -r "$(dirname "$0")/../Tests/Browser/requirements.txt"
fi
