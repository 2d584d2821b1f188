import Foundation

/// The country outlines of the offline basemap (`basemap.json`: an SVG path in its own units,
/// `x = (lon + 180) · 10`, `y = (90 − lat) · 10`), as closed rings of points, for the server-side
/// picture of the map (``MapPicture``).
///
/// The path reader takes what SVG calls straight-line path data: `M`/`m` (a move, further pairs
/// being lines), `L`/`l`, `H`/`h`, `V`/`v` and `Z`/`z`, numbers separated by spaces, commas or a
/// sign. Curves are not part of the basemap and are refused.
struct BasemapOutline: Sendable, Equatable {
    struct Point: Sendable, Equatable {
        var x: Double
        var y: Double
    }

    /// Each outline, its first point not repeated at the end.
    let rings: [[Point]]
    /// The box of the path's units (3600 × 1800 for the shipped basemap).
    let width: Double
    let height: Double

    /// No outline: the picture is sea only (what it draws when the basemap cannot be read).
    static let none = BasemapOutline(rings: [], width: 3600, height: 1800)

    private init(rings: [[Point]], width: Double, height: Double) {
        self.rings = rings
        self.width = width
        self.height = height
    }

    /// Path data the reader cannot follow, with the byte offset where it stopped.
    struct Malformed: Error, Equatable, CustomStringConvertible {
        var offset: Int
        var description: String { "the basemap's path cannot be read at byte \(offset)" }
    }

    /// The outlines of `basemap.json`'s `path`, in its `width` × `height` units.
    init(basemapJSON data: Data) throws {
        struct Document: Decodable {
            var width: Double
            var height: Double
            var path: String
        }
        let document = try JSONDecoder().decode(Document.self, from: data)
        try self.init(path: document.path, width: document.width, height: document.height)
    }

    init(path: String, width: Double, height: Double) throws(Malformed) {
        self.rings = try Self.rings(of: path)
        self.width = width
        self.height = height
    }

    static func rings(of path: String) throws(Malformed) -> [[Point]] {
        let bytes = Array(path.utf8)
        var position = 0
        var rings: [[Point]] = []
        var ring: [Point] = []
        var current = Point(x: 0, y: 0)
        var start = current
        var command: UInt8 = 0

        func skipSeparators() {
            while position < bytes.count,
                bytes[position] == 0x20 || bytes[position] == 0x2C || bytes[position] == 0x0A
                    || bytes[position] == 0x09 || bytes[position] == 0x0D
            {
                position += 1
            }
        }
        func number() throws(Malformed) -> Double {
            skipSeparators()
            let begin = position
            if position < bytes.count, bytes[position] == 0x2D || bytes[position] == 0x2B { position += 1 }
            var digits = 0
            var dot = false
            while position < bytes.count {
                let byte = bytes[position]
                if byte >= 0x30 && byte <= 0x39 {
                    digits += 1
                } else if byte == 0x2E && !dot {
                    dot = true
                } else {
                    break
                }
                position += 1
            }
            guard digits > 0,
                let value = Double(String(decoding: bytes[begin..<position], as: UTF8.self)), value.isFinite
            else { throw Malformed(offset: begin) }
            return value
        }
        func finishRing() {
            if ring.count >= 3 { rings.append(ring) }
            ring = []
        }
        func startsNumber() -> Bool {
            skipSeparators()
            guard position < bytes.count else { return false }
            let byte = bytes[position]
            return (byte >= 0x30 && byte <= 0x39) || byte == 0x2D || byte == 0x2B || byte == 0x2E
        }

        while true {
            skipSeparators()
            guard position < bytes.count else { break }
            let byte = bytes[position]
            if (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) {
                command = byte
                position += 1
            } else if command == 0 || command == 0x5A || command == 0x7A {
                throw Malformed(offset: position)
            }
            switch command {
            case 0x4D, 0x6D:  // M, m
                let x = try number()
                let y = try number()
                finishRing()
                // A relative move is from the current point: (0, 0) at the start, a ring's first
                // point after its `z`.
                current = command == 0x4D ? Point(x: x, y: y) : Point(x: current.x + x, y: current.y + y)
                start = current
                ring = [current]
                // Further pairs after a move are lines of the same kind.
                command = command == 0x4D ? 0x4C : 0x6C
            case 0x4C, 0x6C:  // L, l
                let x = try number()
                let y = try number()
                current = command == 0x4C ? Point(x: x, y: y) : Point(x: current.x + x, y: current.y + y)
                if ring.isEmpty { ring = [start] }
                ring.append(current)
            case 0x48, 0x68:  // H, h
                let x = try number()
                current.x = command == 0x48 ? x : current.x + x
                if ring.isEmpty { ring = [start] }
                ring.append(current)
            case 0x56, 0x76:  // V, v
                let y = try number()
                current.y = command == 0x56 ? y : current.y + y
                if ring.isEmpty { ring = [start] }
                ring.append(current)
            case 0x5A, 0x7A:  // Z, z
                finishRing()
                current = start
                if startsNumber() { throw Malformed(offset: position) }
            default:
                throw Malformed(offset: position - 1)
            }
        }
        finishRing()
        return rings
    }
}
