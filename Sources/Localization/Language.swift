import Foundation

/// A language the bot answers in, by its BCP 47 tag ("es", "pt-BR"): one of ``supported``, each
/// with a catalogue of every message (`Catalogs/<tag>.json`).
public struct Language: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The tag as the catalogue's file is named ("pt-BR").
    public let tag: String

    private init(known tag: String) { self.tag = tag }

    public static let english = Language(known: "en")
    public static let spanish = Language(known: "es")
    public static let french = Language(known: "fr")
    public static let german = Language(known: "de")
    public static let brazilianPortuguese = Language(known: "pt-BR")
    public static let japanese = Language(known: "ja")

    /// Every language with a catalogue; English, the source, first.
    public static let supported: [Language] = [.english, .spanish, .french, .german, .brazilianPortuguese, .japanese]

    /// The language `text` names: a supported tag in any case, with `-` or `_` ("pt-br", "PT_BR"),
    /// or a language whose only supported variant is meant ("pt" is pt-BR). Nil for anything else,
    /// including tags of languages without a catalogue and malformed text.
    public init?(tag text: String) {
        let folded = text.replacingOccurrences(of: "_", with: "-").lowercased()
        guard folded.count <= 35, folded.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") })
        else { return nil }
        if let exact = Self.supported.first(where: { $0.tag.lowercased() == folded }) {
            self = exact
            return
        }
        // A bare language whose one catalogue is regional ("pt" → pt-BR).
        let regional = Self.supported.filter { $0.tag.lowercased().hasPrefix(folded + "-") }
        guard regional.count == 1 else { return nil }
        self = regional[0]
    }

    /// The first supported language of an HTTP `Accept-Language` header, by the weights it gives
    /// (a language with `q=0` is refused); nil when it names none. A regional tag with no catalogue
    /// of its own falls back to its language ("es-MX" is es, "fr-CA" is fr).
    public init?(acceptLanguage header: String) {
        var ranked: [(language: Language, weight: Double, order: Int)] = []
        for (order, item) in header.split(separator: ",").prefix(32).enumerated() {
            let parts = item.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            guard let range = parts.first, !range.isEmpty, range != "*" else { continue }
            var weight = 1.0
            for parameter in parts.dropFirst() where parameter.hasPrefix("q=") {
                weight = Double(parameter.dropFirst(2)) ?? 0
            }
            guard weight > 0, let language = Language(tag: range) ?? Language(tag: Self.primarySubtag(of: range))
            else { continue }
            ranked.append((language, weight, order))
        }
        guard let best = ranked.min(by: { ($1.weight, $0.order) < ($0.weight, $1.order) }) else { return nil }
        self = best.language
    }

    private static func primarySubtag(of tag: String) -> String {
        String(tag.split(whereSeparator: { $0 == "-" || $0 == "_" }).first ?? "")
    }

    /// The language's name in itself, for lists a reader of any language scans ("Español").
    public var nativeName: String {
        switch tag {
        case "es": "español"
        case "fr": "français"
        case "de": "Deutsch"
        case "pt-BR": "português (Brasil)"
        case "ja": "日本語"
        default: "English"
        }
    }

    /// The locale numbers and dates are written in: English as it is written worldwide
    /// (`en_001`: "24 Dec", not the United States' "Dec 24"), the others as their tag says.
    public var locale: Locale {
        Locale(identifier: self == Language.english ? "en_001" : tag.replacingOccurrences(of: "-", with: "_"))
    }

    /// Whether the people who read this language measure distances in kilometres (true), in miles
    /// (false), or in either (nil: English is read on both sides, so the operator's unit holds).
    public var usesKilometres: Bool? {
        self == Language.english ? nil : true
    }

    /// How this language picks among the plural forms of a counted message.
    public var pluralRule: PluralRule { PluralRule(language: self) }

    public var description: String { tag }

    public static func < (lhs: Language, rhs: Language) -> Bool {
        (supported.firstIndex(of: lhs) ?? .max) < (supported.firstIndex(of: rhs) ?? .max)
    }
}
