import OnTheMapService
import Localization

/// The sentences about places that `!post`, `!near` and `!map` share, in one quote style:
/// what the student typed is shown in double quotes, commands as they are typed.
enum PlaceWording {
    /// A place shown to the student: safe, one line, short.
    static func place(_ candidate: PlaceCandidate) -> String {
        Formatting.clean(candidate.displayName, maxBytes: 120)
    }

    /// A place shown to the reader of `phrases`, its country and division in their language
    /// (``Formatting/place(_:phrases:maxBytes:)``): safe, one line, short.
    static func place(_ candidate: PlaceCandidate, phrases: Phrasebook) -> String {
        Formatting.place(candidate.displayName, phrases: phrases, maxBytes: 120)
    }

    /// What the student typed, safe and short, in double quotes.
    static func quoted(_ typed: String) -> String {
        "\"\(Formatting.clean(typed, maxBytes: 60, fallback: "?"))\""
    }

    /// No place of that name: `example` is a command that would work ("!post Lyon, France").
    static func notFound(_ typed: String, example: String, phrases: Phrasebook) -> String {
        phrases("place.notFound", ["typed": quoted(typed), "example": example])
    }

    /// Why `typed` is not a place, and what to type instead (`example`: "!post Lyon, France").
    static func notAPlace(_ kind: NonPlace, typed: String, example: String, phrases: Phrasebook) -> String {
        let values: [String: any PhraseValue] = ["typed": quoted(typed), "example": example]
        switch kind {
        case .online: return phrases("place.online", values)
        case .nowhere, .noName: return phrases("place.nowhere", values)
        case .offworld: return phrases("place.offworld", values)
        case .link: return phrases("place.link", values)
        case .email: return phrases("place.email", values)
        }
    }

    /// "Roanoke, Virginia, United States" or "1) Seattle, … 2) Seaside, …".
    static func offers(_ candidates: [PlaceCandidate], phrases: Phrasebook) -> String {
        guard candidates.count > 1 else { return candidates.first.map { place($0, phrases: phrases) } ?? "" }
        return candidates.enumerated().map { "\($0.offset + 1)) \(place($0.element, phrases: phrases))" }
            .joined(separator: ", ")
    }
}
