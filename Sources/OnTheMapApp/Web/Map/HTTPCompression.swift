import CZlib
import Hummingbird
import NIOCore

/// gzip for the map's answers (RFC 1952 through zlib), when the request's `Accept-Encoding`
/// allows it.
enum HTTPCompression {
    /// Answers shorter than this go as they are (gzip's header and trailer would not pay).
    static let minimumBytes = 512

    /// Whether `Accept-Encoding` takes gzip: `gzip` or `*` listed without `q=0`, and gzip not
    /// refused by name.
    static func acceptsGzip(_ request: Request) -> Bool {
        guard let header = request.headers[.acceptEncoding] else { return false }
        return acceptsGzip(header)
    }

    static func acceptsGzip(_ header: String) -> Bool {
        var gzip: Bool?
        var any: Bool?
        for item in header.split(separator: ",") {
            let parts = item.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            guard let coding = parts.first?.lowercased(), !coding.isEmpty else { continue }
            var accepted = true
            for parameter in parts.dropFirst() {
                let pair = parameter.split(separator: "=", maxSplits: 1).map {
                    $0.trimmingCharacters(in: .whitespaces)
                }
                if pair.count == 2, pair[0].lowercased() == "q", let q = Double(pair[1]) { accepted = q > 0 }
            }
            if coding == "gzip" || coding == "x-gzip" { gzip = accepted }
            if coding == "*" { any = accepted }
        }
        return gzip ?? any ?? false
    }

    /// `bytes` as a gzip member (zlib's default level), or nil when zlib fails.
    static func gzip(_ bytes: ByteBuffer) -> ByteBuffer? {
        var stream = z_stream()
        let windowBitsWithGzipHeader: Int32 = 15 + 16
        guard
            deflateInit2_(
                &stream, Z_DEFAULT_COMPRESSION, Z_DEFLATED, windowBitsWithGzipHeader, 8, Z_DEFAULT_STRATEGY,
                zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK
        else { return nil }
        defer { deflateEnd(&stream) }
        let input = bytes.readableBytesView
        let bound = Int(deflateBound(&stream, UInt(input.count)))
        var output = ByteBufferAllocator().buffer(capacity: bound)
        let result: Int32 =
            input.withContiguousStorageIfAvailable { source in
                output.writeWithUnsafeMutableBytes(minimumWritableBytes: bound) { target in
                    stream.next_in = source.baseAddress.map { UnsafeMutablePointer(mutating: $0) }
                    stream.avail_in = uInt(source.count)
                    stream.next_out = target.baseAddress?.assumingMemoryBound(to: Bytef.self)
                    stream.avail_out = uInt(target.count)
                    let status = deflate(&stream, Z_FINISH)
                    return status == Z_STREAM_END ? target.count - Int(stream.avail_out) : 0
                }
                return stream.avail_in == 0 ? Z_STREAM_END : Z_BUF_ERROR
            } ?? Z_BUF_ERROR
        return result == Z_STREAM_END && output.readableBytes > 0 ? output : nil
    }
}
