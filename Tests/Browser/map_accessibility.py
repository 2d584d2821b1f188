"""The class map's accessibility in headless Chromium (Selenium, Debian's chromedriver): axe-core
finds no violation on the page and each of its scenes (signed out, the log-in scene, the map with
its list and a popup, the Table tab, each step of the posting scene, the sign-in link's page), and
no pointer target is under 24 px too close to another (WCAG 2.2's 2.5.8); a keyboard alone reaches
the list of the view with Tab, and Enter on "Show on map" moves the map and opens the pin, with the
focus shown at every step; the zoom and pan buttons move the view with one press each, and the
live region says what the view shows.

    /usr/bin/python3 Tests/Browser/map_accessibility.py BASE_URL EMAIL PASSWORD PIN_COUNT

Exits 0 when every step showed what it must ("accessibility passed"); otherwise prints the step
that did not (with axe's violations) and exits 1.
"""
import json
import sys

from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from accessibility import axe_clean, focus_shown, focus_visible, targets_large_enough
from browser import StepFailed, headless_chromium, js, page_errors, shown, wait_until


def view(driver):
    return js(driver, "return window.OnTheMap.view();")


def checked(driver, scene, engines):
    """axe-core and the target sizes on the page as it is now."""
    engines.add(axe_clean(driver, scene))
    targets_large_enough(driver, scene)
    print("clean: %s" % scene)


def press(driver, key):
    ActionChains(driver).send_keys(key).perform()


def tab_to(driver, wanted, limit=60):
    """Presses Tab until the focus is on `wanted(focus)`; every element passed on the way must show
    its focus. Returns the element's focus description."""
    for _ in range(limit):
        press(driver, Keys.TAB)
        focus = focus_shown(driver)
        if focus and not focus_visible(focus):
            raise StepFailed("the focus on %r is not shown" % focus)
        if focus and wanted(focus):
            return focus
    raise StepFailed("Tab never reached the element wanted (last: %r)" % focus_shown(driver))


def scenes(driver, base, email, password, pins):
    engines = set()
    driver.get(base + "/map")
    wait_until(driver, "the signed-out map says how to sign in", lambda: shown(driver, "signin-note"))
    checked(driver, "the signed-out map", engines)

    driver.find_element(By.ID, "login-open").click()
    wait_until(driver, "the log-in scene opens", lambda: shown(driver, "login-form"))
    checked(driver, "the log-in scene", engines)
    driver.find_element(By.ID, "login-submit").click()
    wait_until(driver, "an empty log-in is refused in words", lambda: shown(driver, "login-error"))
    checked(driver, "the log-in scene with its error", engines)
    driver.find_element(By.ID, "login-email").send_keys(email)
    driver.find_element(By.ID, "login-password").send_keys(password, Keys.ENTER)
    wait_until(driver, "the pins come once logged in", lambda: js(
        driver, "return document.getElementById('app').getAttribute('data-pins')") == str(pins))
    wait_until(driver, "the live region says what the view shows", lambda: "%d students in view" % pins in js(
        driver, "return document.getElementById('map-summary').textContent"))
    wait_until(driver, "the signed-in page offers the student's own data", lambda: shown(driver, "own-data"))
    checked(driver, "the map with the class's pins and the student's own data", engines)
    # Its links are reached by the keyboard, and show their focus on the way.
    js(driver, "document.activeElement && document.activeElement.blur(); window.scrollTo(0, 0);")
    tab_to(driver, lambda f: f["id"] == "own-pins")
    tab_to(driver, lambda f: f["id"] == "own-trips")

    # The keyboard alone: from the page's start, Tab reaches the list's toggle, Enter opens the
    # list, Tab reaches its first "Show on map", and Enter moves the map until a popup opens.
    js(driver, "document.activeElement && document.activeElement.blur(); window.scrollTo(0, 0);")
    tab_to(driver, lambda f: f["id"] == "list-toggle")
    press(driver, Keys.ENTER)
    wait_until(driver, "Enter opens the list of the view", lambda: shown(driver, "map-list")
               and js(driver, "return document.querySelectorAll('#map-list-items button.show').length") > 0)
    checked(driver, "the map with its list open", engines)
    opened = False
    for _ in range(8):
        focus = tab_to(driver, lambda f: f["tag"] == "button" and f["key"] != "")
        before = view(driver)
        press(driver, Keys.ENTER)
        wait_until(driver, "Enter on Show on map (%s) moves the map" % focus["key"], lambda: view(driver) != before)
        after = view(driver)
        print("Show on map %s: zoom %d -> %d, centre %.2f,%.2f -> %.2f,%.2f" % (
            focus["key"], before["zoom"], after["zoom"], before["lat"], before["lon"], after["lat"], after["lon"]))
        if focus["key"].startswith("pin:"):
            # A single pin opens its popup with the focus in it.
            wait_until(driver, "Show on map (%s) opens the pin's popup with the focus in it" % focus["key"],
                       lambda: shown(driver, "popup") and js(
                           driver, "return document.getElementById('popup').contains(document.activeElement)"))
            opened = True
            break
        # A cluster zooms in: the list is drawn again for the new view, and the focus stays in it.
        wait_until(driver, "the list is drawn again after Show on map (%s), the focus in it" % focus["key"],
                   lambda: js(driver, "return document.getElementById('map-list').contains(document.activeElement)")
                   and (focus_shown(driver) or {}).get("key") != focus["key"])
        if not focus_visible(focus_shown(driver)):
            raise StepFailed("the focus in the list is not shown after the map moved: %r" % focus_shown(driver))
    if not opened:
        raise StepFailed("Show on map never opened a popup")
    if not focus_visible(focus_shown(driver)):
        raise StepFailed("the popup took the focus without showing it: %r" % focus_shown(driver))
    names = js(driver, "return Array.prototype.map.call(document.querySelectorAll('#popup-list .name'),"
                       " function (n) { return n.textContent; })")
    if not names:
        raise StepFailed("the popup opened from the list names nobody")
    checked(driver, "the map with a popup opened from the list", engines)
    press(driver, Keys.ESCAPE)
    wait_until(driver, "Escape closes the popup and gives the focus back to the list", lambda: not shown(
        driver, "popup") and js(driver, "return document.getElementById('map-list').contains(document.activeElement)"))

    # One press each, no dragging: zoom in, pan each way, zoom out, the whole world again.
    def clicked(node_id, what, moved):
        before = view(driver)
        driver.find_element(By.ID, node_id).click()
        wait_until(driver, "%s (%s)" % (what, node_id), lambda: moved(before, view(driver)))
    js(driver, "document.getElementById('zoom-reset').click();")
    clicked("zoom-in", "the + button zooms in", lambda b, a: a["k"] > b["k"] * 1.9)
    clicked("zoom-in", "the + button zooms in again", lambda b, a: a["k"] > b["k"] * 1.9)
    clicked("pan-east", "the → button moves the view east", lambda b, a: a["lon"] > b["lon"] + 1)
    clicked("pan-west", "the ← button moves the view west", lambda b, a: a["lon"] < b["lon"] - 1)
    clicked("pan-north", "the ↑ button moves the view north", lambda b, a: a["lat"] > b["lat"] + 1)
    clicked("pan-south", "the ↓ button moves the view south", lambda b, a: a["lat"] < b["lat"] - 1)
    clicked("zoom-out", "the − button zooms out", lambda b, a: a["k"] < b["k"] / 1.9)
    wait_until(driver, "the live region follows the zoom", lambda: ("zoom %d of 18" % view(driver)["zoom"]) in js(
        driver, "return document.getElementById('map-summary').textContent"))
    clicked("zoom-reset", "the ⌂ button shows the whole world", lambda b, a: a["k"] < b["k"])

    driver.find_element(By.ID, "tab-table").click()
    wait_until(driver, "the Table tab lists the class", lambda: js(
        driver, "return document.querySelectorAll('#rows tr').length") == pins)
    checked(driver, "the Table tab", engines)
    driver.find_element(By.ID, "tab-map").click()

    driver.find_element(By.ID, "post-open").click()
    wait_until(driver, "the posting scene opens", lambda: shown(driver, "place-form"))
    checked(driver, "the posting scene", engines)
    driver.find_element(By.ID, "place").send_keys("Lisbon", Keys.ENTER)
    wait_until(driver, "the place is found and offered to confirm", lambda: shown(driver, "place-confirm"))
    checked(driver, "the posting scene with its place found", engines)
    driver.find_element(By.ID, "place-confirm").click()
    wait_until(driver, "the link step opens", lambda: shown(driver, "link-form"))
    driver.find_element(By.ID, "link").send_keys("not a link", Keys.ENTER)
    wait_until(driver, "a bad link is refused in words", lambda: shown(driver, "link-error"))
    checked(driver, "the posting scene's link step with its error", engines)
    link = driver.find_element(By.ID, "link")
    link.clear()
    link.send_keys("https://ada.example/notes", Keys.ENTER)
    wait_until(driver, "the pin is posted", lambda: shown(driver, "done"))
    checked(driver, "the posting scene's last step", engines)
    # The "Your pin" link downloads this student's pin, as just posted, and no one else's.
    own = driver.execute_async_script(
        "var done = arguments[arguments.length - 1];"
        "fetch(document.getElementById('own-pins').getAttribute('href'), {credentials: 'same-origin'})"
        ".then(function (r) { return r.text().then(function (body) {"
        "  done({status: r.status, type: r.headers.get('content-type'), body: body}); }); })"
        ".catch(function (e) { done({status: 0, type: '', body: String(e)}); });")
    document = json.loads(own["body"]) if own["status"] == 200 else {}
    if own["type"] != "application/geo+json" or document.get("type") != "FeatureCollection":
        raise StepFailed("the own-data link did not give GeoJSON: %r" % own)
    places = [feature["properties"].get("mediaURL") for feature in document.get("features", [])]
    if places != ["https://ada.example/notes"]:
        raise StepFailed("the own-data link gave %r, not the student's one pin" % places)
    # Posting again asks before replacing the pin.
    js(driver, "document.querySelector('#done .cancel').click();")
    driver.find_element(By.ID, "post-open").click()
    wait_until(driver, "the posting scene opens again", lambda: shown(driver, "place-form"))
    driver.find_element(By.ID, "place").send_keys("Lisbon", Keys.ENTER)
    wait_until(driver, "the place is found again", lambda: shown(driver, "place-confirm"))
    driver.find_element(By.ID, "place-confirm").click()
    wait_until(driver, "the link step opens again", lambda: shown(driver, "link-form"))
    driver.find_element(By.ID, "link").send_keys("https://ada.example/lisbon", Keys.ENTER)
    wait_until(driver, "replacing the pin is asked first", lambda: shown(driver, "replace-form"))
    checked(driver, "the posting scene's replace step", engines)
    press(driver, Keys.ESCAPE)

    driver.get(base + "/signin")
    wait_until(driver, "the sign-in page without its token says so", lambda: shown(driver, "signin-error"))
    checked(driver, "the sign-in link's page", engines)
    return engines


def main():
    base, email, password, pins = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    driver = headless_chromium()
    try:
        try:
            engines = scenes(driver, base, email, password, pins)
        except StepFailed as failure:
            print("step failed: %s" % failure)
            return 1
        # Refused requests (the signed-out pins, the empty log-in) are logged as failed loads.
        errors = page_errors(driver, expected=lambda message: "Failed to load resource" in message)
        if errors:
            print("script errors: %s" % errors)
            return 1
        print("axe-core %s" % ", ".join(sorted(engines)))
        print("accessibility passed")
        return 0
    finally:
        driver.quit()


sys.exit(main())
