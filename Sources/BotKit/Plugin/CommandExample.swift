/// One use of a command, as a user would type it, what it shows (a message of the catalogues), and
/// the bot's answer. `!help <command>` shows the examples with what they show, in the reader's
/// language; the tests run each one against the demo class and check the answer.
public struct CommandExample: Sendable, Hashable {
    /// Stands for any text (possibly none) in an answer line; a line of just this stands for any
    /// number of further lines.
    public static let wildcard = "…"

    /// What the user types, with `!` as the prefix ("!near Paris").
    public var input: String
    /// The key of the catalogues' message that says what the example shows, in a short phrase
    /// ("the classmates nearest to Paris"); nil for a command whose text is not in the catalogues.
    public var explanation: String?
    /// The answer lines in order (a channel answer without the "nick: " in front). ``wildcard``
    /// marks what varies, like how long ago something was posted.
    public var answer: [String]
    /// Whether the user is logged in first (as a student of the class without a pin).
    public var loggedIn: Bool
    /// Whether one of the bot's owners types it (the examples of owner commands).
    public var byOwner: Bool

    /// `explained` is the key of the message saying what the example shows (see ``explanation``).
    public init(
        _ input: String, explained: String? = nil, answer: [String], loggedIn: Bool = false, byOwner: Bool = false
    ) {
        self.input = input
        self.explanation = explained
        self.answer = answer
        self.loggedIn = loggedIn
        self.byOwner = byOwner
    }

    /// An example with a one-line answer.
    public init(
        _ input: String, explained: String? = nil, answer: String, loggedIn: Bool = false, byOwner: Bool = false
    ) {
        self.init(input, explained: explained, answer: [answer], loggedIn: loggedIn, byOwner: byOwner)
    }

    /// The input with `!` replaced by the configured prefix.
    public func input(withPrefix prefix: String) -> String {
        input.hasPrefix("!") ? prefix + input.dropFirst() : input
    }

    /// Whether `lines` are the answer this example promises.
    public func matches(_ lines: [String]) -> Bool {
        var remaining = lines[...]
        for (index, expected) in answer.enumerated() {
            if expected == Self.wildcard && index == answer.count - 1 { return true }
            guard let line = remaining.popFirst(), Self.line(line, matches: expected) else { return false }
        }
        return remaining.isEmpty
    }

    /// Whether `line` is `pattern`, each ``wildcard`` in it standing for any text.
    public static func line(_ line: String, matches pattern: String) -> Bool {
        let parts = pattern.components(separatedBy: wildcard)
        guard parts.count > 1 else { return line == pattern }
        guard line.hasPrefix(parts[0]), let last = parts.last else { return false }
        var rest = line.dropFirst(parts[0].count)
        for part in parts.dropFirst().dropLast() where !part.isEmpty {
            guard let found = rest.range(of: part) else { return false }
            rest = rest[found.upperBound...]
        }
        return rest.hasSuffix(last)
    }
}
