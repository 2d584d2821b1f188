import Testing

@testable import IRCProtocol

/// Deterministic pseudo-random inputs: the parser must never crash, and whatever it accepts must
/// survive a serialize → parse round trip; the serializer must never emit CR, LF or NUL.
@Suite("Robustness")
struct RobustnessTests {
    struct SplitMix64: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }

        /// Fewer than `limit` of `pieces`, picked at random and joined: the random texts the
        /// shortcut tests compare a fast path with the full one on.
        mutating func text(of pieces: [String], fewerThan limit: UInt64) -> String {
            let count = Int(next() % limit)
            return (0..<count).map { _ in pieces[Int(next() % UInt64(pieces.count))] }.joined()
        }
    }

    /// Bytes biased towards IRC syntax characters.
    static let alphabet: [UInt8] =
        Array("@;=:! \\abcPRIVMSG#0123456789+/.-~\u{01}\u{02}\t".utf8) + [0xC3, 0xA9, 0xF0, 0x9F]

    @Test func randomLinesNeverCrashAndRoundTrip() throws {
        var generator = SplitMix64(state: 0x5EED)
        var accepted = 0
        let commands: [[UInt8]] = [
            Array("PRIVMSG".utf8), Array("005".utf8), Array("join".utf8), Array("X-1".utf8),
        ]
        func randomBytes(_ maximum: Int) -> [UInt8] {
            (0..<Int.random(in: 0..<maximum, using: &generator)).map { _ in
                Self.alphabet.randomElement(using: &generator) ?? 0x61
            }
        }
        for round in 0..<20_000 {
            var bytes: [UInt8]
            if round % 4 == 0 {
                bytes = randomBytes(80)
            } else {
                bytes = []
                if Bool.random(using: &generator) { bytes += [0x40] + randomBytes(30) + [0x20] }
                if Bool.random(using: &generator) { bytes += [0x3A] + randomBytes(20) + [0x20] }
                bytes += commands.randomElement(using: &generator) ?? []
                bytes += [0x20] + randomBytes(60)
            }
            guard let message = try? IRCMessage(parsingUTF8: bytes) else { continue }
            accepted += 1
            let line = message.serialized()
            #expect(!line.utf8.contains { $0 == 0 || $0 == 0x0A || $0 == 0x0D })
            let reparsed = try IRCMessage(parsing: line)
            // The parser accepts any tag key; the serializer writes only valid ones.
            var expected = message
            expected.tags = message.tags.filter { IRCMessageSerializer.isValidTagKey($0.key) }
            #expect(reparsed == expected, "\(bytes)")
        }
        #expect(accepted > 5_000)
    }

    @Test func randomMessagesSerializeToOneLine() throws {
        var generator = SplitMix64(state: 42)
        let pieces = ["a", " ", ":", "\r", "\n", "\0", "é", "🌍", ";", "\\", "x y", ""]
        func randomText() -> String {
            (0..<Int.random(in: 0..<6, using: &generator)).map { _ in
                pieces.randomElement(using: &generator) ?? ""
            }.joined()
        }
        for _ in 0..<5_000 {
            let message = IRCMessage(
                tags: ["k": randomText(), "+c/t": randomText()],
                source: Bool.random(using: &generator) ? randomText() : nil,
                command: Bool.random(using: &generator) ? "PRIVMSG" : randomText(),
                parameters: (0..<Int.random(in: 0..<4, using: &generator)).map { _ in randomText() }
            )
            let line = message.serialized()
            #expect(!line.utf8.contains(0x0D) && !line.utf8.contains(0x0A) && !line.utf8.contains(0))
            let reparsed = try IRCMessage(parsing: line)
            #expect(
                reparsed.tags == message.tags.mapValues { String($0.unicodeScalars.filter { $0 != "\0" }) })
        }
    }
}
