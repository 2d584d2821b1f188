# Shared by the benchmark scripts (sourced, not run): a throwaway InspIRCd on 127.0.0.1 over TLS
# with the test client's flood limits raised, in the folder "$state".
#
#   start_bench_ircd   sets $port, $server_pid and writes $state/cert.pem; the caller's EXIT trap
#                      should kill $server_pid.

install_inspircd() {
  if [ ! -x /usr/sbin/inspircd ]; then
    echo "Installing InspIRCd (Debian package)…"
    local SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
    $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq inspircd openssl >/dev/null
    $SUDO systemctl disable --now inspircd >/dev/null 2>&1 || $SUDO service inspircd stop >/dev/null 2>&1 || true
  fi
}

free_port() {
  local port
  while :; do
    port=$(( 20000 + RANDOM % 20000 ))
    (exec 3<>/dev/tcp/127.0.0.1/"$port") 2>/dev/null || { echo "$port"; return; }
  done
}

start_bench_ircd() {
  install_inspircd
  port=$(free_port)
  openssl req -x509 -newkey rsa:2048 -nodes -days 30 -subj "/CN=127.0.0.1" \
    -addext "subjectAltName=IP:127.0.0.1,DNS:localhost" \
    -keyout "$state/key.pem" -out "$state/cert.pem" >/dev/null 2>&1

  # The test client's flood limits are raised (commandrate, fakelag off, large recvq/sendq): the
  # burst must reach the bot as sent. DNS and ident lookups are off.
  local modules="ssl_gnutls cap ircv3 ircv3_accounttag ircv3_capnotify ircv3_chghost ircv3_ctctags ircv3_msgid ircv3_servertime ircv3_batch namesx uhnames services_account chghost"
  {
    echo '<config format="xml">'
    echo '<server name="irc.bench.test" description="InspIRCd for the load benchmark" network="BenchNet">'
    echo '<admin name="Bench" nick="bench" email="bench@localhost">'
    echo "<bind address=\"127.0.0.1\" port=\"$port\" type=\"clients\" sslprofile=\"Clients\">"
    for m in $modules; do echo "<module name=\"$m\">"; done
    echo "<sslprofile name=\"Clients\" provider=\"gnutls\" certfile=\"$state/cert.pem\" keyfile=\"$state/key.pem\" hash=\"sha256\" requestclientcert=\"no\">"
    echo '<connect allow="*" timeout="60" threshold="100000" pingfreq="120" hardsendq="16777216" softsendq="8388608"'
    echo '    recvq="8388608" localmax="1000" globalmax="1000" useident="no" resolvehostnames="no"'
    echo '    commandrate="100000000" fakelag="off" maxchans="50">'
    echo '<dns server="127.0.0.1" timeout="1">'
    echo "<pid file=\"$state/inspircd.pid\">"
    echo "<log method=\"file\" type=\"* -USERINPUT -USEROUTPUT\" level=\"default\" target=\"$state/inspircd-file.log\">"
    echo "<files motd=\"$state/motd.txt\">"
    echo '<options prefixquit="Quit: " syntaxhints="no" announcets="yes" hostintopic="yes" pingwarning="15">'
    echo '<security userstats="Pu">'
  } > "$state/inspircd.conf"
  echo "InspIRCd benchmark server" > "$state/motd.txt"

  local launcher=()
  if [ "$(id -u)" -eq 0 ]; then
    chown -R nobody:nogroup "$state"
    launcher=(setpriv --reuid=nobody --regid=nogroup --clear-groups)
  fi
  "${launcher[@]}" /usr/sbin/inspircd --nofork --config "$state/inspircd.conf" > "$state/inspircd.log" 2>&1 &
  server_pid=$!
  for _ in $(seq 1 100); do
    (exec 3<>/dev/tcp/127.0.0.1/"$port") 2>/dev/null && break
    sleep 0.1
  done
  chmod -R a+rwX "$state"
}

# The release binaries' folder: $BENCH_BIN when set, else builds them unless $1 is 0.
release_binaries() {
  if [ -n "${BENCH_BIN:-}" ]; then
    bin="$BENCH_BIN"
    return
  fi
  if [ "${1:-1}" -eq 1 ]; then
    echo "Building release binaries…"
    for product in onthemap-bot onthemap-load onthemap-bench; do
      swift build -c release --static-swift-stdlib --product "$product" 2>&1 | grep -E "error|warning: unre|Compiling|complete!" | tail -1
    done
  fi
  bin="$(swift build -c release --static-swift-stdlib --show-bin-path)"
}
