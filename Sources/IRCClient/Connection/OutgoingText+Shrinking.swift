import IRCProtocol

extension OutgoingText {
    /// `texts` with each asker's channel answer made one line: consecutive texts to the same channel on
    /// behalf of the same asker become one text of at most one line ("alice: first · second · third",
    /// cut with an ellipsis where it does not fit). Private texts and announcements are left as they are.
    public static func shrunk(_ texts: [OutgoingText], isChannel: (String) -> Bool) -> [OutgoingText] {
        var result: [OutgoingText] = []
        for text in texts {
            guard let asker = text.fairnessKey, isChannel(text.target) else {
                result.append(text)
                continue
            }
            if var last = result.last, last.kind == text.kind, last.target == text.target,
                last.fairnessKey == asker, last.maxLines == 1
            {
                let prefix = asker + ": "
                let addition = text.text.hasPrefix(prefix) ? String(text.text.dropFirst(prefix.count)) : text.text
                last.text += " · " + addition
                result[result.count - 1] = last
            } else {
                var shrunk = text
                shrunk.maxLines = 1
                result.append(shrunk)
            }
        }
        return result
    }

    /// How many of `texts` go to, or on behalf of, each fairness key (folded by `caseMapping`, as the
    /// send queue's).
    static func textsPerKey(_ texts: [OutgoingText], caseMapping: CaseMapping) -> [String: Int] {
        var counts: [String: Int] = [:]
        for text in texts { counts[caseMapping.lowercased(text.fairnessKey ?? text.target), default: 0] += 1 }
        return counts
    }
}
