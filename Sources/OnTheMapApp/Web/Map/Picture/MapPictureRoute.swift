import Foundation
import HTTPTypes
import Hummingbird
import Localization
import NIOConcurrencyHelpers
import NIOCore

/// The map's pictures as PNG files, each drawn once per change of what it shows: the class's
/// (drawn again only for a pin store that changed or a trip that ended, ``Key``) and the signed-out
/// one of a class-only map (drawn once: it shows no pin). Requests that come while a picture is
/// drawn wait for that drawing rather than start another.
final class MapPictureCache: Sendable {
    /// Which picture: the class's clusters, or the basemap with a padlock.
    enum Variant: String, Sendable {
        case clusters
        case signedOut = "signed-out"
    }

    /// What a picture of the class was drawn from: the store's revision and the end of the first
    /// trip that lasted then (the index is built again after either). A later key is a newer
    /// class; an earlier one (a request that read the pins just before a change) is answered with
    /// the newer picture rather than drawn again.
    struct Key: Sendable, Comparable {
        var revision: Int64
        var validUntil: Date

        init(_ index: MapViewIndex) {
            revision = index.revision
            validUntil = index.validUntil
        }

        init(revision: Int64, validUntil: Date) {
            self.revision = revision
            self.validUntil = validUntil
        }

        /// The signed-out picture's only key.
        static let constant = Key(revision: 0, validUntil: .distantFuture)

        static func < (left: Key, right: Key) -> Bool {
            (left.revision, left.validUntil.timeIntervalSinceReferenceDate)
                < (right.revision, right.validUntil.timeIntervalSinceReferenceDate)
        }
    }

    /// A drawn picture and its entity tag (the cache's own random tag, the variant, the drawing's number).
    struct Picture: Sendable {
        let png: ByteBuffer
        let etag: String
    }

    private struct Entry {
        var key: Key
        var number: Int
        var drawing: Task<Picture?, Never>
    }

    let outline: BasemapOutline
    private let entries = NIOLockedValueBox<[Variant: Entry]>([:])
    private let drawings = NIOLockedValueBox(0)
    /// Tells this process's pictures from another's (a restart numbers its drawings from 1 again).
    private let tag = String(UInt32.random(in: 0x1000_0000...UInt32.max), radix: 16)

    init(outline: BasemapOutline) {
        self.outline = outline
    }

    /// How many pictures were drawn so far.
    var drawingsMade: Int { drawings.withLockedValue { $0 } }

    /// The picture `variant` of what `key` names: the one drawn already when it is as new, else a
    /// new drawing of `content` (one at a time per key: every caller meanwhile awaits the same
    /// drawing). Nil when it could not be encoded (the next request tries again).
    func picture(
        _ variant: Variant, key: Key, content: @escaping @Sendable () -> MapPicture.Content
    ) async -> Picture? {
        let outline = outline
        let tag = tag
        let drawings = drawings
        let (number, drawing) = entries.withLockedValue { entries -> (Int, Task<Picture?, Never>) in
            if let entry = entries[variant], entry.key >= key { return (entry.number, entry.drawing) }
            let number = drawings.withLockedValue { count in
                count += 1
                return count
            }
            let drawing = Task<Picture?, Never> {
                guard let bytes = MapPicture.png(content(), outline: outline) else { return nil }
                return Picture(png: ByteBuffer(bytes: bytes), etag: "\"\(tag)-\(variant.rawValue)-\(number)\"")
            }
            entries[variant] = Entry(key: key, number: number, drawing: drawing)
            return (number, drawing)
        }
        let picture = await drawing.value
        if picture == nil {
            entries.withLockedValue { entries in
                if entries[variant]?.number == number { entries[variant] = nil }
            }
        }
        return picture
    }
}

/// `GET /map.png` (and HEAD): the class map as a picture for chat clients' link previews
/// (``MapPicture``), the page's `og:image`.
///
/// Who sees what follows ``MapAccess``: on a public map anyone gets the class's clusters and
/// counts; on a class-only map a request with a live session gets them too, any other the
/// basemap with a padlock (no pin, no total). No picture carries a name. The only input read is
/// the session cookie: a query string is refused (400, one sentence).
///
/// Each answer has an entity tag (`If-None-Match` gets 304); a public map's picture may be kept
/// a minute by anyone, a class-only map's only by the browser that asked, checked again each time
/// (`private, no-cache`, `Vary: Cookie, Authorization`).
extension WebMap {
    static let pictureType = "image/png"

    func addPictureRoute<Context: RequestContext>(to router: Router<Context>) {
        let map = self
        router.get("map.png") { request, _ in await map.pictureResponse(request) }
    }

    func pictureResponse(_ request: Request) async -> Response {
        let phrases = WebLanguages.answerPhrases(for: request)
        if let query = request.uri.query, !query.isEmpty {
            let message = Self.jsonString(phrases("web.map.picture.noQuery"))
            return respond(
                Data("{\"error\":\(message)}".utf8), type: "application/json", cache: "no-store",
                status: .badRequest, language: phrases.language)
        }
        let picture: MapPictureCache.Picture?
        do {
            if try await access.mayReadPins(request) {
                let (index, pins, _) = try await feed.view()
                picture = await pictures.picture(.clusters, key: .init(index)) { .clusters(index, pins) }
            } else {
                picture = await pictures.picture(.signedOut, key: .constant) { .signedOut }
            }
        } catch {
            return unavailableResponse(error, phrases)
        }
        guard let picture else {
            return unavailableResponse(MapPictureUnavailable(), phrases)
        }
        var headers = securityHeaders
        headers[.eTag] = picture.etag
        if access.visibility == .public {
            headers[.cacheControl] = "public, max-age=60"
        } else {
            headers[.cacheControl] = "private, no-cache"
            headers[.vary] = "Cookie, Authorization"
        }
        if let asked = request.headers[.ifNoneMatch], Self.matches(asked, etag: picture.etag) {
            return Response(status: .notModified, headers: headers)
        }
        headers[.contentType] = Self.pictureType
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: picture.png))
    }

    /// Whether an `If-None-Match` list names `etag` (weakly compared) or is `*`.
    static func matches(_ header: String, etag: String) -> Bool {
        header.split(separator: ",").contains { item in
            var tag = item.trimmingCharacters(in: .whitespaces)
            if tag.hasPrefix("W/") { tag.removeFirst(2) }
            return tag == "*" || tag == etag
        }
    }
}

/// zlib could not encode the map's picture.
struct MapPictureUnavailable: Error, CustomStringConvertible {
    var description: String { "the map's picture could not be encoded" }
}
