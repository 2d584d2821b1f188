import ArgumentParser
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// `check-config --as-user NAME`: the check as the service sees its files. Started as root, it
/// does what systemd does before it starts the unit — copies the credentials of
/// `$CREDENTIALS_DIRECTORY` (when set, as root may read them) into a fresh folder only `NAME` can
/// read — then becomes `NAME` (its groups included) for everything else, so a TLS key or CA file
/// that only root can read is reported as the service would meet it.
enum ServiceUser {
    struct Refusal: Error, CustomStringConvertible {
        var description: String
    }

    /// Becomes `name`; returns the environment to read the config with (its credentials copied).
    static func become(_ name: String, environment: [String: String]) throws(Refusal) -> [String: String] {
        guard geteuid() == 0 else {
            throw Refusal(description: "--as-user needs root (to become \(name)); run it with sudo")
        }
        guard let entry = getpwnam(name) else { throw Refusal(description: "there is no user \(name) on this machine") }
        let uid = entry.pointee.pw_uid
        let gid = entry.pointee.pw_gid
        var environment = environment
        if let source = environment[ConfigCredentials.directoryVariable], !source.isEmpty {
            environment[ConfigCredentials.directoryVariable] = try copyCredentials(from: source, uid: uid, gid: gid)
        }
        guard initgroups(name, gid) == 0, setgid(gid) == 0, setuid(uid) == 0, geteuid() == uid else {
            throw Refusal(description: "could not become \(name): \(String(cString: strerror(errno)))")
        }
        return environment
    }

    /// Copies the known credentials to a new folder owned by `uid`, 0700 (files 0400).
    private static func copyCredentials(from source: String, uid: uid_t, gid: gid_t) throws(Refusal) -> String {
        var template = Array((NSTemporaryDirectory() + "/onthemap-credentials.XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else {
            throw Refusal(description: "could not make a folder for the credentials")
        }
        let folder = String(cString: made)
        for credential in ConfigCredentials.known {
            let from = (source as NSString).appendingPathComponent(credential.name)
            guard FileManager.default.fileExists(atPath: from) else { continue }
            let to = (folder as NSString).appendingPathComponent(credential.name)
            guard let data = FileManager.default.contents(atPath: from),
                FileManager.default.createFile(atPath: to, contents: data, attributes: [.posixPermissions: 0o400]),
                chown(to, uid, gid) == 0
            else {
                throw Refusal(description: "the credential \(from) cannot be read")
            }
        }
        guard chown(folder, uid, gid) == 0 else { throw Refusal(description: "could not hand \(folder) over") }
        return folder
    }
}
