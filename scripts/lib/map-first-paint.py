"""The class map in headless Chromium, driven by Selenium and Debian's chromedriver.

Prints one JSON object: how long after navigation the first pins were drawn (first_draw_ms), how
many KiB the page had fetched over the wire by then (wire_kib: the document and every resource's
transferSize, compressed bytes as they came), how long each redraw of a zoom took (zoom_draw_ms,
the median of 5), and how many pin elements the map shows. The page marks every redraw with the User Timing entry "map-draw"
(performance.measure, with the number of pins as its detail), so the figures are the browser's own clock, not the driver's round trips.

    python3 scripts/lib/map-first-paint.py http://127.0.0.1:8080/map [timeout-seconds]
"""
import json
import statistics
import sys
import time

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By


def main():
    url = sys.argv[1]
    timeout = float(sys.argv[2]) if len(sys.argv) > 2 else 120
    options = webdriver.ChromeOptions()
    for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1200,800"):
        options.add_argument(flag)
    options.binary_location = "/usr/bin/chromium"
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    try:
        driver.set_script_timeout(timeout)
        driver.get(url)
        draws = "return performance.getEntriesByName('map-draw').filter(e => e.detail && e.detail.pins > 0)"
        deadline = time.monotonic() + timeout
        first = []
        while not first and time.monotonic() < deadline:
            first = driver.execute_script(draws + ".map(e => e.startTime + e.duration)")
            if not first:
                time.sleep(0.02)
        if not first:
            raise SystemExit("no pins drawn within %s s" % timeout)
        wire = driver.execute_script(
            "return performance.getEntriesByType('navigation').concat(performance.getEntriesByType('resource'))"
            ".reduce((sum, e) => sum + (e.transferSize || 0), 0)")
        zooms = []
        for _ in range(5):
            before = driver.execute_script("return performance.getEntriesByName('map-draw').length")
            driver.find_element(By.ID, "zoom-in").click()
            while driver.execute_script("return performance.getEntriesByName('map-draw').length") == before:
                time.sleep(0.005)
            zooms.append(driver.execute_script("var e = performance.getEntriesByName('map-draw'); return e[e.length - 1].duration"))
        shown = driver.execute_script("return document.querySelectorAll('#pins > *').length")
        print(json.dumps({"first_draw_ms": round(first[0], 1), "wire_kib": round(wire / 1024, 1), "zoom_draw_ms": round(statistics.median(zooms), 1), "pin_elements": shown}))
    finally:
        driver.quit()


main()
