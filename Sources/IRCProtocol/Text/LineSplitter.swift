/// Cuts reply text into PRIVMSG/NOTICE texts that each still fit in one IRC line after the
/// server has relayed them as `:nick!user@host PRIVMSG target :text` + CRLF.
///
/// The byte budget is computed from the bot's current nick, the target and — unless the bot's
/// real `user@host` is known — a worst case for user (``worstCaseUserLength``, including `~`)
/// and host (``worstCaseHostLength``). `LINELEN` from ISUPPORT replaces the 512-byte limit.
///
/// Text is split at spaces where possible, otherwise between grapheme clusters (never inside a
/// UTF-8 scalar). A line feed in the text starts a new line (CR and NUL count as spaces); blank
/// lines are skipped and runs of spaces collapse to one. At most ``maxLines`` lines are
/// produced; when text had to be dropped the last line ends with "…".
public struct LineSplitter: Sendable, Hashable {
    /// Maximum number of lines per reply (at least 1).
    public var maxLines: Int
    /// Maximum line length in bytes including CRLF (`LINELEN`, normally 512).
    public var lineLength: Int
    /// Bytes assumed for the user part when the real one is unknown (`~` + USERLEN).
    public var worstCaseUserLength: Int
    /// Bytes assumed for the host part when the real one is unknown.
    public var worstCaseHostLength: Int
    /// The smallest text budget ever used, for absurdly long nicks or targets.
    public static let minimumBudget = 32

    public init(
        maxLines: Int = 3,
        lineLength: Int = IRCMessage.maxLineBytes,
        worstCaseUserLength: Int = 12,
        worstCaseHostLength: Int = 63
    ) {
        self.maxLines = max(1, maxLines)
        self.lineLength = lineLength
        self.worstCaseUserLength = worstCaseUserLength
        self.worstCaseHostLength = worstCaseHostLength
    }

    /// A splitter honouring the server's `LINELEN`, and `USERLEN`/`HOSTLEN` when advertised.
    public init(serverSupport: ServerSupport, maxLines: Int = 3) {
        self.init(maxLines: maxLines, lineLength: serverSupport.lineLength)
        if let userLength = serverSupport["USERLEN"].flatMap({ Int($0) }), userLength > 0 {
            worstCaseUserLength = max(userLength + 1, worstCaseUserLength)
        }
        if let hostLength = serverSupport["HOSTLEN"].flatMap({ Int($0) }), hostLength > 0 {
            worstCaseHostLength = max(hostLength, worstCaseHostLength)
        }
    }

    /// The number of text bytes that fit in one relayed line.
    /// - Parameters:
    ///   - command: `PRIVMSG` or `NOTICE`.
    ///   - target: the channel or nick the text goes to.
    ///   - nick: the bot's current nick.
    ///   - userHost: the bot's real `user@host` if known (e.g. from its own JOIN echo).
    public func textBudget(command: String = "PRIVMSG", target: String, nick: String, userHost: String? = nil)
        -> Int
    {
        let userHostLength = userHost?.utf8.count ?? (worstCaseUserLength + 1 + worstCaseHostLength)
        // ":" nick "!" user@host " " command " " target " :" text CRLF
        let overhead =
            1 + nick.utf8.count + 1 + userHostLength + 1 + command.utf8.count + 1 + target.utf8.count + 2 + 2
        return max(lineLength - overhead, Self.minimumBudget)
    }

    /// Splits `text` into at most ``maxLines`` pieces that fit the budget for this target.
    public func split(
        _ text: String,
        command: String = "PRIVMSG",
        target: String,
        nick: String,
        userHost: String? = nil
    ) -> [String] {
        split(text, budget: textBudget(command: command, target: target, nick: nick, userHost: userHost))
    }

    /// The messages (`PRIVMSG`/`NOTICE`) carrying `text` to `target`.
    public func messages(
        _ text: String,
        command: String = "PRIVMSG",
        target: String,
        nick: String,
        userHost: String? = nil
    ) -> [IRCMessage] {
        split(text, command: command, target: target, nick: nick, userHost: userHost).map {
            IRCMessage(command: command, parameters: [target, $0])
        }
    }

    /// Splits `text` into at most ``maxLines`` pieces of at most `budget` UTF-8 bytes each.
    public func split(_ text: String, budget: Int) -> [String] {
        let budget = max(budget, Self.minimumBudget)
        if Self.fitsAsIs(text, budget: budget) { return [text] }
        return splitByCharacters(text, budget: budget)
    }

    /// ``split(_:budget:)`` without its shortcut for text that already fits.
    func splitByCharacters(_ text: String, budget: Int) -> [String] {
        let budget = max(budget, Self.minimumBudget)
        var lines: [String] = []
        var truncated = false
        let paragraphs = text.split(whereSeparator: { $0 == "\n" || $0 == "\r\n" })
        paragraphLoop: for paragraph in paragraphs {
            var current = ""
            var currentBytes = 0
            let words = paragraph.split(whereSeparator: { $0 == " " || $0 == "\r" || $0 == "\0" })
            for word in words {
                let wordBytes = word.utf8.count
                if currentBytes > 0 && currentBytes + 1 + wordBytes <= budget {
                    current += " "
                    current += word
                    currentBytes += 1 + wordBytes
                    continue
                }
                if currentBytes > 0 {
                    lines.append(current)
                    current = ""
                    currentBytes = 0
                    if lines.count > maxLines { break paragraphLoop }
                }
                if wordBytes <= budget {
                    current = String(word)
                    currentBytes = wordBytes
                } else {
                    var pieces = Self.hardSplit(word, budget: budget)
                    current = pieces.removeLast()
                    currentBytes = current.utf8.count
                    lines.append(contentsOf: pieces)
                    if lines.count > maxLines { break paragraphLoop }
                }
            }
            if currentBytes > 0 {
                lines.append(current)
                if lines.count > maxLines { break paragraphLoop }
            }
        }
        if lines.count > maxLines {
            lines.removeLast(lines.count - maxLines)
            truncated = true
        }
        if truncated, let last = lines.popLast() {
            lines.append(Self.withEllipsis(last, budget: budget))
        }
        return lines
    }

    /// Whether `text` is already one line as ``split(_:budget:)`` would make it: not empty, within
    /// the budget, no line break, NUL or CR, no space at either end and no run of spaces. Most
    /// replies are; they skip the splitting by characters.
    static func fitsAsIs(_ text: String, budget: Int) -> Bool {
        var text = text
        return text.withUTF8 { bytes in
            guard let first = bytes.first, let last = bytes.last, bytes.count <= budget, first != 0x20, last != 0x20
            else { return false }
            var previous: UInt8 = 0
            for byte in bytes {
                if byte == 0x0A || byte == 0x0D || byte == 0 || (byte == 0x20 && previous == 0x20) { return false }
                previous = byte
            }
            return true
        }
    }

    /// Cuts an overlong word between grapheme clusters (or between scalars when one cluster alone
    /// is larger than the budget). Always returns at least one piece.
    static func hardSplit(_ word: Substring, budget: Int) -> [String] {
        var pieces: [String] = []
        var current = ""
        var currentBytes = 0
        for character in word {
            let size = character.utf8.count
            if size > budget {
                // A pathological cluster: fall back to scalar boundaries.
                for scalar in character.unicodeScalars {
                    let scalarSize = UTF8.width(scalar)
                    if currentBytes + scalarSize > budget {
                        pieces.append(current)
                        current = ""
                        currentBytes = 0
                    }
                    current.unicodeScalars.append(scalar)
                    currentBytes += scalarSize
                }
                continue
            }
            if currentBytes + size > budget {
                pieces.append(current)
                current = ""
                currentBytes = 0
            }
            current.append(character)
            currentBytes += size
        }
        pieces.append(current)
        return pieces
    }

    /// `line` + "…", shortened (at a space if one is near the end, else between clusters) so the
    /// result fits the budget.
    static func withEllipsis(_ line: String, budget: Int) -> String {
        let ellipsis = TextSanitizer.ellipsis
        let room = budget - ellipsis.utf8.count
        if line.utf8.count <= room { return line + ellipsis }
        var end = line.startIndex
        var used = 0
        var lastSpace: String.Index?
        for index in line.indices {
            let size = line[index].utf8.count
            if used + size > room { break }
            if line[index] == " " { lastSpace = index }
            used += size
            end = line.index(after: index)
        }
        // Prefer ending at a word boundary unless that would waste most of the line.
        if let lastSpace, line.utf8.distance(from: line.startIndex, to: lastSpace) > room / 2 {
            end = lastSpace
        }
        return String(line[..<end]) + ellipsis
    }
}
