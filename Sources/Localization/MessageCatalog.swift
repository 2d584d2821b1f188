import Foundation

/// One message of a catalogue: a sentence, or the forms of a counted sentence by plural category.
public enum Message: Sendable, Equatable {
    /// One text for every case.
    case text(String)
    /// A sentence that counts: its form is chosen by the plural category of the argument
    /// `selector` (``PluralRule``).
    case counted(selector: String, forms: [PluralCategory: String])

    /// Every text of the message (one, or one per form).
    public var texts: [String] {
        switch self {
        case .text(let text): [text]
        case .counted(_, let forms): PluralCategory.allCases.compactMap { forms[$0] }
        }
    }

    /// The placeholders the message's texts name (`{place}` → "place"), over all its forms.
    public var placeholders: Set<String> {
        Set(texts.flatMap { Placeholders.names(in: $0) })
    }
}

/// The messages of one language, read from its catalogue file `Catalogs/<tag>.json`.
///
/// The source catalogue (English, `en.json`) gives each message a comment for translators and,
/// for a counted one, the argument that selects its form:
///
///     "near.count": {
///       "comment": "How many classmates !near lists; {count} is that number.",
///       "plural": "count",
///       "one": "{count} classmate near {place}:",
///       "other": "{count} classmates near {place}:"
///     }
///
/// A translation gives the text alone, or the forms its language has (``PluralRule/categories``):
/// `"near.count": {"one": "…", "many": "…", "other": "…"}`.
public struct MessageCatalog: Sendable {
    public let language: Language
    public let messages: [String: Message]
    /// The translators' note of each message (the source catalogue's only).
    public let comments: [String: String]

    public init(language: Language, messages: [String: Message], comments: [String: String] = [:]) {
        self.language = language
        self.messages = messages
        self.comments = comments
    }

    /// Reads a catalogue file. `source` is the English catalogue when this is a translation: a
    /// counted message takes its selector from there.
    public init(language: Language, json: Data, source: MessageCatalog?) throws(CatalogError) {
        let object: Any
        do {
            object = try JSONSerialization.jsonObject(with: json)
        } catch {
            throw CatalogError(language: language, key: nil, problem: "is not JSON: \(error)")
        }
        guard let entries = object as? [String: Any] else {
            throw CatalogError(language: language, key: nil, problem: "is not a JSON object of messages")
        }
        var messages: [String: Message] = [:]
        var comments: [String: String] = [:]
        for (key, entry) in entries {
            if let text = entry as? String {
                if case .counted(let selector, _) = source?.messages[key] {
                    messages[key] = .counted(selector: selector, forms: [.other: text])
                } else {
                    messages[key] = .text(text)
                }
                continue
            }
            guard let fields = entry as? [String: Any] else {
                throw CatalogError(language: language, key: key, problem: "is neither a text nor an object")
            }
            if let comment = fields["comment"] as? String { comments[key] = comment }
            if let text = fields["text"] as? String {
                messages[key] = .text(text)
                continue
            }
            var forms: [PluralCategory: String] = [:]
            for category in PluralCategory.allCases {
                if let form = fields[category.rawValue] as? String { forms[category] = form }
            }
            let selector: String?
            if let named = fields["plural"] as? String {
                selector = named
            } else if case .counted(let fromSource, _) = source?.messages[key] {
                selector = fromSource
            } else {
                selector = nil
            }
            guard let selector, !forms.isEmpty else {
                throw CatalogError(
                    language: language, key: key,
                    problem: "has no \"text\", and no \"plural\" argument with forms (\"one\", \"other\", …)")
            }
            messages[key] = .counted(selector: selector, forms: forms)
        }
        self.init(language: language, messages: messages, comments: comments)
    }
}

/// A catalogue file that cannot be used.
public struct CatalogError: Error, Sendable, Equatable, CustomStringConvertible {
    public var language: Language
    public var key: String?
    public var problem: String

    public var description: String {
        "the \(language.tag) catalogue" + (key.map { "'s message \"\($0)\"" } ?? "") + " " + problem
    }
}

/// The `{name}` placeholders of message texts.
public enum Placeholders {
    /// The names of the placeholders in `text`, in order ("{count} near {place}" → count, place).
    public static func names(in text: String) -> [String] {
        var names: [String] = []
        var rest = Substring(text)
        while let open = rest.firstIndex(of: "{") {
            let after = rest[rest.index(after: open)...]
            guard let close = after.firstIndex(of: "}") else { break }
            let name = after[..<close]
            if isName(name) { names.append(String(name)) }
            rest = after[after.index(after: close)...]
        }
        return names
    }

    /// Whether `text` can name a placeholder: a letter, then letters, digits or `_`.
    static func isName(_ text: Substring) -> Bool {
        guard let first = text.first, first.isASCII, first.isLetter else { return false }
        return text.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }
    }

    /// `text` with each placeholder replaced by `value(name)`; a placeholder with no value stays as
    /// it is written.
    static func fill(_ text: String, _ value: (String) -> String?) -> String {
        guard text.contains("{") else { return text }
        var out = ""
        var rest = Substring(text)
        while let open = rest.firstIndex(of: "{") {
            out += rest[..<open]
            let after = rest[rest.index(after: open)...]
            guard let close = after.firstIndex(of: "}") else {
                rest = rest[open...]
                break
            }
            let name = after[..<close]
            if isName(name), let filled = value(String(name)) {
                out += filled
            } else {
                out += rest[open...close]
            }
            rest = after[after.index(after: close)...]
        }
        out += rest
        return out
    }
}
