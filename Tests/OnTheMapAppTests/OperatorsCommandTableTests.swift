import BotTesting
import Foundation
import Testing

/// docs/operators.md's command table names every verb the built `onthemap-bot --help` lists, and
/// every verb of each group (`accounts`, `pins`, `sts`): a new verb without a line for operators
/// fails here.
@Suite struct OperatorsCommandTableTests {
    /// The subcommands one `--help` lists (the first word of each line of its SUBCOMMANDS section).
    static func verbs(_ arguments: [String]) async throws -> [String] {
        let run = try await AccountsCommandTests.run(arguments + ["--help"])
        #expect(run.status == 0, "\(run.output)")
        var verbs: [String] = []
        var inSection = false
        for line in run.output.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("SUBCOMMANDS:") {
                inSection = true
            } else if inSection, line.hasPrefix("  "), !line.hasPrefix("   ") {
                if let word = line.split(separator: " ").first { verbs.append(String(word)) }
            } else if inSection, !line.isEmpty, !line.hasPrefix(" ") {
                inSection = false
            }
        }
        return verbs.filter { $0 != "See" }
    }

    /// The `onthemap-bot …` commands the table's rows begin with.
    static func tableCommands() throws -> [String] {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let text = try String(contentsOf: root.appendingPathComponent("docs/operators.md"), encoding: .utf8)
        return text.split(separator: "\n").filter { $0.hasPrefix("| `onthemap-bot ") }.map { String($0.dropFirst(3)) }
    }

    @Test func theTableNamesEveryVerb() async throws {
        let rows = try Self.tableCommands()
        let verbs = try await Self.verbs([])
        #expect(verbs.count >= 8, "\(verbs)")
        var missing: [String] = []
        for verb in verbs {
            let subverbs = try await Self.verbs([verb])
            if subverbs.isEmpty {
                if !rows.contains(where: {
                    $0.hasPrefix("onthemap-bot \(verb) ") || $0.hasPrefix("onthemap-bot \(verb)`")
                }) {
                    missing.append(verb)
                }
                continue
            }
            for subverb in subverbs {
                // A row may name several verbs of a group at once: `accounts list\|remove`.
                let named = rows.contains { row in
                    guard row.hasPrefix("onthemap-bot \(verb) ") else { return false }
                    let words = row.dropFirst("onthemap-bot \(verb) ".count).prefix { $0 != " " && $0 != "`" }
                    return words.components(separatedBy: "\\|").contains(subverb)
                }
                if !named { missing.append("\(verb) \(subverb)") }
            }
        }
        #expect(missing.isEmpty, "docs/operators.md's command table lacks: \(missing)")
    }
}
