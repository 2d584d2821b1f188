/// One value of the settings file, as the bot reads it: a scalar with what it can be read as, a
/// list, or a section of keys. Settings readers (``SettingsSection``) see this, not the file format.
public enum SettingsValue: Sendable, Equatable {
    case scalar(Scalar)
    case list([SettingsValue])
    case section([Entry])

    /// A scalar: its text and what the file format reads it as.
    public struct Scalar: Sendable, Equatable {
        public var text: String
        /// Written as nothing, `~` or `null`.
        public var isNull: Bool
        public var bool: Bool?
        public var int: Int?
        public var double: Double?

        public init(text: String, isNull: Bool = false, bool: Bool? = nil, int: Int? = nil, double: Double? = nil) {
            self.text = text
            self.isNull = isNull
            self.bool = bool
            self.int = int
            self.double = double
        }
    }

    /// One key of a section and its value.
    public struct Entry: Sendable, Equatable {
        public var key: String
        public var value: SettingsValue

        public init(key: String, value: SettingsValue) {
            self.key = key
            self.value = value
        }
    }

    /// The text of a scalar; nil for a list or a section.
    public var text: String? {
        if case .scalar(let scalar) = self { return scalar.text }
        return nil
    }

    /// Whether this is a scalar written as nothing, `~` or `null`.
    public var isNull: Bool {
        if case .scalar(let scalar) = self { return scalar.isNull }
        return false
    }

    /// The entries of a section; nil for a scalar or a list.
    public var entries: [Entry]? {
        if case .section(let entries) = self { return entries }
        return nil
    }
}

/// One thing wrong with a setting: the dotted key path ("irc.port", "" for the whole file) and
/// what is wrong, said plainly.
public struct SettingsProblem: Sendable, Equatable, CustomStringConvertible {
    public var key: String
    public var message: String

    public init(key: String, message: String) {
        self.key = key
        self.message = message
    }

    public var description: String { key.isEmpty ? message : "\(key): \(message)" }
}
