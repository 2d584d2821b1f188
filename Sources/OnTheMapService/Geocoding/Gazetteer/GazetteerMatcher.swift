import Foundation

/// Finds the places a parsed query names, best first.
///
/// A query is a list of comma-separated parts, most specific first. For each part in order, a
/// place name is looked up (a span of its tokens; after a removed house number the span may
/// start later), and every token after it — the rest of the part and the later parts — must
/// qualify the place: name or code of its region or country. Unknown words in later parts are
/// tolerated as noise ("Seattle, Downtown"), but a later part naming another region or country
/// rules the place out ("Paris, Texas" is not Paris, France). The first part that yields a place
/// wins; exact keys first, then (only when nothing is exact) key prefixes and keys within a
/// small edit distance together, their population discounted by how far they are. Each answer
/// says whether it is exact: completions, near spellings, a region found after words that named
/// nothing, and a place of a later part after a first part that was not a street address are not.
struct GazetteerMatcher {
    enum Mode { case exact, approximate }

    /// One ranked answer.
    struct Ranked {
        var place: Int32
        var part: Int
        var noise: Int
        var skip: Int
        var placeTokens: Int
        var isCountry: Bool
        var weight: Double
        /// Whether the query named the place (an exact key, not a completion, a near spelling
        /// or a region found after words that named nothing).
        var isExact = true

        func isBetter(than other: Ranked) -> Bool {
            if part != other.part { return part < other.part }
            if noise != other.noise { return noise < other.noise }
            if skip != other.skip { return skip < other.skip }
            if placeTokens != other.placeTokens { return placeTokens > other.placeTokens }
            if isCountry != other.isCountry { return isCountry }
            if weight != other.weight { return weight > other.weight }
            return place < other.place
        }
    }

    static let maximumSpanTokens = 6
    static let maximumPrefixKeys = 2000
    static let minimumPrefixBytes = 3
    static let minimumFuzzyBytes = 4
    /// Ranking weights: an alternate name or a region counts as a smaller population.
    static let alternateWeight = 0.3
    static let regionWeight = 0.25
    static let prefixFactor = 0.5
    static let editFactor = 0.1

    let store: GazetteerStore
    /// Base address of the store's text, valid while the matcher is used.
    let base: UnsafePointer<UInt8>
    let parts: [GazetteerQueryPart]
    /// Exact key of each token span: `spanKeys[part][first * maximumSpanTokens + length - 1]`.
    private var spanKeys: [[Int32]] = []
    /// Posting lists already read, by key (a query touches only a few keys).
    private var cachedKeys: [Int] = []
    private var cachedPostings: [[GazetteerPosting]] = []

    init(store: GazetteerStore, text base: UnsafePointer<UInt8>, parts: [GazetteerQueryPart]) {
        self.store = store
        self.base = base
        self.parts = parts
        spanKeys = parts.map { part in
            var keys = [Int32](repeating: -1, count: part.tokenCount * Self.maximumSpanTokens)
            part.bytes.withUnsafeBufferPointer { bytes in
                for first in 0..<part.tokenCount {
                    for length in 1...min(Self.maximumSpanTokens, part.tokenCount - first) {
                        let range = part.byteRange(first, first + length)
                        if let key = store.exactKey(UnsafeBufferPointer(rebasing: bytes[range]), text: base) {
                            keys[first * Self.maximumSpanTokens + length - 1] = Int32(key)
                        }
                    }
                }
            }
            return keys
        }
    }

    // MARK: Entry point

    /// The best `limit` places, best first, without duplicates.
    mutating func run(limit: Int) -> [Ranked] {
        var results = search(.exact)
        if results.isEmpty { results = search(.approximate) }
        if results.isEmpty {
            // Last resort: a region or country named at the end of a part ("Smallville Ohio").
            results = search(.exact, administrativeAfterSkip: true).map { answer in
                var answer = answer
                answer.isExact = false
                return answer
            }
        }
        // A place found in a later part is exact only when the earlier parts were street addresses
        // ("1600 Amphitheatre Pkwy, Mountain View"), not words that named nothing ("Smallville, Ohio").
        for index in results.indices where results[index].part > 0 {
            if parts[..<results[index].part].contains(where: { !$0.isAddressLike }) { results[index].isExact = false }
        }
        if let best = results.first, store.isAdministrative(best.place), best.part > 0 || best.skip > 0 {
            // "Seatle, WA": the city words failed but a region matched after them: look for a
            // prefix or near spelling of the city inside that region before settling for it.
            let store = self.store
            let within = Set(
                results.filter {
                    $0.part == best.part && $0.noise == best.noise && $0.skip == best.skip
                        && store.isAdministrative($0.place)
                }.map(\.place))
            let refined =
                best.skip > 0
                ? refine(part: best.part, end: best.skip, within: within)
                : refine(part: best.part - 1, end: parts[best.part - 1].tokenCount, within: within)
            if !refined.isEmpty { results = refined + results }
        }
        var best: [Ranked] = []
        for answer in results where !best.contains(where: { $0.place == answer.place }) {
            best.append(answer)
            if best.count == limit { break }
        }
        return best
    }

    // MARK: Search over parts

    /// Ranked places of the first part that has any. Words may be skipped at the start of an
    /// address-like part, and of any part when `administrativeAfterSkip` (then only regions
    /// and countries are taken after the skipped words).
    private mutating func search(_ mode: Mode, administrativeAfterSkip: Bool = false) -> [Ranked] {
        var skipped: [Ranked] = []
        for index in parts.indices {
            var found: [Ranked] = []
            let part = parts[index]
            let lastSkip = part.isAddressLike || administrativeAfterSkip ? part.tokenCount - 1 : 0
            for skip in 0...lastSkip {
                let onlyAdministrative = administrativeAfterSkip && !part.isAddressLike && skip > 0
                let longest = min(part.tokenCount, skip + Self.maximumSpanTokens)
                for end in stride(from: longest, to: skip, by: -1) {
                    // The words after the name must be region or country names for some place.
                    guard end == part.tokenCount || isQualifiable(part: index, from: end) else { continue }
                    // "221B Baker Street": after a street name, "Street" is not the town of Street.
                    if skip > 0 && end - skip == 1 && Self.isStreetWord(part, token: skip) { continue }
                    let candidates = self.candidates(mode, part: index, first: skip, end: end)
                    for (posting, factor) in candidates where posting.flag != .qualifierOnly {
                        if onlyAdministrative && !store.isAdministrative(posting.place) { continue }
                        guard let noise = qualifierNoise(of: posting.place, part: index, from: end) else {
                            continue
                        }
                        var answer = ranked(
                            posting, part: index, noise: noise, skip: skip, factor: factor,
                            placeTokens: end - skip)
                        answer.isExact = mode == .exact
                        found.append(answer)
                    }
                }
            }
            if !found.isEmpty {
                preferMainCities(&found)
                found.sort { $0.isBetter(than: $1) }
                // A name found only after skipping words of an address ("221B Baker Street" →
                // the town of Street) yields to a later part that is a place on its own.
                if found[0].skip == 0 { return found + skipped }
                if skipped.isEmpty { skipped = found }
            }
        }
        return skipped
    }

    /// The kinds of street that end a street name in an address; never a place after skipped words.
    static let streetWords: Set<[UInt8]> = Set(
        [
            "street", "st", "road", "rd", "avenue", "ave", "lane", "ln", "drive", "dr", "boulevard", "blvd",
            "way", "court", "ct", "place", "pl", "square", "sq", "parkway", "pkwy", "highway", "hwy", "terrace",
            "close", "crescent", "row", "strasse", "str", "weg", "calle", "rue", "via", "straat",
        ].map { Array($0.utf8) })

    static func isStreetWord(_ part: GazetteerQueryPart, token: Int) -> Bool {
        streetWords.contains(Array(part.bytes[part.tokens[token]]))
    }

    /// When a region and its main city (the city its coordinate comes from) answer the same
    /// name, the city ranks first: "New York", "São Paulo" mean the city.
    private func preferMainCities(_ found: inout [Ranked]) {
        var regionWeights: [Int32: Double] = [:]
        for answer in found where store.kind(of: Int(answer.place)) == .region {
            regionWeights[answer.place] = max(regionWeights[answer.place] ?? 0, answer.weight)
        }
        guard !regionWeights.isEmpty else { return }
        for index in found.indices {
            let city = Int(found[index].place)
            let region = store.regionOf[city]
            guard store.kind(of: city) == .city, let weight = regionWeights[region],
                found[index].weight <= weight,
                store.latitudes[city] == store.latitudes[Int(region)],
                store.longitudes[city] == store.longitudes[Int(region)]
            else { continue }
            found[index].weight = weight.nextUp
        }
    }

    /// Cities of the regions or countries `within` whose name starts with, or nearly spells,
    /// tokens `..<end` of part `index` (qualifiers already matched, so none are checked here).
    private mutating func refine(part index: Int, end: Int, within: Set<Int32>) -> [Ranked] {
        let part = parts[index]
        let lastSkip = part.isAddressLike ? end - 1 : 0
        do {
            var found: [Ranked] = []
            for skip in 0...lastSkip {
                for (posting, factor) in candidates(.approximate, part: index, first: skip, end: end)
                where posting.flag != .qualifierOnly && !store.isAdministrative(posting.place) {
                    let place = Int(posting.place)
                    guard within.contains(store.regionOf[place]) || within.contains(store.countryOf[place])
                    else { continue }
                    var answer = ranked(
                        posting, part: 0, noise: 0, skip: skip, factor: factor, placeTokens: end - skip)
                    answer.isExact = false
                    found.append(answer)
                }
            }
            return found.sorted { $0.isBetter(than: $1) }
        }
    }

    private func ranked(
        _ posting: GazetteerPosting, part: Int, noise: Int, skip: Int, factor: Double, placeTokens: Int
    ) -> Ranked {
        let place = Int(posting.place)
        let kind = store.kind(of: place)
        var weight = Double(max(store.populations[place], 1)) * factor
        if posting.flag == .alternate { weight *= Self.alternateWeight }
        if kind == .region { weight *= Self.regionWeight }
        return Ranked(
            place: posting.place, part: part, noise: noise, skip: skip,
            placeTokens: placeTokens, isCountry: kind == .country, weight: weight)
    }

    // MARK: Candidates of one span

    private mutating func candidates(_ mode: Mode, part index: Int, first: Int, end: Int)
        -> [(GazetteerPosting, Double)]
    {
        switch mode {
        case .exact:
            guard end - first <= Self.maximumSpanTokens else { return [] }
            let key = spanKeys[index][first * Self.maximumSpanTokens + end - first - 1]
            guard key >= 0 else { return [] }
            return postings(ofKey: Int(key)).map { ($0, 1) }
        case .approximate:
            let part = parts[index]
            guard let script = part.approximateScript else { return [] }
            let range = part.byteRange(first, end)
            var found: [(GazetteerPosting, Double)] = []
            var keys: [(Int, Double)] = []
            part.bytes.withUnsafeBufferPointer { bytes in
                let span = UnsafeBufferPointer(rebasing: bytes[range])
                if span.count >= Self.minimumPrefixBytes {
                    // A completion counts half, and half again for each word the key has
                    // beyond the query: "San Fran" → "San Francisco" before "San Francisco de
                    // Quito".
                    for key in store.keys(withPrefix: span, maximum: Self.maximumPrefixKeys, text: base) {
                        let extraWords = store.wordCount(ofKey: key, after: span.count, text: base)
                        keys.append((key, Self.prefixFactor * pow(Self.prefixFactor, Double(extraWords))))
                    }
                }
                if span.count >= Self.minimumFuzzyBytes {
                    // Each edit divides the population by ten: "Sattle" → Seattle rather than
                    // the village of Sattledt.
                    let bound = span.count >= 8 ? 2 : 1
                    store.forEachKey(near: span, maximumDistance: bound, text: base) { key, distance in
                        keys.append((key, pow(Self.editFactor, Double(distance))))
                    }
                }
            }
            for (key, factor) in keys where store.script(ofKey: key, text: base) == script {
                for posting in postings(ofKey: key) { found.append((posting, factor)) }
            }
            return found
        }
    }

    private mutating func postings(ofKey key: Int) -> [GazetteerPosting] {
        if let index = cachedKeys.firstIndex(of: key) { return cachedPostings[index] }
        var list: [GazetteerPosting] = []
        store.appendPostings(ofKey: key, to: &list, text: base)
        if cachedKeys.count < 64 {
            cachedKeys.append(key)
            cachedPostings.append(list)
        }
        return list
    }

    // MARK: Qualifiers

    /// The number of ignored words when the tokens after the place name (the rest of part
    /// `index` from token `from`, then every later part) qualify `place`; nil when they do not.
    private mutating func qualifierNoise(of place: Int32, part index: Int, from: Int) -> Int? {
        if from == parts[index].tokenCount && index == parts.count - 1 { return 0 }
        let targets = qualifierTargets(of: place)
        guard let strict = cost(part: index, from: from, targets: targets, noiseAllowed: false) else {
            return nil
        }
        var noise = strict
        for later in parts.indices where later > index {
            guard let extra = cost(part: later, from: 0, targets: targets, noiseAllowed: true) else {
                return nil
            }
            noise += extra
        }
        return noise
    }

    /// The places a qualifier may name for `place`: its region and country (a region or a
    /// country may also repeat itself, "New York, NY").
    private func qualifierTargets(of place: Int32) -> (Int32, Int32) {
        let index = Int(place)
        switch store.kind(of: index) {
        case .country: return (place, place)
        case .region: return (place, store.countryOf[index])
        default: return (store.regionOf[index], store.countryOf[index])
        }
    }

    /// Minimum noise to consume tokens `from..<end` of a part as qualifier spans; nil when
    /// impossible. A token may be noise only if `noiseAllowed` and it names no region or country.
    private mutating func cost(part index: Int, from: Int, targets: (Int32, Int32), noiseAllowed: Bool)
        -> Int?
    {
        let count = parts[index].tokenCount
        guard from < count else { return 0 }
        let impossible = Int.max / 2
        return withUnsafeTemporaryAllocation(of: Int.self, capacity: count - from + 1) { costs in
            costs.initialize(repeating: impossible)
            costs[0] = 0
            return cost(part: index, from: from, targets: targets, noiseAllowed: noiseAllowed, costs: costs)
        }
    }

    private mutating func cost(
        part index: Int, from: Int, targets: (Int32, Int32), noiseAllowed: Bool,
        costs: UnsafeMutableBufferPointer<Int>
    ) -> Int? {
        let count = parts[index].tokenCount
        let impossible = Int.max / 2
        for end in (from + 1)...count {
            var best = impossible
            if noiseAllowed, costs[end - 1 - from] < impossible,
                !namesAdministrativePlace(part: index, token: end - 1)
            {
                best = costs[end - 1 - from] + 1
            }
            for first in max(from, end - Self.maximumSpanTokens)..<end where costs[first - from] < best {
                if spanNames(part: index, first: first, end: end, targets: targets) {
                    best = costs[first - from]
                }
            }
            costs[end - from] = best
        }
        let total = costs[count - from]
        return total < impossible ? total : nil
    }

    /// True when tokens `from...` of a part split into spans that each name some region or
    /// country (a quick test before checking every candidate).
    private mutating func isQualifiable(part index: Int, from: Int) -> Bool {
        let count = parts[index].tokenCount
        guard from < count else { return true }
        var reachable = [Bool](repeating: false, count: count - from + 1)
        reachable[0] = true
        for end in (from + 1)...count {
            for first in max(from, end - Self.maximumSpanTokens)..<end where reachable[first - from] {
                let key = spanKeys[index][first * Self.maximumSpanTokens + end - first - 1]
                if key >= 0 && postings(ofKey: Int(key)).contains(where: { store.isAdministrative($0.place) }) {
                    reachable[end - from] = true
                    break
                }
            }
        }
        return reachable[count - from]
    }

    private mutating func spanNames(part index: Int, first: Int, end: Int, targets: (Int32, Int32)) -> Bool {
        let key = spanKeys[index][first * Self.maximumSpanTokens + end - first - 1]
        guard key >= 0 else { return false }
        return postings(ofKey: Int(key)).contains { $0.place == targets.0 || $0.place == targets.1 }
    }

    private mutating func namesAdministrativePlace(part index: Int, token: Int) -> Bool {
        let key = spanKeys[index][token * Self.maximumSpanTokens]
        guard key >= 0 else { return false }
        return postings(ofKey: Int(key)).contains { store.isAdministrative($0.place) }
    }
}
