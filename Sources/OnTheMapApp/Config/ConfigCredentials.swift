import Foundation

/// Secrets handed over by systemd's `LoadCredential=`: files in the folder `$CREDENTIALS_DIRECTORY`
/// names, readable by the service's user only, each standing for one environment variable.
/// A password or URL credential gives the variable its text (one final line break dropped); a key
/// credential gives the variable the file's path, so the key is read where systemd put it.
public enum ConfigCredentials {
    /// What a credential's file gives its variable.
    public enum Meaning: Sendable {
        case text
        case path
    }

    /// The credentials the bot reads, by the name `LoadCredential=NAME:FILE` gives them.
    public static let known: [(name: String, variable: String, meaning: Meaning)] = [
        ("sasl-password", "ONTHEMAP_SASL_PASSWORD", .text),
        ("server-password", "ONTHEMAP_SERVER_PASSWORD", .text),
        ("postgres-url", "ONTHEMAP_POSTGRES_URL", .text),
        ("irc-client-key", "ONTHEMAP_IRC__TLS_CLIENT_KEY", .path),
        ("web-tls-key", "ONTHEMAP_WEB__TLS_KEY", .path),
    ]

    /// The variable that names the folder (set by systemd for a unit with `LoadCredential=`).
    public static let directoryVariable = "CREDENTIALS_DIRECTORY"

    /// The largest text credential read: a password or URL is a few hundred bytes.
    static let maximumTextBytes = 64 * 1024

    /// `environment` with a variable for each credential present in `$CREDENTIALS_DIRECTORY`.
    /// Files of other names are left alone (systemd may hand over credentials for others). A
    /// credential whose variable is set as well, a text credential that cannot be read, is too
    /// long or holds a line break or NUL inside, is a problem; the problem never quotes the secret.
    public static func environment(
        adding environment: [String: String]
    ) -> (environment: [String: String], problems: [ConfigProblem]) {
        guard let directory = environment[directoryVariable], !directory.isEmpty else { return (environment, []) }
        var result = environment
        var problems: [ConfigProblem] = []
        for credential in known {
            let file = (directory as NSString).appendingPathComponent(credential.name)
            guard FileManager.default.fileExists(atPath: file) else { continue }
            func problem(_ message: String) {
                problems.append(.init(key: "", message: "the credential \(credential.name) (\(file)) \(message)"))
            }
            if !(environment[credential.variable] ?? "").isEmpty {
                problem("and the variable \(credential.variable) are both set: keep one")
                continue
            }
            switch credential.meaning {
            case .path:
                guard FileManager.default.isReadableFile(atPath: file) else {
                    problem("cannot be read")
                    continue
                }
                result[credential.variable] = file
            case .text:
                guard let data = FileManager.default.contents(atPath: file) else {
                    problem("cannot be read")
                    continue
                }
                guard data.count <= maximumTextBytes, var text = String(data: data, encoding: .utf8) else {
                    problem("is not a short UTF-8 text")
                    continue
                }
                if text.hasSuffix("\r\n") {
                    text.removeLast()
                } else if text.hasSuffix("\n") {
                    text.removeLast()
                }
                if text.isEmpty {
                    problem("is empty")
                    continue
                }
                if text.contains(where: { $0 == "\n" || $0 == "\r" || $0 == "\0" || $0 == "\r\n" }) {
                    problem("holds a line break or NUL inside: a secret is one line")
                    continue
                }
                result[credential.variable] = text
            }
        }
        return (result, problems)
    }
}
