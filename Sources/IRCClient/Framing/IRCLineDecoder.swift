import Logging
import NIOCore
import Synchronization

/// Splits the inbound byte stream into IRC lines.
///
/// Lines end with LF, CRLF or a lone CR; empty lines are ignored. A line longer than `maximumLineLength`
/// bytes is dropped, and without buffering it: once the limit is passed with no line end in sight, the
/// decoder throws away what it has and skips bytes until the next line end, so memory stays bounded by the
/// limit plus one read. Bytes are decoded as UTF-8, invalid sequences becoming U+FFFD.
/// An ``InboundLineStatistics`` given at creation records the most bytes ever buffered.
public struct IRCLineDecoder: ByteToMessageDecoder {
    public typealias InboundOut = String

    public let maximumLineLength: Int
    private let logger: Logger?
    private let statistics: InboundLineStatistics?
    /// `true` while skipping the rest of an overlong line.
    public private(set) var isDiscarding = false
    /// Number of overlong lines dropped so far.
    public private(set) var droppedLineCount = 0

    public init(
        maximumLineLength: Int = 8191 + 512 + 512,
        logger: Logger? = nil,
        statistics: InboundLineStatistics? = nil
    ) {
        self.maximumLineLength = max(16, maximumLineLength)
        self.logger = logger
        self.statistics = statistics
    }

    public mutating func decode(
        context: ChannelHandlerContext,
        buffer: inout ByteBuffer
    ) throws -> DecodingState {
        guard let line = nextLine(from: &buffer) else { return .needMoreData }
        context.fireChannelRead(Self.wrapInboundOut(line))
        return .continue
    }

    public mutating func decodeLast(
        context: ChannelHandlerContext,
        buffer: inout ByteBuffer,
        seenEOF: Bool
    ) throws -> DecodingState {
        if let line = nextLine(from: &buffer) {
            context.fireChannelRead(Self.wrapInboundOut(line))
            return .continue
        }
        // An unterminated final line is delivered if it is complete enough to be useful.
        if !isDiscarding, buffer.readableBytes > 0, let rest = buffer.readString(length: buffer.readableBytes) {
            let trimmed = rest.trimmingLineEnds()
            if !trimmed.isEmpty { context.fireChannelRead(Self.wrapInboundOut(trimmed)) }
        }
        buffer.moveReaderIndex(to: buffer.writerIndex)
        return .needMoreData
    }

    /// Extracts the next complete line (without its terminator), or `nil` when more bytes are needed.
    /// The tests and the fuzzer drive the decoder with it, without a channel.
    @_spi(Testing)
    public mutating func nextLine(from buffer: inout ByteBuffer) -> String? {
        statistics?.observeBuffered(byteCount: buffer.readableBytes)
        while true {
            let view = buffer.readableBytesView
            guard let end = view.firstIndex(where: { $0 == UInt8(ascii: "\n") || $0 == UInt8(ascii: "\r") })
            else {
                if buffer.readableBytes > maximumLineLength {
                    if !isDiscarding {
                        droppedLineCount += 1
                        statistics?.countDroppedLine()
                        logger?.warning("Dropping an inbound line longer than \(maximumLineLength) bytes")
                    }
                    isDiscarding = true
                    buffer.moveReaderIndex(to: buffer.writerIndex)
                    buffer.discardReadBytes()
                }
                return nil
            }
            let length = end - view.startIndex
            if isDiscarding {
                buffer.moveReaderIndex(forwardBy: length + 1)
                isDiscarding = false
                continue
            }
            if length == 0 {
                buffer.moveReaderIndex(forwardBy: 1)
                continue
            }
            if length > maximumLineLength {
                droppedLineCount += 1
                statistics?.countDroppedLine()
                logger?.warning("Dropping an inbound line of \(length) bytes (limit \(maximumLineLength))")
                buffer.moveReaderIndex(forwardBy: length + 1)
                continue
            }
            let line = String(decoding: view[view.startIndex..<end], as: UTF8.self)
            buffer.moveReaderIndex(forwardBy: length + 1)
            return line
        }
    }
}

/// What the line decoders of a client have seen, readable from any thread: the most bytes one of them
/// ever held waiting for a line end (its memory high-water mark) and how many overlong lines were dropped.
public final class InboundLineStatistics: Sendable {
    private let highWater = Atomic<Int>(0)
    private let dropped = Atomic<Int>(0)

    public init() {}

    /// The most bytes a decoder held at once.
    public var bufferedBytesHighWaterMark: Int { highWater.load(ordering: .relaxed) }
    /// Overlong lines dropped so far.
    public var droppedLineCount: Int { dropped.load(ordering: .relaxed) }

    func observeBuffered(byteCount: Int) {
        highWater.max(byteCount, ordering: .relaxed)
    }

    func countDroppedLine() {
        dropped.add(1, ordering: .relaxed)
    }
}

extension String {
    func trimmingLineEnds() -> String {
        var result = Substring(self)
        while let last = result.last, last == "\r" || last == "\n" || last == "\r\n" {
            result = result.dropLast()
        }
        return String(result)
    }
}
