"""The class map in the reader's language, in headless Chromium (Selenium, Debian's chromedriver),
against the built bot's web listener:

1. a browser that asks for Spanish reads the page in Spanish (`<html lang>`, the tabs, the class
   map's sign-in note that the server words, the language menu) and the log-in scene too;
2. its language menu switches the page to Japanese, which holds after a reload; the log-in scene's
   refusal of an empty form is Japanese;
3. the sign-in link of a student who chose French on IRC (`!lang fr`), opened in a Spanish browser:
   the sign-in page is Spanish; once signed in, the map is French and names her, and so is the
   posting scene; the menu cannot override her choice, and says so in French;
4. a browser asking for each of the six languages in turn reads the page, the log-in scene (and its
   refusal of an empty form), the table scene and the posting scene's words in that language.

    /usr/bin/python3 Tests/Browser/web_language.py BASE_URL SIGN_IN_LINK STUDENT_NAME

The expected words are read from the shipped catalogues (Sources/Localization/Catalogs). Exits 0
when every step showed what it must; otherwise prints the step that did not and the page's state,
and exits 1.
"""
import json
import os
import re
import sys

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

from browser import StepFailed, headless_chromium, page_errors, shown, wait_until

CATALOGS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "Sources", "Localization", "Catalogs")


def catalogue(tag):
    with open(os.path.join(CATALOGS, tag + ".json"), encoding="utf-8") as f:
        entries = json.load(f)
    return {key: (value if isinstance(value, str) else value.get("text", value)) for key, value in entries.items()}


PLURAL_FORMS = ("zero", "one", "two", "few", "many", "other")
LANGUAGES = ("en", "es", "fr", "de", "pt-BR", "ja")
CATALOGUES = {tag: catalogue(tag) for tag in LANGUAGES}


def words(tag, key, **values):
    text = CATALOGUES[tag][key]
    for name, value in values.items():
        text = text.replace("{" + name + "}", value)
    return text


def counted(tag, key, actual):
    """Whether `actual` is one of the counted message's forms in `tag`, with a number for {count}."""
    entry = CATALOGUES[tag][key]
    forms = [entry] if isinstance(entry, str) else [form for name, form in entry.items() if name in PLURAL_FORMS]
    for form in forms:
        pattern = re.escape(form).replace(re.escape("{count}"), r"[0-9][0-9\s.,\u00a0\u202f]*")
        if re.fullmatch(pattern, actual):
            return True
    return False


def text(driver, node_id):
    return driver.execute_script(
        "var n = document.getElementById(arguments[0]); return n ? n.textContent : null", node_id)


def page_language(driver):
    return driver.execute_script("return document.documentElement.lang")


def expect_page(driver, tag, why):
    """The page is in `tag`: its `<html lang>`, its tabs, its title and its menu's choice."""
    wait_until(driver, "%s: the page is in %s (it is in %r)" % (why, tag, page_language(driver)),
               lambda: page_language(driver) == tag)
    for node_id, key in (("tab-map", "web.page.tab.map"), ("tab-table", "web.page.tab.table")):
        if text(driver, node_id) != words(tag, key):
            raise StepFailed("%s: #%s says %r, not %r" % (why, node_id, text(driver, node_id), words(tag, key)))
    if driver.title != words(tag, "web.page.title"):
        raise StepFailed("%s: the title is %r" % (why, driver.title))
    chosen = Select(driver.find_element(By.ID, "language")).first_selected_option
    if chosen.get_attribute("value") != tag:
        raise StepFailed("%s: the language menu shows %r" % (why, chosen.get_attribute("value")))
    label = driver.find_element(By.ID, "language").get_attribute("aria-label")
    if label != words(tag, "web.page.language.label"):
        raise StepFailed("%s: the language menu is labelled %r" % (why, label))


def spanish_then_japanese(base):
    driver = headless_chromium(language="es")
    try:
        driver.get(base + "/map")
        expect_page(driver, "es", "a Spanish browser")
        # The class map's note comes from the server, asked in the page's language.
        wait_until(driver, "the sign-in note is Spanish",
                   lambda: shown(driver, "signin-note")
                   and text(driver, "signin-note") == words("es", "web.map.signIn.formOrLink"))
        wait_until(driver, "the status says, in Spanish, to sign in",
                   lambda: text(driver, "status") == words("es", "web.page.signedOut"))
        # The log-in scene, in Spanish.
        driver.find_element(By.ID, "login-open").click()
        wait_until(driver, "the log-in scene opens", lambda: shown(driver, "login-form"))
        heading = driver.find_element(By.CSS_SELECTOR, "#login-form h2").text
        if heading != words("es", "web.page.login"):
            raise StepFailed("the log-in scene's heading is %r" % heading)
        driver.find_element(By.ID, "login-submit").click()
        wait_until(driver, "an empty log-in is refused in Spanish",
                   lambda: text(driver, "login-error") == words("es", "web.page.login.empty"))

        # The menu: Japanese, kept for this browser.
        Select(driver.find_element(By.ID, "language")).select_by_value("ja")
        expect_page(driver, "ja", "after choosing 日本語 in the menu")
        driver.refresh()
        expect_page(driver, "ja", "after a reload")
        wait_until(driver, "the sign-in note is Japanese",
                   lambda: text(driver, "signin-note") == words("ja", "web.map.signIn.formOrLink"))
        driver.find_element(By.ID, "login-open").click()
        wait_until(driver, "the log-in scene opens", lambda: shown(driver, "login-form"))
        driver.find_element(By.ID, "login-submit").click()
        wait_until(driver, "an empty log-in is refused in Japanese",
                   lambda: text(driver, "login-error") == words("ja", "web.page.login.empty"))
        cookie = driver.get_cookie("lang")
        if not cookie or cookie.get("value") != "ja" or not cookie.get("httpOnly"):
            raise StepFailed("the menu's choice is not kept as an HttpOnly cookie: %r" % cookie)
        # Signed out, a class map's pins are refused (401): that refusal is what the note words.
        errors = page_errors(driver, expected=lambda message: "api/map/" in message and "401" in message)
        if errors:
            raise StepFailed("the page logged errors: %s" % errors)
    except StepFailed:
        print("page state: lang=%r status=%r note=%r" % (page_language(driver), text(driver, "status"),
                                                         text(driver, "signin-note")))
        raise
    finally:
        driver.quit()


def student_in_french(base, link, name):
    driver = headless_chromium(language="es")
    try:
        driver.get(link)
        wait_until(driver, "the sign-in page is Spanish (the student is not signed in yet)",
                   lambda: page_language(driver) == "es"
                   and text(driver, "signin-button") == words("es", "web.signin.button"))
        wait_until(driver, "the sign-in button is ready",
                   lambda: driver.find_element(By.ID, "signin-button").is_enabled())
        driver.find_element(By.ID, "signin-button").click()
        wait_until(driver, "the link leads to the map", lambda: driver.current_url.rstrip("/").endswith("/map"))
        # Signed in, the page is in the language Jane chose on IRC, over the browser's Spanish.
        expect_page(driver, "fr", "signed in as a student who said !lang fr")
        wait_until(driver, "the page says in French who is signed in",
                   lambda: text(driver, "who") == words("fr", "web.page.who", name=name))
        wait_until(driver, "the status counts the pins in French",
                   lambda: "·" in (text(driver, "status") or "")
                   and (text(driver, "status") or "").split(" ")[1] in ("épingle", "épingles"))
        # The posting scene, in French: its heading, its fields, and its refusal of an empty place.
        driver.find_element(By.ID, "post-open").click()
        wait_until(driver, "the posting scene opens", lambda: shown(driver, "place-form"))
        heading = driver.find_element(By.CSS_SELECTOR, "#place-form h2").text
        if heading != words("fr", "web.page.place.heading"):
            raise StepFailed("the posting scene's heading is %r" % heading)
        placeholder = driver.find_element(By.ID, "place").get_attribute("placeholder")
        if placeholder != words("fr", "web.page.place.placeholder"):
            raise StepFailed("the place field's placeholder is %r" % placeholder)
        driver.find_element(By.ID, "place-find").click()
        wait_until(driver, "an empty place is refused in French",
                   lambda: text(driver, "place-error") == words("fr", "web.page.place.empty"))
        # Her choice on IRC holds over the menu: the menu says how to change it, and nothing moves.
        Select(driver.find_element(By.ID, "language")).select_by_value("ja")
        wait_until(driver, "the menu says, in French, that her !lang choice holds",
                   lambda: text(driver, "status") == words("fr", "web.language.chosenOnIRC", language="français"))
        wait_until(driver, "the menu shows the page's language again",
                   lambda: Select(driver.find_element(By.ID, "language")).first_selected_option.get_attribute("value") == "fr")
        driver.refresh()
        expect_page(driver, "fr", "after the menu's refusal and a reload")
        # The menu's refusal (409) is the answer the page words.
        errors = page_errors(driver, expected=lambda message: "/language" in message and "409" in message)
        if errors:
            raise StepFailed("the page logged errors: %s" % errors)
    except StepFailed:
        print("page state: url=%r lang=%r who=%r status=%r" % (driver.current_url, page_language(driver),
                                                               text(driver, "who"), text(driver, "status")))
        raise
    finally:
        driver.quit()


def every_language(base):
    """Each language's browser reads the page and the three scenes in its language."""
    for tag in LANGUAGES:
        driver = headless_chromium(language=tag)
        try:
            driver.get(base + "/map")
            expect_page(driver, tag, "a browser asking for %s" % tag)
            # The log-in scene, and its refusal of an empty form.
            driver.find_element(By.ID, "login-open").click()
            wait_until(driver, "%s: the log-in scene opens" % tag, lambda: shown(driver, "login-form"))
            heading = driver.find_element(By.CSS_SELECTOR, "#login-form h2").text
            if heading != words(tag, "web.page.login"):
                raise StepFailed("%s: the log-in scene's heading is %r" % (tag, heading))
            driver.find_element(By.ID, "login-submit").click()
            wait_until(driver, "%s: an empty log-in is refused in that language" % tag,
                       lambda: text(driver, "login-error") == words(tag, "web.page.login.empty"))
            # The posting scene's words (it opens for a signed-in student; its French walk is above).
            posting = driver.execute_script(
                "return document.querySelector('#place-form h2').textContent")
            if posting != words(tag, "web.page.place.heading"):
                raise StepFailed("%s: the posting scene's heading is %r" % (tag, posting))
            # The table scene: its tab, caption and column names.
            driver.find_element(By.ID, "tab-table").click()
            wait_until(driver, "%s: the table scene shows" % tag, lambda: shown(driver, "table"))
            caption = driver.find_element(By.CSS_SELECTOR, "#table caption").text
            if not counted(tag, "web.page.table.caption", caption):
                raise StepFailed("%s: the table's caption is %r" % (tag, caption))
            columns = [cell.text for cell in driver.find_elements(By.CSS_SELECTOR, "#table thead th")]
            expected = [words(tag, "web.page.table." + key) for key in ("name", "place", "localTime", "link", "when")]
            if columns != expected:
                raise StepFailed("%s: the table's columns are %r, not %r" % (tag, columns, expected))
            errors = page_errors(driver, expected=lambda message: "api/map/" in message and "401" in message)
            if errors:
                raise StepFailed("%s: the page logged errors: %s" % (tag, errors))
        except StepFailed:
            print("page state: lang=%r status=%r" % (page_language(driver), text(driver, "status")))
            raise
        finally:
            driver.quit()


def main():
    base, link, name = sys.argv[1:4]
    try:
        spanish_then_japanese(base)
        student_in_french(base, link, name)
        every_language(base)
    except StepFailed as failure:
        print("step failed: %s" % failure)
        return 1
    print("language scenes passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
