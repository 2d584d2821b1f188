#!/usr/bin/env python3
"""Prints the `swift test --filter` pattern of the tests that declare a pass tag.

    scripts/lib/test-passes.py startsProcesses|runsAlone|classLoad

Reads every Swift file under Tests/: a `@Suite(...)` or `@Test(...)` whose attribute names
`.tags(...)` with the tag (see Sources/BotTesting/TestPasses.swift) gives the name of the type or
function it declares. Suites give `[./]Suite/` (every test in it, extensions and nested suites included), tests give
`/name(` (that test wherever it is). Exits 1 when no test declares the tag: a pass that would
silently run nothing is a mistake.
"""
import pathlib
import re
import sys

DECLARATION = re.compile(
    r"@(Suite|Test)\s*\((?P<traits>(?:[^()]|\((?:[^()]|\([^()]*\))*\))*)\)"  # the attribute, nested parentheses
    r"(?:\s*@\w+(?:\([^)]*\))?)*"  # other attributes
    r"\s*(?:(?:public|internal|private|fileprivate|final|static|nonisolated|@MainActor)\s+)*"
    r"(?P<kind>struct|class|enum|actor|func)\s+(?P<name>\w+)",
    re.S,
)


def declared(tag: str, root: pathlib.Path) -> list[str]:
    names: set[str] = set()
    for path in sorted(root.rglob("*.swift")):
        text = path.read_text(encoding="utf-8")
        for match in DECLARATION.finditer(text):
            tags = re.findall(r"\.tags\(([^)]*)\)", match.group("traits"))
            if not any(re.search(r"\." + re.escape(tag) + r"\b", found) for found in tags):
                continue
            name = match.group("name")
            names.add(f"/{name}\\(" if match.group("kind") == "func" else f"[./]{name}/")
    return sorted(names)


def main() -> int:
    if len(sys.argv) != 2:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    names = declared(sys.argv[1], pathlib.Path(__file__).resolve().parents[2] / "Tests")
    if not names:
        print(f"no test declares the tag .{sys.argv[1]}", file=sys.stderr)
        return 1
    print("|".join(names))
    return 0


if __name__ == "__main__":
    sys.exit(main())
