import ClassKit
import Foundation
import OnTheMapService

/// The class's pins arranged for viewports (`/api/map/view.json`), built once per change of the
/// pin store rather than per request.
///
/// Clustering is a quadtree grid over Web Mercator: every point pin's position is written as a
/// 26-bit column and row interleaved bit by bit (a Morton code), and the pins are sorted by it.
/// A grid cell at any level is then one contiguous run of that order, found with two binary
/// searches, so one sorted array serves every zoom: at zoom `z` (a world `256·2^z` pixels wide)
/// the cells are those of level `z + 2` (64 pixels a side), a cell's count is the length of its
/// run and its centre the mean of its pins' positions, summed when a viewport asks for the cell.
///
/// A pin kept at region or country level (``PinPrecision``) is never a point: such pins are
/// counted per place (``Area``: "12 classmates in Germany") and left out of the grid.
///
/// What it keeps per point pin: the code (8 bytes) and the slot (4); per pin the newest-first order
/// of the Table tab (4). The store itself is not kept: a request gets the index with the store it
/// was built from (``MapPinFeed/view()``), so no second copy of the class lives between requests,
/// and a cell's centre is summed from that store's positions (prefix sums of latitude and
/// longitude would answer without the sum, for 16 bytes more a pin: 16 MiB at 1,000,000; summing the
/// world view's 1,000,000 pins takes about 15 ms, BENCHMARKS.md).
struct MapViewIndex: Sendable {
    /// Bits of the grid per axis (a cell of level 26 is about 60 cm at the equator).
    static let bits = 26
    /// The zooms a viewport may ask for.
    static let zooms = 0...18
    /// Cell level = zoom + this (cells 64 pixels a side on a 256-pixel tile).
    static let cellLevelsBelowZoom = 2
    /// From this zoom on, a cell of at most ``singlesPerCell`` pins sends its pins one by one.
    static let singlesZoom = 8
    static let singlesPerCell = 24
    /// Pins sent one by one in one answer at most; past it, further cells go as counts.
    static let singlesPerAnswer = 600
    /// Cells one viewport may cover (a 4K screen at 64 pixels a cell is about 2,000).
    static let maximumCells = 4_096
    /// Web Mercator's latitude limit.
    static let latitudeLimit = 85.051_128_78

    /// The pins of one place kept at region or country level.
    struct Area: Sendable, Equatable {
        var level: PinPrecision
        var place: String
        var coordinate: Coordinate
        /// Slots, newest first.
        var slots: [Int32]
    }

    /// A cell of the grid holding pins.
    struct Cell: Sendable, Equatable {
        var level: Int
        var column: Int
        var row: Int
        var count: Int
        var coordinate: Coordinate
        /// `level-column-row`, what `/api/map/names.json?cell=` takes.
        var key: String { "\(level)-\(column)-\(row)" }
    }

    /// The store revision and slot count it was built from (compaction keeps the revision).
    let revision: Int64
    let slotCount: Int
    /// When a lasting trip ends (its pin goes home): the index is stale then.
    let validUntil: Date
    private let codes: [UInt64]
    private let slots: [Int32]
    let areas: [Area]
    /// Every pin's slot, newest first (the Table tab's pages).
    let newestFirst: [Int32]

    var pointCount: Int { codes.count }
    var total: Int { newestFirst.count }

    /// Builds the index of `pins` (the store, where each pin shows at `pins.now`), with each slot's
    /// level from `levels` (a region- or country-level pin is counted on its place; a pin on a trip
    /// shows at the trip's place, a point).
    init(pins: MapPinFeed.Pins, levels: MapPinLevels) {
        let store = pins.store
        revision = store.revision
        slotCount = store.slotCount
        // A pin whose point is not a place on Earth is not shown (as in `/api/locations.json`).
        let shown = pins.slots.filter { store.coordinate(at: Int($0)).isValid }
        newestFirst = shown
        var entries: [(code: UInt64, slot: Int32)] = []
        entries.reserveCapacity(shown.count)
        var areaOfKey: [AreaKey: Int] = [:]
        var areas: [Area] = []
        var validUntil = Date.distantFuture
        for slot in shown {
            let place = Int(slot)
            if let trip = pins.trips[slot] {
                validUntil = min(validUntil, trip.trip.endsAt)
                entries.append((Self.code(trip.trip.coordinate), slot))
                continue
            }
            let level = levels.level(of: place)
            guard level == .region || level == .country else {
                entries.append((Self.code(store.coordinate(at: place)), slot))
                continue
            }
            let name = store.string(.mapString, at: place)
            let coordinate = store.coordinate(at: place)
            let key = AreaKey(level: level, place: name, latitude: coordinate.latitude, longitude: coordinate.longitude)
            if let index = areaOfKey[key] {
                areas[index].slots.append(slot)
            } else {
                areaOfKey[key] = areas.count
                areas.append(Area(level: level, place: name, coordinate: coordinate, slots: [slot]))
            }
        }
        self.validUntil = validUntil
        self.areas = areas
        entries.sort { $0.code != $1.code ? $0.code < $1.code : $0.slot < $1.slot }
        codes = entries.map(\.code)
        slots = entries.map(\.slot)
    }

    private struct AreaKey: Hashable {
        var level: PinPrecision
        var place: String
        var latitude: Double
        var longitude: Double
    }

    /// Whether it still describes `store` at `now`.
    func describes(_ store: PinStore, at now: Date) -> Bool {
        store.revision == revision && store.slotCount == slotCount && now < validUntil
    }

    /// The area of the place named `place` (region or country level), if a pin is kept there.
    func area(named place: String) -> Area? {
        areas.first { $0.place == place }
    }

    // MARK: The grid

    /// Column and row of `coordinate` on the finest grid (Web Mercator, row 0 in the north).
    static func gridPosition(_ coordinate: Coordinate) -> (column: UInt32, row: UInt32) {
        let size = Double(1 << bits)
        let x = (coordinate.longitude + 180) / 360
        let latitude = min(max(coordinate.latitude, -latitudeLimit), latitudeLimit) * .pi / 180
        let y = (1 - log(tan(latitude) + 1 / cos(latitude)) / .pi) / 2
        func clamp(_ value: Double) -> UInt32 { UInt32(min(max((value * size).rounded(.down), 0), size - 1)) }
        return (clamp(x), clamp(y))
    }

    static func code(_ coordinate: Coordinate) -> UInt64 {
        let (column, row) = gridPosition(coordinate)
        return spread(column) | spread(row) << 1
    }

    /// The bits of `value` at the even positions of the result.
    private static func spread(_ value: UInt32) -> UInt64 {
        var x = UInt64(value)
        x = (x | x << 16) & 0x0000_FFFF_0000_FFFF
        x = (x | x << 8) & 0x00FF_00FF_00FF_00FF
        x = (x | x << 4) & 0x0F0F_0F0F_0F0F_0F0F
        x = (x | x << 2) & 0x3333_3333_3333_3333
        x = (x | x << 1) & 0x5555_5555_5555_5555
        return x
    }

    /// The positions in the Morton order of the pins in cell `column`, `row` of `level`.
    func range(level: Int, column: Int, row: Int) -> Range<Int> {
        let shift = UInt64(2 * (Self.bits - level))
        let prefix = Self.spread(UInt32(column)) | Self.spread(UInt32(row)) << 1
        let low = prefix << shift
        let high = (prefix + 1) << shift
        return lowerBound(low)..<lowerBound(high)
    }

    private func lowerBound(_ code: UInt64) -> Int {
        var low = 0
        var high = codes.count
        while low < high {
            let middle = (low + high) / 2
            if codes[middle] < code { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// The slots at `positions` of the Morton order.
    func slots(in positions: Range<Int>) -> ArraySlice<Int32> { slots[positions] }

    /// The cell level of `zoom`.
    static func cellLevel(zoom: Int) -> Int { zoom + cellLevelsBelowZoom }

    /// The cells of `level` a viewport covers, west to east (two runs when it crosses the
    /// antimeridian) and north to south; nil when they are more than ``maximumCells``.
    static func cells(of viewport: Viewport, level: Int) -> (columns: [ClosedRange<Int>], rows: ClosedRange<Int>)? {
        let size = 1 << level
        func column(_ longitude: Double) -> Int {
            Int(gridPosition(Coordinate(latitude: 0, longitude: longitude)).column >> UInt32(bits - level))
        }
        func row(_ latitude: Double) -> Int {
            Int(gridPosition(Coordinate(latitude: latitude, longitude: 0)).row >> UInt32(bits - level))
        }
        let rows = row(viewport.north)...row(viewport.south)
        let columns: [ClosedRange<Int>]
        if viewport.west <= viewport.east {
            columns = [column(viewport.west)...column(viewport.east)]
        } else {
            columns = [column(viewport.west)...(size - 1), 0...column(viewport.east)]
        }
        let cellCount = columns.reduce(0) { $0 + $1.count } * rows.count
        return cellCount <= maximumCells ? (columns, rows) : nil
    }

    /// What a viewport shows at `zoom`: the cells with pins (each with a count and the mean of its
    /// pins), the slots of the pins sent one by one, and the areas whose place lies inside. `pins`
    /// are those the index was built from (``MapPinFeed/view()`` gives them together).
    func view(_ viewport: Viewport, zoom: Int, of pins: MapPinFeed.Pins) -> (
        cells: [Cell], singles: [Int32], areas: [Area]
    )? {
        let level = Self.cellLevel(zoom: zoom)
        guard let (columns, rows) = Self.cells(of: viewport, level: level) else { return nil }
        var cells: [Cell] = []
        var singles: [Int32] = []
        for columnRun in columns {
            for column in columnRun {
                for row in rows {
                    let positions = range(level: level, column: column, row: row)
                    guard !positions.isEmpty else { continue }
                    let count = positions.count
                    let one =
                        count == 1
                        || (zoom >= Self.singlesZoom && count <= Self.singlesPerCell)
                    if one && singles.count + count <= Self.singlesPerAnswer {
                        singles.append(contentsOf: slots[positions])
                        continue
                    }
                    cells.append(
                        Cell(
                            level: level, column: column, row: row, count: count,
                            coordinate: centre(of: positions, in: pins)))
                }
            }
        }
        let inside = areas.filter { viewport.contains($0.coordinate) }
        return (cells, singles, inside)
    }

    /// The mean position of the pins at `positions` of the order, each where it shows in `pins`
    /// (a pin on a trip at the trip's place, as when the index was built).
    private func centre(of positions: Range<Int>, in pins: MapPinFeed.Pins) -> Coordinate {
        let store = pins.store
        var latitude = 0.0
        var longitude = 0.0
        for slot in slots[positions] {
            let coordinate =
                pins.trips.isEmpty
                ? store.coordinate(at: Int(slot))
                : pins.trips[slot]?.trip.coordinate ?? store.coordinate(at: Int(slot))
            latitude += coordinate.latitude
            longitude += coordinate.longitude
        }
        let count = Double(positions.count)
        return Coordinate(latitude: latitude / count, longitude: longitude / count)
    }
}

/// A map's visible rectangle in degrees: `west,south,east,north` (west greater than east when it
/// crosses the antimeridian).
struct Viewport: Sendable, Equatable {
    var west: Double
    var south: Double
    var east: Double
    var north: Double

    /// `west,south,east,north`, each a finite number in range, south below north; nil otherwise.
    init?(bbox text: String) {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false)
        guard text.utf8.count <= 200, parts.count == 4 else { return nil }
        let numbers = parts.compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }
        guard numbers.count == 4, numbers.allSatisfy(\.isFinite) else { return nil }
        self.init(west: numbers[0], south: numbers[1], east: numbers[2], north: numbers[3])
    }

    init?(west: Double, south: Double, east: Double, north: Double) {
        guard (-180...180).contains(west), (-180...180).contains(east), (-90...90).contains(south),
            (-90...90).contains(north), south < north, west != east
        else { return nil }
        self.west = west
        self.south = south
        self.east = east
        self.north = north
    }

    func contains(_ coordinate: Coordinate) -> Bool {
        guard coordinate.latitude >= south, coordinate.latitude <= north else { return false }
        return west <= east
            ? coordinate.longitude >= west && coordinate.longitude <= east
            : coordinate.longitude >= west || coordinate.longitude <= east
    }
}
