import Foundation
import IRCProtocol

/// Who may run owner commands: services accounts and `nick!user@host` masks (`irc.owners`).
///
/// An account is the strong form: the network vouches for it. A mask trusts what the server shows
/// as the sender's user and host, so it is only as good as its host part (a cloak or a fixed
/// address, never `*`). A sender whose user or host the bot does not know matches no mask.
public struct OwnerList: Sendable, Equatable {
    /// One entry of `irc.owners`.
    public enum Entry: Sendable, Hashable, CustomStringConvertible {
        /// A services account, as written (compared with the server's casemapping).
        case account(String)
        /// A `nick!user@host` glob mask.
        case mask(String)

        /// `nick!user@host` (it has `!` and `@`) is a mask; `account:NAME`, `$a:NAME` or a bare
        /// name is an account. Nil for an empty entry, a bare name with glob characters, or a mask
        /// with spaces or control characters.
        public init?(parsing text: String) {
            let entry = text.trimmingCharacters(in: .whitespaces)
            guard !entry.isEmpty, !entry.unicodeScalars.contains(where: { $0.value < 0x21 || $0.value == 0x7F })
            else { return nil }
            for marker in ["account:", "$a:"] where entry.lowercased().hasPrefix(marker) {
                let name = String(entry.dropFirst(marker.count))
                guard !name.isEmpty, !name.contains(where: { "*?!@".contains($0) }) else { return nil }
                self = .account(name)
                return
            }
            if let bang = entry.firstIndex(of: "!"), let at = entry.lastIndex(of: "@"), bang < at {
                self = .mask(entry)
            } else if entry.contains(where: { "*?!@".contains($0) }) {
                return nil
            } else {
                self = .account(entry)
            }
        }

        public var description: String {
            switch self {
            case .account(let name): "account:\(name)"
            case .mask(let mask): mask
            }
        }

        /// The user name of a mask when it is written out in full (no wildcard, no `~`): such a
        /// mask never matches on a server that marks a user name not confirmed by ident with `~`
        /// (ngircd, or any server without an ident reply), where the user shows as `~name`.
        public var literalUserName: String? {
            guard case .mask(let mask) = self, let bang = mask.firstIndex(of: "!"),
                let at = mask.lastIndex(of: "@"), bang < at
            else { return nil }
            let user = mask[mask.index(after: bang)..<at]
            guard !user.isEmpty, !user.contains(where: { "*?~".contains($0) }) else { return nil }
            return String(user)
        }

        /// Whether the mask's host part lets anyone in (`*`, `*.*`, …): anyone can take the nick and
        /// user name, so such an entry is a hole (`check-config` warns).
        public var hasOpenHost: Bool {
            guard case .mask(let mask) = self, let at = mask.lastIndex(of: "@") else { return false }
            return mask[mask.index(after: at)...].allSatisfy { "*?.".contains($0) }
        }
    }

    public let entries: [Entry]

    public init(_ entries: [Entry] = []) {
        self.entries = entries
    }

    public var isEmpty: Bool { entries.isEmpty }

    /// Whether `sender` is an owner, comparing with the server's casemapping.
    public func contains(_ sender: UserIdentity, caseMapping: CaseMapping) -> Bool {
        for entry in entries {
            switch entry {
            case .account(let name):
                if let account = sender.loggedInAccount, caseMapping.lowercased(account) == caseMapping.lowercased(name)
                {
                    return true
                }
            case .mask(let pattern):
                guard let user = sender.user, let host = sender.host else { continue }
                if IRCMask(pattern, caseMapping: caseMapping).matches("\(sender.nick)!\(user)@\(host)") { return true }
            }
        }
        return false
    }
}
