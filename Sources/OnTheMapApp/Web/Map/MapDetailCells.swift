import Foundation
import Hummingbird

/// The class map's outlines at city zoom: GSHHG intermediate coastlines and borders cut into
/// 10° × 10° cells (`Assets/detail/<column>-<row>.json`, built by
/// `scripts/build-basemap-detail.py`). A cell's file is read from the bundle when it is asked for;
/// nothing of it is kept in memory.
enum MapDetailCells {
    static let columns = 36
    static let rows = 18
    /// What a cell of open sea answers: it has no file.
    static let openSea = Data("{\"land\":[],\"borders\":[]}\n".utf8)

    /// `"<column>-<row>.json"` with column 0–35 (from 180°W eastwards) and row 0–17 (from 90°N
    /// southwards), written without leading zeros; nil for anything else.
    static func cell(named name: String) -> (column: Int, row: Int)? {
        guard name.utf8.count <= 10, name.hasSuffix(".json") else { return nil }
        let parts = name.dropLast(5).split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2,
            let column = canonicalNumber(parts[0]), (0..<columns).contains(column),
            let row = canonicalNumber(parts[1]), (0..<rows).contains(row)
        else { return nil }
        return (column, row)
    }

    private static func canonicalNumber(_ text: Substring) -> Int? {
        guard !text.isEmpty, text.utf8.count <= 2, text.utf8.allSatisfy({ (48...57).contains($0) }),
            text == "0" || !text.hasPrefix("0")
        else { return nil }
        return Int(text)
    }
}

extension WebMap {
    /// `GET /map/detail/<column>-<row>.json`: one cell's outlines (`{"land": [...], "borders": [...]}`,
    /// empty for open sea), or 400 with a sentence for a name that is no cell. The file name is
    /// made from the two numbers, never from the request's text.
    func detailResponse(cell name: String?) -> Response {
        guard let name, let (column, row) = MapDetailCells.cell(named: name) else {
            let message =
                "Not a cell of the map: ask for map/detail/<column>-<row>.json with column 0 to "
                + "\(MapDetailCells.columns - 1) and row 0 to \(MapDetailCells.rows - 1).\n"
            return respond(
                Data(message.utf8), type: "text/plain; charset=utf-8", cache: "no-store", status: .badRequest)
        }
        let file = assets.detailFolder.appendingPathComponent("\(column)-\(row).json")
        let body = (try? Data(contentsOf: file)) ?? MapDetailCells.openSea
        return respond(body, type: "application/json", cache: "max-age=86400")
    }
}
