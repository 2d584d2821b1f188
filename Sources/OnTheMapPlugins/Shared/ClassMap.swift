import Foundation
import OnTheMapService

/// The bot's copy of the class map: the most recent pins (the seeds' table of 100, newest update
/// first) and a nearest-neighbour index over them. Loaded on first use, again on `!refresh` and
/// on every announcer poll; pins the bot saves itself are added at once.
public actor ClassMap {
    /// What one download found.
    public struct Refresh: Sendable {
        /// Every pin now on the map, newest update first.
        public var pins: [StudentLocation]
        /// Pins that were not on the map before, or were updated since (newest first).
        public var fresh: [StudentLocation]
    }

    private let directory: any StudentDirectory
    private let limit: Int
    private var pins: [StudentLocation] = []
    private var index = NearestIndex<StudentLocation>(locations: [])
    /// The pins' names folded for `!where`, in the order of ``pins``.
    private var names: [NameMatcher.FoldedName] = []
    private var loaded = false

    public init(directory: any StudentDirectory, limit: Int = 100) {
        self.directory = directory
        self.limit = limit
    }

    /// Downloads the most recent pins again. Throws the directory's `ServiceError`; the old map
    /// stays in place when it does.
    @discardableResult
    public func refresh() async throws -> Refresh {
        let downloaded = try await directory.recentLocations(limit: limit, skip: 0)
        let known = Set(pins.map(Self.version))
        let fresh = loaded ? downloaded.filter { !known.contains(Self.version($0)) } : []
        replace(with: downloaded)
        return Refresh(pins: downloaded, fresh: fresh)
    }

    /// The pins, newest update first, loading them once if nothing was loaded yet.
    public func recent() async throws -> [StudentLocation] {
        if !loaded { try await refresh() }
        return pins
    }

    /// ``recent()`` with each pin's names folded for matching (folded once per download).
    func recentWithNames() async throws -> [(pin: StudentLocation, name: NameMatcher.FoldedName)] {
        if !loaded { try await refresh() }
        return Array(zip(pins, names))
    }

    /// The nearest-neighbour index over ``recent()``.
    public func nearestIndex() async throws -> NearestIndex<StudentLocation> {
        if !loaded { try await refresh() }
        return index
    }

    /// Adds (or moves) a pin the bot just saved, so every command sees it at once.
    public func record(_ pin: StudentLocation) {
        // Not loaded yet: the first load will fetch it from the directory.
        guard loaded else { return }
        var updated = pins.filter { $0.objectId != pin.objectId && $0.uniqueKey != pin.uniqueKey }
        updated.insert(pin, at: 0)
        replace(with: Array(updated.prefix(limit)))
    }

    /// Whether anything was loaded yet.
    public var isLoaded: Bool { loaded }

    private func replace(with downloaded: [StudentLocation]) {
        pins = downloaded
        index = NearestIndex(locations: downloaded)
        names = downloaded.map(NameMatcher.FoldedName.init)
        loaded = true
    }

    /// A pin's identity at one moment: a new post, or an update of an old one, gives a new version.
    nonisolated static func version(_ pin: StudentLocation) -> String {
        "\(pin.objectId)@\(Int64((pin.updatedAt.timeIntervalSince1970 * 1000).rounded()))"
    }
}
