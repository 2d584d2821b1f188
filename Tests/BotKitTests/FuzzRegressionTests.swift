import BotKit
import BotTesting
import Foundation
import Testing

/// Inputs the command-argument fuzzer (`scripts/fuzz arguments`) found, kept so they stay fixed.
@Suite("Fuzz regressions: commands")
struct CommandFuzzRegressionTests {
    static func isUnsafe(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F, 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: return true
        default: return false
        }
    }

    /// `help <unknown>` quoted the unknown name with its control characters (0x1A here).
    @Test func helpForAnUnknownCommandQuotesItWithoutControlCharacters() async throws {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../Fuzz/regressions/command-arguments/help-echoes-control-characters")
        let input = String(decoding: try Data(contentsOf: url), as: UTF8.self)
        #expect(input.unicodeScalars.contains { $0.value == 0x1A })
        let bot = TestBot(plugins: [CorePlugin()])
        for text in [input, "help \u{202E}post\r\n\u{03}4x", "!help wh\u{0}ere"] {
            let replies = await bot.dm(text, as: "alice")
            let reply = try #require(replies.first?.text)
            #expect(reply.hasPrefix("There is no command \"!"))
            #expect(!reply.unicodeScalars.contains(where: Self.isUnsafe), "\(reply.debugDescription)")
        }
        let replies = await bot.dm(input, as: "alice")
        #expect(replies.first?.text.contains("!pos.comt") == true)
    }
}
