import Foundation
import OnTheMapApp
import Testing

/// What a config file can make the bot hold or say, whoever wrote it.
@Suite struct ConfigBoundsTests {
    /// Nine levels of ten aliases each: 10⁹ values once expanded, in a file of under 1 KB.
    static var billionLaughs: String {
        var lines = ["irc:", "  server: irc.example.org", "  nick: MapBot", "  channels: [\"#class\"]"]
        lines.append(
            "a0: &a0 [\"lol\", \"lol\", \"lol\", \"lol\", \"lol\", \"lol\", \"lol\", \"lol\", \"lol\", \"lol\"]")
        for level in 1...9 {
            let previous = Array(repeating: "*a\(level - 1)", count: 10).joined(separator: ", ")
            lines.append("a\(level): &a\(level) [\(previous)]")
        }
        return lines.joined(separator: "\n")
    }

    @Test func aFileWhoseAliasesExpandToBillionsIsRefusedAtOnce() {
        let started = ContinuousClock.now
        do {
            _ = try ConfigLoader.parse(yaml: Self.billionLaughs)
            Issue.record("the file was read")
        } catch {
            #expect(
                error.problems.map(\.message) == [
                    "the config holds more than 100000 values once its YAML aliases are expanded: nothing was read"
                ])
        }
        // Not a timing assertion of the product's speed: a refusal that expanded the file would
        // take minutes and gigabytes, far beyond this bound.
        #expect(ContinuousClock.now - started < .seconds(30))
    }

    @Test func aFileOfMoreThanAMebibyteIsRefused() {
        let huge = ConfigTests.minimal + "\n# " + String(repeating: "x", count: 1 << 20)
        do {
            _ = try ConfigLoader.parse(yaml: huge)
            Issue.record("the file was read")
        } catch {
            #expect(error.problems.first?.message.hasPrefix("the config is larger than 1024 KiB") == true)
        }
    }

    @Test func aFewAliasesStillWork() throws {
        let yaml = """
            irc:
              server: irc.example.org
              nick: MapBot
              channels: &rooms ["#class", "#lab"]
              announce_to: *rooms
            """
        let config = try ConfigLoader.parse(yaml: yaml)
        #expect(config.irc.announceTo == ["#class", "#lab"])
    }

    @Test func anOwnerMaskWithAWrittenOutUserNameGetsAHint() throws {
        let config = try ConfigLoader.parse(
            yaml: ConfigTests.minimal + "\n  owners: [\"boss!boss@host.example\", \"ada!*ada@host.example\"]")
        let hints = ConfigLoader.warnings(for: config).filter { $0.key == "irc.owners" }
        #expect(hints.count == 1)
        #expect(hints.first?.message.contains("write *boss to match both") == true)
    }
}
