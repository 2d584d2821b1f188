"""What the accessibility checks share: axe-core (as PyPI's axe-selenium-python bundles it) run on
the page as it stands, WCAG 2.2's target size (2.5.8, which that axe-core predates) measured on
the page, and whether the focused element shows its focus.

The scripts beside this file import it (Python puts a script's own folder on its path).
"""
from axe_selenium_python import Axe

from browser import StepFailed

# What axe runs: every rule it has for WCAG 2.0 and 2.1, A and AA, and its best practices.
AXE_OPTIONS = "{resultTypes: ['violations']}"


def axe_report(violations):
    """The violations as lines a person can act on: the rule, its help, and each element with why."""
    lines = []
    for violation in violations:
        lines.append("%s (%s): %s [%s]" % (violation["id"], violation.get("impact") or "?", violation["help"],
                                          " ".join(violation.get("tags", []))))
        for node in violation["nodes"]:
            reasons = [check["message"] for kind in ("any", "all", "none") for check in node.get(kind, [])]
            lines.append("    %s: %s" % (" ".join(str(t) for t in node["target"]), "; ".join(reasons)))
            lines.append("      %s" % node.get("html", "")[:200])
    return "\n".join(lines)


def axe_clean(driver, scene):
    """Runs axe-core on the page as it is; raises StepFailed listing every violation (printed by
    the caller) unless there are none."""
    axe = Axe(driver)
    # Injected once per document: the scenes of one page share it.
    if not driver.execute_script("return typeof window.axe === 'object' && typeof window.axe.run === 'function'"):
        axe.inject()
    version = driver.execute_script("return axe.version")
    results = axe.run(options=AXE_OPTIONS)
    violations = results.get("violations", [])
    if violations:
        raise StepFailed("axe-core %s found %d violation(s) on %s:\n%s" % (
            version, len(violations), scene, axe_report(violations)))
    return version


# WCAG 2.2, 2.5.8 Target Size (Minimum): a pointer target is at least 24 by 24 CSS pixels, or a
# circle of 24 pixels centred on it overlaps no other target and no other small target's circle;
# a target inside a sentence (an inline link among text) is excepted. The map's markers are
# excepted as equivalents: the list of the view gives each one a full-size "Show on map" button.
TARGET_SIZE_SCRIPT = """
var selector = 'a[href], button, input:not([type=hidden]), select, textarea, [role=button], [role=tab],'
  + ' [tabindex]:not([tabindex="-1"])';
function visible(n) {
  if (n.disabled) return false;
  for (var e = n; e; e = e.parentElement) if (e.hidden) return false;
  var style = getComputedStyle(n), r = n.getBoundingClientRect();
  return style.visibility !== 'hidden' && style.display !== 'none' && r.width > 0 && r.height > 0;
}
function inSentence(n) {
  if (getComputedStyle(n).display !== 'inline') return false;
  var own = (n.textContent || '').trim().length, around = (n.parentElement.textContent || '').trim().length;
  return around > own;
}
var targets = Array.prototype.filter.call(document.querySelectorAll(selector), function (n) {
  return visible(n) && !(n.closest && n.closest('svg'));
}).map(function (n) { return { node: n, r: n.getBoundingClientRect() }; });
var small = targets.filter(function (t) { return (t.r.width < 23.5 || t.r.height < 23.5) && !inSentence(t.node); });
function centre(t) { return { x: t.r.left + t.r.width / 2, y: t.r.top + t.r.height / 2 }; }
function distanceToRect(p, r) {
  var dx = Math.max(r.left - p.x, 0, p.x - r.right), dy = Math.max(r.top - p.y, 0, p.y - r.bottom);
  return Math.sqrt(dx * dx + dy * dy);
}
var failures = [];
small.forEach(function (t) {
  var c = centre(t);
  targets.forEach(function (o) {
    if (o === t || o.node.contains(t.node) || t.node.contains(o.node)) return;
    var isSmall = small.indexOf(o) >= 0;
    var near = isSmall ? Math.hypot(c.x - centre(o).x, c.y - centre(o).y) < 24 : distanceToRect(c, o.r) < 12;
    if (near) failures.push((t.node.id || t.node.outerHTML.slice(0, 80)) + ' (' + Math.round(t.r.width) + 'x'
      + Math.round(t.r.height) + ') is too close to ' + (o.node.id || o.node.outerHTML.slice(0, 80)));
  });
});
return { targets: targets.length, small: small.length, failures: failures };
"""


def targets_large_enough(driver, scene):
    """Raises StepFailed naming each pointer target under 24 px that is too close to another."""
    result = driver.execute_script(TARGET_SIZE_SCRIPT)
    if result["failures"]:
        raise StepFailed("targets under 24 px too close to another on %s (WCAG 2.5.8):\n    %s" % (
            scene, "\n    ".join(result["failures"])))
    return result


def focus_shown(driver):
    """What the focused element shows of its focus: its outline (style and width in px) or a ring
    drawn with box-shadow, its id, and whether `:focus-visible` matches it."""
    return driver.execute_script("""
        var n = document.activeElement;
        if (!n || n === document.body) return null;
        var style = getComputedStyle(n);
        return { id: n.id || '', tag: n.tagName.toLowerCase(), text: (n.textContent || '').trim().slice(0, 60),
                 key: n.getAttribute('data-key') || '',
                 outline: style.outlineStyle, width: parseFloat(style.outlineWidth) || 0,
                 shadow: style.boxShadow, visible: n.matches(':focus-visible') };""")


def focus_visible(focus):
    return bool(focus) and focus["visible"] and (
        (focus["outline"] not in ("none", "") and focus["width"] >= 2) or focus["shadow"] not in ("none", ""))
