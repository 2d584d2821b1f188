/// What no IRC network accepts in a nick, so that a word which breaks these rules is known not to
/// be anyone's nick without asking the server.
///
/// The rules are the ones every network shares (RFC 2812 and the modern client protocol): a nick
/// has no space, control character, `,`, `*`, `?`, `!` or `@`, and does not start with a digit,
/// `-`, `:`, `$`, a channel prefix (`#`, `&`) or a membership prefix (`+`, `%`, `~`). A network may
/// refuse more (its own length limit, letters outside ASCII), so a word that passes may still be no
/// nick; a word that fails is never one.
public enum NickSyntax {
    /// The most bytes a nick is taken to have (more than any network's `NICKLEN`).
    public static let maximumBytes = 64

    /// Whether `text` may be a nick on some network (see ``NickSyntax``).
    public static func couldBeNick(_ text: some StringProtocol) -> Bool {
        guard let first = text.unicodeScalars.first, text.utf8.count <= maximumBytes else { return false }
        switch first {
        case "0"..."9", "-", ":", "$", "#", "&", "+", "%", "~": return false
        default: break
        }
        return !text.unicodeScalars.contains { scalar in
            switch scalar {
            case " ", ",", "*", "?", "!", "@": return true
            default: return scalar.value < 0x20 || scalar.value == 0x7F || scalar.properties.isWhitespace
            }
        }
    }
}
