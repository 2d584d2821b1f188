import Foundation
@testable import OnTheMapApp
import Testing

/// docs/configuration.md names every key the config reader knows. The keys are not listed by hand
/// here: each section is read with one key nobody knows, and the reader's "unknown key; known keys
/// here: …" problem names the keys that section reads (plugin sections included), so a key added
/// to the reader without a line in the reference fails this test.
@Suite struct ConfigReferenceTests {
    /// A key far (in edits) from every real one, so the reader lists the known keys instead of
    /// suggesting one.
    static let probe = "zqxjkvwpzqxjkvwp"

    static let reference: String = {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let file = root.appendingPathComponent("docs/configuration.md")
        return (try? String(contentsOf: file, encoding: .utf8)) ?? ""
    }()

    /// The config text that holds the probe key at `path` (a section in each of the enclosing ones).
    static func yaml(probing path: [String], asListItem: Bool = false) -> String {
        var lines: [String] = []
        for (depth, key) in path.enumerated() {
            lines.append(String(repeating: "  ", count: depth) + key + ":")
        }
        let indent = String(repeating: "  ", count: path.count)
        lines.append(indent + (asListItem ? "- " : "") + probe + ": 1")
        return lines.joined(separator: "\n")
    }

    /// The keys the reader knows in the section at `path`, or nil when it reads no section there.
    static func knownKeys(at path: [String], asListItem: Bool = false) -> [String]? {
        let problems: [ConfigProblem]
        do {
            _ = try ConfigLoader.parse(yaml: yaml(probing: path, asListItem: asListItem))
            problems = []
        } catch {
            problems = error.problems
        }
        guard let problem = problems.first(where: { $0.key.hasSuffix(probe) }) else { return nil }
        if problem.message.contains("has no keys") { return [] }
        guard let range = problem.message.range(of: "known keys here: ") else { return nil }
        return problem.message[range.upperBound...].split(separator: ",").map {
            $0.trimmingCharacters(in: .whitespaces)
        }
    }

    /// Every key the reader knows, as dotted paths of the leaves (`irc.flood.burst`); a network of
    /// `networks:` reads the keys of `irc:` and its `name`.
    static func allKeys() -> (leaves: [String], networkKeys: [String]) {
        var leaves: [String] = []
        var pending: [[String]] = [[]]
        while let path = pending.popLast() {
            guard let keys = knownKeys(at: path) else {
                leaves.append(path.joined(separator: "."))
                continue
            }
            for key in keys { pending.append(path + [key]) }
        }
        let networkKeys = knownKeys(at: ["networks"], asListItem: true) ?? []
        return (leaves.sorted(), networkKeys)
    }

    @Test func theProbeFindsTheSectionsAndTheirKeys() {
        let (leaves, networkKeys) = Self.allKeys()
        #expect(leaves.contains("irc.flood.burst"))
        #expect(leaves.contains("irc.sasl.mechanism"))
        #expect(leaves.contains("plugins.near.units"))
        #expect(leaves.contains("web.tiles.url"))
        #expect(leaves.contains("operator.listen"))
        #expect(networkKeys.contains("name"))
        #expect(networkKeys.contains("server"))
    }

    @Test func everyKeyIsInTheReference() {
        #expect(!Self.reference.isEmpty, "docs/configuration.md could not be read")
        let (leaves, networkKeys) = Self.allKeys()
        for key in leaves where key != "networks" {
            #expect(Self.reference.contains("`\(key)`"), "docs/configuration.md does not name `\(key)`")
        }
        for key in networkKeys where key != "name" {
            #expect(Self.reference.contains("`irc.\(key)`"), "docs/configuration.md does not name `irc.\(key)`")
        }
        #expect(Self.reference.contains("`networks[].name`"))
    }
}
