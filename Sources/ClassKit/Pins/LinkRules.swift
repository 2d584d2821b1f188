import Foundation
import IRCProtocol
import Localization
import OnTheMapService

/// The rules a pin's link must follow: http or https, a host, no user name or password, at most
/// 2,048 bytes, no spaces, no control or text-direction characters (typed or percent-encoded,
/// like `%0A`). Every refusal is one sentence that says how to fix it.
public enum LinkRules {
    public static let maximumBytes = 2048

    /// Why a link was refused.
    public enum Problem: Error, Sendable, Equatable {
        case empty
        case tooLong
        /// No scheme, but it looks like a host: suggest `https://` + it.
        case missingScheme(suggestion: String)
        case unsupportedScheme(String)
        case missingHost
        /// `https://user:password@host`: it would show the credentials to the whole class.
        case credentials
        /// Control or text-direction characters, typed or percent-encoded (`%0D%0A`, `%E2%80%AE`).
        case hiddenCharacters
        /// U+FFFD: bytes that were not UTF-8 reached the bot (or the character was typed).
        case unreadableCharacters
        case malformed

        /// The sentence for the student in English (`prefix` is the command prefix).
        public func sentence(prefix: String) -> String {
            sentence(prefix: prefix, in: .english)
        }

        /// The sentence for the student in `phrases`' language.
        public func sentence(prefix: String, in phrases: Phrasebook) -> String {
            let commands: [String: any PhraseValue] = ["link": prefix + "link", "cancel": prefix + "cancel"]
            switch self {
            case .empty: return phrases("link.empty", commands)
            case .tooLong: return phrases("link.tooLong", ["count": LinkRules.maximumBytes])
            case .missingScheme(let suggestion):
                return phrases("link.missingScheme", ["link": prefix + "link", "suggestion": suggestion])
            case .unsupportedScheme: return phrases("link.unsupportedScheme")
            case .missingHost: return phrases("link.missingHost")
            case .credentials: return phrases("link.credentials")
            case .hiddenCharacters: return phrases("link.hiddenCharacters")
            case .unreadableCharacters: return phrases("link.unreadableCharacters")
            case .malformed: return phrases("link.malformed")
            }
        }
    }

    /// The link ready to save, or the problem with it.
    public static func validate(_ text: String) -> Result<String, Problem> {
        let link = DirectoryInput.trimmedOfSpaces(text)
        guard !link.isEmpty else { return .failure(.empty) }
        guard link.utf8.count <= maximumBytes else { return .failure(.tooLong) }
        guard !containsHiddenCharacters(link) else { return .failure(.hiddenCharacters) }
        // A link of ASCII alone (most are) has no U+FFFD, and its white space is tab to carriage
        // return and the space: its bytes are read, not each character's Unicode properties.
        let ascii = link.utf8.allSatisfy { $0 < 0x80 }
        guard ascii || !link.unicodeScalars.contains("\u{FFFD}") else { return .failure(.unreadableCharacters) }
        let hasSpace =
            ascii
            ? link.utf8.contains { $0 == 0x20 || (0x09...0x0D).contains($0) }
            : link.unicodeScalars.contains(where: \.properties.isWhitespace)
        guard !hasSpace else { return .failure(.malformed) }
        guard let schemeEnd = link.range(of: "://") else {
            if let scheme = link.split(separator: ":", maxSplits: 1).first, link.contains(":"),
                otherSchemes.contains(scheme.lowercased())
            {
                return .failure(.unsupportedScheme(scheme.lowercased()))
            }
            if looksLikeHost(link) {
                let suggestion = "https://" + link
                return .failure(
                    .missingScheme(suggestion: TextSanitizer.untrusted(suggestion, maxBytes: 300)))
            }
            return .failure(.malformed)
        }
        let scheme = link[..<schemeEnd.lowerBound].lowercased()
        guard scheme == "http" || scheme == "https" else {
            let shown = TextSanitizer.untrusted(scheme, maxBytes: 16)
            return .failure(shown.isEmpty ? .malformed : .unsupportedScheme(shown))
        }
        guard let components = URLComponents(string: link) else { return .failure(.malformed) }
        guard let host = components.host, !host.isEmpty else { return .failure(.missingHost) }
        guard components.user == nil, components.password == nil else { return .failure(.credentials) }
        return .success(link)
    }

    /// Whether `text` has control or text-direction characters, as they are or percent-encoded.
    static func containsHiddenCharacters(_ text: String) -> Bool {
        func isHidden(_ scalar: Unicode.Scalar) -> Bool {
            scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || TextSanitizer.isBidiControl(scalar)
        }
        if text.unicodeScalars.contains(where: isHidden) { return true }
        guard text.contains("%") else { return false }
        if let decoded = text.removingPercentEncoding, decoded.unicodeScalars.contains(where: isHidden) {
            return true
        }
        // Invalid encodings elsewhere make removingPercentEncoding fail: look at each %XX alone.
        let bytes = Array(text.utf8)
        var index = 0
        while index + 2 < bytes.count {
            if bytes[index] == UInt8(ascii: "%"),
                let value = UInt8(String(decoding: bytes[(index + 1)...(index + 2)], as: UTF8.self), radix: 16),
                value < 0x20 || value == 0x7F
            {
                return true
            }
            index += 1
        }
        return false
    }

    /// Schemes people paste that are not web links (`javascript:alert(1)`, `mailto:…`).
    static let otherSchemes: Set<String> = [
        "javascript", "vbscript", "data", "mailto", "file", "ftp", "ftps", "sftp", "irc", "ircs", "tel", "sms", "ws",
        "wss", "about", "blob", "ssh", "git", "news", "telnet", "gopher",
    ]

    /// Whether `text` looks like a link rather than a place: a scheme (`https://`, `javascript:`,
    /// `mailto:`), `www.`, or a host name without spaces ("example.com/me").
    public static func looksLikeLink(_ text: String) -> Bool {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let lower = trimmed.lowercased()
        if lower.contains("://") || lower.hasPrefix("www.") { return true }
        if let colon = lower.firstIndex(of: ":") {
            let scheme = String(lower[..<colon])
            if otherSchemes.contains(scheme) || scheme == "http" || scheme == "https" { return true }
        }
        return !trimmed.contains(where: \.isWhitespace) && looksLikeHost(trimmed)
    }

    /// Whether `text` (without a scheme) starts like a host name: "example.com", "www.x.org/a".
    public static func looksLikeHost(_ text: String) -> Bool {
        let host = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        let labels = host.split(separator: ".", omittingEmptySubsequences: false)
        guard labels.count >= 2, labels.allSatisfy({ !$0.isEmpty }) else { return false }
        let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-:"))
        guard host.unicodeScalars.allSatisfy({ allowed.contains($0) || $0 == "." }) else { return false }
        return labels.last.map { $0.count >= 2 && $0.allSatisfy(\.isLetter) } ?? false
    }
}
