@_spi(Testing) import IRCClient
import NIOCore
import Testing

@Suite("IRCLineDecoder")
struct LineDecoderTests {
    func lines(_ decoder: inout IRCLineDecoder, _ buffer: inout ByteBuffer) -> [String] {
        var result: [String] = []
        while let line = decoder.nextLine(from: &buffer) { result.append(line) }
        return result
    }

    @Test func splitsOnCRLFLFAndCR() {
        var decoder = IRCLineDecoder(maximumLineLength: 1000)
        var buffer = ByteBuffer(string: "PING :a\r\nPING :b\nPING :c\rPING :d\r\n\r\n")
        #expect(lines(&decoder, &buffer) == ["PING :a", "PING :b", "PING :c", "PING :d"])
        #expect(buffer.readableBytes == 0)
    }

    @Test func keepsPartialLinesUntilTheirEnd() {
        var decoder = IRCLineDecoder(maximumLineLength: 1000)
        var buffer = ByteBuffer(string: ":srv 001 bot :Wel")
        #expect(lines(&decoder, &buffer).isEmpty)
        buffer.writeString("come\r")
        #expect(lines(&decoder, &buffer) == [":srv 001 bot :Welcome"])
        buffer.writeString("\nPING x\r\n")
        #expect(lines(&decoder, &buffer) == ["PING x"])
    }

    @Test func decodesInvalidUTF8Lossily() {
        var decoder = IRCLineDecoder(maximumLineLength: 1000)
        var buffer = ByteBuffer(bytes: Array("PRIVMSG #c :caf".utf8) + [0xE9, 0xFF] + Array("\r\n".utf8))
        let decoded = lines(&decoder, &buffer)
        #expect(decoded == ["PRIVMSG #c :caf\u{FFFD}\u{FFFD}"])
    }

    @Test func dropsAnOverlongLineWithBoundedMemory() {
        let limit = 1024
        var decoder = IRCLineDecoder(maximumLineLength: limit)
        var buffer = ByteBuffer(string: "PING :before\r\n:x PRIVMSG #c :")
        var seen = lines(&decoder, &buffer)
        // 200 KB without a line end, in 4 KB reads: the buffer never grows past the limit plus one read.
        let chunk = String(repeating: "A", count: 4096)
        for _ in 0..<50 {
            buffer.writeString(chunk)
            seen += lines(&decoder, &buffer)
            #expect(buffer.readableBytes <= limit + chunk.utf8.count)
        }
        #expect(decoder.isDiscarding)
        buffer.writeString("AAAA tail of the long line\r\nPING :after\r\n")
        seen += lines(&decoder, &buffer)
        #expect(seen == ["PING :before", "PING :after"])
        #expect(decoder.droppedLineCount == 1)
        #expect(!decoder.isDiscarding)
    }

    @Test func dropsAnOverlongLineThatArrivedWhole() {
        var decoder = IRCLineDecoder(maximumLineLength: 100)
        var buffer = ByteBuffer(string: "PING :" + String(repeating: "x", count: 150) + "\r\nPING :ok\r\n")
        // The whole line is in the buffer already, but it is still over the limit.
        let decoded = lines(&decoder, &buffer)
        #expect(decoded == ["PING :ok"])
        #expect(decoder.droppedLineCount == 1)
    }

    @Test func acceptsTagsUpToTheConfiguredLimit() {
        var decoder = IRCLineDecoder()
        let tags = "@" + String(repeating: "a", count: 8000) + " "
        let line = tags + ":n!u@h PRIVMSG #c :" + String(repeating: "b", count: 400)
        var buffer = ByteBuffer(string: line + "\r\n")
        #expect(lines(&decoder, &buffer) == [line])
    }
}
