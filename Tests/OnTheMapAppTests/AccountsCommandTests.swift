import BotTesting
import Foundation
import OnTheMapService
import SQLiteDirectory
import Testing

/// `onthemap-bot accounts …` run as the operator runs it: the built executable on a real SQLite file.
@Suite struct AccountsCommandTests {
    struct Run {
        var status: Int32
        var output: String
    }

    static func run(_ arguments: [String], input: String? = nil) async throws -> Run {
        let executable = try #require(BotLiveTests.builtExecutable())
        let (status, output) = try await runProcess(executable, arguments, input: input)
        return Run(status: status, output: output)
    }

    static func makeConfig(in folder: TemporaryDirectory) throws -> (config: String, database: String) {
        let database = folder.file("class.sqlite")
        let config = folder.file("bot.yaml")
        // Only the service section matters to the accounts tools; the irc section may be incomplete.
        try "service:\n  backend: local\n  database: \(database)\n".write(
            toFile: config, atomically: true, encoding: .utf8)
        return (config, database)
    }

    @Test func addListLogInAndRemove() async throws {
        let folder = try TemporaryDirectory(prefix: "accounts-cli")
        let (config, database) = try Self.makeConfig(in: folder)
        let add = try await Self.run(
            [
                "accounts", "add", "--config", config, "--email", "Jane.Doe@Example.org", "--first", "Jane", "--last",
                "Doe",
            ],
            input: "correct horse battery\n")
        #expect(add.status == 0, "\(add.output)")
        #expect(add.output.contains("Added Jane Doe <jane.doe@example.org>"))
        #expect(!add.output.contains("correct horse"))

        let duplicate = try await Self.run(
            ["accounts", "add", "--config", config, "--email", "jane.doe@example.org", "--first", "J", "--last", "D"],
            input: "another password\n")
        #expect(duplicate.status != 0)

        let noPassword = try await Self.run(
            ["accounts", "add", "--config", config, "--email", "x@example.org", "--first", "X", "--last", "Y"],
            input: "")
        #expect(noPassword.status != 0)
        #expect(noPassword.output.contains("standard input"))

        let list = try await Self.run(["accounts", "list", "--config", config])
        #expect(list.status == 0)
        #expect(list.output.contains("jane.doe@example.org\tJane Doe"))
        #expect(list.output.contains("1 account."))

        let directory = try SQLiteStudentDirectory(path: database)
        let session = try await directory.logIn(email: "JANE.DOE@example.org", password: "correct horse battery")
        #expect(!session.accountKey.isEmpty)
        try directory.close()

        let remove = try await Self.run(["accounts", "remove", "--config", config, "--email", "jane.doe@example.org"])
        #expect(remove.status == 0, "\(remove.output)")
        let empty = try await Self.run(["accounts", "list", "--config", config])
        #expect(empty.output.contains("0 accounts."))
        let again = try await Self.run(["accounts", "remove", "--config", config, "--email", "jane.doe@example.org"])
        #expect(again.status != 0)
    }

    @Test func importRosterReportsEveryLine() async throws {
        let folder = try TemporaryDirectory(prefix: "accounts-import")
        let (config, _) = try Self.makeConfig(in: folder)
        let roster = folder.file("roster.csv")
        try #"""
        email,first_name,last_name,password
        ada@example.org,Ada,Lovelace,analytical engine
        "grace@example.org","Grace ""Amazing""",Hopper,
        ada@example.org,Ada,Again,whatever12
        not-an-email,Bad,Line,password123
        """#.write(toFile: roster, atomically: true, encoding: .utf8)
        let result = try await Self.run(["accounts", "import", "--config", config, roster])
        #expect(result.status != 0, "a line with problems makes the exit code non-zero")
        #expect(result.output.contains("line 2: added ada@example.org"))
        #expect(result.output.contains("line 3: added grace@example.org — generated password: "))
        #expect(result.output.contains("line 4: skipped ada@example.org"))
        #expect(result.output.contains("line 5: not imported"))
        #expect(result.output.contains("2 added, 1 skipped, 1 with problems."))
        #expect(!result.output.contains("analytical engine"))
        let list = try await Self.run(["accounts", "list", "--config", config])
        #expect(list.output.contains("Grace \"Amazing\" Hopper"))
    }

    /// `accounts link` links an account to a services account (folded with RFC 1459 casemapping),
    /// refuses a second class account for it with a sentence naming `unlink`, and `accounts unlink`
    /// frees it; a config with one network needs no `--network`, and an unknown one is refused.
    @Test func linkAndUnlinkAServicesAccount() async throws {
        let folder = try TemporaryDirectory(prefix: "accounts-link")
        let (config, database) = try Self.makeConfig(in: folder)
        let roster = folder.file("roster.csv")
        try
            "email,first_name,last_name,password\njane@example.org,Jane,Doe,jane-pass-123\nada@example.org,Ada,L,ada-pass-123\n"
            .write(toFile: roster, atomically: true, encoding: .utf8)
        _ = try await Self.run(["accounts", "import", "--config", config, roster])
        let link = try await Self.run(
            ["accounts", "link", "--config", config, "--email", "jane@example.org", "--irc-account", "Jane[m]"])
        #expect(link.status == 0, "\(link.output)")
        #expect(link.output.contains("Linked jane@example.org to the services account Jane[m] on default."))
        let second = try await Self.run(
            ["accounts", "link", "--config", config, "--email", "ada@example.org", "--irc-account", "JANE{M}"])
        #expect(second.status != 0)
        #expect(second.output.contains("already linked to another class account"), "\(second.output)")
        let elsewhere = try await Self.run(
            [
                "accounts", "link", "--config", config, "--email", "ada@example.org", "--irc-account", "ada",
                "--network", "oftc",
            ])
        #expect(elsewhere.status != 0)
        #expect(elsewhere.output.contains("no network named oftc"), "\(elsewhere.output)")

        let directory = try SQLiteStudentDirectory(path: database)
        #expect(try await directory.servicesLink(network: "default", foldedAccount: "jane{m}") != nil)
        try directory.close()

        let unlink = try await Self.run(["accounts", "unlink", "--config", config, "--email", "jane@example.org"])
        #expect(unlink.output.contains("Unlinked jane@example.org from the services account Jane[m]"))
        let again = try await Self.run(
            ["accounts", "link", "--config", config, "--email", "ada@example.org", "--irc-account", "JANE{M}"])
        #expect(again.status == 0, "\(again.output)")
    }

    /// `accounts passwd` sets a new password from standard input without showing it: the old one
    /// stops working, the student's session ends, and the pin stays on the map.
    @Test func passwdSetsANewPasswordAndKeepsThePin() async throws {
        let folder = try TemporaryDirectory(prefix: "accounts-passwd")
        let (config, database) = try Self.makeConfig(in: folder)
        let add = try await Self.run(
            ["accounts", "add", "--config", config, "--email", "jane@example.org", "--first", "Jane", "--last", "Doe"],
            input: "first password\n")
        #expect(add.status == 0, "\(add.output)")
        let directory = try SQLiteStudentDirectory(path: database)
        let session = try await directory.logIn(email: "jane@example.org", password: "first password")
        _ = try await directory.createLocation(
            asTyped: PinDraft(
                uniqueKey: session.accountKey, firstName: "Jane", lastName: "Doe", mapString: "Lisbon",
                mediaURL: "https://example.org/jane", coordinate: Coordinate(latitude: 38.7, longitude: -9.1)),
            session: session)

        let passwd = try await Self.run(
            ["accounts", "passwd", "--config", config, "--email", "JANE@example.org"], input: "second password 2\n")
        #expect(passwd.status == 0, "\(passwd.output)")
        #expect(passwd.output.contains("Changed the password of JANE@example.org"), "\(passwd.output)")
        #expect(!passwd.output.contains("second password"))
        await #expect(throws: ServiceError.sessionExpired) {
            try await directory.profile(accountKey: session.accountKey, session: session)
        }
        await #expect(throws: ServiceError.invalidCredentials) {
            try await directory.logIn(email: "jane@example.org", password: "first password")
        }
        _ = try await directory.logIn(email: "jane@example.org", password: "second password 2")
        #expect(try await directory.recentLocations(limit: 10, skip: 0).map(\.mapString) == ["Lisbon"])

        let unknown = try await Self.run(
            ["accounts", "passwd", "--config", config, "--email", "nobody@example.org"], input: "some password\n")
        #expect(unknown.status != 0)
        #expect(unknown.output.contains("No account with this email"), "\(unknown.output)")
        let short = try await Self.run(
            ["accounts", "passwd", "--config", config, "--email", "jane@example.org"], input: "x\n")
        #expect(short.status != 0, "\(short.output)")
        #expect(!short.output.contains("Changed"))
        let none = try await Self.run(
            ["accounts", "passwd", "--config", config, "--email", "jane@example.org"], input: "")
        #expect(none.status != 0)
        #expect(none.output.contains("no password on standard input"), "\(none.output)")
        _ = try await directory.logIn(email: "jane@example.org", password: "second password 2")
        try directory.close()
    }

    @Test func exportPrintsTheStudentsDataAndForgetErasesItFromTheFile() async throws {
        let folder = try TemporaryDirectory(prefix: "accounts-forget")
        let (config, database) = try Self.makeConfig(in: folder)
        let add = try await Self.run(
            [
                "accounts", "add", "--config", config, "--email", "zebulon@example.org", "--first", "Zebulon",
                "--last", "Quixmoor",
            ],
            input: "first password\n")
        #expect(add.status == 0, "\(add.output)")
        let directory = try SQLiteStudentDirectory(path: database)
        let session = try await directory.logIn(email: "zebulon@example.org", password: "first password")
        _ = try await directory.createLocation(
            asTyped: PinDraft(
                uniqueKey: session.accountKey, firstName: "Zebulon", lastName: "Quixmoor", mapString: "Lisbon",
                mediaURL: "https://example.org/zeb", coordinate: Coordinate(latitude: 38.7, longitude: -9.1)),
            session: session)
        // What a bot kept: the host it logged in from, and the precision chosen.
        try await directory.setState(
            "login.trusted", #"[{"email":"zebulon@example.org","identity":"h:zeb.example","at":1700000000}]"#)
        try await directory.setState("precision/\(session.accountKey)", "region")
        try directory.close()

        let export = try await Self.run(["accounts", "export", "--config", config, "--email", "Zebulon@Example.org"])
        #expect(export.status == 0, "\(export.output)")
        let json = try #require(
            try JSONSerialization.jsonObject(with: Data(export.output.utf8)) as? [String: Any])
        let account = try #require(json["account"] as? [String: Any])
        #expect(account["email"] as? String == "zebulon@example.org")
        #expect(account["lastName"] as? String == "Quixmoor")
        #expect((json["pin"] as? [String: Any])?["mapString"] as? String == "Lisbon")
        #expect((json["sessions"] as? [Any])?.count == 1)
        #expect((json["trustedHosts"] as? [[String: Any]])?.first?["identity"] as? String == "h:zeb.example")
        #expect(json["chosenPrecision"] as? String == "region")
        #expect(!export.output.contains(session.sessionId))
        #expect(!export.output.contains("pbkdf2") && !export.output.lowercased().contains("hash"))

        let forget = try await Self.run(["accounts", "forget", "--config", config, "--email", "zebulon@example.org"])
        #expect(forget.status == 0, "\(forget.output)")
        #expect(
            forget.output.contains(
                "Erased zebulon@example.org (Zebulon Quixmoor): the account, the pin (Lisbon), 1 session, 1 trusted host, 2 kept state entries."
            ), "\(forget.output)")
        for file in [database, database + "-wal"] {
            let bytes = (try? Data(contentsOf: URL(fileURLWithPath: file))) ?? Data()
            for secret in ["zebulon@example.org", "Zebulon", "Quixmoor", session.accountKey] {
                #expect(bytes.range(of: Data(secret.utf8)) == nil, "\(secret) is still in \(file)")
            }
        }
        let again = try await Self.run(["accounts", "forget", "--config", config, "--email", "zebulon@example.org"])
        #expect(again.status != 0)
        #expect(again.output.contains("no account with the email zebulon@example.org"), "\(again.output)")
        let none = try await Self.run(["accounts", "export", "--config", config, "--email", "zebulon@example.org"])
        #expect(none.status != 0)
        #expect(none.output.contains("no account with the email"), "\(none.output)")
    }

    @Test func theUdacityBackendHasNoLocalAccounts() async throws {
        let folder = try TemporaryDirectory(prefix: "accounts-udacity")
        let config = folder.file("bot.yaml")
        try "service:\n  backend: udacity\n  udacity_url: http://127.0.0.1:9/v1\n".write(
            toFile: config, atomically: true, encoding: .utf8)
        let result = try await Self.run(["accounts", "list", "--config", config])
        #expect(result.status != 0)
        #expect(result.output.contains("managed only for the local and postgres backends"))
    }
}
