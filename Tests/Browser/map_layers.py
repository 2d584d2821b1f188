"""The class map at city zoom in headless Chromium, driven by Selenium and Debian's chromedriver:
the world view shows no city names and no finer outlines, and asks for neither; zoomed into
Portugal with the zoom button, the largest cities are named (Lisbon, Porto) without overlapping and
the finer coastlines of the cells in view are drawn (only those are asked for); back to the world,
the names and the finer outlines go.

    /usr/bin/python3 Tests/Browser/map_layers.py BASE_URL [SCREENSHOT.png]

Exits 0 when every step showed what a person must see ("layers passed"); otherwise prints the
step that did not and the page's state, and exits 1.
"""
import json
import sys

from selenium.webdriver.common.by import By

from browser import StepFailed, headless_chromium, page_errors, wait_until


class Map:
    def __init__(self, driver):
        self.driver = driver

    def script(self, source, *arguments):
        return self.driver.execute_script(source, *arguments)

    def wait(self, what, condition):
        wait_until(self.driver, what, condition)

    def labels(self):
        """The city names shown, each with its box on the screen."""
        return self.script(
            "return Array.prototype.map.call(document.querySelectorAll('#labels .place text'), function (t) {"
            " var r = t.getBoundingClientRect();"
            " return {name: t.textContent, l: r.left, t: r.top, r: r.right, b: r.bottom}; });")

    def names(self):
        return [label["name"] for label in self.labels()]

    def requests(self, part):
        return self.script(
            "var part = arguments[0];"
            "return performance.getEntriesByType('resource').map(function (e) { return e.name; })"
            ".filter(function (n) { return n.indexOf(part) >= 0; });", part)

    def zoom_in(self, times):
        """Clicks "+" `times` times in a row, as a quick double click does."""
        self.script("for (var i = 0; i < arguments[0]; i++) document.getElementById('zoom-in').click();", times)


def check_no_overlap(labels):
    for i, a in enumerate(labels):
        for b in labels[i + 1:]:
            if a["l"] < b["r"] and a["r"] > b["l"] and a["t"] < b["b"] and a["b"] > b["t"]:
                raise StepFailed("the labels %r and %r overlap" % (a["name"], b["name"]))


def scenes(driver, base, screenshot):
    page = Map(driver)
    driver.get(base + "/")
    page.wait("the basemap is drawn", lambda: len(page.script(
        "return document.getElementById('land').getAttribute('d') || ''")) > 1000)
    page.wait("the pins are read", lambda: page.script(
        "return document.getElementById('app').getAttribute('data-pins')") is not None)
    # The layers decide at each draw, before any timer, whether the view wants names or finer
    # outlines: the world view's draw has placed no name and hidden the finer layer, so nothing
    # can have been asked for after that.
    page.wait("the world view's layers are drawn", lambda: page.script(
        "return document.getElementById('labels').getAttribute('data-count') === '0'"
        " && document.getElementById('detail').getAttribute('display') === 'none'"))
    if page.names():
        raise StepFailed("the world view shows city names: %s" % page.names())
    if page.requests("places.json"):
        raise StepFailed("the world view asked for city names: %s" % page.requests("places.json"))
    if page.requests("map/detail/"):
        raise StepFailed("the world view asked for finer outlines: %s" % page.requests("map/detail/"))

    # Centred on Portugal, two clicks on "+" (zoom 32): the country fills the view.
    driver.get(base + "/?focus=39.6,-8.1")
    page.wait("the focused map is drawn", lambda: page.script(
        "return document.getElementById('app').getAttribute('data-focused')") == "true")
    page.zoom_in(2)
    page.wait("Lisbon and Porto are named", lambda: {"Lisbon", "Porto"} <= set(page.names()))
    labels = page.labels()
    check_no_overlap(labels)
    if len(labels) > 60:
        raise StepFailed("%d names crowd the view" % len(labels))
    box = page.script("var r = document.getElementById('map').getBoundingClientRect();"
                      "return {l: r.left, t: r.top, r: r.right, b: r.bottom};")
    for label in labels:
        if label["l"] < box["l"] - 12 or label["t"] < box["t"] - 12 or label["t"] > box["b"]:
            raise StepFailed("%r is named outside the map" % label["name"])
    if any("<" in name for name in page.names()):
        raise StepFailed("a name holds markup: %s" % page.names())

    # Lisbon's cell (column 17 from 180°W, row 5 from 90°N) has its coastline drawn; only the
    # cells in view (at most 2 x 2 here) were asked for.
    page.wait("the finer coastline of Lisbon's cell is drawn", lambda: page.script(
        "var p = document.querySelector('#detail [data-cell=\"17-5.json\"] .cell-coast');"
        "return p ? p.getAttribute('d').length : 0") > 1000)
    page.wait("the border of Portugal and Spain is drawn", lambda: page.script(
        "return document.querySelectorAll('#detail .cell-border').length") > 0)
    cells = page.requests("map/detail/")
    if len(cells) > 6:
        raise StepFailed("cells out of view were asked for: %s" % cells)
    if page.script("return document.getElementById('detail').getAttribute('display')") == "none":
        raise StepFailed("the finer outlines are hidden at city zoom")

    if screenshot:
        driver.save_screenshot(screenshot)

    # Back to the whole world: the names and the finer outlines go.
    driver.find_element(By.ID, "zoom-reset").click()
    page.wait("the names are gone in the world view", lambda: not page.names())
    if page.script("return document.getElementById('detail').getAttribute('display')") != "none":
        raise StepFailed("the finer outlines stay in the world view")


def main():
    base = sys.argv[1]
    screenshot = sys.argv[2] if len(sys.argv) > 2 else None
    driver = headless_chromium()
    try:
        try:
            scenes(driver, base, screenshot)
        except StepFailed as failure:
            state = {"names": Map(driver).names(), "status": driver.find_element(By.ID, "status").text}
            print("step failed: %s\npage: %s" % (failure, json.dumps(state)))
            return 1
        errors = page_errors(driver)
        if errors:
            print("browser errors: %s" % errors)
            return 1
        print("layers passed")
        return 0
    finally:
        driver.quit()


sys.exit(main())
