/// A geocoder whose data loads on another thread while the bot starts (the offline gazetteer
/// takes a tenth of a second or so): queries made before it is ready wait for it. When loading
/// fails, every query throws a `ServiceError.backendFailure` that names the reason.
public final class BackgroundLoadedGeocoder: Geocoder {
    private let loading: Task<Result<any Geocoder, any Error>, Never>

    /// Starts `load` at once, off the caller's task.
    public init(priority: TaskPriority? = nil, load: @escaping @Sendable () throws -> any Geocoder) {
        loading = Task.detached(priority: priority) { Result { try load() } }
    }

    /// Waits until the geocoder is loaded; throws what loading threw.
    public func loaded() async throws -> any Geocoder {
        try await loading.value.get()
    }

    public func geocode(_ query: String, limit: Int) async throws -> [PlaceCandidate] {
        let geocoder: any Geocoder
        do {
            geocoder = try await loaded()
        } catch {
            throw ServiceError.backendFailure(status: nil, message: "the geocoder could not be loaded: \(error)")
        }
        return try await geocoder.geocode(query, limit: limit)
    }
}

extension BackgroundLoadedGeocoder: PlaceLevelFinder {
    /// The levels from the loaded geocoder, when it finds them (the gazetteer does); nil while it
    /// cannot be loaded.
    public func levels(near coordinate: Coordinate) async -> PlaceLevels? {
        guard let finder = try? await loaded() as? any PlaceLevelFinder else { return nil }
        return await finder.levels(near: coordinate)
    }

    public func precision(of coordinate: Coordinate, named name: String) async -> PinPrecision {
        guard let finder = try? await loaded() as? any PlaceLevelFinder else { return .exact }
        return await finder.precision(of: coordinate, named: name)
    }
}

extension BackgroundLoadedGeocoder: TimeZoneFinder {
    /// The zone from the loaded geocoder, when it knows zones (the gazetteer does); `.unknown`
    /// while it cannot be loaded.
    public func timeZone(ofPinAt coordinate: Coordinate, named name: String) async -> PlaceTimeZone {
        guard let finder = try? await loaded() as? any TimeZoneFinder else { return .unknown }
        return await finder.timeZone(ofPinAt: coordinate, named: name)
    }

    public func timeZone(near coordinate: Coordinate) async -> PlaceTimeZone {
        guard let finder = try? await loaded() as? any TimeZoneFinder else { return .unknown }
        return await finder.timeZone(near: coordinate)
    }
}
