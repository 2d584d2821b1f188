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

    /// The text of every page and script the web listener serves (`.html`, `.js` under `Sources`):
    /// a page names a message as `{{t:key}}` (filled in by the server), a script as `t('key'`
    /// (from the messages the server writes into the page, ``keysOfPageScripts``).
    static let webSources: [(path: String, text: String)] = {
        guard let walker = FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil) else {
            return []
        }
        var files: [(String, String)] = []
        for case let url as URL in walker where ["html", "js"].contains(url.pathExtension) {
            if let text = try? String(contentsOf: url, encoding: .utf8) { files.append((url.path, text)) }
        }
        return files
    }()

    /// The keys a served page or script names, with the file that names each.
    static let keysInWebSources: [(key: String, file: String)] = {
        let inPage = /\{\{t:([A-Za-z0-9_.]+)\}\}/
        let inScript = /\bt\(\s*'([A-Za-z0-9_.]+)'/
        var keys: [(String, String)] = []
        for file in webSources {
            let name = URL(fileURLWithPath: file.path).lastPathComponent
            for match in file.text.matches(of: inPage) { keys.append((String(match.1), name)) }
            // A script's comments name no key: only its code counts.
            let code = file.text.split(separator: "\n", omittingEmptySubsequences: false)
                .filter { !$0.trimmingCharacters(in: .whitespaces).hasPrefix("//") }.joined(separator: "\n")
            for match in code.matches(of: inScript) { keys.append((String(match.1), name)) }
        }
        return keys
    }()

    /// The messages each page script can read: the prefix of the keys the server writes into its
    /// page (`WebPageText.scriptBlock(prefixes:)`: the map's `web.page.`, the sign-in page's
    /// `web.signin.`).
    static let keysOfPageScripts: [String: String] = [
        "app.js": "web.page.", "posting.js": "web.page.", "layers.js": "web.page.", "tiles.js": "web.page.",
        "signin.js": "web.signin.",
    ]

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

    /// The keys the code asks for: `phrases("key"` (and `phrases(\n "key"`), each command
    /// example's explanation (`CommandExample("!near Paris", explained: "key"`, which `!help`
    /// shows), each declared command's `command.<name>.usage` and `.help`, and the keys the web
    /// pages and their scripts name (``keysInWebSources``).
    static let keysInCode: Set<String> = {
        var keys: Set<String> = []
        let asked = /(?:phrases\(|explained:)\s*"([A-Za-z0-9_.]+)"/
        let named = /"([a-z][A-Za-z0-9_]*\.[A-Za-z0-9_.]+)"/
        let commands = /Command\(\s*"([a-z]+)"/
        for use in keysInWebSources { keys.insert(use.key) }
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

    /// Every key the code asks for with `phrases("…"` or names as an example's explanation
    /// (`explained: "…"`) has a message in the source.
    @Test func everyKeyTheCodeAsksForExists() {
        var missing: [String] = []
        let asked = /(?:phrases\(|explained:)\s*"([A-Za-z0-9_.]+)"/
        for file in Self.swiftSources {
            for match in file.text.matches(of: asked) where Self.catalogs.source.messages[String(match.1)] == nil {
                missing.append("\(match.1) (\(URL(fileURLWithPath: file.path).lastPathComponent))")
            }
        }
        for use in Self.keysInWebSources where Self.catalogs.source.messages[use.key] == nil {
            missing.append("\(use.key) (\(use.file))")
        }
        #expect(missing == [])
    }

    /// Every example a command declares (`CommandExample("!…"`) names the message that says what it
    /// shows (`explained:`): `!help <command>` shows it in every language.
    @Test func everyCommandExampleIsExplained() {
        let example = /CommandExample\(\s*"(?:[^"\\]|\\.)*"(\s*,\s*explained:)?/
        var declared = 0
        var unexplained: [String] = []
        for file in Self.swiftSources {
            for match in file.text.matches(of: example) {
                declared += 1
                if match.1 == nil {
                    unexplained.append("\(match.0) (\(URL(fileURLWithPath: file.path).lastPathComponent))")
                }
            }
        }
        #expect(declared >= 50)
        #expect(unexplained == [])
    }

    /// The web pages and their scripts name messages (so a page in English only would fail the
    /// tests above for the keys it does not name), and a script names only messages its page
    /// carries: another key would reach the reader as the key itself.
    @Test func aPageScriptNamesOnlyTheMessagesItsPageCarries() {
        #expect(Self.keysInWebSources.contains { $0.file == "index.html" })
        #expect(Self.keysInWebSources.contains { $0.file == "app.js" })
        #expect(Self.keysInWebSources.contains { $0.file == "posting.js" })
        #expect(Self.keysInWebSources.contains { $0.file == "signin.js" })
        for use in Self.keysInWebSources where use.file.hasSuffix(".js") {
            let prefix = Self.keysOfPageScripts[use.file]
            #expect(prefix != nil, "\(use.file) names \(use.key) but its page carries no messages")
            if let prefix { #expect(use.key.hasPrefix(prefix), "\(use.file) names \(use.key), not under \(prefix)") }
        }
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
