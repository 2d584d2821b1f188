import Foundation
import Testing
import Yams

@testable import IRCProtocol

/// The ircdocs/parser-tests vectors, loaded from the bundled YAML at test time.
@Suite("ircdocs parser-tests fixtures")
struct FixtureTests {
    struct Atoms: Decodable {
        var tags: [String: String]?
        var source: String?
        var verb: String
        var params: [String]?
    }

    struct SplitFile: Decodable {
        struct Case: Decodable {
            var input: String
            var atoms: Atoms
        }
        var tests: [Case]
    }

    struct JoinFile: Decodable {
        struct Case: Decodable {
            var desc: String
            var atoms: Atoms
            var matches: [String]
        }
        var tests: [Case]
    }

    struct UserHostFile: Decodable {
        struct Case: Decodable {
            struct Parts: Decodable {
                var nick: String?
                var user: String?
                var host: String?
            }
            var source: String
            var atoms: Parts
        }
        var tests: [Case]
    }

    struct MaskFile: Decodable {
        struct Case: Decodable {
            var mask: String
            var matches: [String]
            var fails: [String]
        }
        var tests: [Case]
    }

    static func load<T: Decodable>(_ name: String, as type: T.Type) throws -> T {
        let url = try #require(
            Bundle.module.url(forResource: name, withExtension: "yaml", subdirectory: "Fixtures"),
            "fixture \(name).yaml missing"
        )
        let text = try String(contentsOf: url, encoding: .utf8)
        return try YAMLDecoder().decode(T.self, from: text)
    }

    @Test func msgSplitEveryCase() throws {
        let file = try Self.load("msg-split", as: SplitFile.self)
        #expect(file.tests.count == 35)
        for testCase in file.tests {
            let message = try IRCMessage(parsing: testCase.input)
            let atoms = testCase.atoms
            #expect(message.command == atoms.verb.uppercased(), "\(testCase.input)")
            #expect(message.source == atoms.source, "\(testCase.input)")
            #expect(message.parameters == (atoms.params ?? []), "\(testCase.input)")
            #expect(message.tags == (atoms.tags ?? [:]), "\(testCase.input)")
        }
    }

    @Test func msgSplitRoundTripsThroughSerializer() throws {
        let file = try Self.load("msg-split", as: SplitFile.self)
        for testCase in file.tests {
            let message = try IRCMessage(parsing: testCase.input)
            let reparsed = try IRCMessage(parsing: message.serialized())
            #expect(reparsed == message, "\(testCase.input)")
        }
    }

    @Test func msgJoinEveryCase() throws {
        let file = try Self.load("msg-join", as: JoinFile.self)
        #expect(file.tests.count == 18)
        for testCase in file.tests {
            let atoms = testCase.atoms
            let message = IRCMessage(
                tags: atoms.tags ?? [:],
                source: atoms.source,
                command: atoms.verb,
                parameters: atoms.params ?? []
            )
            let line = message.serialized()
            #expect(testCase.matches.contains(line), "\(testCase.desc): got \(line.debugDescription)")
            #expect(try message.serializedChecked() == line, "\(testCase.desc)")
        }
    }

    @Test func userhostSplitEveryCase() throws {
        let file = try Self.load("userhost-split", as: UserHostFile.self)
        #expect(file.tests.count == 7)
        for testCase in file.tests {
            let source = IRCSource(parsing: testCase.source)
            #expect(source.nick == (testCase.atoms.nick ?? ""), "\(testCase.source)")
            #expect((source.user ?? "") == (testCase.atoms.user ?? ""), "\(testCase.source)")
            #expect((source.host ?? "") == (testCase.atoms.host ?? ""), "\(testCase.source)")
            #expect(source.formatted == testCase.source)
        }
    }

    @Test func maskMatchEveryCase() throws {
        let file = try Self.load("mask-match", as: MaskFile.self)
        #expect(file.tests.count == 6)
        var checked = 0
        for testCase in file.tests {
            for mapping in [nil, CaseMapping.ascii, .rfc1459, .strictRFC1459] {
                let mask = IRCMask(testCase.mask, caseMapping: mapping)
                for subject in testCase.matches {
                    #expect(mask.matches(subject), "\(testCase.mask) should match \(subject)")
                    checked += 1
                }
                for subject in testCase.fails {
                    #expect(!mask.matches(subject), "\(testCase.mask) should not match \(subject)")
                    checked += 1
                }
            }
        }
        #expect(checked == 4 * 26)
    }
}
