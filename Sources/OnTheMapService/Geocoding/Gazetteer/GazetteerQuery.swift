/// One comma-separated part of a query, normalised, with postcodes and house numbers removed.
struct GazetteerQueryPart {
    /// Normalised UTF-8 bytes, tokens separated by single spaces.
    var bytes: [UInt8]
    /// Byte ranges of the tokens in `bytes`.
    var tokens: [Range<Int>]
    /// True when tokens with digits were removed (a street address or postcode): only then
    /// may the place name start after the part's first token ("1600 Amphitheatre Pkwy
    /// Mountain View CA").
    var isAddressLike: Bool
    /// The script of the part as typed when completions and near spellings may be looked for
    /// (see `GazetteerScript`); nil when only exact names may match it.
    var approximateScript: Int? = nil

    var tokenCount: Int { tokens.count }

    /// The byte range of tokens `first..<end`.
    func byteRange(_ first: Int, _ end: Int) -> Range<Int> {
        tokens[first].lowerBound..<tokens[end - 1].upperBound
    }
}

/// Splits and normalises a free-text place query.
enum GazetteerQueryParser {
    /// Longer queries are not place names; they get no candidates.
    static let maximumQueryBytes = 512
    static let maximumTokens = 24
    static let maximumParts = 8

    /// The non-empty parts of `query`, most specific first; nil when the query is not a place.
    static func parts(of query: String) -> [GazetteerQueryPart]? {
        let utf8 = query.utf8
        guard !utf8.isEmpty, utf8.count <= maximumQueryBytes else { return nil }
        var parts: [GazetteerQueryPart] = []
        var totalTokens = 0
        for raw in utf8.split(whereSeparator: { $0 == UInt8(ascii: ",") || $0 == UInt8(ascii: ";") }) {
            let text = Substring(raw)
            guard var part = part(from: GazetteerNormaliser.normalise(text)) else { continue }
            part.approximateScript = GazetteerScript.approximableScript(of: text)
            totalTokens += part.tokenCount
            parts.append(part)
        }
        guard !parts.isEmpty, parts.count <= maximumParts, totalTokens <= maximumTokens else { return nil }
        return parts
    }

    /// Tokenises one normalised part, dropping tokens with digits and a short letter group that
    /// follows one (the "AB" of the Dutch postcode "1012 AB").
    static func part(from normalised: [UInt8]) -> GazetteerQueryPart? {
        var kept: [UInt8] = []
        kept.reserveCapacity(normalised.count)
        var tokens: [Range<Int>] = []
        var removedDigits = false
        var previousHadDigits = false
        var start = 0
        while start < normalised.count {
            var end = start
            var hasDigit = false
            while end < normalised.count && normalised[end] != 0x20 {
                if (0x30...0x39).contains(normalised[end]) { hasDigit = true }
                end += 1
            }
            let length = end - start
            if hasDigit {
                removedDigits = true
                previousHadDigits = true
            } else if previousHadDigits && length <= 2 {
                previousHadDigits = false
            } else {
                previousHadDigits = false
                if !kept.isEmpty { kept.append(0x20) }
                let tokenStart = kept.count
                kept.append(contentsOf: normalised[start..<end])
                tokens.append(tokenStart..<kept.count)
            }
            start = end + 1
        }
        guard !tokens.isEmpty else { return nil }
        return GazetteerQueryPart(bytes: kept, tokens: tokens, isAddressLike: removedDigits)
    }
}
