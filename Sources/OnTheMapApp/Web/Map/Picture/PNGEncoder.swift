import CZlib

/// PNG files (the PNG specification, third edition) of 8-bit RGB pictures: the signature, `IHDR`,
/// one `IDAT` compressed with zlib, `IEND`, each chunk with its CRC-32.
///
/// Each row is filtered with None, Sub or Up, whichever leaves the smallest sum of bytes taken as
/// signed (the usual heuristic): flat areas and gradients then deflate well.
enum PNGEncoder {
    /// The eight bytes every PNG file starts with.
    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// The PNG file of `pixels` (`width`·`height` RGB triples, row by row from the top), or nil
    /// when the sizes do not match or zlib fails.
    static func encode(rgb pixels: [UInt8], width: Int, height: Int) -> [UInt8]? {
        guard width > 0, height > 0, width <= 1 << 16, height <= 1 << 16, pixels.count == width * height * 3
        else { return nil }
        guard let compressed = deflate(filtered(pixels, width: width, height: height)) else { return nil }
        var file = signature
        var header: [UInt8] = []
        header.append(contentsOf: bigEndian(UInt32(width)))
        header.append(contentsOf: bigEndian(UInt32(height)))
        // Bit depth 8, colour type 2 (RGB), deflate, adaptive filtering, no interlace.
        header.append(contentsOf: [8, 2, 0, 0, 0])
        appendChunk("IHDR", header, to: &file)
        appendChunk("IDAT", compressed, to: &file)
        appendChunk("IEND", [], to: &file)
        return file
    }

    /// The rows with their filter bytes in front.
    static func filtered(_ pixels: [UInt8], width: Int, height: Int) -> [UInt8] {
        let stride = width * 3
        var out = [UInt8](repeating: 0, count: height * (stride + 1))
        var sub = [UInt8](repeating: 0, count: stride)
        var up = [UInt8](repeating: 0, count: stride)
        pixels.withUnsafeBufferPointer { source in
            for row in 0..<height {
                let start = row * stride
                var noneCost = 0
                var subCost = 0
                var upCost = 0
                for index in 0..<stride {
                    let value = source[start + index]
                    let left = index >= 3 ? source[start + index - 3] : 0
                    let above = row > 0 ? source[start + index - stride] : 0
                    sub[index] = value &- left
                    up[index] = value &- above
                    noneCost += cost(value)
                    subCost += cost(sub[index])
                    upCost += cost(up[index])
                }
                let target = row * (stride + 1)
                if noneCost <= subCost && noneCost <= upCost {
                    out[target] = 0
                    for index in 0..<stride { out[target + 1 + index] = source[start + index] }
                } else if subCost <= upCost {
                    out[target] = 1
                    for index in 0..<stride { out[target + 1 + index] = sub[index] }
                } else {
                    out[target] = 2
                    for index in 0..<stride { out[target + 1 + index] = up[index] }
                }
            }
        }
        return out
    }

    /// A filtered byte's weight: its distance from zero taken as a signed byte.
    private static func cost(_ byte: UInt8) -> Int { byte < 128 ? Int(byte) : 256 - Int(byte) }

    /// `bytes` as a zlib stream (RFC 1950) at the best compression.
    static func deflate(_ bytes: [UInt8]) -> [UInt8]? {
        var length = compressBound(uLong(bytes.count))
        var out = [UInt8](repeating: 0, count: Int(length))
        let status = out.withUnsafeMutableBufferPointer { target in
            bytes.withUnsafeBufferPointer { source in
                compress2(target.baseAddress, &length, source.baseAddress, uLong(source.count), Z_BEST_COMPRESSION)
            }
        }
        guard status == Z_OK else { return nil }
        out.removeSubrange(Int(length)...)
        return out
    }

    /// Length, type, data and the CRC-32 of type and data.
    static func appendChunk(_ type: String, _ data: [UInt8], to file: inout [UInt8]) {
        let typeBytes = Array(type.utf8)
        file.append(contentsOf: bigEndian(UInt32(data.count)))
        file.append(contentsOf: typeBytes)
        file.append(contentsOf: data)
        file.append(contentsOf: bigEndian(crc(typeBytes + data)))
    }

    /// zlib's CRC-32 (the one PNG uses) of `bytes`.
    static func crc(_ bytes: [UInt8]) -> UInt32 {
        bytes.withUnsafeBufferPointer { buffer in
            UInt32(crc32(0, buffer.baseAddress, uInt(buffer.count)))
        }
    }

    static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }
}
