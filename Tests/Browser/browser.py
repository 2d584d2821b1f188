"""What the browser checks share: headless Chromium under Debian's chromedriver, a wait that names
the step it waited for, and the page's own errors.

The scripts beside this file import it (Python puts a script's own folder on its path).
"""
from selenium import webdriver
from selenium.common.exceptions import StaleElementReferenceException, TimeoutException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.support.ui import WebDriverWait

WAIT = 20


class StepFailed(Exception):
    """A step did not show what a person must see; its text says which."""


def headless_chromium(eager=False, language=None):
    """Debian's Chromium, headless at 1200 x 800. `eager`: navigation returns once the document is
    parsed, without waiting for every image (for pages whose images may never arrive). `language`:
    the languages the browser asks for (its `Accept-Language`), like "es"."""
    options = webdriver.ChromeOptions()
    for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1200,800"):
        options.add_argument(flag)
    if language:
        options.add_argument("--lang=" + language)
        options.add_experimental_option("prefs", {"intl.accept_languages": language})
    options.binary_location = "/usr/bin/chromium"
    if eager:
        options.page_load_strategy = "eager"
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    driver.set_script_timeout(WAIT)
    return driver


def wait_until(driver, what, condition):
    """Polls `condition()` until it is true, or raises StepFailed(what) after WAIT seconds. The map
    redraws as it polls, so an element read in the middle of a redraw counts as "not yet"."""
    try:
        WebDriverWait(driver, WAIT, poll_frequency=0.05,
                      ignored_exceptions=(StaleElementReferenceException,)).until(lambda _: condition())
    except TimeoutException:
        raise StepFailed(what)


def js(driver, source, *arguments):
    return driver.execute_script(source, *arguments)


def shown(driver, node_id):
    """Whether the element `node_id` exists and neither it nor any of its ancestors is hidden."""
    return js(driver, "var n = document.getElementById(arguments[0]);"
                      "if (!n) return false; while (n) { if (n.hidden) return false; n = n.parentElement; } return true;",
              node_id)


def page_errors(driver, expected=lambda message: False):
    """The browser's SEVERE log entries, less the page's missing icon and what `expected` allows."""
    return [entry["message"] for entry in driver.get_log("browser")
            if entry["level"] == "SEVERE" and "favicon.ico" not in entry["message"]
            and not expected(entry["message"])]
