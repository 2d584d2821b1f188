import Foundation

extension GazetteerGeocoder: TimeZoneFinder {
    public func timeZone(ofPinAt coordinate: Coordinate, named name: String) async -> PlaceTimeZone {
        pinTimeZone(at: coordinate, named: name)
    }

    public func timeZone(near coordinate: Coordinate) async -> PlaceTimeZone {
        nearestTimeZone(to: coordinate)
    }

    public func timeZones(ofPinAt coordinate: Coordinate, named name: String) async -> [String] {
        switch pinTimeZone(at: coordinate, named: name) {
        case .zone(let identifier): return [identifier]
        case .unknown: return []
        case .several:
            // Only a country is `.several`: the zones of its places (one pass over a column).
            guard let place = place(at: coordinate, named: name) else { return [] }
            let country = store.countryOf[place]
            var zones = Set<Int16>()
            for other in 0..<store.placeCount where store.countryOf[other] == country && store.zoneOf[other] >= 0 {
                zones.insert(store.zoneOf[other])
            }
            return zones.map { store.zoneNames[Int($0)] }.sorted()
        }
    }

    /// The zone of a pin (see `TimeZoneFinder.timeZone(ofPinAt:named:)`), synchronously: the
    /// place's own zone when the pin is kept at a gazetteer place, else the nearest city's.
    public func pinTimeZone(at coordinate: Coordinate, named name: String) -> PlaceTimeZone {
        if let place = place(at: coordinate, named: name) { return store.zone(of: place) }
        return nearestTimeZone(to: coordinate)
    }

    /// The zone of the city nearest to `coordinate` (great-circle distance); `.unknown` for an
    /// invalid point. Reads only the in-memory columns, never the mapped file.
    public func nearestTimeZone(to coordinate: Coordinate) -> PlaceTimeZone {
        guard coordinate.isValid, let city = nearestCity(to: coordinate) else { return .unknown }
        return store.zone(of: city)
    }

    /// The IANA names of every zone the gazetteer uses, sorted.
    public var timeZoneIdentifiers: [String] { store.zoneNames }
}
