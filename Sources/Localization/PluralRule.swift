/// A plural category of Unicode CLDR: which form of a counted message a number takes.
public enum PluralCategory: String, Sendable, Hashable, CaseIterable, Codable {
    case zero, one, two, few, many, other
}

/// The CLDR cardinal plural rule of one language, for the whole numbers the bot counts (classmates,
/// pins, minutes): `one`, `many` and `other` where the language has them, not "1 or not 1".
///
/// From CLDR's `plurals.xml` (version 46), restricted to integers (`v = 0`, `e = 0`):
/// - en, de: one when n = 1;
/// - es: one when n = 1; many when n ≠ 0 and n % 1 000 000 = 0 ("1 millón de alumnos");
/// - fr, pt (pt-BR): one when n is 0 or 1; many when n ≠ 0 and n % 1 000 000 = 0;
/// - ja: other only.
public struct PluralRule: Sendable, Hashable {
    public let language: Language

    public init(language: Language) { self.language = language }

    /// The categories a message in this language must give forms for.
    public var categories: [PluralCategory] {
        switch language {
        case .english, .german: [.one, .other]
        case .spanish, .french, .brazilianPortuguese: [.one, .many, .other]
        default: [.other]
        }
    }

    /// The category of the whole number `n`.
    public func category(of n: Int) -> PluralCategory {
        let magnitude = n.magnitude
        let millions = magnitude != 0 && magnitude % 1_000_000 == 0
        switch language {
        case .english, .german:
            return magnitude == 1 ? .one : .other
        case .spanish:
            if magnitude == 1 { return .one }
            return millions ? .many : .other
        case .french, .brazilianPortuguese:
            if magnitude <= 1 { return .one }
            return millions ? .many : .other
        default:
            return .other
        }
    }
}
