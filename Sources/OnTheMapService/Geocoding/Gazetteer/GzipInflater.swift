import CZlib

/// Decompresses gzip or zlib data with the system zlib, streaming into one growing buffer.
enum GzipInflater {
    /// Inflates `compressed` (a single gzip or zlib stream). `expectedSize` presizes the buffer
    /// (the gzip trailer's ISIZE); the output never grows past `maximumSize` bytes.
    static func decompress(
        _ compressed: [UInt8], expectedSize: Int? = nil, maximumSize: Int = 1 << 30
    ) throws(GazetteerError) -> [UInt8] {
        guard !compressed.isEmpty else { throw .corrupt("empty compressed data") }
        var stream = z_stream()
        let initStatus = inflateInit2_(&stream, 15 + 32, zlibVersion(), Int32(MemoryLayout<z_stream>.size))
        guard initStatus == Z_OK else { throw .corrupt("zlib initialisation failed (\(initStatus))") }
        defer { inflateEnd(&stream) }

        let initialSize = min(max(expectedSize ?? compressed.count * 4, 4096) + 1, maximumSize)
        var output = [UInt8](repeating: 0, count: initialSize)
        var produced = 0
        var status: Int32 = Z_OK
        compressed.withUnsafeBufferPointer { input in
            stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress)
            stream.avail_in = uInt(input.count)
            while true {
                if produced == output.count {
                    guard output.count < maximumSize else {
                        status = Z_MEM_ERROR
                        return
                    }
                    output.append(
                        contentsOf: repeatElement(0, count: min(output.count, maximumSize - output.count)))
                }
                status = output.withUnsafeMutableBufferPointer { out -> Int32 in
                    guard let base = out.baseAddress else { return Z_MEM_ERROR }
                    stream.next_out = base + produced
                    stream.avail_out = uInt(out.count - produced)
                    let result = inflate(&stream, Z_NO_FLUSH)
                    produced = out.count - Int(stream.avail_out)
                    return result
                }
                if status == Z_STREAM_END { return }
                if status == Z_BUF_ERROR && stream.avail_out > 0 { return }  // input ended early
                if status != Z_OK && status != Z_BUF_ERROR { return }
            }
        }
        switch status {
        case Z_STREAM_END:
            output.removeLast(output.count - produced)
            return output
        case Z_MEM_ERROR:
            throw .corrupt("decompressed data larger than \(maximumSize) bytes")
        case Z_BUF_ERROR:
            throw .corrupt("compressed data is truncated")
        default:
            throw .corrupt("compressed data is invalid (zlib status \(status))")
        }
    }

    /// The uncompressed size recorded in a gzip trailer (modulo 2^32), when the data is gzip.
    static func gzipRecordedSize(_ compressed: [UInt8]) -> Int? {
        guard compressed.count >= 18, compressed[0] == 0x1f, compressed[1] == 0x8b else { return nil }
        let n = compressed.count
        return Int(compressed[n - 4]) | Int(compressed[n - 3]) << 8 | Int(compressed[n - 2]) << 16
            | Int(compressed[n - 1]) << 24
    }
}
