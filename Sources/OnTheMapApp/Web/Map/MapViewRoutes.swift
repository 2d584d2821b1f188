import ClassKit
import Foundation
import HTTPTypes
import Hummingbird
import Localization
import NIOCore
import OnTheMapService

/// The map's answers sized to what a page shows (``MapViewIndex``):
///
/// - `GET /api/map/view.json?bbox=west,south,east,north&zoom=Z[&since=cursor]`: the clusters of
///   the viewport with their counts, the pins sent one by one (a cell of one pin, or a few once
///   zoomed in), and the region- and country-level places with how many are kept there; with a
///   `since` the map has not changed after, only `{"cursor":…,"unchanged":true}`.
/// - `GET /api/map/names.json?cell=level-column-row&page=N` or `?place=<region or country>&page=N`:
///   the pins of one cluster or place, newest first, ``namesPerPage`` a page.
/// - `GET /api/map/table.json?page=N`: the class newest first, ``tableRowsPerPage`` a page.
/// - `GET /api/map/pin.json?id=<objectId>`: one pin (a `#pin=` link centres the map on it); 404
///   with a sentence when the class has no such pin.
///
/// Each needs what `/api/locations.json` needs (``MapAccess``); bad input gets 400 with one
/// sentence; answers go gzip-compressed when the browser accepts it.
extension WebMap {
    static let namesPerPage = 50
    static let tableRowsPerPage = TableRows.count
    /// The longest query string read (a viewport, a zoom and a cursor take well under 200 bytes).
    static let maximumQueryBytes = 1_024

    enum ViewRequestError: Error, Equatable {
        case tooLarge, badViewport, badZoom, viewportTooLarge, badCursor, badCell, badPage, noSuchPin

        var key: String {
            switch self {
            case .tooLarge: "web.map.requestTooLarge"
            case .badViewport: "web.map.badViewport"
            case .badZoom: "web.map.badZoom"
            case .viewportTooLarge: "web.map.viewportTooLarge"
            case .badCursor: "web.map.badViewCursor"
            case .badCell: "web.map.badCell"
            case .badPage: "web.map.badPage"
            case .noSuchPin: "web.map.noSuchPin"
            }
        }
    }

    func addViewRoutes<Context: RequestContext>(to router: Router<Context>) {
        let map = self
        router.get("api/map/view.json") { request, _ in
            await map.guarded(request) { phrases in await map.viewResponse(request, phrases: phrases) }
        }
        router.get("api/map/names.json") { request, _ in
            await map.guarded(request) { phrases in await map.namesResponse(request, phrases: phrases) }
        }
        router.get("api/map/table.json") { request, _ in
            await map.guarded(request) { phrases in await map.tableResponse(request, phrases: phrases) }
        }
        router.get("api/map/pin.json") { request, _ in
            await map.guarded(request) { phrases in await map.pinResponse(request, phrases: phrases) }
        }
    }

    /// `answer` for a request that may read the pins; 401 for one that may not, 503 when the
    /// directory cannot say.
    private func guarded(_ request: Request, answer: (Phrasebook) async -> Response) async -> Response {
        let phrases = WebLanguages.answerPhrases(for: request)
        do {
            guard try await access.mayReadPins(request) else { return signedOutResponse(phrases) }
        } catch {
            return unavailableResponse(error, phrases)
        }
        return await answer(phrases)
    }

    /// The query's parameters, or ``ViewRequestError/tooLarge`` past ``maximumQueryBytes``.
    private static func query(of request: Request) throws(ViewRequestError) -> [String: String] {
        let raw = request.uri.query ?? ""
        guard raw.utf8.count <= maximumQueryBytes else { throw .tooLarge }
        var values: [String: String] = [:]
        for item in URLComponents(string: "?" + raw)?.queryItems ?? [] where values[item.name] == nil {
            values[item.name] = item.value ?? ""
        }
        return values
    }

    static func parseZoom(_ text: String?) throws(ViewRequestError) -> Int {
        guard let text, text.utf8.count <= 3, let zoom = Int(text), MapViewIndex.zooms.contains(zoom) else {
            throw .badZoom
        }
        return zoom
    }

    static func parsePage(_ text: String?) throws(ViewRequestError) -> Int {
        guard let text else { return 0 }
        guard text.utf8.count <= 7, let page = Int(text), page >= 0 else { throw .badPage }
        return page
    }

    /// `level-column-row` of a cell that exists at a zoom's level.
    static func parseCell(_ text: String) throws(ViewRequestError) -> (level: Int, column: Int, row: Int) {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard text.utf8.count <= 40, parts.count == 3, let level = Int(parts[0]), let column = Int(parts[1]),
            let row = Int(parts[2]),
            (MapViewIndex.cellLevel(
                zoom: MapViewIndex.zooms.lowerBound)...MapViewIndex.cellLevel(
                    zoom: MapViewIndex.zooms.upperBound)).contains(level),
            (0..<(1 << level)).contains(column), (0..<(1 << level)).contains(row)
        else { throw .badCell }
        return (level, column, row)
    }

    func viewResponse(_ request: Request, phrases: Phrasebook) async -> Response {
        do {
            let query = try Self.query(of: request)
            guard let bbox = query["bbox"], let viewport = Viewport(bbox: bbox) else {
                throw ViewRequestError.badViewport
            }
            let zoom = try Self.parseZoom(query["zoom"])
            guard MapViewIndex.cells(of: viewport, level: MapViewIndex.cellLevel(zoom: zoom)) != nil else {
                throw ViewRequestError.viewportTooLarge
            }
            if let since = query["since"] {
                let changed: Bool
                do {
                    changed = try await feed.hasChanged(since: since)
                } catch is MapPinFeed.BadCursor {
                    throw ViewRequestError.badCursor
                }
                if !changed {
                    var writer = MapJSONWriter(capacity: 96)
                    writer.raw("{\"cursor\":")
                    writer.string(try await feed.currentCursor())
                    writer.raw(",\"unchanged\":true}")
                    return jsonAnswer(writer.take(), request: request)
                }
            }
            let (index, pins, cursor) = try await feed.view()
            guard let view = index.view(viewport, zoom: zoom, of: pins) else { throw ViewRequestError.viewportTooLarge }
            var writer = MapJSONWriter(capacity: 4096)
            writer.raw("{\"areas\":[")
            for (position, area) in view.areas.enumerated() {
                if position > 0 { writer.raw(",") }
                writer.raw("{\"count\":")
                writer.integer(area.slots.count)
                writer.raw(",\"latitude\":")
                writer.number(area.coordinate.latitude)
                writer.raw(",\"level\":")
                writer.string(area.level.rawValue)
                writer.raw(",\"longitude\":")
                writer.number(area.coordinate.longitude)
                writer.raw(",\"place\":")
                writer.string(area.place)
                writer.raw("}")
            }
            writer.raw("],\"clusters\":[")
            for (position, cell) in view.cells.enumerated() {
                if position > 0 { writer.raw(",") }
                writer.raw("{\"cell\":")
                writer.string(cell.key)
                writer.raw(",\"count\":")
                writer.integer(cell.count)
                writer.raw(",\"latitude\":")
                writer.number(Self.rounded(cell.coordinate.latitude))
                writer.raw(",\"longitude\":")
                writer.number(Self.rounded(cell.coordinate.longitude))
                writer.raw("}")
            }
            writer.raw("],\"cursor\":")
            writer.string(cursor)
            writer.raw(",\"pins\":[")
            writePins(view.singles, of: pins, to: &writer)
            writer.raw("],\"total\":")
            writer.integer(index.total)
            writer.raw(",\"zoom\":")
            writer.integer(zoom)
            writer.raw("}")
            return jsonAnswer(writer.take(), request: request)
        } catch let problem as ViewRequestError {
            return badViewRequest(problem, phrases: phrases)
        } catch {
            return unavailableResponse(error, phrases)
        }
    }

    func namesResponse(_ request: Request, phrases: Phrasebook) async -> Response {
        do {
            let query = try Self.query(of: request)
            let page = try Self.parsePage(query["page"])
            let (index, pins, _) = try await feed.view()
            var writer = MapJSONWriter(capacity: 8192)
            let slots: [Int32]
            if let cell = query["cell"] {
                let (level, column, row) = try Self.parseCell(cell)
                slots = pins.store.newestFirst(
                    Array(index.slots(in: index.range(level: level, column: column, row: row))))
                writer.raw("{\"cell\":")
                writer.string(cell)
            } else if let place = query["place"], place.utf8.count <= 400 {
                slots = index.area(named: place)?.slots ?? []
                writer.raw("{\"place\":")
                writer.string(place)
            } else {
                throw ViewRequestError.badCell
            }
            writePage(of: slots, page: page, perPage: Self.namesPerPage, pins: pins, to: &writer)
            return jsonAnswer(writer.take(), request: request)
        } catch let problem as ViewRequestError {
            return badViewRequest(problem, phrases: phrases)
        } catch {
            return unavailableResponse(error, phrases)
        }
    }

    func tableResponse(_ request: Request, phrases: Phrasebook) async -> Response {
        do {
            let query = try Self.query(of: request)
            let page = try Self.parsePage(query["page"])
            let (index, pins, cursor) = try await feed.view()
            var writer = MapJSONWriter(capacity: 32_768)
            writer.raw("{\"cursor\":")
            writer.string(cursor)
            writePage(of: index.newestFirst, page: page, perPage: Self.tableRowsPerPage, pins: pins, to: &writer)
            return jsonAnswer(writer.take(), request: request)
        } catch let problem as ViewRequestError {
            return badViewRequest(problem, phrases: phrases)
        } catch {
            return unavailableResponse(error, phrases)
        }
    }

    func pinResponse(_ request: Request, phrases: Phrasebook) async -> Response {
        do {
            let query = try Self.query(of: request)
            guard let id = query["id"], !id.isEmpty, id.utf8.count <= 200 else { throw ViewRequestError.noSuchPin }
            let (_, pins, _) = try await feed.view()
            guard let slot = pins.store.slot(of: id), pins.store.coordinate(at: slot).isValid else {
                throw ViewRequestError.noSuchPin
            }
            var writer = MapJSONWriter(capacity: 512)
            writer.raw("{\"pin\":")
            writePins([Int32(slot)], of: pins, to: &writer)
            writer.raw("}")
            return jsonAnswer(writer.take(), request: request)
        } catch let problem as ViewRequestError {
            return badViewRequest(problem, phrases: phrases)
        } catch {
            return unavailableResponse(error, phrases)
        }
    }

    /// `,"count":…,"page":…,"pages":…,"pins":[…]}`: page `page` of `slots` (an empty list past the
    /// last page).
    private func writePage(
        of slots: [Int32], page: Int, perPage: Int, pins: MapPinFeed.Pins, to writer: inout MapJSONWriter
    ) {
        let start = min(slots.count, page * perPage)
        let end = min(slots.count, start + perPage)
        writer.raw(",\"count\":")
        writer.integer(slots.count)
        writer.raw(",\"page\":")
        writer.integer(page)
        writer.raw(",\"pages\":")
        writer.integer((slots.count + perPage - 1) / perPage)
        writer.raw(",\"pins\":[")
        writePins(slots[start..<end], of: pins, to: &writer)
        writer.raw("]}")
    }

    private func writePins<Slots: Collection<Int32>>(
        _ slots: Slots, of pins: MapPinFeed.Pins, to writer: inout MapJSONWriter
    ) {
        var version = MapVersion()
        for (position, slot) in slots.enumerated() {
            if position > 0 { writer.raw(",") }
            writer.pin(Int(slot), of: pins, version: &version)
        }
    }

    /// A cluster's centre to 5 decimals (about a metre): its mean needs no more.
    private static func rounded(_ value: Double) -> Double { (value * 100_000).rounded() / 100_000 }

    private func badViewRequest(_ problem: ViewRequestError, phrases: Phrasebook) -> Response {
        let message = Self.jsonString(
            phrases(
                problem.key,
                [
                    "zoomMax": MapViewIndex.zooms.upperBound, "cells": MapViewIndex.maximumCells,
                    "bytes": Self.maximumQueryBytes,
                ]))
        return respond(
            Data("{\"error\":\(message)}".utf8), type: "application/json", cache: "no-store",
            status: problem == .noSuchPin ? .notFound : .badRequest, language: phrases.language)
    }

    /// JSON, gzip-compressed when the request accepts it and it is worth it.
    func jsonAnswer(_ body: ByteBuffer, request: Request) -> Response {
        var headers = securityHeaders
        headers[.contentType] = "application/json"
        headers[.cacheControl] = "no-store"
        headers[.vary] = "Accept-Encoding"
        if body.readableBytes >= HTTPCompression.minimumBytes, HTTPCompression.acceptsGzip(request),
            let compressed = HTTPCompression.gzip(body)
        {
            headers[.contentEncoding] = "gzip"
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: compressed))
        }
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: body))
    }
}
