#!/usr/bin/env python3
"""The test passes of scripts/test, as the tests declare them.

    scripts/lib/test-passes.py filter TAG
        Prints the `swift test --filter` pattern of the tests that declare TAG.
    scripts/lib/test-passes.py run TAG WIDTH -- COMMAND…
        Runs COMMAND `--no-parallel --filter SUITE` once per suite that declares TAG, WIDTH at a
        time (each suite's tests one after the other in one process, different suites side by
        side), prints each suite's output when it ends and exits 1 if any failed.

A `@Suite(...)` or `@Test(...)` whose attribute names `.tags(...)` with TAG (the tags are in
Sources/BotTesting/TestPasses.swift) declares the type or function after it. Suites match as
`[./]Suite/` (every test in it, extensions and nested suites included), tests as `/name(`. A tag
no test declares is an error: a pass that would silently run nothing is a mistake.

`run` starts the suites that declare the longest time limits first (`.timeLimit(.minutes(N))`
in the suite's file, summed; the longer file first on a tie), so that the last to finish is a
short one. A suite still running after twice those minutes and one more (5 at least) is stopped
with everything it started (its process group) and counts as failed, its output printed: a test
whose time limit passed but whose awaited work ignores cancellation would otherwise hold the
whole run until CI's own limit, saying nothing.
"""
import pathlib
import os
import re
import signal
import subprocess
import sys
import threading
import time

TESTS = pathlib.Path(__file__).resolve().parents[2] / "Tests"
DECLARATION = re.compile(
    r"@(Suite|Test)\s*\((?P<traits>(?:[^()]|\((?:[^()]|\([^()]*\))*\))*)\)"  # the attribute, nested parentheses
    r"(?:\s*@\w+(?:\([^)]*\))?)*"  # other attributes
    r"\s*(?:(?:public|internal|private|fileprivate|final|static|nonisolated|@MainActor)\s+)*"
    r"(?P<kind>struct|class|enum|actor|func)\s+(?P<name>\w+)",
    re.S,
)


def declared(tag: str) -> list[tuple[str, str, pathlib.Path]]:
    """(kind, name, file) of every suite or test that declares `tag`."""
    found = []
    for path in sorted(TESTS.rglob("*.swift")):
        text = path.read_text(encoding="utf-8")
        for match in DECLARATION.finditer(text):
            tags = re.findall(r"\.tags\(([^)]*)\)", match.group("traits"))
            if any(re.search(r"\." + re.escape(tag) + r"\b", listed) for listed in tags):
                found.append((match.group("kind"), match.group("name"), path))
    if not found:
        sys.exit(f"no test declares the tag .{tag}")
    return found


def pattern(kind: str, name: str) -> str:
    return f"/{name}\\(" if kind == "func" else f"[./]{name}/"


def weight(path: pathlib.Path) -> tuple[int, int]:
    text = path.read_text(encoding="utf-8")
    minutes = sum(int(n) for n in re.findall(r"\.timeLimit\(\.minutes\((\d+)\)\)", text))
    return (minutes, len(text))


def deadline_seconds(path: pathlib.Path) -> int:
    """How long the suite in `path` may run before it is stopped: twice its declared time limits
    and a minute more, 5 minutes at least."""
    minutes, _ = weight(path)
    return max(5, 2 * minutes + 1) * 60


def run_suite(command: list[str], deadline: int) -> tuple[int | None, str]:
    """Runs `command` in a process group of its own; (its exit status, its output), or (None, the
    output so far) when it was still running after `deadline` seconds and was stopped, with every
    process it started (servers, bots) that stayed in its group."""
    process = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, errors="replace",
        env={**os.environ, "NO_COLOR": "1"},  # the output is a log, not a terminal
        start_new_session=True,
    )
    try:
        output, _ = process.communicate(timeout=deadline)
        return process.returncode, output
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        output, _ = process.communicate()
        return None, output + f"\n(stopped after {deadline} s)\n"


def run(tag: str, width: int, command: list[str]) -> int:
    queue = sorted(declared(tag), key=lambda entry: weight(entry[2]), reverse=True)
    lock = threading.Lock()
    failed: list[str] = []

    def worker() -> None:
        while True:
            with lock:
                if not queue:
                    return
                kind, name, path = queue.pop(0)
            started = time.monotonic()
            returncode, output = run_suite(
                command + ["--no-parallel", "--filter", pattern(kind, name)], deadline_seconds(path)
            )
            seconds = time.monotonic() - started
            with lock:
                verdict = "passed" if returncode == 0 else f"FAILED (exit {returncode})"
                if returncode is None:
                    verdict = "STOPPED, still running after its deadline"
                if returncode != 0:
                    failed.append(name)
                sys.stdout.write(f"\n── {name}: {verdict} in {seconds:.0f} s\n{output}")
                sys.stdout.flush()

    threads = [threading.Thread(target=worker) for _ in range(max(1, width))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if failed:
        print(f"\nfailed: {', '.join(failed)}")
        return 1
    return 0


def main(arguments: list[str]) -> int:
    if len(arguments) == 2 and arguments[0] == "filter":
        print("|".join(sorted({pattern(kind, name) for kind, name, _ in declared(arguments[1])})))
        return 0
    if len(arguments) >= 5 and arguments[0] == "run" and arguments[2].isdigit() and arguments[3] == "--":
        return run(arguments[1], int(arguments[2]), arguments[4:])
    print(__doc__.split("\n\n")[1], file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
