/// What a typed place turned out to be.
public enum PlaceResolution: Sendable, Equatable {
    /// The query names this place exactly; `namesakes` are other places of that name, most likely
    /// first ("Paris" → Paris, France; namesakes Paris, Texas…), to be named, not chosen.
    case found(PlaceCandidate, namesakes: [PlaceCandidate])
    /// Nothing matched exactly: these came close (a completion, a near spelling), best first. They
    /// are to be offered ("did you mean…?"), never assumed.
    case offered([PlaceCandidate])
    /// Not a place at all (online, the moon, a link…).
    case notAPlace(NonPlace)
    /// No place of that name.
    case notFound
}

/// Turns what a student typed into a place they can trust: words that are not places are told
/// apart first, then region and metro-area aliases, then the geocoder; an answer that is not an
/// exact match is only offered. Works over any `Geocoder` (the gazetteer, Nominatim).
public struct PlaceResolver: Sendable {
    /// How many other places of an exact name are named.
    public static let maximumNamesakes = 2
    /// How many close matches are offered.
    public static let maximumOffers = 3
    /// Another place is named or offered only with at least 1/this of the best one's population.
    static let minimumShareOfBest = 100
    /// Two answers closer than this are the same place (a city and the region named after it).
    static let samePlaceKilometres = 30.0

    public let geocoder: any Geocoder
    public let vocabulary: PlaceVocabulary

    public init(geocoder: any Geocoder, vocabulary: PlaceVocabulary = .standard) {
        self.geocoder = geocoder
        self.vocabulary = vocabulary
    }

    /// What `query` is. Throws what the geocoder throws (an HTTP geocoder's `ServiceError`).
    public func resolve(_ query: String) async throws -> PlaceResolution {
        if let settled = settledByVocabulary(query) { return settled }
        let candidates = try await geocoder.geocode(query, limit: Self.candidateCount)
        return Self.resolution(of: candidates, query: query)
    }

    /// The same, with a synchronous lookup in place of the geocoder (the offline gazetteer's
    /// `lookup(_:limit:)`, for benchmarks and tools).
    public func resolve(_ query: String, lookup: (String, Int) throws -> [PlaceCandidate]) rethrows
        -> PlaceResolution
    {
        if let settled = settledByVocabulary(query) { return settled }
        return Self.resolution(of: try lookup(query, Self.candidateCount), query: query)
    }

    /// How many candidates are asked of the geocoder.
    static let candidateCount = 10

    /// A non-place or an alias: settled without the geocoder.
    private func settledByVocabulary(_ query: String) -> PlaceResolution? {
        if let kind = vocabulary.nonPlace(query) { return .notAPlace(kind) }
        if let alias = vocabulary.alias(query) { return .found(alias.place, namesakes: []) }
        return nil
    }

    /// The resolution of a geocoder's candidates (best first) for `query`.
    public static func resolution(of candidates: [PlaceCandidate], query: String) -> PlaceResolution {
        guard let best = candidates.first else { return .notFound }
        let typed = PlaceVocabulary.key(query.split(separator: ",", maxSplits: 1).first ?? "") ?? ""
        // The others named or offered must be worth it: of some size beside the best, and called
        // what was typed (not a place that merely has it among its old or foreign names).
        let others = distinct(candidates.filter { $0.match == best.match }).dropFirst().filter { other in
            other.population * minimumShareOfBest >= best.population
                && resembles(name(of: other), typed, exactly: best.match == .exact)
        }
        if best.match == .exact {
            return .found(best, namesakes: Array(others.prefix(maximumNamesakes)))
        }
        return .offered([best] + others.prefix(maximumOffers - 1))
    }

    /// The normalised first part of a candidate's name ("paris" for "Paris, Texas, United States").
    static func name(of candidate: PlaceCandidate) -> String {
        PlaceVocabulary.key(candidate.displayName.split(separator: ",", maxSplits: 1).first ?? "") ?? ""
    }

    /// Whether `name` is what was typed: the same (for namesakes), or for a near match the same
    /// within two edits, or its completion.
    static func resembles(_ name: String, _ typed: String, exactly: Bool) -> Bool {
        guard !typed.isEmpty else { return false }
        if name == typed { return true }
        if exactly { return false }
        if name.hasPrefix(typed) { return true }
        let (a, b) = (Array(name.utf8), Array(typed.utf8))
        guard abs(a.count - b.count) <= 2 else { return false }
        var previous = Array(0...b.count)
        for i in 1...max(a.count, 1) where !a.isEmpty {
            var current = [i] + [Int](repeating: 0, count: b.count)
            for j in stride(from: 1, through: b.count, by: 1) {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count] <= 2
    }

    /// `candidates` without those that repeat an earlier one (same name, or within a few
    /// kilometres: "New York" the city and the state around it).
    static func distinct(_ candidates: [PlaceCandidate]) -> [PlaceCandidate] {
        var kept: [PlaceCandidate] = []
        for candidate in candidates {
            let repeats = kept.contains {
                $0.displayName == candidate.displayName
                    || GreatCircle.distanceKilometres($0.coordinate, candidate.coordinate) < samePlaceKilometres
            }
            if !repeats { kept.append(candidate) }
        }
        return kept
    }
}
