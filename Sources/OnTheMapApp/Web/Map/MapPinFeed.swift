import Foundation
import OnTheMapService

/// The pins the web map shows: the most recent posts, newest update first, read from the
/// directory and kept for a few seconds so that many open pages polling at once cost one
/// directory call.
public actor MapPinFeed {
    public typealias Load = @Sendable () async throws -> [StudentLocation]

    private let load: Load
    private let maxAge: Duration
    private let limit: Int
    private let clock = ContinuousClock()
    private var cached: (pins: [StudentLocation], at: ContinuousClock.Instant)?
    private var inFlight: Task<[StudentLocation], any Error>?

    /// Reads through `load`, keeping an answer for `maxAge`.
    public init(limit: Int = 100, maxAge: Duration = .seconds(5), load: @escaping Load) {
        self.load = load
        self.maxAge = maxAge
        self.limit = limit
    }

    /// Reads the `limit` most recent pins of `directory`.
    public init(directory: any StudentDirectory, limit: Int = 100, maxAge: Duration = .seconds(5)) {
        self.init(limit: limit, maxAge: maxAge) {
            try await directory.recentLocations(limit: limit, skip: 0)
        }
    }

    /// The most recent pins (at most `limit`), newest update first. Throws the directory's error
    /// when it cannot be read and nothing fresh enough is cached.
    public func pins() async throws -> [StudentLocation] {
        if let cached, clock.now - cached.at < maxAge {
            return cached.pins
        }
        if let inFlight {
            return try await inFlight.value
        }
        let load = self.load
        let limit = self.limit
        let task = Task {
            let pins = try await load()
            // Newest update first; ties keep the directory's order.
            let ordered = pins.enumerated().sorted {
                $0.element.updatedAt != $1.element.updatedAt
                    ? $0.element.updatedAt > $1.element.updatedAt : $0.offset < $1.offset
            }
            return Array(ordered.prefix(limit).map(\.element))
        }
        inFlight = task
        defer { inFlight = nil }
        let pins = try await task.value
        cached = (pins, clock.now)
        return pins
    }
}
