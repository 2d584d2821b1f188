/// A glob mask such as `*!*@example.com`: `*` matches any run of bytes (also empty), `?` exactly
/// one character; every other character, including `[` and `]`, is literal.
///
/// Matching folds case with the given ``CaseMapping`` (pass `nil` for an exact match).
public struct IRCMask: Sendable, Hashable, CustomStringConvertible {
    /// The mask as given.
    public let pattern: String
    /// The casemapping used to compare, or `nil` for case-sensitive matching.
    public let caseMapping: CaseMapping?
    private let foldedPattern: [UInt8]

    public init(_ pattern: String, caseMapping: CaseMapping? = .rfc1459) {
        self.pattern = pattern
        self.caseMapping = caseMapping
        self.foldedPattern = pattern.utf8.map { caseMapping?.lowercased(byte: $0) ?? $0 }
    }

    public var description: String { pattern }

    /// Whether the mask contains `*` or `?`.
    public var hasWildcards: Bool {
        foldedPattern.contains(0x2A) || foldedPattern.contains(0x3F)
    }

    /// Whether `subject` (e.g. `nick!user@host`) matches the mask.
    public func matches(_ subject: some StringProtocol) -> Bool {
        let text = subject.utf8.map { caseMapping?.lowercased(byte: $0) ?? $0 }
        return Self.globMatch(foldedPattern, text)
    }

    /// Whether the source `nick!user@host` matches the mask.
    public func matches(_ source: IRCSource) -> Bool {
        matches(source.formatted)
    }

    /// Iterative glob matching with backtracking to the last `*` (linear in practice, never
    /// exponential). `?` consumes one whole UTF-8 scalar.
    static func globMatch(_ pattern: [UInt8], _ text: [UInt8]) -> Bool {
        var p = 0
        var t = 0
        var starPattern = -1
        var starText = 0
        while t < text.count {
            if p < pattern.count && pattern[p] == 0x3F {  // '?'
                p += 1
                t = nextScalar(text, t)
            } else if p < pattern.count && pattern[p] == 0x2A {  // '*'
                starPattern = p
                p += 1
                starText = t
            } else if p < pattern.count && pattern[p] == text[t] {
                p += 1
                t += 1
            } else if starPattern >= 0 {
                p = starPattern + 1
                starText = nextScalar(text, starText)
                t = starText
            } else {
                return false
            }
        }
        while p < pattern.count && pattern[p] == 0x2A { p += 1 }
        return p == pattern.count
    }

    @inline(__always)
    private static func nextScalar(_ text: [UInt8], _ index: Int) -> Int {
        var next = index + 1
        while next < text.count && text[next] & 0xC0 == 0x80 { next += 1 }
        return next
    }
}
