"""A student's scenes of the class map in headless Chromium, driven by Selenium and Debian's
chromedriver: log in, put yourself on the map (a refused word, a "did you mean", a bad link, a
pin and its popup), cancel, replace the pin only after saying so, post a trip, log out.

    /usr/bin/python3 Tests/Browser/posting_scenes.py BASE_URL EMAIL PASSWORD TRIP_UNTIL TRIP_LAST_DAY

TRIP_UNTIL is the date a trip to Tokyo is posted until ("2026-12-24"), TRIP_LAST_DAY how the page
says it ("24 Dec").

Exits 0 when every step showed what a student must see; otherwise prints the step that did not
and the page's state, and exits 1. The calling test then checks the directory itself.
"""
import json
import sys

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from browser import StepFailed, headless_chromium, page_errors, wait_until


class Page:
    def __init__(self, driver):
        self.driver = driver

    def node(self, node_id):
        return self.driver.find_element(By.ID, node_id)

    def text(self, node_id):
        return self.driver.execute_script("return document.getElementById(arguments[0]).textContent", node_id)

    def shown(self, node_id):
        return self.driver.execute_script(
            "var n = document.getElementById(arguments[0]);"
            "while (n) { if (n.hidden) return false; n = n.parentElement; } return true;", node_id)

    def texts(self, selector):
        """The text of every node the selector finds, read in one script: the map redraws its pins
        while the page polls, so element references held across calls go stale."""
        return self.driver.execute_script(
            "return Array.prototype.map.call(document.querySelectorAll(arguments[0]),"
            " function (n) { return n.textContent; });", selector)

    def attributes(self, selector, name):
        return self.driver.execute_script(
            "var name = arguments[1];"
            "return Array.prototype.map.call(document.querySelectorAll(arguments[0]),"
            " function (n) { return n.getAttribute(name); });", selector, name)

    def wait(self, what, condition):
        wait_until(self.driver, what, condition)

    def wait_shown(self, node_id):
        self.wait("#%s is shown" % node_id, lambda: self.shown(node_id))

    def wait_text(self, node_id, part):
        try:
            self.wait("", lambda: self.shown(node_id) and part in self.text(node_id))
        except StepFailed:
            shown = "shown" if self.shown(node_id) else "hidden"
            raise StepFailed("#%s says %r (it says %r, %s)" % (node_id, part, self.text(node_id), shown))

    def click(self, node_id):
        self.wait_shown(node_id)
        self.node(node_id).click()

    def type(self, node_id, text, submit=False):
        field = self.node(node_id)
        field.clear()
        field.send_keys(text)
        if submit:
            field.send_keys(Keys.ENTER)

    def fetch_status(self, method, path, body):
        """The status a request of the page's own origin gets, with the browser's cookies."""
        return self.driver.execute_async_script(
            "var done = arguments[arguments.length - 1];"
            "fetch(arguments[1], {method: arguments[0], credentials: 'same-origin',"
            " headers: {'Content-Type': 'application/json'}, body: arguments[2]})"
            ".then(function (r) { done(r.status); }, function () { done(-1); });", method, path, body)


def scenes(page, email, password, trip_until, trip_last_day):
    # The page offers a log-in, and says where an account comes from.
    page.wait_shown("login-open")
    if page.shown("post-open") or page.shown("logout"):
        raise StepFailed("a visitor is offered posting or a logout before logging in")
    page.click("login-open")
    page.wait_shown("login-form")
    if not (page.shown("signup-ask") or page.shown("signup")):
        raise StepFailed("the log-in scene does not say how to get an account")

    page.click("login-submit")
    page.wait_text("login-error", "Give your email and your password.")
    page.type("login-email", email)
    page.type("login-password", password + "-wrong", submit=True)
    page.wait_text("login-error", "Wrong email or password.")
    page.type("login-password", password, submit=True)
    page.wait_text("who", "Logged in as Ada Lovelace")
    if page.shown("scene"):
        raise StepFailed("the log-in scene stays open after a log-in")
    if page.node("login-password").get_attribute("value"):
        raise StepFailed("the password stays in its field after the log-in")

    # Where are you studying? A word that is not a place is refused in words.
    page.click("post-open")
    page.wait_shown("place-form")
    page.type("place", "online", submit=True)
    page.wait_text("place-error", "is not a place the map can show")
    if page.shown("place-confirm"):
        raise StepFailed("a refused place can be confirmed")

    # A near spelling is offered, not assumed: nothing is chosen until the student picks.
    page.type("place", "Seatle", submit=True)
    page.wait_text("place-question", "Did you mean")
    if page.shown("place-confirm"):
        raise StepFailed("an offered place was assumed before the student chose it")
    offered = page.texts("#place-choices button")
    if not offered or "Seattle" not in offered[0]:
        raise StepFailed("Seattle is not offered first for 'Seatle': %r" % offered)
    page.driver.find_element(By.CSS_SELECTOR, "#place-choices button").click()
    page.wait_shown("place-confirm")
    page.wait("the map marks the chosen place",
              lambda: page.driver.execute_script("return document.getElementById('focus-layer').childElementCount") > 0)
    page.click("place-confirm")

    # The link: only a web address goes.
    page.wait_text("link-place", "Seattle")
    page.type("link", "javascript:alert(1)", submit=True)
    page.wait_text("link-error", "Give a web address that starts with http:// or https://.")
    page.type("link", "https://ada.example/portfolio", submit=True)
    page.wait_text("done-text", "You are on the map at Seattle")
    page.driver.find_element(By.CSS_SELECTOR, "#done .cancel").click()
    page.wait("the scene closes", lambda: not page.shown("scene"))

    # Her pin is on the map; its popup gives her name, place and a link that opens.
    pin = "#pins g.pin title"
    page.wait("the map draws her pin", lambda: any("Ada Lovelace" in t for t in page.texts(pin)))
    page.driver.execute_script(
        "var t = Array.prototype.filter.call(document.querySelectorAll(arguments[0]),"
        " function (t) { return t.textContent.indexOf('Ada Lovelace') === 0; })[0];"
        "t.parentNode.dispatchEvent(new MouseEvent('click', {bubbles: true}));", pin)
    page.wait_text("popup-list", "Ada Lovelace")
    page.wait_text("popup-list", "Seattle")
    links = page.attributes("#popup-list a.link", "href")
    if links != ["https://ada.example/portfolio"]:
        raise StepFailed("the popup's link is %r" % links)
    page.click("popup-close")
    page.click("tab-table")
    page.wait("the Table tab lists the new pin",
              lambda: "Ada Lovelace" in page.text("rows") and "Seattle" in page.text("rows"))
    page.click("tab-map")

    # Cancel at the place step and at the replace step: nothing is written (the test checks the
    # directory too).
    page.click("post-open")
    page.type("place", "Oslo, Norway", submit=True)
    page.wait_shown("place-confirm")
    page.driver.find_element(By.CSS_SELECTOR, "#place-form .cancel").click()
    page.wait("the scene closes on Cancel", lambda: not page.shown("scene"))

    # A second post finds the pin: replacing it needs a yes; "Back" and "Cancel" replace nothing.
    page.click("post-open")
    if page.node("place").get_attribute("value"):
        raise StepFailed("a new post starts with the cancelled place still typed")
    page.type("place", "Lisbon, Portugal", submit=True)
    page.wait_text("place-question", "Is this the place?")
    page.click("place-confirm")
    page.type("link", "https://ada.example/cancelled", submit=True)
    page.wait_text("replace-question", "You are already on the map at Seattle")
    page.driver.find_element(By.CSS_SELECTOR, "#replace-form .cancel").click()
    page.wait("the scene closes on Cancel", lambda: not page.shown("scene"))
    page.click("post-open")
    page.type("place", "Lisbon, Portugal", submit=True)
    page.wait_text("place-question", "Is this the place?")
    page.wait_shown("place-confirm")
    page.click("place-confirm")
    page.type("link", "https://ada.example/lisbon", submit=True)
    page.wait_text("replace-question", "You are already on the map at Seattle")
    page.click("replace-no")
    page.wait_shown("link-form")
    page.click("link-submit")
    page.wait_text("replace-question", "Replace that pin with Lisbon")
    page.click("replace-yes")
    page.wait_text("done-text", "You are on the map at Lisbon")

    # A trip: a day in the past is refused with a sentence; then Tokyo until a day three days off
    # shows instead of the Lisbon pin, on the map and in the table, and the home pin stays.
    page.click("post-open")
    page.type("place", "Tokyo", submit=True)
    page.wait_text("place-question", "Is this the place?")
    page.wait_shown("place-confirm")
    page.driver.execute_script("document.getElementById('until').value = arguments[0]", "2020-01-01")
    page.click("place-confirm")
    page.wait_text("place-error", "is in the past")
    page.driver.execute_script("document.getElementById('until').value = arguments[0]", trip_until)
    page.click("place-confirm")
    page.wait_text("done-text", "until %s; your home pin comes back after that" % trip_last_day)
    page.wait("the table shows the trip",
              lambda: any(t.startswith("Tokyo") and t.endswith("until %s" % trip_last_day)
                          for t in page.texts("#rows td.place")))
    page.driver.find_element(By.CSS_SELECTOR, "#done .cancel").click()
    page.click("post-open")
    if page.node("until").get_attribute("value"):
        raise StepFailed("a new post starts with the last trip's date still set")
    page.driver.find_element(By.CSS_SELECTOR, "#place-form .cancel").click()

    # Logging out ends the session on the server too: the cookie no longer writes.
    page.click("logout")
    page.wait_shown("login-open")
    if page.shown("post-open"):
        raise StepFailed("posting is still offered after the logout")
    pin = json.dumps({"uniqueKey": "x", "firstName": "A", "lastName": "L", "mapString": "Oslo",
                      "mediaURL": "https://a.example", "latitude": 59.9, "longitude": 10.7})
    status = page.fetch_status("POST", "v1/StudentLocation", pin)
    if status != 401:
        raise StepFailed("a write after the logout answered %s, not 401" % status)


def main():
    base, email, password, trip_until, trip_last_day = sys.argv[1:6]
    driver = headless_chromium()
    try:
        driver.get(base + "/")
        page = Page(driver)
        try:
            scenes(page, email, password, trip_until, trip_last_day)
        except StepFailed as failure:
            state = {node: page.text(node) for node in ("status", "who", "login-error", "place-error",
                                                        "place-question", "link-error", "done-text")}
            print("step failed: %s\npage: %s" % (failure, json.dumps(state)))
            return 1
        # The wrong password and the refused writes are answered 4xx, which Chromium logs as errors
        # of the request; anything else (a script error) fails the scenes.
        scripts = page_errors(driver, expected=lambda message: "Failed to load resource" in message)
        if scripts:
            print("script errors: %s" % scripts)
            return 1
        print("scenes passed")
        return 0
    finally:
        driver.quit()


sys.exit(main())
