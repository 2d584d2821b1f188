import Foundation

/// An XYZ tile service the class map's page draws instead of its offline outlines when it can
/// (`web.tiles`): a URL template with `{z}`, `{x}` and `{y}` (Web Mercator, the standard XYZ
/// numbering) and the credit its provider asks for, shown on the map as plain text.
///
/// The template is checked when one is made, since every visitor's browser loads from it and the
/// page's Content-Security-Policy lets images come from its ``origin`` and nowhere else: https only
/// (http only for a loopback host), one fixed host (no placeholder, user name or password in it, no
/// IPv6 literal, which a policy cannot name), the three placeholders once each and no other brace,
/// printable ASCII without spaces, quotes or a fragment.
public struct MapTileLayer: Sendable, Equatable {
    /// The URL of a tile, with `{z}`, `{x}` and `{y}` to fill in.
    public let template: String
    /// The provider's credit, like "© OpenStreetMap contributors".
    public let attribution: String
    /// `scheme://host[:port]` of the template: the one origin besides the page's own that the
    /// page may load images from.
    public let origin: String

    /// The longest template and credit accepted.
    public static let maxTemplateLength = 1000
    public static let maxAttributionLength = 300

    /// Why a template or credit cannot be used: the key of `web.tiles` it is about (`url` or
    /// `attribution`) and what is wrong, said plainly.
    public struct Refusal: Error, Sendable, Equatable, CustomStringConvertible {
        public var key: String
        public var message: String
        public var description: String { "web.tiles.\(key) \(message)" }
    }

    public init(template: String, attribution: String) throws(Refusal) {
        origin = try Self.checkTemplate(template)
        try Self.checkAttribution(attribution)
        self.template = template
        self.attribution = attribution
    }

    static let example = "https://tile.openstreetmap.org/{z}/{x}/{y}.png"

    /// The template's origin, or why it is refused.
    static func checkTemplate(_ text: String) throws(Refusal) -> String {
        func refuse(_ message: String) -> Refusal { Refusal(key: "url", message: message) }
        guard !text.isEmpty else { throw refuse("is missing: an XYZ tile URL, like \(example)") }
        guard text.utf8.count <= maxTemplateLength else {
            throw refuse("is longer than \(maxTemplateLength) characters")
        }
        try checkCharacters(text, refuse)
        try checkPlaceholders(text, refuse)
        let lowered = text.lowercased()
        let scheme: String
        if lowered.hasPrefix("https://") {
            scheme = "https"
        } else if lowered.hasPrefix("http://") {
            scheme = "http"
        } else {
            throw refuse("must start with https://, like \(example)")
        }
        let rest = text.dropFirst(scheme.count + 3)
        let authority = String(rest.prefix { $0 != "/" && $0 != "?" })
        let (host, port) = try hostAndPort(authority, refuse)
        if scheme == "http", !isLoopback(host) {
            throw refuse(
                "must be https: browsers load it from every visitor's page (http only for a loopback host, like 127.0.0.1)"
            )
        }
        guard rest.count > authority.count else {
            throw refuse("has no path: {z}/{x}/{y} belong in it, like \(example)")
        }
        return "\(scheme)://\(host.lowercased())" + (port.map { ":\($0)" } ?? "")
    }

    /// Printable ASCII only, without what would break out of a quoted value or name another place.
    static func checkCharacters(_ text: String, _ refuse: (String) -> Refusal) throws(Refusal) {
        for scalar in text.unicodeScalars {
            if scalar.value < 0x20 || scalar.value == 0x7F {
                throw refuse("holds a control character (U+\(hex(scalar))): write the URL on one line")
            }
            if scalar == " " { throw refuse("holds a space: percent-encode it as %20") }
            if !scalar.isASCII {
                throw refuse(
                    "holds \"\(scalar)\", which is not ASCII: percent-encode the path, and write the host in punycode")
            }
            if "\"'`".unicodeScalars.contains(scalar) { throw refuse("holds a quote (\(scalar)): a URL has none") }
            if "<>\\^|".unicodeScalars.contains(scalar) {
                throw refuse("holds \"\(scalar)\", which a URL cannot carry unencoded")
            }
            if scalar == "#" { throw refuse("holds a fragment (#): a tile URL has none") }
        }
    }

    /// `{z}`, `{x}` and `{y}` once each, and no other brace.
    static func checkPlaceholders(_ text: String, _ refuse: (String) -> Refusal) throws(Refusal) {
        var seen: [String] = []
        var rest = Substring(text)
        while let open = rest.firstIndex(where: { $0 == "{" || $0 == "}" }) {
            guard rest[open] == "{", let close = rest[open...].firstIndex(of: "}") else {
                throw refuse("has a brace that is not part of {z}, {x} or {y}")
            }
            let name = String(rest[rest.index(after: open)..<close])
            switch name {
            case "z", "x", "y":
                if seen.contains(name) { throw refuse("has {\(name)} twice: each of {z}, {x}, {y} once") }
                seen.append(name)
            case "s":
                throw refuse(
                    "has {s} (a choice of servers), which the page does not fill in: name one host, like \(example)")
            default:
                throw refuse(
                    "has {\(name.prefix(20))}: the only placeholders are {z}, {x} and {y}, like \(example)")
            }
            rest = rest[rest.index(after: close)...]
        }
        for name in ["z", "x", "y"] where !seen.contains(name) {
            throw refuse("lacks {\(name)}: a tile URL has {z}, {x} and {y}, like \(example)")
        }
    }

    /// The host (letters, digits, dots and hyphens, as a Content-Security-Policy can name it) and
    /// the port, if one is given.
    static func hostAndPort(_ authority: String, _ refuse: (String) -> Refusal) throws(Refusal) -> (String, Int?) {
        if authority.contains("@") {
            throw refuse(
                "holds a user name or password (user@host): every visitor's browser would be given it; use a URL without"
            )
        }
        if authority.contains("{") {
            throw refuse(
                "has a placeholder in its host: the page may load images from one host only; put {z}/{x}/{y} in the path"
            )
        }
        if authority.hasPrefix("[") {
            throw refuse("names an IPv6 address, which the page's Content-Security-Policy cannot name: use a host name")
        }
        var host = authority
        var port: Int?
        if let colon = authority.lastIndex(of: ":") {
            host = String(authority[..<colon])
            let digits = authority[authority.index(after: colon)...]
            guard !digits.isEmpty, digits.count <= 5, digits.allSatisfy(\.isASCIIDigit), let number = Int(digits),
                (1...65535).contains(number)
            else { throw refuse("has a port that is not a number from 1 to 65535") }
            port = number
        }
        guard !host.isEmpty else { throw refuse("names no host, like \(example)") }
        let labels = host.split(separator: ".", omittingEmptySubsequences: false)
        let validLabel: (Substring) -> Bool = { label in
            !label.isEmpty && label.count <= 63 && !label.hasPrefix("-") && !label.hasSuffix("-")
                && label.allSatisfy { $0.isASCIIDigit || $0.isASCIILetter || $0 == "-" }
        }
        guard host.count <= 253, labels.allSatisfy(validLabel) else {
            throw refuse("names \"\(host.prefix(80))\", which is not a host name")
        }
        return (host, port)
    }

    static func checkAttribution(_ text: String) throws(Refusal) {
        func refuse(_ message: String) -> Refusal { Refusal(key: "attribution", message: message) }
        guard !text.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw refuse(
                "is missing: the credit the tile provider asks for, shown on the map (like \"© OpenStreetMap contributors\")"
            )
        }
        guard text.count <= maxAttributionLength else {
            throw refuse("is longer than \(maxAttributionLength) characters")
        }
        if let control = text.unicodeScalars.first(where: { $0.properties.generalCategory == .control }) {
            throw refuse("holds a control character (U+\(hex(control))): write it on one line")
        }
        if text.contains(where: { $0 == "<" || $0 == ">" }) {
            throw refuse(
                "is shown as plain text, not HTML: write it without tags, like \"© OpenStreetMap contributors\"")
        }
    }

    /// Whether `host` only reaches this machine.
    static func isLoopback(_ host: String) -> Bool {
        let lowered = host.lowercased()
        if lowered == "localhost" || lowered.hasSuffix(".localhost") { return true }
        let octets = lowered.split(separator: ".", omittingEmptySubsequences: false)
        return octets.count == 4 && octets[0] == "127"
            && octets.allSatisfy { $0.allSatisfy(\.isASCIIDigit) && (Int($0).map { $0 <= 255 } ?? false) }
    }

    static func hex(_ scalar: Unicode.Scalar) -> String {
        let digits = String(scalar.value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isWholeNumber }
    fileprivate var isASCIILetter: Bool { isASCII && isLetter }
}
