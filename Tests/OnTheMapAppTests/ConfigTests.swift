import BotTesting
import Foundation
@testable import OnTheMapApp
import OnTheMapPlugins
import Testing

@Suite struct ConfigTests {
    static let minimal = """
        irc:
          server: irc.example.org
          nick: MapBot
          channels: ["#class", "#secret hunter2"]
          announce_to: ["#class"]
        """

    func problems(_ yaml: String, environment: [String: String] = [:]) -> [ConfigProblem] {
        do {
            _ = try ConfigLoader.parse(yaml: yaml, environment: environment)
            return []
        } catch {
            return error.problems
        }
    }

    /// The repository's `config/` folder.
    static let configFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("config")

    @Test func theShippedExamplesAreValid() throws {
        let folder = Self.configFolder
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".yaml") }
        #expect(!files.isEmpty)
        for file in files {
            let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
            // SASL passwords are left empty in examples; the environment supplies them.
            let config = try ConfigLoader.parse(yaml: text, environment: ["ONTHEMAP_SASL_PASSWORD": "from-env"])
            #expect(!config.irc.nick.isEmpty, "\(file)")
        }
    }

    /// The documented example config loads as it is, and its `plugins.enabled` is every plugin
    /// the bot has, in `!help` order: a plugin added, renamed or removed shows here.
    @Test func theExampleConfigEnablesEveryPlugin() throws {
        let text = try String(
            contentsOf: Self.configFolder.appendingPathComponent("onthemap.example.yaml"), encoding: .utf8)
        let config = try ConfigLoader.parse(yaml: text, environment: ["ONTHEMAP_SASL_PASSWORD": "from-env"])
        #expect(config.plugins.enabled == PluginAssembly.names)
        #expect(config.irc.nick == "OnTheMapBot")
    }

    @Test func defaultsFollowTheProductSpec() throws {
        let config = try ConfigLoader.parse(yaml: Self.minimal)
        #expect(config.irc.port == 6697)
        #expect(config.irc.tls)
        #expect(config.irc.commandPrefix == "!")
        #expect(config.irc.channels == [.init(name: "#class", key: nil), .init(name: "#secret", key: "hunter2")])
        #expect(config.service.backend == .local)
        #expect(config.geocoder.kind == .gazetteer)
        #expect(NearPlugin.Settings(section: config.plugins.sections["near"]).units == .km)
        #expect(config.plugins.enabled.contains("near"))
        #expect(!config.web.enabled)
    }

    @Test func floodPacingAndUserLimitsAreOnUnlessTurnedOff() throws {
        let defaults = try ConfigLoader.parse(yaml: Self.minimal)
        #expect(defaults.irc.flood.enabled)
        #expect(defaults.plugins.userLimits)
        let load = try ConfigLoader.parse(
            yaml: Self.minimal + "\n  flood: {enabled: false}\nplugins:\n  user_limits: false\n")
        #expect(!load.irc.flood.enabled)
        #expect(!load.plugins.userLimits)
        #expect(problems(Self.minimal + "\n  flood: {enabled: maybe}\n").map(\.key) == ["irc.flood.enabled"])
    }

    @Test func theCommandBudgetOfAnAddressIsReadAndReachesTheRouter() throws {
        let defaults = try ConfigLoader.parse(yaml: Self.minimal)
        #expect(
            BotAssembly.routerSettings(config: defaults, pseudonyms: .ephemeral()).userLimits?.hostBudget.burst == 40)
        let school = try ConfigLoader.parse(
            yaml: Self.minimal + "\nplugins:\n  commands_per_host: {burst: 120, per_minute: 200}\n")
        #expect(school.plugins.commandsPerHost == .init(burst: 120, perMinute: 200))
        let limits = BotAssembly.routerSettings(config: school, pseudonyms: .ephemeral()).userLimits?.hostBudget
        #expect(limits?.burst == 120 && limits?.perMinute == 200)
        #expect(
            problems(Self.minimal + "\nplugins:\n  commands_per_host: {burst: 0, per_minute: lots}\n").map(\.key) == [
                "plugins.commands_per_host.burst", "plugins.commands_per_host.per_minute",
            ])
    }

    @Test func unknownKeysAreNamedWithASuggestion() {
        let found = problems(Self.minimal + "\n  nickname: Foo\n  alt-nicks: [x]\nextra: 1\n")
        #expect(found.contains { $0.key == "irc.nickname" && $0.message.contains("unknown key") })
        #expect(found.contains { $0.key == "irc.alt-nicks" && $0.message.contains("did you mean \"alt_nicks\"") })
        #expect(found.contains { $0.key == "extra" })
    }

    @Test func badValuesAreExplainedPlainly() {
        let yaml = """
            irc:
              server: irc.example.org
              port: 99999
              tls: maybe
              nick: 9lives
              channels: ["class"]
              announce_to: ["#elsewhere"]
              flood: {burst: 0, lines_per_second: 1}
              tls_fingerprint: "abc"
            service:
              backend: mongo
            units: furlongs
            plugins:
              enabled: [near, teleport]
            """
        let found = problems(yaml)
        let keys = Set(found.map(\.key))
        for key in [
            "irc.port", "irc.tls", "irc.nick", "irc.channels[0]", "irc.announce_to", "irc.flood.burst",
            "irc.tls_fingerprint", "service.backend", "units", "plugins.enabled",
        ] {
            #expect(keys.contains(key), "expected a problem for \(key); got \(found)")
        }
        #expect(found.first { $0.key == "irc.port" }?.message.contains("99999") == true)
        #expect(found.first { $0.key == "service.backend" }?.message.contains("local, postgres, udacity") == true)
    }

    /// `privacy.city_min_population` is 15000 unless set, reaches the privacy rules the plugins
    /// follow (0 turns widening off), and a negative or non-integer value is refused by name.
    @Test func theMinimumPopulationOfACityLevelPlaceIsReadAndChecked() throws {
        let defaults = try ConfigLoader.parse(yaml: Self.minimal)
        #expect(defaults.privacy.cityMinimumPopulation == 15_000)
        #expect(defaults.privacyPolicy.cityMinimumPopulation == 15_000)
        for value in [0, 50_000] {
            let config = try ConfigLoader.parse(yaml: Self.minimal + "\nprivacy:\n  city_min_population: \(value)\n")
            #expect(config.privacyPolicy.cityMinimumPopulation == value)
        }
        for bad in ["-1", "15000.5", "lots", "[15000]"] {
            let found = problems(Self.minimal + "\nprivacy:\n  city_min_population: \(bad)\n")
            #expect(found.map(\.key) == ["privacy.city_min_population"], "\(bad): \(found)")
        }
        #expect(
            problems(Self.minimal + "\nprivacy:\n  city_min_population: -1\n").first?.message
                == "must be from 0 to 100000000, not -1")
    }

    @Test func missingServerAndNickAreReported() {
        let found = problems("irc:\n  channels: ['#a']\n")
        #expect(found.contains { $0.key == "irc.server" })
        #expect(found.contains { $0.key == "irc.nick" })
        #expect(problems("").contains { $0.key == "irc.nick" })
        #expect(problems("irc: [1, 2").first?.message.contains("not valid YAML") == true)
    }

    @Test func secretsComeFromTheEnvironment() throws {
        let yaml = Self.minimal + "\n  sasl: {mechanism: PLAIN, username: MapBot}\nservice:\n  backend: postgres\n"
        #expect(problems(yaml).contains { $0.key == "irc.sasl.password" })
        #expect(problems(yaml).contains { $0.key == "service.postgres_url" })
        let config = try ConfigLoader.parse(
            yaml: yaml,
            environment: ["ONTHEMAP_SASL_PASSWORD": "s3cret", "ONTHEMAP_POSTGRES_URL": "postgres://u@db/x"])
        #expect(config.irc.sasl?.password == "s3cret")
        #expect(config.service.postgresURL == "postgres://u@db/x")
    }

    @Test func saslExternalNeedsAClientCertificate() {
        let yaml = Self.minimal + "\n  sasl: {mechanism: EXTERNAL}\n"
        #expect(problems(yaml).contains { $0.key == "irc.sasl.mechanism" })
    }

    @Test func saslMechanismIsAutoOneNameOrAListInOrder() throws {
        let environment = ["ONTHEMAP_SASL_PASSWORD": "pw"]
        func mechanisms(_ value: String) throws -> [BotConfiguration.SASL.Mechanism]? {
            let yaml = Self.minimal + "\n  sasl: {mechanism: \(value), username: MapBot}\n"
            return try ConfigLoader.parse(yaml: yaml, environment: environment).irc.sasl?.mechanisms
        }
        #expect(try mechanisms("auto") == [])
        #expect(try mechanisms("scram-sha-256") == [.scramSHA256])
        #expect(try mechanisms("[SCRAM-SHA-512, PLAIN]") == [.scramSHA512, .plain])
        #expect(try mechanisms("\"SCRAM-SHA-256, PLAIN\"") == [.scramSHA256, .plain])
        let wrong = problems(
            Self.minimal + "\n  sasl: {mechanism: [SCRAM-SHA-1], username: M}\n", environment: environment)
        #expect(wrong.contains { $0.key == "irc.sasl.mechanism" && $0.message.contains("SCRAM-SHA-1") })
        // auto without a client certificate needs the account's password.
        #expect(
            problems(Self.minimal + "\n  sasl: {mechanism: auto, username: M}\n").contains {
                $0.key == "irc.sasl.password"
            })
    }

    /// `irc.contact` says who runs the bot: in the default realname (not in one the config sets),
    /// the CTCP VERSION reply and `!help about`; a public network without it is warned about, a
    /// local or example one is not, and a contact of several lines is refused.
    @Test func theContactIsShownAndAPublicNetworkWithoutOneIsWarnedAbout() throws {
        func config(server: String, extra: String = "") throws -> BotConfiguration {
            try ConfigLoader.parse(
                yaml: "irc: {server: \"\(server)\", nick: MapBot, channels: [\"#class key\"]\(extra)}\n")
        }
        let named = try config(server: "irc.libera.chat", extra: ", contact: \"ada@school.example\"")
        #expect(named.irc.registeredRealname == "On The Map class bot, contact: ada@school.example")
        #expect(named.irc.versionReply == "\(BotVersion.ctcpReply), contact: ada@school.example")
        #expect(BotAssembly.aboutLines(contact: named.irc.contact).last == "Run by ada@school.example.")
        #expect(ConfigLoader.warnings(for: named).isEmpty)
        let ownName = try config(server: "irc.libera.chat", extra: ", contact: ada, realname: \"Class map\"")
        #expect(ownName.irc.registeredRealname == "Class map")

        let unnamed = try config(server: "irc.libera.chat")
        #expect(unnamed.irc.registeredRealname == "On The Map class bot")
        #expect(unnamed.irc.versionReply == BotVersion.ctcpReply)
        #expect(ConfigLoader.warnings(for: unnamed).map(\.key) == ["irc.contact"])
        for server in ["127.0.0.1", "ircd", "irc.school.lan", "irc.example.org", "192.0.2.4"] {
            #expect(ConfigLoader.warnings(for: try config(server: server)).isEmpty, "\(server)")
        }
        #expect(problems(Self.minimal + "\n  contact: \"ada\\nQUIT\"\n").map(\.key) == ["irc.contact"])
    }

    @Test func plaintextMustBeExplicit() throws {
        let config = try ConfigLoader.parse(yaml: Self.minimal + "\n  tls: false\n  port: 6667\n")
        #expect(!config.irc.tls)
        // With tls: false, a fingerprint (or CA file) is what an STS upgrade trusts: accepted.
        let pinned = Self.minimal + "\n  tls: false\n  tls_fingerprint: \(String(repeating: "a", count: 64))\n"
        #expect(!problems(pinned).contains { $0.key == "irc.tls" })
        #expect(
            CheckConfigCommand.transport(of: try ConfigLoader.parse(yaml: pinned).irc)
                == "WITHOUT TLS (plaintext) until the server offers STS; the upgrade to TLS trusts the certificate with tls_fingerprint"
        )
    }

    @Test func nominatimNeedsAUserAgent() {
        let found = problems(Self.minimal + "\ngeocoder:\n  kind: nominatim\n  nominatim_url: http://127.0.0.1:1\n")
        #expect(found.contains { $0.key == "geocoder.user_agent" })
    }

    @Test func aChannelEntryIsANameAndAtMostOneKey() throws {
        let config = try ConfigLoader.parse(yaml: Self.minimal)
        #expect(config.irc.channels == [.init(name: "#class"), .init(name: "#secret", key: "hunter2")])
        let base = "irc:\n  server: irc.example.org\n  nick: MapBot\n  channels: "
        let spaced = problems(base + "[\"#a b c\"]")
        #expect(spaced.map(\.key) == ["irc.channels[0]"])
        #expect(spaced.first?.message.contains("a channel name has no spaces") == true, "\(spaced)")
        #expect(problems(base + "[\"#a\\tb\"]").map(\.key) == ["irc.channels[0]"])
        #expect(problems(base + "[\"#a :key\"]").map(\.key) == ["irc.channels[0]"])
        #expect(problems(base + "[\"#a k,ey\"]").map(\.key) == ["irc.channels[0]"])
        #expect(try ConfigLoader.parse(yaml: base + "[\"#a  key\"]").irc.channels == [.init(name: "#a", key: "key")])
    }

    @Test func aDirectoryIsNotAConfigFile() throws {
        let folder = try TemporaryDirectory(prefix: "config-dir")
        for (path, expected) in [
            (folder.path, "\(folder.path) is a directory, not a config file"),
            (folder.file("missing.yaml"), "there is no config file \(folder.file("missing.yaml"))"),
        ] {
            do {
                _ = try ConfigLoader.load(path: path)
                Issue.record("\(path) was loaded")
            } catch {
                #expect(error.problems.map(\.description) == [expected])
            }
        }
    }

    @Test func aWebListenerOnEveryInterfaceIsWarnedAbout() throws {
        func warnings(_ listen: String, enabled: Bool = true) throws -> [ConfigProblem] {
            let yaml =
                Self.minimal
                + "\nweb:\n  enabled: \(enabled)\n  listen: \"\(listen)\"\n  public_url: https://map.example.org\n"
            // The minimal config's #class has no key: that warning is another test's.
            return ConfigLoader.warnings(for: try ConfigLoader.parse(yaml: yaml)).filter { $0.key != "irc.channels" }
        }
        #expect(try warnings("0.0.0.0:8080").map(\.key) == ["web.listen"])
        #expect(try warnings("0.0.0.0:8080").first?.message.contains("every network interface") == true)
        #expect(try warnings("[::]:8080").map(\.key) == ["web.listen"])
        #expect(try warnings("127.0.0.1:8080").isEmpty)
        #expect(try warnings("[::1]:8080").isEmpty)
        #expect(try warnings("0.0.0.0:8080", enabled: false).isEmpty)
        #expect(ConfigLoader.hostAndPort("[::]:8080").map { "\($0.0) \($0.1)" } == ":: 8080")
    }

    @Test func anOperatorListenerOnEveryInterfaceIsWarnedAbout() throws {
        func warnings(_ listen: String, enabled: Bool = true) throws -> [ConfigProblem] {
            let yaml = Self.minimal + "\noperator:\n  enabled: \(enabled)\n  listen: \"\(listen)\"\n"
            // The minimal config's #class has no key: that warning is another test's.
            return ConfigLoader.warnings(for: try ConfigLoader.parse(yaml: yaml)).filter { $0.key != "irc.channels" }
        }
        #expect(try warnings("0.0.0.0:9090").map(\.key) == ["operator.listen"])
        #expect(try warnings("[::]:9090").first?.message.contains("/metrics") == true)
        #expect(try warnings("127.0.0.1:9090").isEmpty)
        #expect(try warnings("0.0.0.0:9090", enabled: false).isEmpty)
    }

    @Test func theOperatorListenerIsOffByDefaultAndNeedsAPortOfItsOwn() throws {
        let config = try ConfigLoader.parse(yaml: Self.minimal)
        #expect(!config.operatorListener.enabled)
        #expect(config.operatorListener.listen == "127.0.0.1:9090")
        #expect(
            problems(Self.minimal + "\noperator: {enabled: true, listen: nowhere}\n").map(\.key) == ["operator.listen"])
        let shared =
            Self.minimal + """

                web: {enabled: true, listen: "127.0.0.1:8080", public_url: "https://map.example.org"}
                operator: {enabled: true, listen: "127.0.0.1:8080"}
                """
        #expect(problems(shared).map(\.key) == ["operator.listen"])
        #expect(problems(Self.minimal + "\noperator: {enabled: false, listen: nowhere}\n").isEmpty)
    }

    /// A map address only this machine can open is warned about when students come from a public
    /// network, and not for a local class.
    @Test func aMapAddressOfThisMachineIsWarnedAboutOnAPublicNetwork() throws {
        func warnings(server: String, publicURL: String) throws -> [String] {
            let yaml = """
                irc: {server: "\(server)", nick: MapBot, channels: ["#class key"], contact: "teacher@school.example"}
                web: {enabled: true, public_url: "\(publicURL)"}
                """
            return ConfigLoader.warnings(for: try ConfigLoader.parse(yaml: yaml)).map(\.key)
        }
        for url in ["http://localhost:8080", "http://127.0.0.1:8080/", "http://[::1]:8080", "http://map.localhost"] {
            #expect(try warnings(server: "irc.libera.chat", publicURL: url) == ["web.public_url"], "\(url)")
            #expect(try warnings(server: "203.0.113.7", publicURL: url) == ["web.public_url"], "\(url)")
        }
        for server in ["127.0.0.1", "localhost", "ircd", "10.1.2.3", "192.168.1.10", "172.20.0.2", "irc.school.lan"] {
            #expect(try warnings(server: server, publicURL: "http://localhost:8080").isEmpty, "\(server)")
        }
        #expect(try warnings(server: "irc.libera.chat", publicURL: "https://map.example.org").isEmpty)
        #expect(try warnings(server: "irc.libera.chat", publicURL: "http://172.32.0.1").isEmpty)
    }

    /// Udacity's sign-up page is the default only on the udacity backend: a local class's `!signup`
    /// tells how to get an account here instead, unless `service.signup_url` is set.
    @Test func theUdacitySignUpPageIsTheDefaultOnlyOnTheUdacityBackend() async throws {
        let folder = try TemporaryDirectory(prefix: "config-signup")
        func signUpURL(_ service: String) async throws -> String? {
            let config = try ConfigLoader.parse(yaml: Self.minimal + "\nservice: \(service)\n")
            let stack = try await ServiceStack.make(config: config, logger: .init(label: "test"), loadGeocoder: false)
            defer { Task { await stack.shutdown() } }
            return stack.directory.signUpURL
        }
        #expect(try await signUpURL("{database: \(folder.file("a.sqlite"))}") == nil)
        #expect(
            try await signUpURL("{database: \(folder.file("b.sqlite")), signup_url: \"https://school.example/join\"}")
                == "https://school.example/join")
        #expect(try await signUpURL("{backend: udacity}") == "https://auth.udacity.com/sign-up")
        #expect(
            try await signUpURL("{backend: udacity, signup_url: \"https://school.example/join\"}")
                == "https://school.example/join")
    }

    /// Every key can come from the environment: `ONTHEMAP_` and the key's path with `__` between
    /// sections; typed values, lists and plugin sections included; a variable naming no key is a
    /// problem that names the key.
    @Test func environmentVariablesOverrideAnyKey() throws {
        let config = try ConfigLoader.parse(
            yaml: Self.minimal,
            environment: [
                "ONTHEMAP_IRC__PORT": "7000",
                "ONTHEMAP_IRC__TLS_CA_FILE": "",
                "ONTHEMAP_IRC__NICK": "EnvBot",
                "ONTHEMAP_IRC__CHANNELS": "[\"#class\", \"#lab\"]",
                "ONTHEMAP_IRC__FLOOD__LINES_PER_SECOND": "0.5",
                "ONTHEMAP_IRC__SASL__USERNAME": "EnvBot",
                "ONTHEMAP_IRC__SASL__PASSWORD": "p4ss: [not yaml",
                "ONTHEMAP_WEB__ENABLED": "true",
                "ONTHEMAP_WEB__PUBLIC_URL": "https://map.example.org",
                "ONTHEMAP_PLUGINS__NEAR__UNITS": "mi",
                "ONTHEMAP_PLUGINS__DISABLED_IN": "{\"#lab\": [near]}",
                "ONTHEMAP_LOCAL_PORT": "6697",
            ])
        #expect(config.irc.port == 7000)
        #expect(config.irc.nick == "EnvBot")
        #expect(config.irc.channels.map(\.name) == ["#class", "#lab"])
        #expect(config.irc.flood.linesPerSecond == 0.5)
        #expect(config.irc.sasl?.password == "p4ss: [not yaml")
        #expect(config.web.enabled)
        #expect(config.web.publicURL == "https://map.example.org")
        #expect(NearPlugin.Settings(section: config.plugins.sections["near"]).units == .mi)
        #expect(config.plugins.disabledIn == ["#lab": ["near"]])

        #expect(
            problems(Self.minimal, environment: ["ONTHEMAP_IRC__NIK": "Typo"]).map(\.description).contains {
                $0.contains("irc.nik")
            })
        #expect(problems(Self.minimal, environment: ["ONTHEMAP_IRC__PORT": "many"]).map(\.key) == ["irc.port"])
        #expect(problems(Self.minimal, environment: ["ONTHEMAP_IRC__NICK__X": "y"]).map(\.key) == ["irc.nick.x"])
        #expect(
            problems(Self.minimal, environment: ["ONTHEMAP_IRC__CHANNELS": "[unclosed"]).first?.message.contains(
                "ONTHEMAP_IRC__CHANNELS") == true)
        // The shorter names of the secrets still work.
        let secret = try ConfigLoader.parse(
            yaml: Self.minimal, environment: ["ONTHEMAP_SERVER_PASSWORD": "server-secret"])
        #expect(secret.irc.serverPassword == "server-secret")
    }

    @Test func theShutdownDrainIsConfigurable() throws {
        #expect(try ConfigLoader.parse(yaml: Self.minimal).irc.shutdownDrainSeconds == 5)
        let config = try ConfigLoader.parse(yaml: Self.minimal + "\n  shutdown_drain_seconds: 12.5\n")
        #expect(config.irc.shutdownDrainSeconds == 12.5)
        #expect(
            problems(Self.minimal + "\n  shutdown_drain_seconds: -1\n").map(\.key) == ["irc.shutdown_drain_seconds"])
    }

    @Test func eachPluginReadsItsOwnSection() throws {
        let config = try ConfigLoader.parse(
            yaml: Self.minimal + """

                plugins:
                  near: {units: mi}
                  announce: {poll_seconds: 60}
                  login: {allow_registration: true}
                  post: {flow_minutes: 3}
                """)
        let sections = config.plugins.sections
        #expect(NearPlugin.Settings(section: sections["near"]).units == .mi)
        #expect(AnnouncePlugin.Settings(section: sections["announce"]).pollInterval == .seconds(60))
        #expect(LoginPlugin.Settings(section: sections["login"]).allowRegistration)
        #expect(PostPlugin.Settings(section: sections["post"]).flowLifetime == .seconds(180))
        let defaults = try ConfigLoader.parse(yaml: Self.minimal).plugins.sections
        #expect(AnnouncePlugin.Settings(section: defaults["announce"]).pollInterval == .seconds(300))
        #expect(!LoginPlugin.Settings(section: defaults["login"]).allowRegistration)
        #expect(PostPlugin.Settings(section: defaults["post"]).flowLifetime == .seconds(600))
    }

    @Test func pluginSectionsReportUnknownKeysAndBadValues() {
        let found = problems(
            Self.minimal + """

                plugins:
                  near: {unit: mi}
                  where: {limit: 3}
                  anounce: {}
                  post: {flow_minutes: 0}
                  list: 5
                """)
        #expect(found.contains { $0.key == "plugins.near.unit" && $0.message.contains("did you mean \"units\"") })
        #expect(found.contains { $0.key == "plugins.where.limit" && $0.message.contains("unknown key") })
        #expect(found.contains { $0.key == "plugins.anounce" && $0.message.contains("did you mean \"announce\"") })
        #expect(found.contains { $0.key == "plugins.post.flow_minutes" && $0.message.contains("not 0") })
        #expect(found.contains { $0.key == "plugins.list" && $0.message.contains("must be a section") })
        #expect(found.count == 5, "\(found)")
    }

    /// `privacy.open_channel` is `names` unless set to `full`, reaches the privacy policy, and
    /// refuses another word; `check-config` warns of each configured channel without a key in a
    /// class-only class that withholds places there (not of a keyed one, nor with `full` or a
    /// public class).
    @Test func openChannelIsReadAndAKeylessChannelIsWarnedAbout() throws {
        let plain = try ConfigLoader.parse(yaml: Self.minimal)
        #expect(plain.privacy.openChannel == .names)
        #expect(plain.privacyPolicy.withholdsPlacesInOpenChannels)
        let warned = ConfigLoader.warnings(for: plain).filter { $0.key == "irc.channels" }
        #expect(warned.count == 1, "\(warned)")
        #expect(
            warned.first?.message.hasPrefix("#class has no key: unless it is invite-only (+i), anyone may join it")
                == true)
        #expect(warned.first?.message.contains("withhold students' places and links there") == true)

        let full = try ConfigLoader.parse(yaml: Self.minimal + "\nprivacy: {open_channel: full}\n")
        #expect(full.privacyPolicy.openChannel == .full)
        #expect(!ConfigLoader.warnings(for: full).contains { $0.key == "irc.channels" })
        let publicClass = try ConfigLoader.parse(yaml: Self.minimal + "\nweb: {visibility: public}\n")
        #expect(!ConfigLoader.warnings(for: publicClass).contains { $0.key == "irc.channels" })
        #expect(problems(Self.minimal + "\nprivacy: {open_channel: some}\n").map(\.key) == ["privacy.open_channel"])
    }
}
