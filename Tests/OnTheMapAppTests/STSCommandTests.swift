import BotTesting
import Foundation
import SQLiteDirectory
import Testing

/// `onthemap-bot sts list` and `sts forget` through the built executable on a real SQLite file: the
/// operator clears a policy a server set, without waiting for it to lapse.
@Suite struct STSCommandTests {
    typealias CLI = AccountsCommandTests

    @Test func theOperatorListsAndForgetsAStoredPolicy() async throws {
        let folder = try TemporaryDirectory(prefix: "sts-cli")
        let (config, database) = try CLI.makeConfig(in: folder)
        let state = try SQLiteStudentDirectory(path: database)
        try await state.setState(
            "irc.sts",
            #"{"irc.example.org":{"port":6697,"expires":3000000000},"other.example.net":{"port":7000,"expires":3000000000}}"#
        )
        try state.close()

        let list = try await CLI.run(["sts", "list", "--config", config])
        #expect(list.status == 0, "\(list.output)")
        #expect(list.output.contains("irc.example.org\t6697\t"))
        #expect(list.output.contains("2 policies."))

        let forget = try await CLI.run(["sts", "forget", "--config", config, "IRC.Example.org"])
        #expect(
            forget.status == 0 && forget.output.contains("Forgot the STS policy of irc.example.org."),
            "\(forget.output)")
        let after = try await CLI.run(["sts", "list", "--config", config])
        #expect(!after.output.contains("irc.example.org") && after.output.contains("1 policy."), "\(after.output)")

        let again = try await CLI.run(["sts", "forget", "--config", config, "irc.example.org"])
        #expect(
            again.status != 0 && again.output.contains("no STS policy is stored for irc.example.org"), "\(again.output)"
        )
    }
}
