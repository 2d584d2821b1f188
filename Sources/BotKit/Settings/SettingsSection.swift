/// A section of keys being read into settings. Each typed read names its key in the problem it
/// reports; ``finish()`` reports every key that was never asked for as unknown, with the key it
/// most likely meant — so a reader declares a key once, by reading it.
public struct SettingsSection {
    /// The dotted path of the section ("irc.flood"; "" for the whole file).
    public let path: String
    private let entries: [SettingsValue.Entry]
    private var asked: [String] = []
    private var problems: [SettingsProblem] = []

    /// The section `value` at `path`; a value that is not a section (and not null) is a problem.
    public init(_ value: SettingsValue?, at path: String) {
        self.path = path
        switch value {
        case .section(let entries)?:
            self.entries = entries
        case let other?:
            self.entries = []
            if !other.isNull { problems.append(.init(key: path, message: "must be a section of keys (a mapping)")) }
        case nil:
            self.entries = []
        }
    }

    /// The dotted path of `key` in this section, as problems name it.
    public func path(of key: String) -> String {
        path.isEmpty ? key : "\(path).\(key)"
    }

    /// The value of `key`, when it is set; `key` counts as known from now on.
    public mutating func value(_ key: String) -> SettingsValue? {
        if !asked.contains(key) { asked.append(key) }
        return entries.last { $0.key == key }?.value
    }

    /// Reports a problem with `key` (the section itself when `key` is "").
    public mutating func problem(_ key: String, _ message: String) {
        problems.append(.init(key: key.isEmpty ? path : path(of: key), message: message))
    }

    /// Adds problems found elsewhere (a subsection read on its own), in reading order.
    public mutating func include(_ found: [SettingsProblem]) {
        problems += found
    }

    /// Reads the subsection `key` with `read` (nothing happens when it is not set).
    public mutating func section(_ key: String, _ read: (inout SettingsSection) -> Void) {
        guard let value = value(key) else { return }
        var section = SettingsSection(value, at: path(of: key))
        read(&section)
        problems += section.finish()
    }

    /// Every problem found: first the keys nobody asked for, then the rest in reading order.
    public func finish() -> [SettingsProblem] {
        var unknown: [SettingsProblem] = []
        for entry in entries where !asked.contains(entry.key) {
            let message: String
            if let suggestion = Self.closest(to: entry.key, in: asked) {
                message = "unknown key (did you mean \"\(suggestion)\"?)"
            } else if asked.isEmpty {
                message = "unknown key; this section has no keys"
            } else {
                message = "unknown key; known keys here: " + asked.joined(separator: ", ")
            }
            unknown.append(.init(key: path(of: entry.key), message: message))
        }
        return unknown + problems
    }

    /// The known key a mistyped one most likely meant (case, `-`/`_` and up to two edits apart).
    public static func closest(to key: String, in known: [String]) -> String? {
        func fold(_ text: String) -> [Character] {
            Array(text.lowercased().replacingOccurrences(of: "-", with: "_"))
        }
        let typed = fold(key)
        let scored = known.map { candidate -> (String, Int) in (candidate, editDistance(typed, fold(candidate))) }
        guard let best = scored.min(by: { $0.1 < $1.1 }), best.1 <= min(2, max(1, typed.count / 3)) else { return nil }
        return best.0
    }

    static func editDistance(_ a: [Character], _ b: [Character]) -> Int {
        if a.isEmpty { return b.count }
        var previous = Array(0...b.count)
        for (i, ca) in a.enumerated() {
            var current = [i + 1]
            for (j, cb) in b.enumerated() {
                current.append(min(previous[j + 1] + 1, current[j] + 1, previous[j] + (ca == cb ? 0 : 1)))
            }
            previous = current
        }
        return previous[b.count]
    }
}

// MARK: - Typed reads

extension SettingsSection {
    /// Text; null reads as "".
    public mutating func string(_ key: String, into result: inout String) {
        guard let value = value(key) else { return }
        if value.isNull {
            result = ""
            return
        }
        guard let text = value.text else { return problem(key, "must be text") }
        result = text
    }

    /// `true` or `false`.
    public mutating func bool(_ key: String, into result: inout Bool) {
        guard let value = value(key) else { return }
        guard case .scalar(let scalar) = value, let flag = scalar.bool else {
            return problem(key, "must be true or false")
        }
        result = flag
    }

    /// A whole number in `range`.
    public mutating func int(_ key: String, into result: inout Int, range: ClosedRange<Int>) {
        guard let value = value(key) else { return }
        guard case .scalar(let scalar) = value, let number = scalar.int else {
            return problem(
                key,
                "must be a whole number from \(range.lowerBound) to \(range.upperBound), not \"\(value.text ?? "?")\"")
        }
        guard range.contains(number) else {
            return problem(key, "must be from \(range.lowerBound) to \(range.upperBound), not \(number)")
        }
        result = number
    }

    /// A number in `range`.
    public mutating func double(_ key: String, into result: inout Double, range: ClosedRange<Double>) {
        guard let value = value(key) else { return }
        guard case .scalar(let scalar) = value, let number = scalar.double, range.contains(number) else {
            return problem(key, "must be a number from \(range.lowerBound) to \(range.upperBound)")
        }
        result = number
    }

    /// A list of texts; null reads as the empty list.
    public mutating func strings(_ key: String, into result: inout [String]) {
        guard let value = value(key) else { return }
        if value.isNull {
            result = []
            return
        }
        guard case .list(let items) = value else { return problem(key, "must be a list, like [a, b]") }
        var texts: [String] = []
        for (index, item) in items.enumerated() {
            guard case .scalar(let scalar) = item else {
                problems.append(.init(key: "\(path(of: key))[\(index)]", message: "must be text"))
                continue
            }
            texts.append(scalar.text)
        }
        result = texts
    }

    /// One of the cases of `T`, written in any case.
    public mutating func choice<T: RawRepresentable & CaseIterable>(_ key: String, into result: inout T)
    where T.RawValue == String {
        guard let value = value(key) else { return }
        let allowed = T.allCases.map(\.rawValue)
        guard let text = value.text,
            let parsed = T(rawValue: text) ?? T(rawValue: text.lowercased()) ?? T(rawValue: text.uppercased())
        else {
            return problem(key, "must be one of \(allowed.joined(separator: ", ")), not \"\(value.text ?? "?")\"")
        }
        result = parsed
    }
}
