import ArgumentParser
import BuildInfo
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

/// The bot's version, shown by `--version`, CTCP VERSION and the owner's `status`. The release
/// number lives here only: `scripts/package` reads it from `onthemap-bot --version`, and
/// CHANGELOG.md describes each number.
public enum BotVersion {
    /// The release number (semantic versioning).
    public static let number = "1.0.0"

    /// The number and the git commit the build came from: "1.0.0 (commit 4ad97e0c1f2b)", or
    /// "1.0.0 (built outside git)" when the sources were not a git checkout.
    public static let current = describe(number: number, commit: BuildInfo.commit)

    /// The CTCP VERSION answer: the same number and commit.
    public static let ctcpReply = "OnTheMapBot \(current), Swift"

    static func describe(number: String, commit: String?) -> String {
        guard let commit else { return "\(number) (built outside git)" }
        return "\(number) (commit \(commit))"
    }
}

/// Options every subcommand that reads the config shares.
struct ConfigOptions: ParsableArguments {
    @Option(name: .shortAndLong, help: "The YAML config file.")
    var config: String = "config/onthemap.yaml"

    func load(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> BotConfiguration {
        try report { () throws(ConfigError) in try ConfigLoader.load(path: config, environment: environment) }
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

    @Option(
        name: .customLong("as-user"),
        help: "Checks as this user, the service's (run as root): files it cannot read are problems.")
    var asUser: String?

    func run() async throws {
        var environment = ProcessInfo.processInfo.environment
        var credentialCopy: String?
        if let asUser {
            do {
                environment = try ServiceUser.become(asUser, environment: environment)
                credentialCopy = environment[ConfigCredentials.directoryVariable]
            } catch {
                var stderr = StandardError()
                print("check-config cannot check as \(asUser): \(error)", to: &stderr)
                throw BotExitStatus.exit(BotExitStatus.configuration)
            }
        }
        defer { if let credentialCopy { try? FileManager.default.removeItem(atPath: credentialCopy) } }
        let config = try options.load(environment: environment)
        // The files the installation must have beside the executable for this config.
        _ = try RunCommand.installedFiles(
            for: config, logger: Logger(label: "onthemap.check", factory: { _ in SwiftLogNoOpLogHandler() }))
        // The web listener's certificate and key, which `run` reads only once it starts listening.
        let unreadable = [("web.tls_cert", config.web.tlsCert), ("web.tls_key", config.web.tlsKey)].filter {
            config.web.enabled && !$0.1.isEmpty && !FileManager.default.isReadableFile(atPath: $0.1)
        }
        if !unreadable.isEmpty {
            var stderr = StandardError()
            print("The config \(options.config) has problems:", to: &stderr)
            for (key, file) in unreadable {
                print("  - \(key): the file \(file) cannot be read\(asUser.map { " by \($0)" } ?? "")", to: &stderr)
            }
            throw BotExitStatus.exit(BotExitStatus.configuration)
        }
        print("\(options.config) is valid\(asUser.map { " for the user \($0)" } ?? "").")
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
        print("  the directory \(DirectoryCapabilities.declared(for: config.service.backend).sentence)")
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
