import OnTheMapService

/// The sentences about places that `!post`, `!near` and `!map` share, in one quote style:
/// what the student typed is shown in double quotes, commands as they are typed.
enum PlaceWording {
    /// A place shown to the student: safe, one line, short.
    static func place(_ candidate: PlaceCandidate) -> String {
        Formatting.clean(candidate.displayName, maxBytes: 120)
    }

    /// What the student typed, safe and short, in double quotes.
    static func quoted(_ typed: String) -> String {
        "\"\(Formatting.clean(typed, maxBytes: 60, fallback: "?"))\""
    }

    /// No place of that name: `example` is a command that would work ("!post Lyon, France").
    static func notFound(_ typed: String, example: String) -> String {
        "No place called \(quoted(typed)) was found; try \"City, Country\", e.g. \(example)"
    }

    /// Why `typed` is not a place, and what to type instead (`example`: "!post Lyon, France").
    static func notAPlace(_ kind: NonPlace, typed: String, example: String) -> String {
        switch kind {
        case .online:
            return
                "\(quoted(typed)) is not a place on the map: it needs a city, region or country. Studying online? Give the city you are in, e.g. \(example)"
        case .nowhere, .noName:
            return "\(quoted(typed)) is not a place: the map needs a city, region or country, e.g. \(example)"
        case .offworld:
            return
                "\(quoted(typed)) is not on this map: it needs a city, region or country on Earth, e.g. \(example)"
        case .link:
            return "That looks like a link, not a place: the map needs a city, region or country, e.g. \(example)"
        case .email:
            return
                "That looks like an e-mail address, not a place: the map needs a city, region or country, e.g. \(example)"
        }
    }

    /// "Roanoke, Virginia, United States" or "1) Seattle, … 2) Seaside, …".
    static func offers(_ candidates: [PlaceCandidate]) -> String {
        guard candidates.count > 1 else { return candidates.first.map(place) ?? "" }
        return candidates.enumerated().map { "\($0.offset + 1)) \(place($0.element))" }.joined(separator: ", ")
    }
}
