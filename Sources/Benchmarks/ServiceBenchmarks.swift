import Foundation
import OnTheMapService
import SQLiteDirectory

/// Times nearest-k queries (k = 5) on random pins spread uniformly over the sphere.
enum NearestBenchmark {
    static func run() {
        print("Nearest-k (k = 5), random pins, one core")
        for pinCount in [100, 10_000, 1_000_000] {
            let base = Date()
            let entries = (0..<pinCount).map { number in
                NearestIndex<Int>.Entry(
                    coordinate: randomCoordinate(), payload: number, key: "k\(number)",
                    updatedAt: base.addingTimeInterval(Double(number)))
            }
            let clock = ContinuousClock()
            var index: NearestIndex<Int>?
            let buildTime = clock.measure { index = NearestIndex(entries: entries) }
            guard let index else { continue }
            let queries = (0..<20_000).map { _ in randomCoordinate() }
            var checksum = 0
            var times: [Duration] = []
            times.reserveCapacity(queries.count)
            for (number, query) in queries.enumerated() {
                let excluded = "k\(number % pinCount)"
                let start = clock.now
                let answer = index.nearest(to: query, k: 5, excludingKey: excluded)
                times.append(clock.now - start)
                checksum &+= answer.first?.payload ?? 0
            }
            times.sort()
            let median = times[times.count / 2]
            let p99 = times[times.count * 99 / 100]
            print(
                "  \(pad(pinCount)) pins: build \(format(buildTime)), query median \(format(median)), "
                    + "p99 \(format(p99)) (\(queries.count) queries, checksum \(checksum % 1000))")
        }
    }

    static func randomCoordinate() -> Coordinate {
        let z = Double.random(in: -1...1)
        return Coordinate(latitude: asin(z) * 180 / .pi, longitude: Double.random(in: -180...180))
    }
}

/// Times the SQLite directory's writes and reads on a temporary file (WAL mode).
enum SQLiteBenchmark {
    static func run() async {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "onthemap-bench-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        do {
            let directory = try SQLiteStudentDirectory(path: folder.appendingPathComponent("bench.sqlite").path)
            let count = 2_000
            let clock = ContinuousClock()
            // The pins are kept as typed (the exact level): the directory's own cost is measured.
            let asTyped = PinCoarsener(finder: nil, cityMinimumPopulation: 0)
            let kept: @Sendable (PinDraft) async -> KeptPin = { await asTyped.coarsen($0, to: .exact) }
            var pins: [StudentLocation] = []
            pins.reserveCapacity(count)
            let createTime = try await clock.measure {
                for number in 0..<count {
                    pins.append(try await directory.createLocation(await kept(draft(number)), session: nil))
                }
            }
            let updateTime = try await clock.measure {
                for (number, pin) in pins.enumerated() {
                    _ = try await directory.updateLocation(
                        objectId: pin.objectId, with: await kept(draft(number)), session: nil)
                }
            }
            let listRounds = 500
            let listTime = try await clock.measure {
                for _ in 0..<listRounds { _ = try await directory.recentLocations(limit: 100, skip: 0) }
            }
            print("SQLite directory (temporary file, WAL, \(count) pins)")
            print("  creates: \(perSecond(count, createTime))/s")
            print("  updates: \(perSecond(count, updateTime))/s")
            print("  list 100 most recent: \(perSecond(listRounds, listTime))/s")
            try directory.close()
        } catch {
            print("SQLite benchmark failed: \(error)")
        }
    }

    static func draft(_ number: Int) -> PinDraft {
        PinDraft(
            uniqueKey: "student-\(number)", firstName: "Student", lastName: "\(number)", mapString: "Somewhere",
            mediaURL: "https://example.com/\(number)",
            coordinate: Coordinate(latitude: Double(number % 180) - 89.5, longitude: Double(number % 360) - 179.5))
    }
}

private func pad(_ number: Int) -> String {
    let text = number.formatted()
    return String(repeating: " ", count: max(0, 9 - text.count)) + text
}

private func format(_ duration: Duration) -> String {
    let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    if seconds >= 1 { return String(format: "%.2f s", seconds) }
    if seconds >= 1e-3 { return String(format: "%.1f ms", seconds * 1e3) }
    return String(format: "%.1f µs", seconds * 1e6)
}

private func perSecond(_ count: Int, _ duration: Duration) -> String {
    let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    return String(format: "%.0f", Double(count) / max(seconds, 1e-9))
}
