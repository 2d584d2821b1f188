/// The nicks tried during registration when the wanted one is taken or refused: the configured nick, then
/// each alternate, then the configured nick with 2–3 random digits appended (cut so the result fits in
/// ``maximumLength`` once the server has refused a nick as erroneous, e.g. too long).
public struct NickSequence: Sendable {
    public let primary: String
    public let alternates: [String]
    /// Length generated nicks are cut to after a 432 (RFC 1459's 9 unless the server said otherwise).
    public var maximumLength: Int
    /// Number of nicks handed out, including the primary.
    public private(set) var attempts = 1
    /// The nick currently being tried.
    public private(set) var current: String
    private var shortenGenerated = false

    public init(primary: String, alternates: [String], maximumLength: Int = 9) {
        self.primary = primary
        self.alternates = alternates.filter { !$0.isEmpty && $0 != primary }
        self.maximumLength = maximumLength
        self.current = primary
    }

    /// The next nick to try after the current one was refused (`erroneous` for 432).
    public mutating func next(afterErroneous erroneous: Bool = false) -> String {
        // The system generator is drawn through `Int.random(in:)`, never passed `inout`: it has no
        // stored bytes, so its address is undefined, and ThreadSanitizer builds check every inout
        // access at that address.
        next(afterErroneous: erroneous) { Int.random(in: $0) }
    }

    public mutating func next(
        afterErroneous erroneous: Bool,
        using generator: inout some RandomNumberGenerator
    ) -> String {
        next(afterErroneous: erroneous) { Int.random(in: $0, using: &generator) }
    }

    private mutating func next(afterErroneous erroneous: Bool, randomIn: (Range<Int>) -> Int) -> String {
        if erroneous { shortenGenerated = true }
        let index = attempts - 1
        attempts += 1
        if index < alternates.count {
            current = alternates[index]
            return current
        }
        let digits = String(randomIn(10..<1000))
        let base = shortenGenerated ? String(primary.prefix(max(1, maximumLength - digits.count))) : primary
        current = base + digits
        return current
    }
}
