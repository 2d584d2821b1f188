import BotTesting
import Foundation
import OnTheMapApp
import Testing

/// What an operator's install and service manager meet, on the built executable: the two HTTP
/// listeners apart, `healthcheck`, resource folders found beside the executable or named when
/// missing, and the exit statuses that tell a service manager not to restart.
@Suite(.tags(.startsProcesses), .serialized, .timeLimit(.minutes(3))) struct DeployLiveTests {
    static func ircSection(_ server: NgircdServer, nick: String) -> String {
        """
        irc:
          server: 127.0.0.1
          port: \(server.tlsPort)
          tls_ca_file: \(server.certificate.certificatePath)
          nick: \(nick)
          channels: ["#class"]
        """
    }

    /// The map's listener serves the map and its JSON, never `/healthz` or `/metrics`; the operator's
    /// serves those, never the map; `healthcheck` exits 0 while the bot is up and 1 once it stopped.
    @Test func theMapAndTheOperatorListenersAreApartAndHealthcheckFollowsTheBot() async throws {
        let executable = try #require(BotLiveTests.builtExecutable())
        try await NgircdServer.withRunning { server in
            let folder = try TemporaryDirectory(prefix: "bot-listeners")
            let webPort = try await FreePort.pick()
            let operatorPort = try await FreePort.pick()
            let bot = try BotFaultLiveTests.startBot(
                config: Self.ircSection(server, nick: "ListenBot") + """

                    service:
                      database: \(folder.file("class.sqlite"))
                    web:
                      enabled: true
                      listen: 127.0.0.1:\(webPort)
                      public_url: http://127.0.0.1:\(webPort)
                    operator:
                      enabled: true
                      listen: 127.0.0.1:\(operatorPort)
                    """, in: folder)
            let config = folder.file("bot.yaml")
            // Ready once both listeners are up and the bot has registered: it logs each.
            try await bot.waitForLog("web map listener up")
            try await bot.waitForLog("operator HTTP listener up")
            try await bot.waitForLog("\"registered\"")
            let healthy = try await runProcess(executable, ["healthcheck", "--config", config])
            #expect(healthy.0 == 0, "\(healthy.1)\n\(bot.log)")
            #expect(healthy.1.contains("\"registered\":true"), "\(healthy.1)")

            let map = "http://127.0.0.1:\(webPort)"
            let operatorURL = "http://127.0.0.1:\(operatorPort)"
            #expect(try await BotFaultLiveTests.get("\(map)/").0 == 200)
            // The pins are the class's (web.visibility: class by default): a signed-out read gets 401.
            #expect(try await BotFaultLiveTests.get("\(map)/api/locations.json").0 == 401)
            #expect(try await BotFaultLiveTests.get("\(map)/healthz").0 == 404)
            #expect(try await BotFaultLiveTests.get("\(map)/metrics").0 == 404)
            #expect(try await BotFaultLiveTests.get("\(operatorURL)/healthz").0 == 200)
            let metrics = try await BotFaultLiveTests.get("\(operatorURL)/metrics")
            #expect(
                metrics.0 == 200 && metrics.1.contains("onthemap_irc_registered{network=\"default\"} 1"), "\(metrics.1)"
            )
            #expect(try await BotFaultLiveTests.get("\(operatorURL)/").0 == 404)
            #expect(try await BotFaultLiveTests.get("\(operatorURL)/api/locations.json").0 == 404)
            let byAddress = try await runProcess(
                executable, ["healthcheck", "--address", "127.0.0.1:\(operatorPort)"])
            #expect(byAddress.0 == 0, "\(byAddress.1)")

            try await bot.stop()
            #expect(bot.process.terminationStatus == 0, "\(bot.log)")
            let down = try await runProcess(executable, ["healthcheck", "--config", config, "--timeout", "2"])
            #expect(down.0 == 1, "\(down.1)")
            #expect(down.1.hasPrefix("unhealthy: no answer from http://127.0.0.1:\(operatorPort)/healthz"), "\(down.1)")
        }
    }

    /// Without an operator listener in the config, `healthcheck` says so and exits 1 (a container
    /// runtime reads any other status as a mistake of the check itself).
    @Test func healthcheckWithoutAnOperatorListenerSaysSo() async throws {
        let executable = try #require(BotLiveTests.builtExecutable())
        let folder = try TemporaryDirectory(prefix: "bot-healthcheck-off")
        let config = folder.file("bot.yaml")
        try "service: {database: \(folder.file("c.sqlite"))}\n".write(toFile: config, atomically: true, encoding: .utf8)
        let (status, output) = try await runProcess(executable, ["healthcheck", "--config", config])
        #expect(status == 1)
        #expect(output.contains("operator.enabled is false"), "\(output)")
        let (missingStatus, missingOutput) = try await runProcess(
            executable, ["healthcheck", "--config", folder.file("none.yaml")])
        #expect(missingStatus == 1, "\(missingOutput)")
        #expect(missingOutput.contains("there is no config file"), "\(missingOutput)")
    }

    /// A copy of the executable without the message catalogues' resource folder, or without the web
    /// map's with the map on, refuses to start, naming the folder and where it looked (status 78);
    /// started through a symbolic link, the executable finds the folders beside the file the link
    /// points at.
    @Test func resourceFoldersAreFoundBesideTheExecutableOrNamed() async throws {
        let executable = try #require(BotLiveTests.builtExecutable())
        let built = URL(fileURLWithPath: executable).deletingLastPathComponent()
        let folder = try TemporaryDirectory(prefix: "bot-install")
        let config = folder.file("bot.yaml")
        try """
        irc: {server: 127.0.0.1, port: 1, nick: InstallBot, channels: ["#class"]}
        service: {database: \(folder.file("class.sqlite"))}
        web: {enabled: true, listen: "127.0.0.1:1", public_url: "http://127.0.0.1:1"}
        """.write(toFile: config, atomically: true, encoding: .utf8)

        let partial = folder.file("partial")
        try FileManager.default.createDirectory(atPath: partial, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: executable, toPath: "\(partial)/onthemap-bot")
        try FileManager.default.copyItem(
            atPath: built.appendingPathComponent("OnTheMapBot_OnTheMapService.resources").path,
            toPath: "\(partial)/OnTheMapBot_OnTheMapService.resources")
        // Without the message catalogues, then with them but without the web map's files.
        for (missing, copied) in [
            ("OnTheMapBot_Localization.resources/Catalogs", nil),
            ("OnTheMapBot_OnTheMapApp.resources/Assets", "OnTheMapBot_Localization.resources"),
        ] {
            if let copied {
                try FileManager.default.copyItem(
                    atPath: built.appendingPathComponent(copied).path, toPath: "\(partial)/\(copied)")
            }
            for command in ["run", "check-config"] {
                let (status, output) = try await runProcess("\(partial)/onthemap-bot", [command, "--config", config])
                #expect(status == BotExitStatus.configuration, "\(command): \(output)")
                #expect(output.contains(missing), "\(output)")
                #expect(output.contains("looked in \(partial)"), "\(output)")
                #expect(!output.contains("Fatal error"), "\(output)")
            }
        }

        let linked = folder.file("bin")
        try FileManager.default.createDirectory(atPath: linked, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: "\(linked)/onthemap-bot", withDestinationPath: executable)
        let (status, output) = try await runProcess(
            "\(linked)/onthemap-bot", ["check-config", "--config", config])
        #expect(status == 0, "\(output)")
    }

    /// A required SASL login the network refuses ends the bot with status 77; a TLS file that is
    /// no certificate ends it with 78: the statuses the systemd unit does not restart on.
    @Test func fatalLoginAndConfigurationFailuresHaveTheirOwnExitStatuses() async throws {
        try await NgircdServer.withRunning { server in
            let folder = try TemporaryDirectory(prefix: "bot-exit-status")
            // ngircd offers no SASL at all.
            let sasl = try BotFaultLiveTests.startBot(
                config: Self.ircSection(server, nick: "SaslBot") + """

                      sasl: {mechanism: PLAIN, username: SaslBot, password: not-checked, required: true}
                    service:
                      database: \(folder.file("class.sqlite"))
                    """, in: folder)
            try await Self.waitForExit(sasl)
            #expect(sasl.process.terminationStatus == BotExitStatus.authentication, "\(sasl.log)")
            #expect(sasl.log.contains("SASL"), "\(sasl.log)")

            let other = try TemporaryDirectory(prefix: "bot-exit-status-tls")
            let garbage = other.file("not-a-certificate.pem")
            try "this is no certificate\n".write(toFile: garbage, atomically: true, encoding: .utf8)
            let tls = try BotFaultLiveTests.startBot(
                config: """
                    irc:
                      server: 127.0.0.1
                      port: \(server.tlsPort)
                      tls_ca_file: \(garbage)
                      nick: TLSBot
                      channels: ["#class"]
                    service:
                      database: \(other.file("class.sqlite"))
                    """, in: other)
            try await Self.waitForExit(tls)
            #expect(tls.process.terminationStatus == BotExitStatus.configuration, "\(tls.log)")
        }
    }

    static func waitForExit(_ bot: BotFaultLiveTests.RunningBot) async throws {
        if !(await bot.process.waitForExit(timeout: .seconds(60))) {
            try await bot.stop()
            Issue.record("the bot did not stop on its own: \(bot.log)")
        }
        // The last lines it wrote are in the log file too.
        bot.output?.waitUntilDrained()
    }
}
