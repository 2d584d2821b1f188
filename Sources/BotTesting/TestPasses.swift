import Testing

/// The passes `scripts/test` runs a suite in, declared by the suite itself (`@Suite(.tags(…))` or
/// `@Test(.tags(…))`); `scripts/lib/test-passes.py` reads these declarations from the sources and
/// makes each pass's filter. An undeclared suite runs in the parallel pass beside everything light.
extension Tag {
    /// Starts whole bot processes or daemons, or kills and restarts servers: runs in a pass of its
    /// own kind, a few such suites side by side, where their start-ups and kills cannot crowd the
    /// light tests' short timers.
    @Tag public static var startsProcesses: Self
    /// Needs the machine to itself: keeps a thread of the concurrency pool busy on purpose (two at
    /// once would hold a two-core machine's whole pool), drives a browser (which takes most of a
    /// core while it draws), or measures answers against a wall-clock budget. Runs one at a time.
    @Tag public static var runsAlone: Self
    /// The load test of a whole class on a real ircd: its own pass, last.
    @Tag public static var classLoad: Self
}
