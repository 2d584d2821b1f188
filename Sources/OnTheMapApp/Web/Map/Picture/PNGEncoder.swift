import CZlib

/// PNG files (the PNG specification, third edition) of 8-bit RGB pictures: the signature, `IHDR`,
/// one `IDAT` compressed with zlib, `IEND`, each chunk with its CRC-32.
///
/// Each row is filtered with None, Sub or Up, whichever leaves the smallest sum of bytes taken as
/// signed (the usual heuristic): flat areas and gradients then deflate well. Rows go to zlib one
/// at a time.
enum PNGEncoder {
    /// The eight bytes every PNG file starts with.
    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// The PNG file of `pixels` (`width`·`height` RGB triples, row by row from the top), or nil
    /// when the sizes do not match or zlib fails.
    static func encode(rgb pixels: [UInt8], width: Int, height: Int) -> [UInt8]? {
        guard width > 0, height > 0, width <= 1 << 16, height <= 1 << 16, pixels.count == width * height * 3
        else { return nil }
        guard let compressed = compressedRows(pixels, width: width, height: height) else { return nil }
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

    /// The rows, each with its filter byte in front, as one zlib stream (RFC 1950) at the best
    /// compression. A row is filtered and handed to zlib before the next, so neither the filtered
    /// picture nor zlib's worst-case output (each the picture's size) is ever whole in memory.
    static func compressedRows(_ pixels: [UInt8], width: Int, height: Int) -> [UInt8]? {
        var stream = z_stream()
        guard deflateInit_(&stream, Z_BEST_COMPRESSION, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK
        else { return nil }
        defer { deflateEnd(&stream) }
        let stride = width * 3
        var row = [UInt8](repeating: 0, count: stride + 1)
        var scratch = FilterScratch(stride: stride)
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        var compressed: [UInt8] = []
        var fine = true
        pixels.withUnsafeBufferPointer { source in
            for index in 0..<height where fine {
                filter(row: index, of: source, stride: stride, into: &row, scratch: &scratch)
                fine = feed(
                    &stream, row, flush: index == height - 1 ? Z_FINISH : Z_NO_FLUSH, chunk: &chunk, into: &compressed)
            }
        }
        return fine ? compressed : nil
    }

    /// The Sub and Up candidates of the row being filtered.
    struct FilterScratch {
        var sub: [UInt8]
        var up: [UInt8]

        init(stride: Int) {
            sub = [UInt8](repeating: 0, count: stride)
            up = [UInt8](repeating: 0, count: stride)
        }
    }

    /// Row `index` of `source` with its filter byte in front, in `out` (`stride` + 1 bytes).
    static func filter(
        row index: Int, of source: UnsafeBufferPointer<UInt8>, stride: Int, into out: inout [UInt8],
        scratch: inout FilterScratch
    ) {
        let start = index * stride
        var noneCost = 0
        var subCost = 0
        var upCost = 0
        for column in 0..<stride {
            let value = source[start + column]
            let left = column >= 3 ? source[start + column - 3] : 0
            let above = index > 0 ? source[start + column - stride] : 0
            scratch.sub[column] = value &- left
            scratch.up[column] = value &- above
            noneCost += cost(value)
            subCost += cost(scratch.sub[column])
            upCost += cost(scratch.up[column])
        }
        if noneCost <= subCost && noneCost <= upCost {
            out[0] = 0
            for column in 0..<stride { out[1 + column] = source[start + column] }
        } else if subCost <= upCost {
            out[0] = 1
            for column in 0..<stride { out[1 + column] = scratch.sub[column] }
        } else {
            out[0] = 2
            for column in 0..<stride { out[1 + column] = scratch.up[column] }
        }
    }

    /// A filtered byte's weight: its distance from zero taken as a signed byte.
    private static func cost(_ byte: UInt8) -> Int { byte < 128 ? Int(byte) : 256 - Int(byte) }

    /// Hands `input` to zlib and appends what it gives out to `compressed`, `chunk` at a time;
    /// with `Z_FINISH`, until the stream's end. False when zlib fails.
    private static func feed(
        _ stream: inout z_stream, _ input: [UInt8], flush: Int32, chunk: inout [UInt8], into compressed: inout [UInt8]
    ) -> Bool {
        input.withUnsafeBufferPointer { source in
            stream.next_in = UnsafeMutablePointer(mutating: source.baseAddress)
            stream.avail_in = uInt(source.count)
            while true {
                let (status, produced) = chunk.withUnsafeMutableBufferPointer { target in
                    stream.next_out = target.baseAddress
                    stream.avail_out = uInt(target.count)
                    let status = deflate(&stream, flush)
                    return (status, target.count - Int(stream.avail_out))
                }
                compressed.append(contentsOf: chunk[0..<produced])
                if status == Z_STREAM_END { return true }
                // Z_BUF_ERROR is "no progress possible now", not a failure: nothing left to give.
                guard status == Z_OK || status == Z_BUF_ERROR else { return false }
                if flush == Z_FINISH {
                    if status == Z_BUF_ERROR && produced == 0 { return false }
                } else if stream.avail_in == 0 && stream.avail_out > 0 {
                    return true
                }
            }
        }
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
