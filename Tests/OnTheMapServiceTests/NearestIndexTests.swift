import Foundation
import Testing

@testable import OnTheMapService

@Suite("Nearest-k index")
struct NearestIndexTests {
    struct Pin: Sendable {
        var id: Int
        var coordinate: Coordinate
        var key: String
        var updatedAt: Date
    }

    /// Reference answer: haversine to every pin, sorted by distance, then most recent, then input order.
    static func bruteForce(_ pins: [Pin], origin: Coordinate, k: Int, excluding: String?) -> [(id: Int, km: Double)] {
        func isBefore(_ a: (id: Int, km: Double), _ b: (id: Int, km: Double)) -> Bool {
            if a.km != b.km { return a.km < b.km }
            if pins[a.id].updatedAt != pins[b.id].updatedAt { return pins[a.id].updatedAt > pins[b.id].updatedAt }
            return a.id < b.id
        }
        var best: [(id: Int, km: Double)] = []
        for pin in pins where pin.key != excluding {
            let candidate = (id: pin.id, km: GreatCircle.distanceKilometres(origin, pin.coordinate))
            if best.count == k, let last = best.last, !isBefore(candidate, last) { continue }
            let position = best.firstIndex { isBefore(candidate, $0) } ?? best.count
            best.insert(candidate, at: position)
            if best.count > k { best.removeLast() }
        }
        return best
    }

    static func randomPins(count: Int, using generator: inout SplitMix64) -> [Pin] {
        var pins: [Pin] = []
        for id in 0..<count {
            let coordinate: Coordinate
            switch id % 10 {
            case 0 where id > 0:
                // A duplicate spot of an earlier pin, with another time.
                coordinate = pins[Int.random(in: 0..<pins.count, using: &generator)].coordinate
            case 1:
                // Crowd the antimeridian.
                coordinate = Coordinate(
                    latitude: Double.random(in: -60...60, using: &generator),
                    longitude: Bool.random(using: &generator)
                        ? Double.random(in: 179.5...180, using: &generator)
                        : Double.random(in: -180 ... -179.5, using: &generator))
            case 2:
                // And the poles.
                coordinate = Coordinate(
                    latitude: Bool.random(using: &generator)
                        ? Double.random(in: 89...90, using: &generator)
                        : Double.random(in: -90 ... -89, using: &generator),
                    longitude: Double.random(in: -180...180, using: &generator))
            default:
                // Uniform on the sphere.
                let z = Double.random(in: -1...1, using: &generator)
                coordinate = Coordinate(
                    latitude: asin(z) * 180 / .pi, longitude: Double.random(in: -180...180, using: &generator))
            }
            pins.append(
                Pin(
                    id: id, coordinate: coordinate, key: "k\(id % (count / 2 + 1))",
                    updatedAt: Date(timeIntervalSince1970: Double(Int.random(in: 0..<1_000, using: &generator)))))
        }
        return pins
    }

    static func queries(using generator: inout SplitMix64, pins: [Pin]) -> [Coordinate] {
        var queries: [Coordinate] = [
            Coordinate(latitude: 90, longitude: 0), Coordinate(latitude: -90, longitude: 123),
            Coordinate(latitude: 0, longitude: 180), Coordinate(latitude: 0, longitude: -180),
            Coordinate(latitude: 45, longitude: 179.99), Coordinate(latitude: -45, longitude: -179.99),
        ]
        for _ in 0..<150 {
            queries.append(
                Coordinate(
                    latitude: Double.random(in: -90...90, using: &generator),
                    longitude: Double.random(in: -180...180, using: &generator)))
        }
        // Queries exactly on pins (distance 0, duplicates).
        for _ in 0..<30 { queries.append(pins[Int.random(in: 0..<pins.count, using: &generator)].coordinate) }
        return queries
    }

    /// Built from entries (keys as strings, coordinates kept) or, `fromParallelArrays`, from a
    /// count, a coordinate closure and numbered owners (coordinates read back from unit vectors).
    static func check(pinCount: Int, seed: UInt64, fromParallelArrays: Bool = false) {
        var generator = SplitMix64(seed: seed)
        let pins = randomPins(count: pinCount, using: &generator)
        var keyIds: [String: Int32] = [:]
        for pin in pins where keyIds[pin.key] == nil { keyIds[pin.key] = Int32(keyIds.count) }
        let index =
            fromParallelArrays
            ? NearestIndex(
                count: pins.count, coordinate: { pins[$0].coordinate }, payloads: pins.map(\.id),
                keyIds: pins.map { keyIds[$0.key]! },
                updatedAt: pins.map { $0.updatedAt.timeIntervalSinceReferenceDate })
            : NearestIndex(
                entries: pins.map {
                    .init(coordinate: $0.coordinate, payload: $0.id, key: $0.key, updatedAt: $0.updatedAt)
                })
        #expect(index.count == pinCount)
        for (number, origin) in queries(using: &generator, pins: pins).enumerated() {
            let k = [1, 5, 10, 25][number % 4]
            let excluding: String? = number % 3 == 0 ? pins[number % pins.count].key : nil
            let expected = bruteForce(pins, origin: origin, k: k, excluding: excluding)
            let answer =
                fromParallelArrays
                ? index.nearest(to: origin, k: k, excludingKeyId: excluding.flatMap { keyIds[$0] })
                : index.nearest(to: origin, k: k, excludingKey: excluding)
            #expect(answer.count == expected.count)
            for (rank, (got, want)) in zip(answer, expected).enumerated() {
                #expect(abs(got.distanceKilometres - want.km) < 1e-6, "rank \(rank) at \(origin)")
                // Distinct distances must give the same pin; exact ties must follow recency.
                let wantPin = pins[want.id]
                let gotPin = pins[got.payload]
                if gotPin.id != wantPin.id {
                    #expect(
                        abs(GreatCircle.distanceKilometres(origin, gotPin.coordinate) - want.km) < 1e-6
                            && gotPin.coordinate != wantPin.coordinate,
                        "rank \(rank): got pin \(gotPin.id), want \(wantPin.id)")
                }
                if fromParallelArrays {
                    #expect(abs(got.coordinate.latitude - gotPin.coordinate.latitude) < 1e-7)
                    // Longitude means nothing at a pole.
                    if abs(gotPin.coordinate.latitude) < 89.999 {
                        #expect(abs(got.coordinate.longitude - gotPin.coordinate.longitude) < 1e-7)
                    }
                } else {
                    #expect(got.coordinate == gotPin.coordinate)
                }
                if let excluding { #expect(gotPin.key != excluding) }
            }
        }
    }

    @Test func matchesBruteForceBelowTheTreeThreshold() {
        Self.check(pinCount: 2_000, seed: 1)
    }

    @Test func treeMatchesBruteForce() {
        #expect(NearestIndex<Int>.bruteForceLimit <= 25_000)
        Self.check(pinCount: 25_000, seed: 7)
    }

    /// The class map's way in: no coordinates kept, each answer's read back from its unit vector.
    @Test func treeFromParallelArraysMatchesBruteForce() {
        Self.check(pinCount: 25_000, seed: 11, fromParallelArrays: true)
        Self.check(pinCount: 2_000, seed: 12, fromParallelArrays: true)
    }

    @Test func tiesGoToTheMostRecentPin() {
        let spot = Coordinate(latitude: 47.6, longitude: -122.3)
        for count in [10, 12_000] {  // brute force and tree
            var locations: [StudentLocation] = (0..<count).map { i in
                Self.location(
                    "far\(i)", key: "far\(i)",
                    at: Coordinate(latitude: -40 + Double(i % 80), longitude: Double(i % 300) - 150),
                    updated: 50)
            }
            locations.append(Self.location("old", key: "a", at: spot, updated: 100))
            locations.append(Self.location("new", key: "b", at: spot, updated: 200))
            locations.append(Self.location("mid", key: "c", at: spot, updated: 150))
            let index = NearestIndex(locations: locations)
            let answer = index.nearest(to: spot, k: 3)
            #expect(answer.map(\.payload.objectId) == ["new", "mid", "old"])
            #expect(answer.allSatisfy { $0.distanceKilometres == 0 })
            // The asker's own pin is left out.
            #expect(index.nearest(to: spot, k: 2, excludingKey: "b").map(\.payload.objectId) == ["mid", "old"])
        }
    }

    @Test func smallAndDegenerateInputs() {
        let empty = NearestIndex<Int>(entries: [])
        #expect(empty.nearest(to: Coordinate(latitude: 0, longitude: 0), k: 5).isEmpty)

        let pairs: [(coordinate: Coordinate, payload: String)] = [
            (Coordinate(latitude: 45.5152, longitude: -122.6784), "Portland"),
            (Coordinate(latitude: 49.2827, longitude: -123.1207), "Vancouver"),
            (Coordinate(latitude: 37.7749, longitude: -122.4194), "San Francisco"),
            (Coordinate(latitude: .nan, longitude: 0), "broken"),
            (Coordinate(latitude: 91, longitude: 0), "off the globe"),
        ]
        let index = NearestIndex(pairs)
        #expect(index.count == 3)
        let seattle = Coordinate(latitude: 47.6062, longitude: -122.3321)
        let answer = index.nearest(to: seattle, k: 10)
        #expect(answer.map(\.payload) == ["Vancouver", "Portland", "San Francisco"])
        #expect(abs(answer[1].distanceKilometres - 234.01) < 0.05)
        #expect(index.nearest(to: seattle, k: 0).isEmpty)
        #expect(index.nearest(to: Coordinate(latitude: .infinity, longitude: 0), k: 1).isEmpty)
    }

    static func location(_ objectId: String, key: String, at coordinate: Coordinate, updated: Double)
        -> StudentLocation
    {
        StudentLocation(
            objectId: objectId, uniqueKey: key, firstName: objectId, lastName: "", mapString: "somewhere",
            mediaURL: "", coordinate: coordinate, createdAt: Date(timeIntervalSince1970: 0),
            updatedAt: Date(timeIntervalSince1970: updated))
    }
}
