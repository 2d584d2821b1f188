import ArgumentParser
import Foundation
import Logging
import OnTheMapPlugins

/// The `onthemap-bot` command line.
public struct OnTheMapCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "onthemap-bot",
        abstract: "On The Map for IRC: a class map bot.",
        version: BotVersion.current,
        subcommands: [
            RunCommand.self, CheckConfigCommand.self, AccountsCommand.self, PinsCommand.self, SeedDemoCommand.self,
            ConsoleCommand.self, HealthcheckCommand.self, STSCommand.self,
        ],
        defaultSubcommand: nil
    )

    public init() {}
}

/// The bot's version, shown by `--version` and CTCP VERSION.
public enum BotVersion {
    public static let current = "0.1.0"
    public static let ctcpReply = "OnTheMapBot \(current) (Swift)"
}

/// Options every subcommand that reads the config shares.
struct ConfigOptions: ParsableArguments {
    @Option(name: .shortAndLong, help: "The YAML config file.")
    var config: String = "config/onthemap.yaml"

    func load() throws -> BotConfiguration {
        try report { () throws(ConfigError) in try ConfigLoader.load(path: config) }
    }

    /// Loads only what the service layer needs (the `irc:` section may be missing or incomplete).
    func loadForService() throws -> BotConfiguration {
        try report { () throws(ConfigError) in try ConfigLoader.load(path: config, requireIRC: false) }
    }

    private func report(_ body: () throws(ConfigError) -> BotConfiguration) throws -> BotConfiguration {
        do {
            return try body()
        } catch {
            var stderr = StandardError()
            print("The config \(config) has problems:", to: &stderr)
            for problem in error.problems { print("  - \(problem)", to: &stderr) }
            throw BotExitStatus.exit(BotExitStatus.configuration)
        }
    }
}

/// `onthemap-bot check-config`: explains every problem of a config and exits non-zero if any.
struct CheckConfigCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check-config", abstract: "Checks a config file and names each problem plainly.")

    @OptionGroup var options: ConfigOptions

    func run() async throws {
        let config = try options.load()
        // The files the installation must have beside the executable for this config.
        _ = try RunCommand.installedFiles(
            for: config, logger: Logger(label: "onthemap.check", factory: { _ in SwiftLogNoOpLogHandler() }))
        print("\(options.config) is valid.")
        for network in config.networks {
            let irc = network.irc
            print(
                "  IRC network \(network.name): \(irc.nick) on \(irc.server):\(irc.port) \(Self.transport(of: irc))"
                    + (irc.sasl.map { ", SASL \($0.mechanismsText) as \($0.username)" } ?? ""))
            print(
                "    channels: \(irc.channels.map(\.name).joined(separator: ", ")); announces to: \(irc.announceTo.joined(separator: ", "))"
            )
        }
        print(
            "  backend: \(config.service.backend.rawValue); geocoder: \(config.geocoder.kind.rawValue); units: \(NearPlugin.Settings(section: config.plugins.sections["near"]).units.rawValue)"
        )
        print("  plugins: \(config.plugins.enabled.joined(separator: ", "))")
        if config.web.enabled { print("  web map: \(config.web.listen), linked as \(config.web.publicURL)") }
        if config.operatorListener.enabled { print("  /healthz and /metrics: \(config.operatorListener.listen)") }
        for warning in ConfigLoader.warnings(for: config) { print("warning: \(warning)") }
    }

    /// How the bot reaches a network, in words: over TLS, or in plaintext — and then, when a CA file
    /// or a fingerprint is set, what the TLS connection of an STS upgrade trusts.
    static func transport(of irc: BotConfiguration.IRCSection) -> String {
        if irc.tls { return "over TLS" }
        var trust: [String] = []
        if !irc.tlsFingerprint.isEmpty { trust.append("the certificate with tls_fingerprint") }
        if !irc.tlsCAFile.isEmpty { trust.append("certificates signed by tls_ca_file") }
        guard !trust.isEmpty else { return "WITHOUT TLS (plaintext)" }
        return "WITHOUT TLS (plaintext) until the server offers STS; the upgrade to TLS trusts "
            + trust.joined(separator: " and ")
    }
}

/// Writes to standard error with `print(_:to:)`.
struct StandardError: TextOutputStream {
    mutating func write(_ string: String) {
        FileHandle.standardError.write(Data(string.utf8))
    }
}
