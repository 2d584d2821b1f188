@testable import ClassKit
import Foundation
import NIOCore
import Testing

@testable import OnTheMapApp
@testable import OnTheMapPlugins
@testable import OnTheMapService

/// The map's JSON written in pieces from the pin store: no piece much larger than the piece size,
/// and the pieces together read back as the whole document (every pin, in the order asked, pins
/// without a valid coordinate left out of the list and the count).
@Suite struct MapDocumentWriterTests {
    @Test func aLargeClassIsWrittenInPiecesThatReadBackAsOneDocument() throws {
        let pins: [StudentLocation] = (0..<2_000).map { (number: Int) -> StudentLocation in
            let first = number % 7 == 0 ? "Zoë \"\(number)\"" : "N\(number)"
            let latitude: Double = number == 5 ? 95 : Double(number % 80)
            return MapFixtures.pin(
                "p\(number)", first, "Family <\(number % 13)>", "Place \(number)", latitude, Double(number % 170),
                link: "https://example.org/\(number)", minutesAgo: Double(number))
        }
        let store = PinStore(pins)
        let order = store.newestFirst(store.liveSlots)
        var writer = MapDocumentWriter(
            pins: .init(store: store, slots: order, now: Date()), shape: .document(cursor: "abc-1"))
        var whole = ByteBufferAllocator().buffer(capacity: 0)
        var pieces = 0
        while var piece = writer.nextPiece() {
            #expect(piece.readableBytes <= MapDocumentWriter.pieceBytes + 1_024)
            whole.writeBuffer(&piece)
            pieces += 1
        }
        #expect(pieces > 3)
        let document = try MapLocationsDocument.decode(Data(buffer: whole))
        let expected: [StudentLocation] = order.map { store.pin(at: Int($0)) }.filter { $0.coordinate.isValid }
        #expect(document.count == 1_999 && document.pins.count == 1_999)
        #expect(document.pins.map(\.id) == expected.map(\.objectId))
        #expect(document.pins.map(\.name) == expected.map(\.fullName))
        #expect(document.cursor == "abc-1")
        // The same pins as one list give the same text, version included.
        #expect(Data(buffer: whole) == Data(buffer: MapLocationsDocument.json(locations: expected, cursor: "abc-1")))
    }
}
