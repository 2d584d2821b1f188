import BotTesting
import Foundation
import IRCProtocol
import Testing

/// The built bot on InspIRCd linked to Atheme: students whose NickServ accounts are linked to their
/// class accounts are logged in by the server's word alone. One ircd, one services and one bot
/// serve every step.
@Suite(.tags(.startsProcesses), .serialized, .timeLimit(.minutes(3))) struct NetworkSignInLiveTests {
    static let servicesPassword = "Atheme-Secret-4711"

    /// Runs `body` with InspIRCd and Atheme linked and `accounts` registered with NickServ.
    static func withServices(
        accounts: [String], _ body: (InspircdServer) async throws -> Void
    ) async throws {
        let server = try await InspircdServer.start(services: .init(password: "link-secret-\(UUID().uuidString)"))
        let atheme: AthemeServices
        do {
            atheme = try await AthemeServices.start(linkedTo: server)
        } catch {
            await server.stop()
            throw error
        }
        do {
            for account in accounts {
                try await AthemeServices.register(
                    account: account, password: servicesPassword, email: "\(account)@mail.test", on: server)
            }
            try await body(server)
        } catch {
            Issue.record("InspIRCd log:\n\(server.log().suffix(1_500))\nAtheme log:\n\(atheme.log().suffix(1_500))")
            await atheme.stop()
            await server.stop()
            throw error
        }
        await atheme.stop()
        await server.stop()
    }

    /// A student's connection, identified to `account` by SASL when given.
    static func connect(_ server: InspircdServer, nick: String, sasl account: String? = nil) async throws -> TestIRCUser
    {
        try await TestIRCUser.connect(
            port: server.tlsPort, caFile: server.certificate.certificatePath, nick: nick,
            sasl: account.map { ($0, servicesPassword) })
    }

    /// Sends `text` to the bot privately and returns its first answer.
    static func ask(_ user: TestIRCUser, _ text: String) async throws -> String {
        try await user.privmsg("MapBot", text)
        let answer = try await user.waitForMessage(timeout: .seconds(20), "the answer to \(text)") {
            $0.command == "PRIVMSG" && $0.sourceNick == "MapBot"
        }
        return answer.parameters.last ?? ""
    }

    /// Linked by the roster (no password printed for it), Jane is logged in by SASL alone and posts;
    /// the same nick without SASL, and another services account, are nobody; a services LOGOUT ends
    /// it; a link made by `!login` while identified logs Ada in on her next connection, and `!unlink`
    /// and `accounts unlink` end such logins; with passwords off, `!login` is refused and `!register`
    /// while identified makes a linked account with no password.
    @Test func servicesAccountsLogStudentsIn() async throws {
        let executable = try #require(BotLiveTests.builtExecutable(), "onthemap-bot was not built next to the tests")
        try await Self.withServices(accounts: ["jane", "ada", "robin"]) { server in
            let folder = try TemporaryDirectory(prefix: "network-signin-live")
            let config = try LiveBotSetup.writeConfig(
                in: folder, port: server.tlsPort, caFile: server.certificate.certificatePath,
                database: folder.file("class.sqlite"))
            let roster = folder.file("roster.csv")
            try """
            email,first_name,last_name,password,irc_account
            jane@class.test,Jane,Doe,,Jane
            ada@class.test,Ada,Lovelace,ada-class-pass-1,
            """.write(toFile: roster, atomically: true, encoding: .utf8)
            let imported = try await runCommand(executable, ["accounts", "import", "--config", config, roster])
            #expect(imported.contains("added jane@class.test, linked to the services account Jane"), "\(imported)")
            #expect(!imported.contains("jane@class.test — generated password"), "\(imported)")

            // In the channel before the bot, to see it join.
            let watcher = try await Self.connect(server, nick: "watcher")
            try await watcher.join("#class")
            var process = try BotProcess(executable: executable, config: config, log: folder.file("bot.log"))
            defer { process.kill() }
            do {
                try await Self.steps(
                    server, watcher: watcher, executable: executable, config: config, folder: folder,
                    process: &process)
            } catch {
                let log = (try? String(contentsOfFile: folder.file("bot.log"), encoding: .utf8)) ?? ""
                Issue.record("bot log:\n\(log.suffix(3_000))")
                throw error
            }
        }
    }

    static func steps(
        _ server: InspircdServer, watcher: TestIRCUser, executable: String, config: String,
        folder: TemporaryDirectory,
        process: inout BotProcess
    ) async throws {
        do {
            _ = try await watcher.waitForMessage(timeout: .seconds(30), "the bot's JOIN") {
                $0.command == "JOIN" && $0.sourceNick == "MapBot"
            }

            // Identified by SASL: logged in with no command, and may post.
            let jane = try await Self.connect(server, nick: "jane", sasl: "jane")
            try await jane.join("#class")
            #expect(
                try await Self.ask(jane, "!whoami")
                    == "You are logged in as Jane Doe, through your services account jane.")
            let posted = try await Self.ask(jane, "!post Seattle | https://example.org/jane")
            #expect(posted.hasPrefix("You are on the map: Jane Doe"), "\(posted)")

            // A services logout ends it at once.
            try await jane.privmsg("NickServ", "LOGOUT")
            _ = try await jane.waitForMessage(timeout: .seconds(10), "NickServ's logout") {
                $0.command == "NOTICE" && $0.sourceNick == "NickServ"
                    && ($0.parameters.last ?? "").contains("logged out")
            }
            // NickServ answers before the server has the logout from services; the server's 901 (you
            // are now logged out) comes when it has it, as the bot's ACCOUNT * does.
            _ = try await jane.waitForMessage(timeout: .seconds(10), "the server's 901") { $0.command == "901" }
            let afterLogout = try await Self.ask(jane, "!whoami")
            #expect(afterLogout.hasPrefix("You are not logged in."), "\(afterLogout)")
            await jane.quit()

            // The same nick without SASL, and another services account, are nobody.
            let impostor = try await Self.connect(server, nick: "jane")
            #expect(try await Self.ask(impostor, "!whoami").hasPrefix("You are not logged in."))
            #expect(try await Self.ask(impostor, "!post Paris").hasPrefix("You need to log in first"))
            await impostor.quit()
            let robin = try await Self.connect(server, nick: "robin", sasl: "robin")
            #expect(try await Self.ask(robin, "!whoami").hasPrefix("You are not logged in."))

            // Linking by !login while identified; the next connection needs no command.
            let ada = try await Self.connect(server, nick: "ada", sasl: "ada")
            let welcome = try await Self.ask(ada, "!login ada@class.test ada-class-pass-1")
            #expect(welcome.contains("Your services account ada is linked to this class account"), "\(welcome)")
            #expect(try await Self.ask(ada, "!logout").hasPrefix("You are logged out, Ada Lovelace."))
            await ada.quit()
            let adaAgain = try await Self.connect(server, nick: "ada", sasl: "ada")
            let adaWho = try await Self.ask(adaAgain, "!whoami")
            #expect(adaWho == "You are logged in as Ada Lovelace, through your services account ada.", "\(adaWho)")
            // !unlink ends it.
            #expect(try await Self.ask(adaAgain, "!unlink").hasPrefix("Your services account ada is no longer linked"))
            #expect(try await Self.ask(adaAgain, "!whoami").hasPrefix("You are not logged in."))
            await adaAgain.quit()

            // The operator's accounts unlink ends Jane's login at her next command.
            let janeAgain = try await Self.connect(server, nick: "jane", sasl: "jane")
            #expect(try await Self.ask(janeAgain, "!whoami").contains("through your services account jane"))
            let unlinked = try await runCommand(
                executable, ["accounts", "unlink", "--config", config, "--email", "jane@class.test"])
            #expect(unlinked.contains("Unlinked jane@class.test"), "\(unlinked)")
            #expect(try await Self.ask(janeAgain, "!whoami").hasPrefix("You are not logged in."))
            await janeAgain.quit()

            // Passwords off: a password login is refused with the way in through services.
            process.kill()
            try
                (try String(contentsOfFile: config, encoding: .utf8)
                + "\nplugins:\n  login:\n    passwords: false\n    allow_registration: true\n")
                .write(toFile: config, atomically: true, encoding: .utf8)
            process = try BotProcess(executable: executable, config: config, log: folder.file("bot2.log"))
            _ = try await watcher.waitForMessage(timeout: .seconds(30), "the bot's JOIN again") {
                $0.command == "JOIN" && $0.sourceNick == "MapBot"
            }
            let refused = try await Self.ask(robin, "!login ada@class.test ada-class-pass-1")
            #expect(refused.contains("/msg NickServ IDENTIFY"), "\(refused)")
            #expect(try await Self.ask(robin, "!whoami").hasPrefix("You are not logged in."))
            // Self-service while identified: an account with no password, linked at once.
            let registered = try await Self.ask(robin, "!register robin@class.test Robin Milner")
            #expect(registered.contains("linked to your services account robin"), "\(registered)")
            let robinWho = try await Self.ask(robin, "!whoami")
            #expect(
                robinWho == "You are logged in as Robin Milner, through your services account robin.", "\(robinWho)")
            await robin.quit()
            await watcher.quit()
        }
    }

    /// A `!login` made while identified to a services account binds the session to that services
    /// account (and links it); the operator's `accounts unlink`, run as a separate process while the
    /// bot runs, ends that session at once: the student's next command finds them logged out, and
    /// whoever signs in to that services account next is nobody.
    @Test func accountsUnlinkEndsTheSessionsBoundToTheServicesAccount() async throws {
        let executable = try #require(BotLiveTests.builtExecutable(), "onthemap-bot was not built next to the tests")
        try await Self.withServices(accounts: ["ada"]) { server in
            let folder = try TemporaryDirectory(prefix: "network-unlink-live")
            let config = try LiveBotSetup.writeConfig(
                in: folder, port: server.tlsPort, caFile: server.certificate.certificatePath,
                database: folder.file("class.sqlite"))
            let roster = folder.file("roster.csv")
            try """
            email,first_name,last_name,password,irc_account
            ada@class.test,Ada,Lovelace,ada-class-pass-1,
            """.write(toFile: roster, atomically: true, encoding: .utf8)
            let imported = try await runCommand(executable, ["accounts", "import", "--config", config, roster])
            #expect(imported.contains("ada@class.test"), "\(imported)")
            let watcher = try await Self.connect(server, nick: "watcher")
            try await watcher.join("#class")
            let process = try BotProcess(executable: executable, config: config, log: folder.file("bot.log"))
            defer { process.kill() }
            do {
                _ = try await watcher.waitForMessage(timeout: .seconds(30), "the bot's JOIN") {
                    $0.command == "JOIN" && $0.sourceNick == "MapBot"
                }
                let ada = try await Self.connect(server, nick: "ada", sasl: "ada")
                let welcome = try await Self.ask(ada, "!login ada@class.test ada-class-pass-1")
                #expect(welcome.contains("Your services account ada is linked to this class account"), "\(welcome)")
                #expect(try await Self.ask(ada, "!whoami").hasPrefix("You are logged in as Ada Lovelace"))

                let unlinked = try await runCommand(
                    executable, ["accounts", "unlink", "--config", config, "--email", "ada@class.test"])
                #expect(unlinked.contains("Unlinked ada@class.test"), "\(unlinked)")
                #expect(unlinked.contains("ends the sessions bound to ada"), "\(unlinked)")

                let after = try await Self.ask(ada, "!whoami")
                #expect(after.hasPrefix("You are not logged in."), "\(after)")
                await ada.quit()
                let next = try await Self.connect(server, nick: "adanext", sasl: "ada")
                let nextWho = try await Self.ask(next, "!whoami")
                #expect(nextWho.hasPrefix("You are not logged in."), "\(nextWho)")
                await next.quit()
                await watcher.quit()
            } catch {
                let log = (try? String(contentsOfFile: folder.file("bot.log"), encoding: .utf8)) ?? ""
                Issue.record("bot log:\n\(log.suffix(3_000))")
                throw error
            }
        }
    }

    /// On a server that announces no account tracking (ngircd has no services), a bot with
    /// passwords off says at once that nobody can log in.
    @Test func passwordsOffWithoutAccountTrackingIsReported() async throws {
        let executable = try #require(BotLiveTests.builtExecutable(), "onthemap-bot was not built next to the tests")
        try await LiveBotSetup.withServer("ngircd") { port, caFile in
            let folder = try TemporaryDirectory(prefix: "network-signin-none")
            let config = try LiveBotSetup.writeConfig(
                in: folder, port: port, caFile: caFile, database: folder.file("class.sqlite"))
            try (try String(contentsOfFile: config, encoding: .utf8) + "\nplugins:\n  login:\n    passwords: false\n")
                .write(toFile: config, atomically: true, encoding: .utf8)
            let log = folder.file("bot.log")
            let process = try BotProcess(executable: executable, config: config, log: log)
            defer { process.kill() }
            _ = try? await process.waitForLog("announces no account tracking", timeout: .seconds(30))
            let text = process.output.lines.lines.joined(separator: "\n")
            #expect(text.contains("no student can log in here"), "\(text.suffix(2_000))")
        }
    }
}
