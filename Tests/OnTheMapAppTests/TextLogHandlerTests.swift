import Foundation
import Logging
import Testing

@testable import OnTheMapApp

/// The people-readable log format: what a line looks like, and that lines stay whole.
@Suite struct TextLogHandlerTests {
    /// A pipe whose write end is the handler's output; `lines()` closes it and reads everything.
    private final class CapturedOutput: @unchecked Sendable {
        let pipe = Pipe()
        let output: TextLogOutput

        init() {
            output = TextLogOutput(fileDescriptor: pipe.fileHandleForWriting.fileDescriptor)
        }

        func lines() throws -> [String] {
            try pipe.fileHandleForWriting.close()
            let data = pipe.fileHandleForReading.readDataToEndOfFile()
            return String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
                .dropLast().map(String.init)
        }
    }

    struct Refusal: Error, CustomStringConvertible {
        var description: String { "the directory is down" }
    }

    private static func strftimeStamp(_ seconds: Int) -> String {
        var clock = time_t(seconds)
        var parts = tm()
        _ = localtime_r(&clock, &parts)
        var buffer = [CChar](repeating: 0, count: 64)
        _ = strftime(&buffer, buffer.count, "%Y-%m-%dT%H:%M:%S%z", &parts)
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    @Test(arguments: [0, 951_782_400, 1_700_000_000, 4_102_444_799])
    func theTimestampIsWhatStrftimeWrites(seconds: Int) {
        #expect(String(decoding: TextLogOutput.localTimestamp(seconds), as: UTF8.self) == Self.strftimeStamp(seconds))
    }

    @Test func aLineHasTimeLevelLabelSortedMetadataSourceAndMessage() throws {
        let captured = CapturedOutput()
        var handler = TextLogHandler(label: "onthemap", output: captured.output)
        handler[metadataKey: "component"] = "router"
        handler[metadataKey: "user"] = "old"
        let before = Int(time(nil))
        handler.log(
            event: LogEvent(
                level: .info, message: "command", metadata: ["user": "ada", "command": "!near", "ms": "0"],
                source: "BotKit", file: #fileID, function: #function, line: #line))
        handler.log(
            event: LogEvent(
                level: .warning, message: "no metadata", metadata: nil, source: "App", file: #fileID,
                function: #function, line: #line))
        let lines = try captured.lines()
        #expect(lines.count == 2)
        let stamp = try #require(lines.first?.split(separator: " ").first.map(String.init))
        #expect([Self.strftimeStamp(before), Self.strftimeStamp(before + 1)].contains(stamp))
        #expect(
            lines.first?.dropFirst(stamp.count)
                == " info onthemap: command=!near component=router ms=0 user=ada [BotKit] command")
        #expect(
            lines.last?.split(separator: " ", maxSplits: 1).last
                == "warning onthemap: component=router user=old [App] no metadata")
    }

    @Test func anErrorAddsItsMessageAndTypeAndAnEmptyLabelIsLeftOut() throws {
        let captured = CapturedOutput()
        let handler = TextLogHandler(label: "", output: captured.output)
        var event = LogEvent(
            level: .error, message: "failed", metadata: [:], source: "S", file: #fileID, function: #function,
            line: #line)
        event.error = Refusal()
        handler.log(event: event)
        let line = try #require(try captured.lines().first)
        #expect(
            line.split(separator: " ", maxSplits: 1).last
                == "error: error.message=the directory is down error.type=OnTheMapAppTests.TextLogHandlerTests.Refusal [S] failed"
        )
    }

    @Test func theMetadataProviderIsAsked() throws {
        let captured = CapturedOutput()
        let handler = TextLogHandler(
            label: "l", output: captured.output, metadataProvider: Logger.MetadataProvider { ["trace": "t1"] })
        handler.log(
            event: LogEvent(
                level: .debug, message: "m", metadata: nil, source: "S", file: #fileID, function: #function,
                line: #line))
        #expect(try captured.lines().first?.hasSuffix(" debug l: trace=t1 [S] m") == true)
    }

    @Test func linesFromManyThreadsStayWhole() async throws {
        let captured = CapturedOutput()
        let handler = TextLogHandler(label: "t", output: captured.output)
        let reader = Task.detached { captured.pipe.fileHandleForReading.readDataToEndOfFile() }
        let long = String(repeating: "x", count: 6_000)  // longer than a pipe's atomic write
        await withTaskGroup(of: Void.self) { group in
            for writer in 0..<4 {
                group.addTask {
                    for index in 0..<200 {
                        handler.log(
                            event: LogEvent(
                                level: .info, message: "\(writer)-\(index) \(long)", metadata: nil, source: "S",
                                file: #fileID, function: #function, line: #line))
                    }
                }
            }
        }
        try captured.pipe.fileHandleForWriting.close()
        let text = String(decoding: await reader.value, as: UTF8.self)
        let lines = text.split(separator: "\n")
        #expect(lines.count == 800)
        #expect(lines.allSatisfy { $0.hasSuffix(" " + long) && $0.contains(" info t: [S] ") })
        #expect(Set(lines.map { $0.split(separator: " ")[4] }).count == 800)
    }
}
