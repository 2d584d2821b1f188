import Testing

@testable import BotKit

@Suite struct CommandLineParserTests {
    /// Printable ASCII lines skip the clean-up of the first word; both ways find the same command.
    @Test func shortcutForPlainLinesAgreesWithTheFullParse() {
        let pieces = ["!", "ping", "near", " ", "  ", "MapBot", ":", ",", "Paris", "x", "NEAR", "!!", "a:b"]
        let parser = CommandLineParser(prefix: "!")
        var state: UInt64 = 7
        func next() -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int(state >> 33)
        }
        for _ in 0..<20_000 {
            let text = (0..<(next() % 8)).map { _ in pieces[next() % pieces.count] }.joined()
            let isPrivate = next() % 2 == 0
            let equal: (String, String) -> Bool = { $0.lowercased() == $1.lowercased() }
            let fast = parser.parse(text, isPrivate: isPrivate, botNick: "MapBot", nicksEqual: equal)
            let full = parser.parse(text, isPrivate: isPrivate, botNick: "MapBot", nicksEqual: equal, plain: false)
            #expect(fast == full, "\(text.debugDescription)")
        }
    }
}
