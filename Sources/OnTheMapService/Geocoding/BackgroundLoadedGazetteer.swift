/// What the offline gazetteer knows of places besides finding them: the levels a pin is coarsened
/// to and the time zones of places and pins. Whatever geocoder finds places, these come from the
/// gazetteer; a stack assembled without it has none.
public typealias PlaceFacts = PlaceLevelFinder & TimeZoneFinder

/// The offline gazetteer, loading on another thread while the bot starts (it takes a tenth of a
/// second or so): calls made before it is ready wait for it. When loading fails, every geocoding
/// call throws a `ServiceError.backendFailure` that names the reason, levels are unknown (nil) and
/// zones `.unknown`.
public final class BackgroundLoadedGazetteer: Geocoder, PlaceFacts {
    private let loading: Task<Result<GazetteerGeocoder, any Error>, Never>

    /// Starts `load` at once, off the caller's task.
    public init(priority: TaskPriority? = nil, load: @escaping @Sendable () throws -> GazetteerGeocoder) {
        loading = Task.detached(priority: priority) { Result { try load() } }
    }

    /// Waits until the gazetteer is loaded; throws what loading threw.
    public func loaded() async throws -> GazetteerGeocoder {
        try await loading.value.get()
    }

    public func geocode(_ query: String, limit: Int) async throws -> [PlaceCandidate] {
        let gazetteer: GazetteerGeocoder
        do {
            gazetteer = try await loaded()
        } catch {
            throw ServiceError.backendFailure(status: nil, message: "the geocoder could not be loaded: \(error)")
        }
        return try await gazetteer.geocode(query, limit: limit)
    }

    /// The levels from the loaded gazetteer; nil while it cannot be loaded.
    public func levels(near coordinate: Coordinate, minimumPopulation: Int) async -> PlaceLevels? {
        guard let gazetteer = try? await loaded() else { return nil }
        return await gazetteer.levels(near: coordinate, minimumPopulation: minimumPopulation)
    }

    public func precision(of coordinate: Coordinate, named name: String) async -> PinPrecision {
        guard let gazetteer = try? await loaded() else { return .exact }
        return await gazetteer.precision(of: coordinate, named: name)
    }

    /// The zone from the loaded gazetteer; `.unknown` while it cannot be loaded.
    public func timeZone(ofPinAt coordinate: Coordinate, named name: String) async -> PlaceTimeZone {
        guard let gazetteer = try? await loaded() else { return .unknown }
        return await gazetteer.timeZone(ofPinAt: coordinate, named: name)
    }

    public func timeZone(near coordinate: Coordinate) async -> PlaceTimeZone {
        guard let gazetteer = try? await loaded() else { return .unknown }
        return await gazetteer.timeZone(near: coordinate)
    }

    public func timeZones(ofPinAt coordinate: Coordinate, named name: String) async -> [String] {
        guard let gazetteer = try? await loaded() else { return [] }
        return await gazetteer.timeZones(ofPinAt: coordinate, named: name)
    }
}
