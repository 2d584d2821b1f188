import BotTesting
import Foundation

/// What the live suites that run the built bot against a real ircd share: starting the ircd by name
/// and writing the bot's config for it.
enum LiveBotSetup {
    /// Starts `server` ("inspircd" or "ngircd") and runs `body` with its TLS port and CA file.
    static func withServer(_ server: String, _ body: (_ port: Int, _ caFile: String) async throws -> Void)
        async throws
    {
        switch server {
        case "inspircd":
            try await InspircdServer.withRunning { try await body($0.tlsPort, $0.certificate.certificatePath) }
        default:
            try await NgircdServer.withRunning { try await body($0.tlsPort, $0.certificate.certificatePath) }
        }
    }

    /// Writes `bot.yaml` into `folder` for a bot called MapBot in #class on 127.0.0.1 over TLS, with
    /// its SQLite directory at `database`; `ircExtra` adds lines to the `irc` section, `extra`
    /// sections after the others. Returns the path.
    static func writeConfig(
        in folder: TemporaryDirectory, port: Int, caFile: String, database: String, ircExtra: String = "",
        extra: String = ""
    ) throws -> String {
        let path = folder.file("bot.yaml")
        try """
        irc:
          server: 127.0.0.1
          port: \(port)
          tls_ca_file: \(caFile)
          nick: MapBot
          channels: ["#class"]
        \(ircExtra)
        service:
          database: \(database)
        \(extra)
        """.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// What curl got: the status code and the body.
    struct Answer {
        var status: Int
        var text: String
        var json: [String: Any] {
            var body = text
            if body.hasPrefix(")]}'\n") { body.removeFirst(5) }
            return ((try? JSONSerialization.jsonObject(with: Data(body.utf8))) as? [String: Any]) ?? [:]
        }
    }

    /// curl with `arguments`: the status code and the body.
    static func curl(_ arguments: [String]) async throws -> Answer {
        let output = try await runCommand("/usr/bin/curl", ["-s", "-m", "10", "-w", "\n%{http_code}"] + arguments)
        let status = Int(output.split(separator: "\n").last ?? "") ?? 0
        let body = output.split(separator: "\n", omittingEmptySubsequences: false).dropLast().joined(separator: "\n")
        return Answer(status: status, text: body)
    }
}
