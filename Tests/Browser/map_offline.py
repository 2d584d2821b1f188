"""The class map installed and offline, in headless Chromium (Selenium, Debian's chromedriver).
The browser reaches the bot through a relay in this script, which can stop answering (every
connection closed at once, new ones closed as they come): what the browser sees when the bot is
down or the network gone.

- The manifest is served as application/manifest+json, Chromium reads it without an error, and
  its icons are served with their types and sizes.
- The service worker registers and controls the page; the page keeps working.
- Signed in, with the relay stopped, a reload shows the page from the worker's cache and the
  class's pins from the data cache, with "Offline: N pins as of HH:MM" (the time the answer was
  fetched, on the page's clock); with the relay back, the status is live again.
- After logging out, the pins' cache is empty: with the relay stopped again, a reload shows no
  student's name.

    /usr/bin/python3 Tests/Browser/map_offline.py BASE_URL EMAIL PASSWORD PIN_COUNT NAME...

Exits 0 when every step showed what it must ("offline passed"); otherwise prints the step that did
not and exits 1.
"""
import json
import re
import socket
import struct
import sys
import threading
import urllib.parse
import urllib.request

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from browser import StepFailed, headless_chromium, js, page_errors, shown, wait_until


class Relay:
    """A TCP relay on 127.0.0.1 to the bot's port that can stop answering and start again."""

    def __init__(self, target_port):
        self.target_port = target_port
        self.up = True
        self.lock = threading.Lock()
        self.sockets = set()
        self.listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(64)
        self.port = self.listener.getsockname()[1]
        threading.Thread(target=self.accept, daemon=True).start()

    def accept(self):
        while True:
            client, _ = self.listener.accept()
            with self.lock:
                up = self.up
            if not up:
                client.close()
                continue
            try:
                server = socket.create_connection(("127.0.0.1", self.target_port))
            except OSError:
                client.close()
                continue
            with self.lock:
                self.sockets.update((client, server))
            threading.Thread(target=self.pipe, args=(client, server), daemon=True).start()
            threading.Thread(target=self.pipe, args=(server, client), daemon=True).start()

    def pipe(self, source, destination):
        try:
            while True:
                data = source.recv(65536)
                if not data:
                    break
                destination.sendall(data)
        except OSError:
            pass
        for end in (source, destination):
            try:
                end.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def stop(self):
        with self.lock:
            self.up = False
            ends, self.sockets = self.sockets, set()
        for end in ends:
            try:
                end.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            end.close()

    def start(self):
        with self.lock:
            self.up = True


def status(driver):
    return js(driver, "var n = document.getElementById('status'); return n ? n.textContent : '';") or ""


def data_cache_entries(driver):
    """The URLs in the worker's cache of the pins' answers."""
    return driver.execute_async_script(
        "var done = arguments[arguments.length - 1];"
        "caches.has('onthemap-data').then(function (has) {"
        "  if (!has) return [];"
        "  return caches.open('onthemap-data').then(function (c) { return c.keys(); })"
        "    .then(function (keys) { return keys.map(function (k) { return k.url; }); });"
        "}).then(done, function (e) { done(['error: ' + e]); });")


def whole_page(driver):
    return js(driver, "var out = [document.body.innerText];"
                      "document.querySelectorAll('*').forEach(function (n) {"
                      "  Array.prototype.forEach.call(n.attributes, function (a) { out.push(a.value); }); });"
                      "document.querySelectorAll('title, #rows, #popup-list, #pins').forEach(function (n) {"
                      "  out.push(n.textContent); });"
                      "return out.join('\\n');")


def png_size(body):
    if body[:8] != b"\x89PNG\r\n\x1a\n" or body[12:16] != b"IHDR":
        return None
    return struct.unpack(">II", body[16:24])


def manifest_checks(driver, base):
    with urllib.request.urlopen(base + "/manifest.webmanifest") as response:
        kind = response.headers.get("Content-Type", "")
        manifest = json.loads(response.read().decode("utf-8"))
    if not kind.startswith("application/manifest+json"):
        raise StepFailed("the manifest is served as %r" % kind)
    for field in ("name", "short_name", "start_url", "scope", "display", "icons", "theme_color", "lang"):
        if not manifest.get(field):
            raise StepFailed("the manifest has no %s: %r" % (field, manifest))
    manifest_url = base + "/manifest.webmanifest"
    start = urllib.parse.urljoin(manifest_url, manifest["start_url"])
    scope = urllib.parse.urljoin(manifest_url, manifest["scope"])
    if not start.startswith(scope):
        raise StepFailed("the start page %s is outside the scope %s" % (start, scope))
    sizes = set()
    for icon in manifest["icons"]:
        with urllib.request.urlopen(urllib.parse.urljoin(manifest_url, icon["src"])) as response:
            kind, body = response.headers.get("Content-Type", ""), response.read()
        if kind != icon["type"]:
            raise StepFailed("the icon %s is served as %r, the manifest says %r" % (icon["src"], kind, icon["type"]))
        if icon["type"] == "image/png":
            size = png_size(body)
            if size is None or "%dx%d" % size != icon["sizes"]:
                raise StepFailed("the icon %s is %r, the manifest says %s" % (icon["src"], size, icon["sizes"]))
            sizes.add(size[0])
        elif b"<svg" not in body:
            raise StepFailed("the icon %s is not an SVG" % icon["src"])
    if not {192, 512} <= sizes:
        raise StepFailed("the manifest lacks a 192 or 512 px PNG icon: %r" % sorted(sizes))
    # What Chromium itself reads of the page's manifest link.
    read = driver.execute_cdp_cmd("Page.getAppManifest", {})
    if read.get("errors"):
        raise StepFailed("Chromium finds errors in the manifest: %r" % read["errors"])
    if not read.get("url", "").endswith("/manifest.webmanifest"):
        raise StepFailed("Chromium found no manifest link on the page: %r" % read)
    theme = js(driver, "return document.querySelector('meta[name=theme-color]').content")
    if theme != manifest["theme_color"]:
        raise StepFailed("the page's theme colour %s is not the manifest's %s" % (theme, manifest["theme_color"]))
    print("manifest: %s, %d icons (%s), display %s" % (
        manifest["name"], len(manifest["icons"]), ", ".join(i["sizes"] for i in manifest["icons"]), manifest["display"]))


def controlled(driver):
    return js(driver, "return !!(navigator.serviceWorker && navigator.serviceWorker.controller)")


def scenes(driver, relay, base, email, password, pins, names):
    driver.get(base + "/map")
    wait_until(driver, "the service worker is ready", lambda: js(
        driver, "return document.getElementById('app').getAttribute('data-offline')") == "ready")
    manifest_checks(driver, base)
    wait_until(driver, "the service worker controls the page", lambda: controlled(driver))

    # Signed in, the page's answers are kept as they come.
    driver.find_element(By.ID, "login-open").click()
    wait_until(driver, "the log-in scene opens", lambda: shown(driver, "login-form"))
    driver.find_element(By.ID, "login-email").send_keys(email)
    driver.find_element(By.ID, "login-password").send_keys(password, Keys.ENTER)
    wait_until(driver, "the pins come once logged in", lambda: js(
        driver, "return document.getElementById('app').getAttribute('data-pins')") == str(pins))
    wait_until(driver, "the viewport's answer is kept", lambda: any(
        "/api/map/view.json" in url for url in data_cache_entries(driver)))
    if any("since=" in url for url in data_cache_entries(driver)):
        raise StepFailed("a poll's delta was kept as an answer: %r" % data_cache_entries(driver))

    # The bot is gone: a reload shows the page and the kept pins, saying how old they are.
    relay.stop()
    driver.refresh()
    wait_until(driver, "offline, the reloaded page shows the kept pins", lambda: js(
        driver, "return document.getElementById('app').getAttribute('data-pins')") == str(pins))
    wait_until(driver, "offline, the status says as of when", lambda: "as of" in status(driver))
    said = status(driver)
    expected = js(driver, "var at = Number(document.getElementById('app').getAttribute('data-cached-at'));"
                          "return new Intl.DateTimeFormat(window.OnTheMapText.locale, {hour: '2-digit',"
                          " minute: '2-digit', hourCycle: 'h23'}).format(new Date(at));")
    if not re.fullmatch(r"Offline: %d pins as of \d\d:\d\d" % pins, said) or not said.endswith(expected):
        raise StepFailed("offline, the status says %r (the answer was fetched at %s)" % (said, expected))
    drawn = js(driver, "var n = 0; document.querySelectorAll('#pins > g').forEach(function (g) {"
                       " n += Number(g.getAttribute('data-count') || 1); }); return n;")
    if drawn != pins:
        raise StepFailed("offline, the map draws %d of the %d kept pins" % (drawn, pins))
    print("offline: %s" % said)

    # Back online: the status is live again at the next read.
    relay.start()
    js(driver, "window.OnTheMap.reload();")
    wait_until(driver, "online again, the status is live", lambda: "updated" in status(driver)
               and not js(driver, "return document.getElementById('app').hasAttribute('data-cached-at')"))

    # Logged out, nothing of the class is left for the next person at this browser.
    driver.find_element(By.ID, "logout").click()
    wait_until(driver, "the logout empties the pins' cache", lambda: data_cache_entries(driver) == [])
    relay.stop()
    driver.refresh()
    wait_until(driver, "offline after the logout, the page says it cannot reach the map",
               lambda: "Could not load the pins" in status(driver))
    seen = whole_page(driver)
    leaked = [name for name in names if name in seen]
    if leaked:
        raise StepFailed("offline after the logout, the page shows %s" % leaked)
    relay.start()


def main():
    base, email, password, pins, names = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5:]
    relay = Relay(urllib.parse.urlsplit(base).port)
    driver = headless_chromium()
    try:
        try:
            scenes(driver, relay, "http://127.0.0.1:%d" % relay.port, email, password, pins, names)
        except StepFailed as failure:
            print("step failed: %s\nstatus: %r" % (failure, status(driver)))
            return 1
        # Offline, every request the page or its worker makes fails to load, as it must.
        errors = page_errors(driver, expected=lambda message: "Failed to load resource" in message
                             or "sw.js" in message or "Failed to fetch" in message)
        if errors:
            print("script errors: %s" % errors)
            return 1
        print("offline passed")
        return 0
    finally:
        driver.quit()


sys.exit(main())
