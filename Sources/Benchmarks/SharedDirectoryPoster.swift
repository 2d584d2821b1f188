import Foundation
import Logging
import OnTheMapService
import PostgresDirectory

/// Writes one pin into a shared PostgreSQL directory, as an instance's `!post` does, and once it
/// is committed prints `posted <Unix time in nanoseconds when the write began> <name>`
/// (`onthemap-bench post-pin POSTGRES_URL NUMBER`). `onthemap-load --post-command` runs it and
/// times from that instant to another instance's announcement of the name: the write's own time
/// is counted (the commit's notification can reach the other instance before the writer hears
/// that its commit succeeded).
enum SharedDirectoryPoster {
    static func run(url: String, number: Int) async {
        var logger = Logger(label: "onthemap-bench")
        logger.logLevel = .error
        do {
            let directory = try await PostgresStudentDirectory.connect(url: url, logger: logger)
            let name = "Poster\(number)"
            let started = Int64(Date().timeIntervalSince1970 * 1e9)
            let draft = PinDraft(
                uniqueKey: "bench-poster-\(number)", firstName: name, lastName: "Bench",
                mapString: "Lisbon", mediaURL: "https://example.com/posters/\(number)",
                coordinate: Coordinate(latitude: 38.72, longitude: -9.14))
            let pin = await PinCoarsener(finder: nil, cityMinimumPopulation: 0).coarsen(draft, to: .exact)
            _ = try await directory.createLocation(pin, session: nil)
            print("posted \(started) \(name)")
            await directory.shutdown()
        } catch {
            print("posting failed: \(error)")
            exit(1)
        }
    }
}
