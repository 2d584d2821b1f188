import IRCProtocol

/// What the client publishes about itself with `draft/metadata-2` (`METADATA * SET key :value`),
/// within the limits the server gives in the capability's value (`max-keys`, `max-value-bytes`;
/// `maxkey` and `maxvaluebytes` in older drafts).
struct MetadataPublication: Sendable, Equatable {
    /// The most keys the client may set on itself; nil when the server names no limit.
    var maximumKeys: Int?
    /// The longest value the client may set, in bytes; nil when the server names no limit.
    var maximumValueBytes: Int?

    /// The limits in the capability's value (`max-keys=5,max-value-bytes=200,before-connect`);
    /// unknown tokens and malformed numbers are ignored.
    init(capabilityValue: String) {
        for token in capabilityValue.split(separator: ",") {
            let parts = token.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2, let number = Int(parts[1]), number >= 0 else { continue }
            switch parts[0] {
            case "max-keys", "maxkey": maximumKeys = number
            case "max-value-bytes", "maxvaluebytes": maximumValueBytes = number
            default: break
            }
        }
    }

    /// Whether `key` is a valid metadata key (one or more of `a-z`, `0-9`, `_./-`).
    static func isValidKey(_ key: String) -> Bool {
        !key.isEmpty
            && key.utf8.allSatisfy { byte in
                (0x61...0x7A).contains(byte) || (0x30...0x39).contains(byte) || "_./-".utf8.contains(byte)
            }
    }

    /// The `METADATA * SET` lines for `entries`, in their order: invalid keys, values with control
    /// characters and values over the byte limit are left out (`skipped` names them), and no more
    /// than the key limit are set.
    func lines(for entries: [IRCClientConfiguration.MetadataEntry]) -> (lines: [IRCMessage], skipped: [String]) {
        var lines: [IRCMessage] = []
        var skipped: [String] = []
        for entry in entries {
            let fits =
                Self.isValidKey(entry.key)
                && !entry.value.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F }
                && maximumValueBytes.map { entry.value.utf8.count <= $0 } ?? true
            guard fits, maximumKeys.map({ lines.count < $0 }) ?? true else {
                skipped.append(entry.key)
                continue
            }
            lines.append(IRCMessage(command: "METADATA", parameters: ["*", "SET", entry.key, entry.value]))
        }
        return (lines, skipped)
    }
}
