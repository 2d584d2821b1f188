"""The class map is for the class, in headless Chromium (Selenium, Debian's chromedriver): a
signed-out visitor sees the map without a student's name; the sign-in link a student got from the
bot's private !map signs the browser in once (the names appear, and go with the logout); the same
link, opened again, is refused with a sentence and signs nothing in.

    /usr/bin/python3 Tests/Browser/class_signin.py [--no-password-form] BASE_URL SIGN_IN_LINK NAME...

--no-password-form: the class has passwords turned off, so the signed-out page must offer no
password form (no "Log in" button, no email and password fields shown).

NAME...: words of the class's pins (student names) that a signed-out page must not show and a
signed-in one must. Exits 0 when every step showed what it must; otherwise prints the step that
did not and the page's state, and exits 1.
"""
import json
import sys
import urllib.request

from selenium.webdriver.common.by import By

from browser import StepFailed, headless_chromium, page_errors, shown, wait_until


def text(driver, node_id):
    return driver.execute_script(
        "var n = document.getElementById(arguments[0]); return n ? n.textContent : null", node_id)


def whole_page(driver):
    """Everything a person could read or hover: the text, and every attribute value (titles of pins)."""
    return driver.execute_script(
        "var out = [document.body.innerText];"
        "document.querySelectorAll('*').forEach(function (n) {"
        "  Array.prototype.forEach.call(n.attributes, function (a) { out.push(a.value); }); });"
        "document.querySelectorAll('title, #rows, #popup-list, #pins').forEach(function (n) { out.push(n.textContent); });"
        "return out.join('\\n');")


NO_PASSWORD_FORM = False


def signed_out_map(driver, base, names, why):
    driver.get(base + "/map")
    wait_until(driver, "%s: the map says how to sign in" % why,
               lambda: shown(driver, "signin-note") and "The class map is for the class" in (text(driver, "signin-note") or ""))
    if NO_PASSWORD_FORM and (shown(driver, "login-open") or shown(driver, "login-password")):
        raise StepFailed("%s: a class without passwords offers the password form" % why)
    if not NO_PASSWORD_FORM and not shown(driver, "login-open"):
        raise StepFailed("%s: a class with passwords does not offer its log-in button" % why)
    driver.find_element(By.ID, "tab-table").click()
    seen = whole_page(driver)
    leaked = [name for name in names if name in seen]
    if leaked:
        raise StepFailed("%s: a signed-out page shows %r" % (why, leaked))
    if driver.execute_script("return document.querySelectorAll('#rows tr, #pins g').length") != 0:
        raise StepFailed("%s: a signed-out page draws pins or table rows" % why)


def open_link(driver, link):
    driver.get(link)
    wait_until(driver, "the sign-in page offers its button",
               lambda: driver.execute_script("var b = document.getElementById('signin-button'); return !!b && !b.disabled"))
    if driver.execute_script("return location.hash"):
        raise StepFailed("the token stays in the address bar")
    driver.find_element(By.ID, "signin-button").click()


def scenes(driver, base, link, names):
    signed_out_map(driver, base, names, "before the link")

    # A chat client's link preview fetches the page without running it: the link stays good (the
    # next step uses it).
    with urllib.request.urlopen(link, timeout=20) as preview:
        if preview.status != 200 or b"signin-button" not in preview.read():
            raise StepFailed("a preview fetch of the link did not get the sign-in page")

    # The link, opened and confirmed: the browser is signed in and the names appear.
    open_link(driver, link)
    wait_until(driver, "the link leads to the map, signed in",
               lambda: driver.execute_script("return location.pathname").endswith("/map")
               and driver.execute_script("return document.getElementById('app').getAttribute('data-pins')") not in (None, "0"))
    wait_until(driver, "the page says who is signed in", lambda: "Logged in as" in (text(driver, "who") or ""))
    wait_until(driver, "the signed-in page offers the student's own data", lambda: shown(driver, "own-data"))
    driver.find_element(By.ID, "tab-table").click()
    wait_until(driver, "the table names the class", lambda: all(name in whole_page(driver) for name in names))
    if shown(driver, "signin-note"):
        raise StepFailed("the sign-in note stays on a signed-in page")
    if shown(driver, "own-data") is not True:
        raise StepFailed("the signed-in page hides the student's own data")

    # Logging out takes the names off the page again.
    driver.find_element(By.ID, "logout").click()
    wait_until(driver, "after the logout the map says how to sign in",
               lambda: shown(driver, "signin-note") and not any(name in whole_page(driver) for name in names))
    wait_until(driver, "after the logout the page offers no own data", lambda: not shown(driver, "own-data"))

    # The same link again, in a browser with no session: refused in words, nothing signed in.
    driver.delete_all_cookies()
    open_link(driver, link)
    wait_until(driver, "a used link is refused in words",
               lambda: shown(driver, "signin-error") and "already used" in (text(driver, "signin-error") or ""))
    if not driver.execute_script("return location.pathname").endswith("/signin"):
        raise StepFailed("a used link left the sign-in page")
    if driver.get_cookie("onthemap_session"):
        raise StepFailed("a used link set a session cookie")
    signed_out_map(driver, base, names, "after the used link")


def main():
    global NO_PASSWORD_FORM
    arguments = sys.argv[1:]
    if arguments and arguments[0] == "--no-password-form":
        NO_PASSWORD_FORM = True
        arguments = arguments[1:]
    base, link, names = arguments[0], arguments[1], arguments[2:]
    driver = headless_chromium()
    try:
        try:
            scenes(driver, base, link, names)
        except StepFailed as failure:
            state = {node: text(driver, node) for node in ("status", "who", "signin-note", "signin-error")}
            print("step failed: %s\nurl: %s\npage: %s" % (failure, driver.current_url, json.dumps(state)))
            return 1
        # The signed-out reads (401) and the refused link (403) are logged by Chromium as failed
        # requests; anything else (a script error) fails the scenes.
        scripts = page_errors(driver, expected=lambda message: "Failed to load resource" in message)
        if scripts:
            print("script errors: %s" % scripts)
            return 1
        print("sign-in scenes passed")
        return 0
    finally:
        driver.quit()


sys.exit(main())
