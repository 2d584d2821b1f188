import BotTesting
import Foundation
import OnTheMapApp
import Testing

/// Secrets handed over by systemd's `LoadCredential=` (files in `$CREDENTIALS_DIRECTORY`).
struct ConfigCredentialsTests {
    func folder(_ files: [String: String]) throws -> TemporaryDirectory {
        let folder = try TemporaryDirectory(prefix: "credentials")
        for (name, text) in files { try text.write(toFile: folder.file(name), atomically: true, encoding: .utf8) }
        return folder
    }

    func config(in folder: TemporaryDirectory, yaml: String = ConfigTests.minimal) throws -> String {
        let path = folder.file("bot.yaml")
        try yaml.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// A password or URL credential is its variable's value, its final line break dropped; a key
    /// credential gives its path; files of other names are left alone.
    @Test func credentialsStandForTheirVariables() throws {
        let credentials = try folder([
            "sasl-password": "Sasl-Secret-4711\n", "postgres-url": "postgres://bot@db/class\r\n",
            "irc-client-key": "KEY", "someone-elses": "x",
        ])
        let (environment, problems) = ConfigCredentials.environment(adding: [
            "CREDENTIALS_DIRECTORY": credentials.path, "HOME": "/root",
        ])
        #expect(problems.isEmpty)
        #expect(environment["ONTHEMAP_SASL_PASSWORD"] == "Sasl-Secret-4711")
        #expect(environment["ONTHEMAP_POSTGRES_URL"] == "postgres://bot@db/class")
        #expect(environment["ONTHEMAP_IRC__TLS_CLIENT_KEY"] == credentials.file("irc-client-key"))
        #expect(environment["HOME"] == "/root")
        #expect(environment.count == 5)
    }

    /// The loaded config takes the secrets: the server password and SASL password reach the
    /// network's section, as their variables would.
    @Test func theLoadedConfigHasTheSecrets() throws {
        let credentials = try folder(["server-password": "Pass-Word-1\n", "sasl-password": "Sasl-Secret-4711"])
        let config = try ConfigLoader.load(
            path: try config(in: credentials), environment: ["CREDENTIALS_DIRECTORY": credentials.path])
        #expect(config.irc.serverPassword == "Pass-Word-1")
        #expect(config.irc.sasl?.password == "Sasl-Secret-4711")
        #expect(config.irc.sasl?.username == "MapBot")
        // Without the folder nothing is read from it.
        let plain = try ConfigLoader.load(path: try self.config(in: credentials), environment: [:])
        #expect(plain.irc.serverPassword.isEmpty)
        #expect(plain.irc.sasl == nil)
    }

    /// A credential and its variable both set, a secret of several lines, an empty one: each is a
    /// problem that names the credential and never quotes the secret, and nothing is loaded.
    @Test func doubtfulCredentialsAreProblemsThatNeverQuoteTheSecret() throws {
        let credentials = try folder([
            "sasl-password": "Sasl-Secret-4711", "server-password": "first\nsecond-Secret", "postgres-url": "\n",
        ])
        let (_, problems) = ConfigCredentials.environment(adding: [
            "CREDENTIALS_DIRECTORY": credentials.path, "ONTHEMAP_SASL_PASSWORD": "from-env-Secret",
        ])
        let text = problems.map(\.description).joined(separator: "\n")
        #expect(problems.count == 3)
        #expect(text.contains("sasl-password") && text.contains("ONTHEMAP_SASL_PASSWORD"))
        #expect(text.contains("server-password") && text.contains("line break"))
        #expect(text.contains("postgres-url") && text.contains("empty"))
        #expect(!text.contains("Secret"))
        let path = try config(in: credentials)
        let environment = ["CREDENTIALS_DIRECTORY": credentials.path, "ONTHEMAP_SASL_PASSWORD": "from-env-Secret"]
        #expect(throws: ConfigError.self, "a config with doubtful credentials is not loaded") {
            _ = try ConfigLoader.load(path: path, environment: environment)
        }
        do throws(ConfigError) {
            _ = try ConfigLoader.load(path: path, environment: environment)
        } catch {
            #expect(error.problems.count == 3)
        }
    }
}
