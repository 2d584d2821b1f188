import Foundation
import Testing

@testable import Localization

/// Every catalogue the program ships is whole and consistent with the English source and with the
/// code: a broken translation fails here, never in a student's answer.
@Suite struct CatalogueCompletenessTests {
    static let catalogs: Catalogs = {
        do {
            return try Catalogs(folder: Catalogs.bundledFolder())
        } catch {
            Issue.record("the shipped catalogues cannot be read: \(error)")
            return Catalogs(source: MessageCatalog(language: .english, messages: [:]), translations: [:])
        }
    }()

    static var translations: [Language] { Language.supported.filter { $0 != .english } }

    /// The repository's `Sources` folder.
    static let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Sources")

    /// The text of every Swift file under `Sources`.
    static let swiftSources: [(path: String, text: String)] = {
        guard let walker = FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil) else {
            return []
        }
        var files: [(String, String)] = []
        for case let url as URL in walker where url.pathExtension == "swift" {
            if let text = try? String(contentsOf: url, encoding: .utf8) { files.append((url.path, text)) }
        }
        return files
    }()

    /// Every translation has every message of the source and nothing more.
    @Test(arguments: translations) func aTranslationHasEveryMessageAndNoOther(_ language: Language) throws {
        let translation = try #require(Self.catalogs.translations[language])
        let source = Set(Self.catalogs.source.messages.keys)
        let translated = Set(translation.messages.keys)
        #expect(source.subtracting(translated).sorted() == [], "missing in \(language.tag).json")
        #expect(translated.subtracting(source).sorted() == [], "in \(language.tag).json but not in en.json")
    }

    /// A translated message names the same placeholders as its source, no more and no fewer (over
    /// all its forms), and every form names only placeholders the source has.
    @Test(arguments: translations) func aTranslationHasTheSourcesPlaceholders(_ language: Language) throws {
        let translation = try #require(Self.catalogs.translations[language])
        for (key, message) in translation.messages.sorted(by: { $0.key < $1.key }) {
            guard let source = Self.catalogs.source.messages[key] else { continue }
            #expect(message.placeholders == source.placeholders, "\(language.tag) \(key)")
        }
    }

    /// A counted message gives exactly the forms its language's plural rule has.
    @Test(arguments: Language.supported) func aCountedMessageHasItsLanguagesForms(_ language: Language) throws {
        let catalog = try #require(
            language == .english ? Self.catalogs.source : Self.catalogs.translations[language])
        let wanted = Set(language.pluralRule.categories)
        for (key, message) in catalog.messages.sorted(by: { $0.key < $1.key }) {
            switch (message, Self.catalogs.source.messages[key]) {
            case (.counted(_, let forms), _):
                #expect(
                    Set(forms.keys) == wanted, "\(language.tag) \(key): forms \(forms.keys.map(\.rawValue).sorted())")
            case (.text, .counted?):
                #expect(wanted == [.other], "\(language.tag) \(key) is counted in English but has one text")
            case (.text, _):
                break
            }
        }
    }

    /// Every source message has a comment for its translators, and a counted one names a selector
    /// that is one of its placeholders.
    @Test func everySourceMessageIsExplained() {
        let source = Self.catalogs.source
        #expect(!source.messages.isEmpty)
        for (key, message) in source.messages.sorted(by: { $0.key < $1.key }) {
            #expect(!(source.comments[key] ?? "").isEmpty, "\(key) has no comment")
            if case .counted(let selector, _) = message {
                #expect(message.placeholders.contains(selector), "\(key)")
            }
        }
    }

    /// A brace in a message opens a placeholder with a name, and is closed.
    @Test(arguments: Language.supported) func everyBraceIsAPlaceholder(_ language: Language) throws {
        let catalog = try #require(
            language == .english ? Self.catalogs.source : Self.catalogs.translations[language])
        for (key, message) in catalog.messages {
            for text in message.texts {
                let opens = text.filter { $0 == "{" }.count
                let closes = text.filter { $0 == "}" }.count
                #expect(
                    opens == closes && opens == Placeholders.names(in: text).count, "\(language.tag) \(key): \(text)")
            }
        }
    }

    /// The keys the code asks for: `phrases("key"` (and `phrases(\n "key"`), and each declared
    /// command's `command.<name>.usage` and `.help`.
    static let keysInCode: Set<String> = {
        var keys: Set<String> = []
        let asked = /phrases\(\s*"([A-Za-z0-9_.]+)"/
        let named = /"([a-z][A-Za-z0-9_]*\.[A-Za-z0-9_.]+)"/
        let commands = /Command\(\s*"([a-z]+)"/
        for file in swiftSources {
            for match in file.text.matches(of: asked) { keys.insert(String(match.1)) }
            for match in file.text.matches(of: commands) {
                keys.insert("command.\(match.1).usage")
                keys.insert("command.\(match.1).help")
            }
            // Keys chosen by a condition (`cond ? "a.b" : "a.c"`) are named as strings near a call.
            for match in file.text.matches(of: named) where Self.catalogs.source.messages[String(match.1)] != nil {
                keys.insert(String(match.1))
            }
        }
        return keys
    }()

    /// Every message of the source is used somewhere in the code.
    @Test func everyMessageIsUsed() {
        let unused = Set(Self.catalogs.source.messages.keys).subtracting(Self.keysInCode)
        #expect(unused.sorted() == [], "messages no code asks for")
    }

    /// Every key the code asks for with `phrases("…"` has a message in the source.
    @Test func everyKeyTheCodeAsksForExists() {
        var missing: [String] = []
        let asked = /phrases\(\s*"([A-Za-z0-9_.]+)"/
        for file in Self.swiftSources {
            for match in file.text.matches(of: asked) where Self.catalogs.source.messages[String(match.1)] == nil {
                missing.append("\(match.1) (\(URL(fileURLWithPath: file.path).lastPathComponent))")
            }
        }
        #expect(missing == [])
    }

    /// Every command declared with its text in the catalogues has a usage and a help there.
    @Test func everyCataloguedCommandHasUsageAndHelp() {
        let commands = /Command\(\s*"([a-z]+)"([^{]*)/
        for file in Self.swiftSources {
            for match in file.text.matches(of: commands) where !match.2.contains("usage:") {
                for part in ["usage", "help"] {
                    #expect(
                        Self.catalogs.source.messages["command.\(match.1).\(part)"] != nil,
                        "command.\(match.1).\(part) (\(URL(fileURLWithPath: file.path).lastPathComponent))")
                }
            }
        }
    }
}
