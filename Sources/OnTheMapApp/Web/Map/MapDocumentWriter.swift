import NIOCore
import OnTheMapService

/// Writes `/api/locations.json` (every pin, ``MapLocationsDocument``) or its `since` answer
/// (``MapLocationsChanges``) in pieces of about ``pieceBytes``, read straight from the pin store:
/// a response sends each piece as it is written, so a class of 100,000 pins (22 MB of JSON) never
/// sits whole in memory.
struct MapDocumentWriter: Sendable {
    /// What is written around the pins.
    enum Shape: Sendable {
        /// `{"count":…,"cursor":…,"pins":[…],"version":…}`.
        case document(cursor: String?)
        /// `{"changed":[…],"count":…,"cursor":…,"removed":[…],"since":…}`.
        case changes(since: String, cursor: String, count: Int, removed: [String])
    }

    static let pieceBytes = 64 * 1024

    private let pins: MapPinFeed.Pins
    private let shape: Shape
    private var writer = MapJSONWriter(capacity: Self.pieceBytes + 4096)
    private var version = MapVersion()
    /// The next of `pins.slots` to write; nil before the opening.
    private var next: Int?
    private var finished = false
    private var wrotePin = false

    init(pins: MapPinFeed.Pins, shape: Shape) {
        self.pins = pins
        self.shape = shape
    }

    /// The next piece of the text; nil once all of it was given.
    mutating func nextPiece() -> ByteBuffer? {
        if finished { return nil }
        if next == nil {
            open()
            next = 0
        }
        var position = next ?? 0
        let store = pins.store
        while position < pins.slots.count && writer.buffer.readableBytes < Self.pieceBytes {
            let slot = Int(pins.slots[position])
            position += 1
            guard store.coordinate(at: slot).isValid else { continue }
            if wrotePin { writer.raw(",") }
            writer.pin(slot, of: pins, version: &version)
            wrotePin = true
        }
        next = position
        if position == pins.slots.count {
            close()
            finished = true
        }
        return writer.take()
    }

    /// Everything in one buffer (for small answers and tests).
    mutating func whole() -> ByteBuffer {
        var all = ByteBufferAllocator().buffer(capacity: Self.pieceBytes)
        while var piece = nextPiece() { all.writeBuffer(&piece) }
        return all
    }

    private mutating func open() {
        switch shape {
        case .document(let cursor):
            writer.raw("{\"count\":")
            let store = pins.store
            writer.integer(pins.slots.reduce(0) { $0 + (store.coordinate(at: Int($1)).isValid ? 1 : 0) })
            if let cursor {
                writer.raw(",\"cursor\":")
                writer.string(cursor)
            }
            writer.raw(",\"pins\":[")
        case .changes:
            writer.raw("{\"changed\":[")
        }
    }

    private mutating func close() {
        writer.raw("]")
        switch shape {
        case .document:
            writer.raw(",\"version\":")
            writer.string(version.text)
        case .changes(let since, let cursor, let count, let removed):
            writer.raw(",\"count\":")
            writer.integer(count)
            writer.raw(",\"cursor\":")
            writer.string(cursor)
            writer.raw(",\"removed\":[")
            for (index, objectId) in removed.enumerated() {
                if index > 0 { writer.raw(",") }
                writer.string(objectId)
            }
            writer.raw("],\"since\":")
            writer.string(since)
        }
        writer.raw("}")
    }
}
