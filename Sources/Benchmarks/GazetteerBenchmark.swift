import Foundation
import OnTheMapService

/// Measures the offline gazetteer: load time, lookups per second, resident memory.
enum GazetteerBenchmark {
    static func run() {
        let rssBefore = residentMemoryKB()
        let loadStart = ContinuousClock.now
        let geocoder: GazetteerGeocoder
        do {
            geocoder = try GazetteerGeocoder.loadBundled()
        } catch {
            print("gazetteer: load failed: \(error)")
            return
        }
        let loadTime = ContinuousClock.now - loadStart
        let rssAfter = residentMemoryKB()
        print("gazetteer: \(geocoder.placeCount) places, \(geocoder.nameCount) names")
        print("gazetteer: load \(milliseconds(loadTime)) ms")
        if let rssBefore, let rssAfter {
            print(
                "gazetteer: resident memory \(rssAfter / 1024) MB after load"
                    + " (+\((rssAfter - rssBefore) / 1024) MB)"
            )
        }

        let exact = [
            "Seattle, WA", "Paris", "London, UK", "Austin TX", "Costa Rica", "München", "New York",
            "Cambridge, MA", "Springfield", "Portland, Oregon", "Tokyo", "Sao Paulo", "Texas",
            "Toronto, ON", "Berlin, Germany", "Москва", "Mumbai", "Sydney, NSW", "Germany", "Lagos",
        ]
        let addresses = [
            "1600 Amphitheatre Pkwy, Mountain View, CA 94043", "10 Downing St, London",
            "221B Baker Street, London NW1 6XE, UK", "350 5th Ave, New York, NY 10118",
        ]
        let fallbacks = ["San Fran", "Seatle", "Pitsburgh", "xyzzy", "Seatle, WA", "asdfgh qwerty"]
        measure(geocoder, "exact (best answer)", exact, limit: 1, seconds: 1.0)
        measure(geocoder, "exact (5 answers)", exact, limit: 5, seconds: 1.0)
        measure(geocoder, "address (5 answers)", addresses, limit: 5, seconds: 1.0)
        measure(geocoder, "prefix/typo/unknown (5 answers)", fallbacks, limit: 5, seconds: 1.0)
        measureResolution(PlaceResolver(geocoder: geocoder), geocoder)
    }

    /// What `!post` step 1 does: resolution (non-place words, aliases, then the gazetteer's 10
    /// answers sorted into found / offered), timed per outcome.
    private static func measureResolution(_ resolver: PlaceResolver, _ geocoder: GazetteerGeocoder) {
        func resolve(_ query: String) -> PlaceResolution {
            resolver.resolve(query) { geocoder.lookup($0, limit: $1) }
        }
        let outcomes: [(String, [String])] = [
            (
                "exact",
                [
                    "Seattle, WA", "Paris", "Portland", "München", "Bombay", "NYC", "Bay Area", "the Ruhr",
                    "Москва", "10 Downing St, London",
                ]
            ),
            ("offered", ["Seatle", "San Fran", "Pitsburgh", "Philadelpia", "Smallville, Ohio", "Москв"]),
            (
                "refused",
                [
                    "online", "remote", "the moon", "N/A", "javascript:alert(1)", "jane@example.com", "xyzzy",
                    "asdfgh qwerty",
                ]
            ),
        ]
        for (outcome, queries) in outcomes {
            var counted: [String: Int] = [:]
            for query in queries { counted[label(of: resolve(query)), default: 0] += 1 }
            let mismatches = counted.filter { $0.key != outcome }.values.reduce(0, +)
            var count = 0
            let start = ContinuousClock.now
            let deadline = start + .seconds(1)
            while ContinuousClock.now < deadline {
                for query in queries { _ = resolve(query) }
                count += queries.count
            }
            let elapsed = ContinuousClock.now - start
            let perSecond = Double(count) / (Double(milliseconds(elapsed)) / 1000)
            print(
                "gazetteer: resolution, \(outcome): \(Int(perSecond))/s"
                    + " (\(queries.count) queries, \(mismatches) with another outcome)")
        }
    }

    private static func label(of resolution: PlaceResolution) -> String {
        switch resolution {
        case .found: return "exact"
        case .offered: return "offered"
        case .notAPlace, .notFound: return "refused"
        }
    }

    private static func measure(
        _ geocoder: GazetteerGeocoder, _ label: String, _ queries: [String], limit: Int, seconds: Double
    ) {
        var checksum = 0
        for query in queries { checksum &+= geocoder.lookup(query, limit: limit).count }  // warm up
        var count = 0
        let start = ContinuousClock.now
        let deadline = start + .milliseconds(Int(seconds * 1000))
        while ContinuousClock.now < deadline {
            for query in queries {
                checksum &+= geocoder.lookup(query, limit: limit).count
            }
            count += queries.count
        }
        let elapsed = ContinuousClock.now - start
        let perSecond = Double(count) / (Double(milliseconds(elapsed)) / 1000)
        print(
            "gazetteer: \(label) lookups: \(Int(perSecond))/s"
                + " (\(count) in \(milliseconds(elapsed)) ms, checksum \(checksum))"
        )
    }

    private static func milliseconds(_ duration: Duration) -> Int64 {
        duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
    }

    /// VmRSS of this process in kB (Linux), nil elsewhere.
    static func residentMemoryKB() -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else {
            return nil
        }
        for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
        }
        return nil
    }
}
