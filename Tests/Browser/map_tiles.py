"""The class map with an XYZ tile service configured, in headless Chromium driven by Selenium and
Debian's chromedriver.

    /usr/bin/python3 Tests/Browser/map_tiles.py BASE_URL up|down|stall TILE_ORIGIN ATTRIBUTION [SCREENSHOT.png]

up: the tile server answers. The page draws its tiles (only those of the view) instead of the
offline outlines and shows the attribution; in Web Mercator, the pin, the focus marker and the
city label of Lisbon land where Lisbon is inside the tile that holds Lisbon, and so does a place
chosen by the posting scene (window.OnTheMap.showPlace).

down: nothing answers at the tile origin. The page falls back to the offline map (equirectangular,
with the finer outlines at city zoom), says so where the attribution was, and keeps working: the
pin of Lisbon lands inside the offline outline cell that holds Lisbon, and Lisbon is named.

stall: the tile server takes the requests and never answers. The page gives the tiles up when none
has loaded after a few seconds, and falls back as above.

Exits 0 when every step showed what a person must see ("tiles passed"); otherwise prints the step
that did not and the page's state, and exits 1. Each reading of the page is one script returning
plain values (the map redraws as it polls).
"""
import json
import math
import sys
import time

from browser import StepFailed, headless_chromium, page_errors, wait_until
LISBON = (38.72, -9.14)  # the fixture's pin "b" (Bruno Silva, Lisbon)

# The page's state as plain values: the basemap in use, the tiles drawn, the pin of Lisbon, the
# focus marker, the label of Lisbon and the tile credit, every box relative to the map's corner.
STATE = """
var origin = arguments[0];
var map = document.getElementById('map').getBoundingClientRect();
function box(node) {
  if (!node) return null;
  var r = node.getBoundingClientRect();
  return {l: r.left - map.left, t: r.top - map.top, r: r.right - map.left, b: r.bottom - map.top};
}
function point(node) {
  if (!node) return null;
  var m = node.transform.baseVal.consolidate().matrix;
  return {x: m.e, y: m.f};
}
var app = document.getElementById('app');
var tiles = document.getElementById('tiles');
var credit = document.getElementById('tile-credit');
var label = Array.prototype.filter.call(document.querySelectorAll('#labels .place'), function (g) {
  return g.querySelector('text').textContent === 'Lisbon'; })[0];
return {
  basemap: app.getAttribute('data-basemap'),
  pins: app.getAttribute('data-pins'),
  focused: app.getAttribute('data-focused'),
  map: {w: map.width, h: map.height},
  zoom: tiles.getAttribute('data-zoom'),
  failed: tiles.getAttribute('data-failed'),
  tiles: Array.prototype.map.call(tiles.querySelectorAll('image'), function (n) {
    return {key: n.getAttribute('data-tile'), loaded: n.getAttribute('data-loaded') === 'true',
            href: n.getAttribute('href'), box: box(n)}; }),
  worldHidden: document.getElementById('world').getAttribute('display') === 'none',
  land: (document.getElementById('land').getAttribute('d') || '').length,
  pin: point(document.querySelector('#pins .pin[data-id="b"]')),
  focus: point(document.querySelector('#focus-layer .focus')),
  label: point(label),
  names: Array.prototype.map.call(document.querySelectorAll('#labels .place text'), function (t) {
    return t.textContent; }),
  lisbonCell: box(document.querySelector('#detail [data-cell="17-5.json"] .cell-sea')),
  credit: {text: credit.textContent, hidden: credit.hidden, box: box(credit),
           offline: credit.classList.contains('offline')},
  tileRequests: performance.getEntriesByType('resource').map(function (e) { return e.name; })
    .filter(function (n) { return n.indexOf(origin + '/') === 0; })
};
"""


class Page:
    def __init__(self, driver, origin):
        self.driver = driver
        self.origin = origin
        self.last = None

    def state(self):
        self.last = self.driver.execute_script(STATE, self.origin)
        return self.last

    def wait(self, what, condition):
        wait_until(self.driver, what, lambda: condition(self.state()))
        return self.last

    def zoom_in(self, times):
        """Clicks "+" `times` times in a row, as a quick double click does."""
        self.driver.execute_script(
            "for (var i = 0; i < arguments[0]; i++) document.getElementById('zoom-in').click();", times)


def lisbon_tile(z):
    """The XYZ tile holding Lisbon at zoom z, and where in it Lisbon is (fractions of its side)."""
    n = 2 ** z
    lat, lon = LISBON
    phi = math.radians(lat)
    fx = (lon + 180) / 360 * n
    fy = (1 - math.log(math.tan(phi) + 1 / math.cos(phi)) / math.pi) / 2 * n
    return "%d/%d/%d" % (z, int(fx), int(fy)), fx - int(fx), fy - int(fy)


def inside(p, box, slack=0.5):
    return box["l"] - slack <= p["x"] <= box["r"] + slack and box["t"] - slack <= p["y"] <= box["b"] + slack


def near(a, b, distance):
    return math.hypot(a["x"] - b["x"], a["y"] - b["y"]) <= distance


def at_lisbon(state, what, point):
    """`point` lies in Lisbon's tile, where Lisbon is in it (within 3 pixels)."""
    z = int(state["zoom"])
    key, fx, fy = lisbon_tile(z)
    tile = next((t for t in state["tiles"] if t["key"] == key), None)
    if tile is None:
        raise StepFailed("Lisbon's tile %s is not drawn (drawn: %s)" % (key, [t["key"] for t in state["tiles"]]))
    if point is None or not inside(point, tile["box"]):
        raise StepFailed("%s at %s is not inside Lisbon's tile %s at %s" % (what, point, key, tile["box"]))
    # The tile is drawn one pixel wider than its side, so neighbours overlap without a seam.
    side = tile["box"]["r"] - tile["box"]["l"] - 1
    expected = {"x": tile["box"]["l"] + fx * side, "y": tile["box"]["t"] + fy * side}
    if not near(point, expected, 3):
        raise StepFailed("%s is at %s, Lisbon is at %s in tile %s" % (what, point, expected, key))


def check_tiles_in_view(page, state):
    """Every tile drawn at the current zoom covers part of the map, and (with no pan since the
    zoom) the tiles asked for at that zoom are those drawn."""
    z = state["zoom"]
    drawn = set()
    for tile in state["tiles"]:
        b = tile["box"]
        if tile["key"].split("/")[0] != z:
            continue
        drawn.add(tile["key"])
        if b["r"] <= 0 or b["b"] <= 0 or b["l"] >= state["map"]["w"] or b["t"] >= state["map"]["h"]:
            raise StepFailed("tile %s is drawn out of view at %s" % (tile["key"], b))
    asked = set()
    for url in state["tileRequests"]:
        key = url[len(page.origin) + 1:].rsplit(".", 1)[0]
        if key.split("/")[0] == z:
            asked.add(key)
    if not asked <= drawn:
        raise StepFailed("tiles out of view were asked for: %s" % sorted(asked - drawn))


def up(driver, page, base, attribution, screenshot):
    driver.get(base + "/")
    state = page.wait("the world's tiles are drawn", lambda s: s["basemap"] == "tiles" and s["tiles"]
                      and all(t["loaded"] for t in s["tiles"]) and s["pins"] is not None)
    if not state["worldHidden"]:
        raise StepFailed("the offline outlines are drawn under the tiles")
    if state["credit"]["text"] != attribution or state["credit"]["hidden"] or not state["credit"]["box"]:
        raise StepFailed("the attribution is not shown as written: %s" % state["credit"])
    if any(not t["href"].startswith(page.origin + "/") for t in state["tiles"]):
        raise StepFailed("a tile is asked of another origin: %s" % [t["href"] for t in state["tiles"]])
    world_zoom = int(state["zoom"])
    if len(state["tiles"]) != 4 ** world_zoom and world_zoom <= 2:
        raise StepFailed("the whole world at zoom %d is %d tiles, not %d" % (world_zoom, len(state["tiles"]),
                                                                           4 ** world_zoom))

    # Centred on Lisbon, two clicks on "+": the pin, the focus marker and the city's name are where
    # Lisbon is in its tile.
    driver.get(base + "/?focus=%s,%s" % LISBON)
    page.wait("the focused map is drawn", lambda s: s["focused"] == "true" and s["pins"] is not None)
    page.zoom_in(2)
    state = page.wait("Lisbon's tiles, pin and name are drawn", lambda s: s["pin"] and s["label"] and s["tiles"]
                      and lisbon_tile(int(s["zoom"]))[0] in [t["key"] for t in s["tiles"] if t["loaded"]])
    if int(state["zoom"]) < world_zoom + 4:
        raise StepFailed("zoomed in, the tiles are still of zoom %s" % state["zoom"])
    at_lisbon(state, "the pin of Lisbon", state["pin"])
    at_lisbon(state, "the focus marker", state["focus"])
    at_lisbon(state, "the name Lisbon", state["label"])
    if "Porto" not in state["names"]:
        raise StepFailed("Porto is not named at city zoom: %s" % state["names"])
    check_tiles_in_view(page, state)
    if screenshot:
        driver.save_screenshot(screenshot)

    # A place chosen in the posting scene is shown through the same projection.
    driver.find_element("id", "zoom-reset").click()
    driver.execute_script("window.OnTheMap.showPlace(arguments[0], arguments[1], 'Chosen place');", *LISBON)
    state = page.wait("the chosen place is shown", lambda s: s["focus"] and s["tiles"]
                      and lisbon_tile(int(s["zoom"]))[0] in [t["key"] for t in s["tiles"]])
    at_lisbon(state, "the chosen place's marker", state["focus"])
    if state["basemap"] != "tiles":
        raise StepFailed("the working tiles were given up: %s" % state["failed"])


def down(driver, page, base, screenshot, reason):
    driver.get(base + "/?focus=%s,%s" % LISBON)
    state = page.wait("the page falls back to the offline map", lambda s: s["basemap"] == "offline"
                      and s["land"] > 1000 and s["pins"] is not None)
    if state["failed"] != reason:
        raise StepFailed("the tiles were given up for %r, not %r" % (state["failed"], reason))
    if state["worldHidden"] or state["tiles"]:
        raise StepFailed("the offline map is not what is drawn: %s" % state)
    if not state["credit"]["offline"] or "offline map" not in state["credit"]["text"] or state["credit"]["hidden"]:
        raise StepFailed("the page does not say it shows the offline map: %s" % state["credit"])

    # The offline map keeps working at city zoom: Lisbon's finer outline cell (10°W-0°, 30°N-40°N)
    # holds the pin where Lisbon is in it, and the city is named.
    page.zoom_in(2)
    state = page.wait("the offline map at city zoom", lambda s: s["lisbonCell"] and s["pin"] and "Lisbon" in s["names"])
    cell = state["lisbonCell"]
    expected = {"x": cell["l"] + (LISBON[1] + 10) / 10 * (cell["r"] - cell["l"]),
                "y": cell["t"] + (40 - LISBON[0]) / 10 * (cell["b"] - cell["t"])}
    if not near(state["pin"], expected, 3):
        raise StepFailed("the pin of Lisbon is at %s on the offline map, Lisbon at %s" % (state["pin"], expected))
    if not near(state["focus"], state["pin"], 1):
        raise StepFailed("the focus marker at %s is not on Lisbon's pin at %s" % (state["focus"], state["pin"]))
    if screenshot:
        driver.save_screenshot(screenshot)


def main():
    base, mode, origin, attribution = sys.argv[1:5]
    screenshot = sys.argv[5] if len(sys.argv) > 5 else None
    # Tiles that never arrive hold the document's load event: each step waits for what it reads.
    driver = headless_chromium(eager=True)
    page = Page(driver, origin)
    try:
        try:
            if mode == "up":
                up(driver, page, base, attribution, screenshot)
            else:
                down(driver, page, base, screenshot, "error" if mode == "down" else "timeout")
        except StepFailed as failure:
            print("step failed: %s\npage: %s" % (failure, json.dumps(page.last)))
            return 1
        # With the tile server down or stalled, its failed tiles are expected.
        errors = page_errors(driver, expected=lambda message: mode != "up" and message.startswith(origin + "/"))
        if errors:
            print("browser errors: %s" % errors)
            return 1
        print("tiles passed")
        return 0
    finally:
        driver.quit()


sys.exit(main())
