import Foundation

/// Why what a student typed is not a place the map can show.
public enum NonPlace: String, Sendable, Hashable, CaseIterable {
    /// Online, remote, home office…: where an online student studies, not where they are.
    case online
    /// Anywhere, N/A, unknown, test…: no answer, a placeholder or a joke.
    case nowhere
    /// The moon, Mars, Narnia…: not on Earth, or not real.
    case offworld
    /// A web address or a link of any scheme (`javascript:`, `www.`).
    case link
    /// An e-mail address.
    case email
    /// Nothing that could be a name: only digits, punctuation or symbols.
    case noName
}

/// A region or metro area that is no place of the gazetteer ("Bay Area", "the Ruhr"), with the
/// central city it is shown at.
public struct PlaceAlias: Sendable {
    /// The normalised names it is known by.
    public var names: [String]
    /// The place it stands for (kind `.region`, match `.exact`).
    public var place: PlaceCandidate
    /// Normalised words that may follow a name ("Bay Area, CA").
    public var qualifiers: Set<String>
    /// The city whose coordinates are the centre.
    public var centre: String
    /// What the name covers, by whose definition.
    public var definition: String
}

/// The word lists of place resolution: what is not a place, and the region and metro-area
/// aliases (the tables are in `PlaceVocabularyData.swift`).
public struct PlaceVocabulary: Sendable {
    public private(set) var aliases: [PlaceAlias] = []
    /// Lines of the tables that could not be read (a test keeps this empty).
    public private(set) var problems: [String] = []
    private var nonPlaces: [String: NonPlace] = [:]
    private var aliasByName: [String: Int] = [:]

    /// The tables shipped with the bot.
    public static let standard = PlaceVocabulary(nonPlaceTable: nonPlaceTable, aliasTable: aliasTable)

    /// Reads the two tables; a bad line is skipped and named in `problems`.
    public init(nonPlaceTable: String, aliasTable: String) {
        for (number, line) in Self.lines(nonPlaceTable) {
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
            guard fields.count == 2, let kind = NonPlace(rawValue: String(fields[0])),
                let phrase = Self.key(fields[1]), !phrase.isEmpty
            else {
                problems.append("non-places line \(number): \(line)")
                continue
            }
            nonPlaces[phrase] = kind
        }
        for (number, line) in Self.lines(aliasTable) {
            guard let alias = Self.alias(from: line) else {
                problems.append("aliases line \(number): \(line)")
                continue
            }
            for name in alias.names where aliasByName[name] != nil {
                problems.append("aliases line \(number): \"\(name)\" is already another alias")
            }
            for name in alias.names where aliasByName[name] == nil { aliasByName[name] = aliases.count }
            aliases.append(alias)
        }
    }

    /// The normalised phrases of the non-place list, with their kind.
    public var nonPlacePhrases: [String: NonPlace] { nonPlaces }

    /// Words a student may put before the answer ("I'm at home", "from the moon").
    static let leadingWords: Set<String> = [
        "i", "im", "m", "am", "currently", "right", "now", "working", "studying", "living", "based", "at", "from",
        "in", "on", "the", "my", "a",
    ]

    /// Why `query` is not a place, or nil when it may be one.
    public func nonPlace(_ query: String) -> NonPlace? {
        if let kind = Self.linkOrEmail(query) { return kind }
        var words = Self.words(query)
        guard !words.isEmpty else { return .noName }
        if words.allSatisfy({ $0.allSatisfy(\.isNumber) }) { return nil }  // a postcode: the geocoder decides
        while !words.isEmpty {
            if let kind = nonPlaces[words.joined(separator: " ")] { return kind }
            guard Self.leadingWords.contains(words[0]) else { return nil }
            words.removeFirst()
        }
        return nil
    }

    /// The region or metro area `query` names ("Bay Area", "bay area, CA"), if any.
    public func alias(_ query: String) -> PlaceAlias? {
        let words = Self.words(query)
        guard !words.isEmpty, words.count <= 12 else { return nil }
        for length in stride(from: words.count, through: 1, by: -1) {
            guard let index = aliasByName[words[..<length].joined(separator: " ")] else { continue }
            let alias = aliases[index]
            if words[length...].allSatisfy({ alias.qualifiers.contains($0) }) { return alias }
        }
        return nil
    }

    // MARK: Reading

    static func lines(_ table: String) -> [(Int, Substring)] {
        table.split(separator: "\n", omittingEmptySubsequences: false).enumerated().compactMap { offset, line in
            line.isEmpty || line.hasPrefix("#") ? nil : (offset + 1, line)
        }
    }

    /// The normalised form of `text` (the gazetteer's key form).
    static func key<S: StringProtocol>(_ text: S) -> String? {
        let bytes = GazetteerNormaliser.normalise(text)
        return String(validating: bytes, as: UTF8.self)
    }

    static func words<S: StringProtocol>(_ text: S) -> [String] {
        (key(text) ?? "").split(separator: " ").map(String.init)
    }

    private static func alias(from line: Substring) -> PlaceAlias? {
        let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
        guard fields.count == 10, let latitude = Double(fields[5]), let longitude = Double(fields[6]),
            fields[4].count == 2, !fields[1].isEmpty, !fields[3].isEmpty
        else { return nil }
        let coordinate = Coordinate(latitude: latitude, longitude: longitude)
        let names = fields[0].split(separator: "|").compactMap { key($0) }.filter { !$0.isEmpty }
        guard coordinate.isValid, !names.isEmpty else { return nil }
        let region = fields[2].isEmpty ? nil : fields[2]
        let display = ([fields[1]] + (region.map { [$0] } ?? []) + [fields[3]]).joined(separator: ", ")
        let place = PlaceCandidate(
            displayName: display, adminArea: region, country: fields[3], countryCode: fields[4],
            coordinate: coordinate, kind: .region, population: 0, match: .exact)
        return PlaceAlias(
            names: names, place: place, qualifiers: Set(words(fields[7])), centre: fields[8], definition: fields[9])
    }

    // MARK: Links and e-mail addresses

    static let schemes: Set<String> = [
        "http", "https", "javascript", "vbscript", "data", "file", "ftp", "ftps", "sftp", "mailto", "tel", "sms",
        "irc", "ircs", "ws", "wss", "about", "blob", "chrome", "ssh", "git", "gopher", "news", "telnet",
    ]
    static let webDomains: Set<String> = [
        "com", "org", "net", "io", "dev", "edu", "gov", "info", "me", "co", "app", "ai", "xyz", "site", "online",
        "tech", "page", "html", "htm", "php", "github", "gitlab",
    ]

    /// `.link` for text that looks like a link (a scheme, `www.`, a web address), `.email` for
    /// an e-mail address.
    static func linkOrEmail(_ text: String) -> NonPlace? {
        let trimmed = text.trimmingCharacters(in: .whitespaces).lowercased()
        if trimmed.contains("://") || trimmed.hasPrefix("www.") { return .link }
        if let colon = trimmed.firstIndex(of: ":"), schemes.contains(String(trimmed[..<colon])) { return .link }
        guard !trimmed.contains(where: \.isWhitespace) else { return nil }
        if let at = trimmed.firstIndex(of: "@"), at != trimmed.startIndex, trimmed[at...].contains(".") {
            return .email
        }
        let host = trimmed.split(separator: "/", maxSplits: 1).first ?? ""
        let labels = host.split(separator: ".", omittingEmptySubsequences: false)
        if labels.count >= 2, labels.allSatisfy({ !$0.isEmpty }), let last = labels.last,
            webDomains.contains(String(last))
        {
            return .link
        }
        return nil
    }
}
