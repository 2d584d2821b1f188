import BotTesting
import Foundation
import Testing

/// The built bot's v1 API against a password guesser spread over many addresses (127.0.0.x, each
/// its own host to the bot): once wrong passwords for one email came from a few hosts, every host
/// that never logged in to it waits, the right password from a fresh address included, while the
/// owner's usual address still logs in.
@Suite(.tags(.startsProcesses), .serialized, .timeLimit(.minutes(3))) struct DistributedGuessingLiveTests {
    static let password = "the-right-one-42"

    @Test func guessesFromManyAddressesLockTheEmailForEveryStranger() async throws {
        let executable = try #require(BotLiveTests.builtExecutable(), "onthemap-bot was not built next to the tests")
        let folder = try TemporaryDirectory(prefix: "distributed-guessing")
        let webPort = try await FreePort.pick()
        let config = folder.file("bot.yaml")
        // The API alone, no IRC network: `accounts` and the web listener are what is attacked.
        try """
        irc:
          server: 127.0.0.1
          port: \(try await FreePort.pick())
          tls: false
          nick: MapBot
          channels: ["#class"]
        service:
          database: \(folder.file("class.sqlite"))
          api: {enabled: true}
        web:
          enabled: true
          listen: 127.0.0.1:\(webPort)
          public_url: http://127.0.0.1:\(webPort)
        """.write(toFile: config, atomically: true, encoding: .utf8)
        let roster = folder.file("roster.csv")
        try "email,first_name,last_name,password\njane@class.test,Jane,Doe,\(Self.password)\n"
            .write(toFile: roster, atomically: true, encoding: .utf8)
        _ = try await runCommand(executable, ["accounts", "import", "--config", config, roster])
        let bot = try BotProcess(executable: executable, config: config, log: folder.file("bot.log"))
        defer { bot.kill() }
        try await bot.waitForLog("web map listener up", timeout: .seconds(30))

        // The web listener listens on 127.0.0.1; each client binds its own loopback address.
        func logIn(from address: String, _ password: String) async throws -> Int {
            let body = #"{"udacity":{"username":"jane@class.test","password":"\#(password)"}}"#
            return try await LiveBotSetup.curl(
                [
                    "--interface", address, "-X", "POST", "-H", "Content-Type: application/json", "-d", body,
                    "http://127.0.0.1:\(webPort)/v1/session",
                ]
            ).status
        }
        #expect(try await logIn(from: "127.0.0.2", Self.password) == 200, "Jane's usual address")
        var statuses: [Int] = []
        for host in 10..<22 { statuses.append(try await logIn(from: "127.0.0.\(host)", "guess-\(host)")) }
        #expect(statuses.prefix(9).allSatisfy { $0 == 403 }, "\(statuses)")
        #expect(statuses.dropFirst(9).allSatisfy { $0 == 429 }, "\(statuses)")
        // The right password from an address the guesser has not used yet: not tried at all.
        #expect(try await logIn(from: "127.0.0.40", Self.password) == 429)
        // Jane's usual address is never held back.
        #expect(try await logIn(from: "127.0.0.2", Self.password) == 200)
    }
}
