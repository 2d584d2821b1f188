import Foundation
@testable import OnTheMapApp
import Testing

/// `networks:`: several IRC networks in one config, and `irc:` as the one network named
/// `default`.
@Suite struct NetworksConfigTests {
    static let two = """
        networks:
          - name: libera
            server: irc.libera.chat
            nick: MapBot
            channels: ["#class"]
            announce_to: ["#class"]
            owners: ["account:teacher"]
          - name: oftc
            server: irc.oftc.net
            port: 6667
            tls: false
            nick: MapBot2
            channels: ["#lab", "#other"]
            announce_to: ["#lab"]
            command_prefix: "?"
            flood: {burst: 4}
        """

    func problems(_ yaml: String, environment: [String: String] = [:]) -> [ConfigProblem] {
        do {
            _ = try ConfigLoader.parse(yaml: yaml, environment: environment)
            return []
        } catch {
            return error.problems
        }
    }

    @Test func eachNetworkKeepsItsOwnSection() throws {
        let config = try ConfigLoader.parse(yaml: Self.two)
        #expect(config.networks.map(\.name) == ["libera", "oftc"])
        #expect(config.networks.map(\.keyPath) == ["networks[0]", "networks[1]"])
        let libera = try #require(config.network(named: "libera")).irc
        let oftc = try #require(config.network(named: "oftc")).irc
        #expect(libera.server == "irc.libera.chat" && libera.port == 6697 && libera.tls)
        #expect(libera.owners == ["account:teacher"] && libera.commandPrefix == "!")
        #expect(oftc.server == "irc.oftc.net" && oftc.port == 6667 && !oftc.tls)
        #expect(oftc.channels.map(\.name) == ["#lab", "#other"] && oftc.announceTo == ["#lab"])
        #expect(oftc.owners.isEmpty && oftc.commandPrefix == "?" && oftc.flood.burst == 4)
        // `irc` is the first network's section.
        #expect(config.irc == libera)
    }

    @Test func anIRCSectionIsTheOneNetworkNamedDefault() throws {
        let config = try ConfigLoader.parse(yaml: "irc:\n  server: irc.example.org\n  nick: MapBot\n")
        #expect(config.networks.map(\.name) == [BotConfiguration.defaultNetworkName])
        #expect(config.networks.map(\.keyPath) == ["irc"])
        #expect(config.irc.server == "irc.example.org")
    }

    @Test func ircAndNetworksTogetherAreRefused() {
        let found = problems("irc:\n  server: a.example\n  nick: A\n" + Self.two)
        #expect(found.contains { $0.key == "networks" && $0.message.contains("both") })
    }

    @Test func anEmptyOrMistypedListIsRefused() {
        #expect(problems("networks: []\n").map(\.key) == ["networks"])
        #expect(problems("networks: {name: a}\n").map(\.key) == ["networks"])
        #expect(problems("networks:\n").map(\.key) == ["networks"])
    }

    @Test func namesMustBePresentWellFormedAndUnique() {
        let yaml = """
            networks:
              - {server: a.example, nick: A}
              - {name: "bad name", server: b.example, nick: B}
              - {name: lab, server: c.example, nick: C}
              - {name: LAB, server: d.example, nick: D}
              - {name: "\(String(repeating: "x", count: 33))", server: e.example, nick: E}
            """
        let found = problems(yaml)
        #expect(found.map(\.key) == ["networks[0].name", "networks[1].name", "networks[3].name", "networks[4].name"])
        #expect(found[0].message.contains("missing"))
        #expect(found[1].message.contains("not a network name"))
        #expect(found[2].message.contains("networks[2]"))
    }

    @Test func everyRuleOfIRCHoldsInEachNetworkUnderItsOwnPath() {
        let yaml = """
            networks:
              - {name: a, server: a.example, nick: A, channels: ["#a"]}
              - name: b
                server: ""
                nick: "9bad"
                channels: ["nohash"]
                announce_to: ["#elsewhere"]
                owners: ["te*cher"]
                nik: typo
            """
        let keys = Set(problems(yaml).map(\.key))
        #expect(
            keys == [
                "networks[1].nik", "networks[1].server", "networks[1].nick", "networks[1].channels[0]",
                "networks[1].announce_to", "networks[1].owners[0]",
            ])
    }

    @Test func aNetworksSecretComesFromItsOwnVariable() throws {
        let yaml = Self.two.replacingOccurrences(
            of: "    owners: [\"account:teacher\"]",
            with: "    owners: [\"account:teacher\"]\n    sasl: {username: MapBot}")
        let config = try ConfigLoader.parse(
            yaml: yaml, environment: ["ONTHEMAP_NETWORKS__LIBERA__SASL__PASSWORD": "s3cret"])
        #expect(config.network(named: "libera")?.irc.sasl?.password == "s3cret")
        #expect(config.network(named: "oftc")?.irc.sasl == nil)
        // Without the variable, the password is missing on that network only.
        #expect(problems(yaml).map(\.key) == ["networks[0].sasl.password"])
    }

    @Test func theSharedSecretVariablesAreRefusedWithSeveralServers() {
        for variable in ["ONTHEMAP_SASL_PASSWORD", "ONTHEMAP_SERVER_PASSWORD"] {
            let found = problems(Self.two, environment: [variable: "one-for-all"])
            #expect(found.map(\.key) == ["networks"], "\(variable)")
            #expect(found.first?.message.contains(variable) == true)
            #expect(found.first?.message.contains("one-for-all") == false)
        }
    }

    @Test func directoryToolsIgnoreTheNetworks() throws {
        let config = try ConfigLoader.parse(yaml: "networks: []\n", requireIRC: false)
        #expect(config.networks.isEmpty)
    }
}

/// What `!reload` names on a bot with several networks.
@Suite struct NetworksReloadTests {
    @Test func eachNetworksKeysAreNamedByNetworkAndANewNetworkWaitsForARestart() throws {
        let started = try ConfigLoader.parse(yaml: NetworksConfigTests.two)
        var new = started
        new.networks[1].irc.channels.append(.init(name: "#extra"))
        new.networks[0].irc.owners = []
        new.networks[0].irc.nick = "OtherBot"
        let changes = ConfigChanges(
            current: started, started: started, new: new, background: ["announce"], networks: ["libera", "oftc"])
        #expect(changes.applied == ["networks.libera.owners", "networks.oftc.channels"])
        #expect(changes.needRestart == ["networks.libera.nick"])

        var grown = started
        grown.networks.append(.init(name: "school", irc: started.networks[0].irc))
        grown.networks.removeFirst()
        let regrouped = ConfigChanges(
            current: started, started: started, new: grown, background: [], networks: ["libera", "oftc"])
        #expect(regrouped.needRestart == ["networks (adding school; removing libera)"])
        #expect(regrouped.applied.isEmpty)
    }
}
