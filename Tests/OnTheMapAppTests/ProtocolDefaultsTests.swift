import Foundation
import Testing

/// No protocol of the product gives one of its requirements a default body in an extension. A
/// wrapper that forwards a protocol (`InstrumentedDirectory`, `InstrumentedTrips`, a test's
/// switchable directory) then fails to compile when it leaves a requirement out, instead of
/// silently answering with the default; a capability some backends lack is a protocol of its own
/// (`TripDirectory`), found once when the stack is assembled. This reads the sources, so a default
/// added anywhere under `Sources/` fails here with its file and name.
@Suite struct ProtocolDefaultsTests {
    static let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Sources")

    @Test func noProtocolRequirementHasADefaultBody() throws {
        let files = try Self.swiftFiles(in: Self.sources)
        #expect(files.count > 100, "the sources were not found at \(Self.sources.path)")
        var requirements: [String: Set<String>] = [:]
        var extensions: [(protocol: String, file: String, body: String)] = []
        for file in files {
            let text = SwiftSourceScan.strip(try String(contentsOfFile: file, encoding: .utf8))
            for (name, body) in SwiftSourceScan.blocks(
                in: text, introducedBy: #"\bprotocol\s+([A-Za-z_][A-Za-z0-9_]*)[^{]*\{"#)
            {
                requirements[name, default: []].formUnion(SwiftSourceScan.members(of: body))
            }
            for (name, body) in SwiftSourceScan.blocks(
                in: text, introducedBy: #"\bextension\s+([A-Za-z_][A-Za-z0-9_]*)\s*(?:where[^{]*)?\{"#)
            {
                extensions.append((name, file, body))
            }
        }
        #expect(requirements["StudentDirectory"]?.contains("func logIn(email:password:)") == true)
        #expect(requirements["TripDirectory"]?.contains("func setTrip(_:ofAccount:session:)") == true)
        var defaults: [String] = []
        for (name, file, body) in extensions {
            guard let required = requirements[name] else { continue }
            for member in SwiftSourceScan.members(of: body) where required.contains(member) {
                defaults.append(
                    "\(file.replacingOccurrences(of: Self.sources.path + "/", with: "")): \(name).\(member)")
            }
        }
        #expect(defaults.isEmpty, "requirements with a default body:\n\(defaults.joined(separator: "\n"))")
    }

    /// The scanner finds a default where there is one.
    @Test func theScanFindsADefaultBody() {
        let text = SwiftSourceScan.strip(
            """
            protocol Shelf { func put(_ book: String, at row: Int) -> Bool; var count: Int { get } }
            extension Shelf {
                // func put(_ book: String, at row: Int) -> Bool in a comment is no default
                func put(_ book: String, at row: Int) -> Bool { "}" == "{" }
                func helper() {}
            }
            """)
        let requirements = SwiftSourceScan.blocks(
            in: text, introducedBy: #"\bprotocol\s+([A-Za-z_][A-Za-z0-9_]*)[^{]*\{"#)
        #expect(requirements.map(\.0) == ["Shelf"])
        #expect(Set(requirements.flatMap { SwiftSourceScan.members(of: $0.1) }) == ["func put(_:at:)", "var count"])
        let extensions = SwiftSourceScan.blocks(
            in: text, introducedBy: #"\bextension\s+([A-Za-z_][A-Za-z0-9_]*)\s*(?:where[^{]*)?\{"#)
        #expect(extensions.flatMap { SwiftSourceScan.members(of: $0.1) } == ["func put(_:at:)", "func helper()"])
    }

    static func swiftFiles(in folder: URL) throws -> [String] {
        guard let walker = FileManager.default.enumerator(atPath: folder.path) else { return [] }
        return walker.compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") }.map {
            folder.appendingPathComponent($0).path
        }
    }
}

/// Just enough of Swift's shape to find declarations: comments and string literals blanked, blocks
/// by their braces, the members declared at a block's top level.
enum SwiftSourceScan {
    /// `text` with comments and string literals replaced by spaces (so their braces do not count).
    static func strip(_ text: String) -> String {
        var out: [Character] = []
        let characters = Array(text)
        var index = 0
        func at(_ offset: Int) -> Character? { index + offset < characters.count ? characters[index + offset] : nil }
        while index < characters.count {
            let character = characters[index]
            if character == "/", at(1) == "/" {
                while index < characters.count, characters[index] != "\n" { index += 1 }
            } else if character == "/", at(1) == "*" {
                index += 2
                while index < characters.count, !(characters[index] == "*" && at(1) == "/") { index += 1 }
                index += 2
            } else if character == "\"", at(1) == "\"", at(2) == "\"" {
                index += 3
                while index < characters.count, !(characters[index] == "\"" && at(1) == "\"" && at(2) == "\"") {
                    index += 1
                }
                index += 3
                out.append(" ")
            } else if character == "\"" {
                index += 1
                while index < characters.count, characters[index] != "\"", characters[index] != "\n" {
                    if characters[index] == "\\" { index += 1 }
                    index += 1
                }
                index += 1
                out.append(" ")
            } else {
                out.append(character)
                index += 1
            }
        }
        return String(out)
    }

    /// The name (the pattern's first group) and body of each block the pattern opens.
    static func blocks(in text: String, introducedBy pattern: String) -> [(String, String)] {
        guard let expression = try? NSRegularExpression(pattern: pattern) else { return [] }
        let whole = text as NSString
        var found: [(String, String)] = []
        for match in expression.matches(in: text, range: NSRange(location: 0, length: whole.length)) {
            let name = whole.substring(with: match.range(at: 1))
            var depth = 1
            var end = match.range.location + match.range.length
            while end < whole.length, depth > 0 {
                let unit = whole.character(at: end)
                if unit == 123 { depth += 1 } else if unit == 125 { depth -= 1 }
                end += 1
            }
            let start = match.range.location + match.range.length
            found.append((name, whole.substring(with: NSRange(location: start, length: max(0, end - 1 - start)))))
        }
        return found
    }

    /// The functions (`func name(label:label:)`), properties (`var name`) and initializers
    /// (`init(label:)`) declared at the top level of a block's body.
    static func members(of body: String) -> [String] {
        var topLevel = ""
        var depth = 0
        for character in body {
            if character == "{" {
                depth += 1
            } else if character == "}" {
                depth -= 1
            } else if depth == 0 {
                topLevel.append(character)
            }
        }
        guard
            let expression = try? NSRegularExpression(
                pattern: #"\b(func\s+[^\s(<]+|init[?!]?)\s*(?:<[^>]*>)?\s*\(([^)]*)\)|\bvar\s+([A-Za-z_][A-Za-z0-9_]*)"#
            )
        else { return [] }
        let whole = topLevel as NSString
        return expression.matches(in: topLevel, range: NSRange(location: 0, length: whole.length)).map { match in
            if match.range(at: 3).location != NSNotFound { return "var " + whole.substring(with: match.range(at: 3)) }
            let head = whole.substring(with: match.range(at: 1)).replacingOccurrences(
                of: #"\s+"#, with: " ", options: .regularExpression)
            let labels = whole.substring(with: match.range(at: 2)).split(separator: ",").compactMap { parameter in
                parameter.split(separator: ":").first?.split(separator: " ").first.map { "\($0):" }
            }
            return "\(head)(\(labels.joined()))"
        }
    }
}
