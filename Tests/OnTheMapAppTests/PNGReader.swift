import CZlib
import Foundation

/// Reads a PNG file the way an image viewer does, written apart from the encoder under test: its
/// own CRC-32 (the table of the PNG specification's annex), zlib's `uncompress` for the image data,
/// and every row filter the format has. Only 8-bit RGB without interlacing is taken (what the
/// map's picture is); anything else is a failure with the reason.
struct PNGReader {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    let width: Int
    let height: Int
    /// The chunk types in file order.
    let chunkTypes: [String]
    /// RGB triples, row by row from the top.
    let pixels: [UInt8]

    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    static let crcTable: [UInt32] = (0..<256).map { value in
        var c = UInt32(value)
        for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }

    static func crc(_ bytes: ArraySlice<UInt8>) -> UInt32 {
        var c: UInt32 = 0xFFFF_FFFF
        for byte in bytes { c = crcTable[Int((c ^ UInt32(byte)) & 0xFF)] ^ (c >> 8) }
        return c ^ 0xFFFF_FFFF
    }

    static func number(_ bytes: [UInt8], at offset: Int) -> UInt32 {
        bytes[offset..<offset + 4].reduce(0) { $0 << 8 | UInt32($1) }
    }

    init(_ data: Data) throws {
        let bytes = [UInt8](data)
        guard bytes.count >= 8, Array(bytes[0..<8]) == Self.signature else {
            throw Failure(description: "no PNG signature")
        }
        var offset = 8
        var types: [String] = []
        var header: [UInt8] = []
        var compressed: [UInt8] = []
        while offset + 12 <= bytes.count {
            let length = Int(Self.number(bytes, at: offset))
            guard offset + 12 + length <= bytes.count else { throw Failure(description: "a chunk runs past the end") }
            let type = String(decoding: bytes[offset + 4..<offset + 8], as: UTF8.self)
            let body = Array(bytes[offset + 8..<offset + 8 + length])
            let stored = Self.number(bytes, at: offset + 8 + length)
            guard Self.crc(bytes[offset + 4..<offset + 8 + length]) == stored else {
                throw Failure(description: "the CRC of \(type) is wrong")
            }
            types.append(type)
            if type == "IHDR" { header = body }
            if type == "IDAT" { compressed += body }
            offset += 12 + length
            if type == "IEND" { break }
        }
        guard offset == bytes.count else { throw Failure(description: "bytes after IEND or a cut chunk") }
        guard header.count == 13 else { throw Failure(description: "no IHDR of 13 bytes") }
        let width = Int(Self.number(header, at: 0))
        let height = Int(Self.number(header, at: 4))
        guard Array(header[8..<13]) == [8, 2, 0, 0, 0] else {
            throw Failure(description: "not 8-bit RGB without interlacing: \(Array(header[8..<13]))")
        }
        let stride = width * 3
        var raw = [UInt8](repeating: 0, count: height * (stride + 1))
        var rawLength = uLong(raw.count)
        let status = raw.withUnsafeMutableBufferPointer { target in
            compressed.withUnsafeBufferPointer { source in
                uncompress(target.baseAddress, &rawLength, source.baseAddress, uLong(source.count))
            }
        }
        guard status == Z_OK, Int(rawLength) == raw.count else {
            throw Failure(description: "IDAT does not inflate to \(raw.count) bytes (zlib status \(status))")
        }
        var pixels = [UInt8](repeating: 0, count: height * stride)
        for row in 0..<height {
            let filter = raw[row * (stride + 1)]
            for index in 0..<stride {
                let value = raw[row * (stride + 1) + 1 + index]
                let left = index >= 3 ? Int(pixels[row * stride + index - 3]) : 0
                let above = row > 0 ? Int(pixels[(row - 1) * stride + index]) : 0
                let corner = row > 0 && index >= 3 ? Int(pixels[(row - 1) * stride + index - 3]) : 0
                let predicted: Int
                switch filter {
                case 0: predicted = 0
                case 1: predicted = left
                case 2: predicted = above
                case 3: predicted = (left + above) / 2
                case 4:
                    let estimate = left + above - corner
                    let (toLeft, toAbove, toCorner) = (
                        abs(estimate - left), abs(estimate - above), abs(estimate - corner)
                    )
                    predicted =
                        toLeft <= toAbove && toLeft <= toCorner ? left : toAbove <= toCorner ? above : corner
                default: throw Failure(description: "row \(row) has filter \(filter)")
                }
                pixels[row * stride + index] = value &+ UInt8(predicted & 0xFF)
            }
        }
        self.width = width
        self.height = height
        self.chunkTypes = types
        self.pixels = pixels
    }

    /// The colour at `x`, `y` as `0xRRGGBB`.
    func colour(x: Int, y: Int) -> UInt32 {
        let index = (y * width + x) * 3
        return UInt32(pixels[index]) << 16 | UInt32(pixels[index + 1]) << 8 | UInt32(pixels[index + 2])
    }

    /// Pixels whose colour is within `tolerance` of `colour` in each channel.
    func count(near colour: UInt32, tolerance: Int = 0) -> Int {
        var found = 0
        for index in stride(from: 0, to: pixels.count, by: 3) {
            if abs(Int(pixels[index]) - Int(colour >> 16 & 0xFF)) <= tolerance
                && abs(Int(pixels[index + 1]) - Int(colour >> 8 & 0xFF)) <= tolerance
                && abs(Int(pixels[index + 2]) - Int(colour & 0xFF)) <= tolerance
            {
                found += 1
            }
        }
        return found
    }
}
