import Foundation
import Testing

@testable import OnTheMapApp

/// The version the bot gives: one release number, with the git commit the build came from.
struct BotVersionTests {
    /// A build outside git says so instead of inventing a commit.
    @Test func aBuildOutsideGitSaysSo() {
        #expect(BotVersion.describe(number: "1.0.0", commit: nil) == "1.0.0 (built outside git)")
        #expect(BotVersion.describe(number: "1.0.0", commit: "4ad97e0c1f2b") == "1.0.0 (commit 4ad97e0c1f2b)")
    }

    /// These tests are built from a git checkout: the commit compiled in is the checkout's HEAD,
    /// so the build plugin really read it (a stale or missing commit fails here).
    @Test func theBuildCarriesTheCheckoutsCommit() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let head = try #require(Self.git(["rev-parse", "--short=12", "HEAD"], in: root.path), "not a git checkout")
        #expect(BotVersion.current.hasPrefix("\(BotVersion.number) (commit \(head)"))
        #expect(BotVersion.ctcpReply.contains(BotVersion.current))
    }

    /// `onthemap-bot --version` prints the number and the commit, the first word being the number
    /// (`scripts/package` names the package after it).
    @Test func theExecutablePrintsTheVersionAndCommit() throws {
        let executable = try #require(BotLiveTests.builtExecutable(), "onthemap-bot was not built next to the tests")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["--version"]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        #expect(text == BotVersion.current + "\n")
        #expect(text.split(separator: " ").first.map(String.init) == BotVersion.number)
    }

    static func git(_ arguments: [String], in folder: String) -> String? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["git", "-C", folder] + arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return nil }
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { return nil }
        return text.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
