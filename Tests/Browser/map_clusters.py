"""The class map of a crowd in headless Chromium, driven by Selenium and Debian's chromedriver: the
page asks the server for its viewport (never for every pin); the world view shows clusters with
their counts, a lone pin as a pin, and the students kept at country level as a count on the
country ("12 classmates in Germany"), never as a pin on its centre; a city's cluster, tapped until
the map is close, lists its names a page at a time, each linking to the student's link; the
country's count lists its names; the Table tab pages through the class.

    /usr/bin/python3 Tests/Browser/map_clusters.py BASE_URL TOTAL CITY_COUNT COUNTRY_COUNT [SCREENSHOT.png]

Exits 0 when every step showed what a person must see ("clusters passed"); otherwise prints the
step that did not and the page's state, and exits 1.
"""
import json
import sys

from selenium.webdriver.common.by import By

from browser import StepFailed, headless_chromium, page_errors, wait_until


def script(driver, source, *arguments):
    return driver.execute_script(source, *arguments)


def markers(driver):
    """What the map draws: server clusters (cell, count), pins (title), areas (place, count, text)."""
    return script(driver, """
        var out = {clusters: [], pins: [], areas: []};
        document.querySelectorAll('#pins > g').forEach(function (g) {
          if (g.classList.contains('area')) out.areas.push({place: g.getAttribute('data-place'),
            count: Number(g.getAttribute('data-count')), text: g.querySelector('text').textContent});
          else if (g.getAttribute('data-cell')) out.clusters.push({cell: g.getAttribute('data-cell'),
            count: Number(g.getAttribute('data-count'))});
          else if (g.classList.contains('cluster')) out.pins.push(Number(g.getAttribute('data-count')));
          else out.pins.push(1);
        });
        return out;""")


def accounted(shown):
    return sum(c["count"] for c in shown["clusters"]) + sum(shown["pins"]) + sum(a["count"] for a in shown["areas"])


def click(driver, selector):
    script(driver, "document.querySelector(arguments[0]).dispatchEvent(new MouseEvent('click', {bubbles: true}));",
           selector)


def popup_names(driver):
    return [n.text for n in driver.find_elements(By.CSS_SELECTOR, "#popup-list .name")]


def scenes(driver, base, total, city, country, screenshot):
    driver.get(base + "/")
    wait_until(driver, "the viewport is read", lambda: script(
        driver, "return document.getElementById('app').getAttribute('data-pins')") == str(total))
    wait_until(driver, "the world view accounts for every pin", lambda: accounted(markers(driver)) == total)
    shown = markers(driver)
    germany = [a for a in shown["areas"] if a["place"] == "Germany"]
    if not germany or germany[0]["count"] != country or germany[0]["text"] != "%d classmates in Germany" % country:
        raise StepFailed("Germany's count is %r" % germany)
    if any("Germany" == t.split(" — ")[-1] for t in script(
            driver, "return Array.prototype.map.call(document.querySelectorAll('#pins g.pin title'),"
                    " function (t) { return t.textContent; })")):
        raise StepFailed("a pin is drawn on Germany's centre")
    if not any(c["count"] == city for c in shown["clusters"]):
        raise StepFailed("no cluster holds Lisbon's %d: %r" % (city, shown["clusters"]))
    if not shown["pins"]:
        raise StepFailed("the lone pin in Sydney is not drawn: %r" % shown)
    fetched = script(driver, "return performance.getEntriesByType('resource').map(function (e) { return e.name; })")
    if any("api/locations.json" in name for name in fetched):
        raise StepFailed("the page asked for every pin")
    if not any("api/map/view.json?bbox=" in name for name in fetched):
        raise StepFailed("the page did not ask for its viewport: %r" % fetched)

    # Lisbon's cluster, tapped: the map zooms in while the server can still split it; once close,
    # the popup lists its names, 50 a page, each linking to the student's link.
    lisbon = "#pins g.cluster[data-count='%d']" % city
    for _ in range(8):
        if script(driver, "return !document.getElementById('popup').hidden"):
            break
        zoom = script(driver, "return document.getElementById('app').getAttribute('data-zoom')")
        wait_until(driver, "Lisbon's cluster is drawn", lambda: script(
            driver, "return !!document.querySelector(arguments[0])", lisbon))
        click(driver, lisbon)
        wait_until(driver, "the tap zooms in or opens the list", lambda: script(
            driver, "return !document.getElementById('popup').hidden"
                    " || document.getElementById('app').getAttribute('data-zoom') !== arguments[0]", zoom))
    wait_until(driver, "the popup lists Lisbon's first 50 names", lambda: len(popup_names(driver)) == 50)
    if popup_names(driver)[0] != "Lis0 Boa":
        raise StepFailed("the newest name is not first: %r" % popup_names(driver)[:3])
    links = [a.get_attribute("href") for a in driver.find_elements(By.CSS_SELECTOR, "#popup-list a.link")]
    if links[:2] != ["https://lis0.example/", "https://lis1.example/"]:
        raise StepFailed("the popup's links are %r" % links[:2])
    pages = (city + 49) // 50
    if driver.find_element(By.ID, "popup-page").text != "Page 1 of %d" % pages:
        raise StepFailed("the pager says %r" % driver.find_element(By.ID, "popup-page").text)
    if screenshot:
        driver.save_screenshot(screenshot)
    driver.find_element(By.ID, "popup-next").click()
    wait_until(driver, "the next page lists the next names", lambda: popup_names(driver)[:1] == ["Lis50 Boa"])
    driver.find_element(By.ID, "popup-close").click()

    # Germany's count lists the students kept there.
    driver.find_element(By.ID, "zoom-reset").click()
    wait_until(driver, "the world view is back", lambda: script(
        driver, "return !!document.querySelector('#pins g.area[data-place=\"Germany\"]')"))
    click(driver, "#pins g.area[data-place='Germany']")
    wait_until(driver, "Germany's names are listed", lambda: len(popup_names(driver)) == country)
    driver.find_element(By.ID, "popup-close").click()

    # The Table tab: 100 rows a page, the next page the rest, the caption says which.
    driver.find_element(By.ID, "tab-table").click()
    wait_until(driver, "the table's first page", lambda: len(driver.find_elements(By.CSS_SELECTOR, "#rows tr")) == 100)
    caption = driver.find_element(By.CSS_SELECTOR, "#table caption").text
    if caption != "Posts 1–100 of %d, newest first" % total:
        raise StepFailed("the table's caption is %r" % caption)
    driver.find_element(By.ID, "table-next").click()
    wait_until(driver, "the table's second page", lambda: len(
        driver.find_elements(By.CSS_SELECTOR, "#rows tr")) == min(100, total - 100))
    caption = driver.find_element(By.CSS_SELECTOR, "#table caption").text
    if caption != "Posts 101–%d of %d, newest first" % (min(200, total), total):
        raise StepFailed("the second page's caption is %r" % caption)


def main():
    base, total, city, country = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
    screenshot = sys.argv[5] if len(sys.argv) > 5 else None
    driver = headless_chromium()
    try:
        try:
            scenes(driver, base, total, city, country, screenshot)
        except StepFailed as failure:
            state = {"markers": markers(driver), "status": driver.find_element(By.ID, "status").text,
                     "zoom": script(driver, "return document.getElementById('app').getAttribute('data-zoom')")}
            print("step failed: %s\npage: %s" % (failure, json.dumps(state)))
            return 1
        errors = page_errors(driver)
        if errors:
            print("browser errors: %s" % errors)
            return 1
        print("clusters passed")
        return 0
    finally:
        driver.quit()


sys.exit(main())
