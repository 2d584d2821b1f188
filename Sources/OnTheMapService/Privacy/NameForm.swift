import Foundation

/// How a student's name shows to others (`!privacy name`): in full, or as the first name and the
/// initial of the last ("Ada L."). It is applied when a pin is kept, so everything that shows a
/// pin's name (IRC answers and announcements, the map, its API, the operator's exports) shows this
/// form; the account keeps the full name, which only the student sees.
public enum NameForm: String, Sendable, Hashable, CaseIterable {
    case full
    /// The first name and the last name's initial.
    case first

    /// The form a word names ("first", "Full"), or nil.
    public init?(word: String) {
        self.init(rawValue: word.lowercased())
    }

    /// The names as others see them: unchanged in full; the last name cut to its first letter and
    /// a full stop ("Lovelace" → "L.") for `first`, an empty one left empty.
    public func applied(first: String, last: String) -> (first: String, last: String) {
        switch self {
        case .full:
            return (first, last)
        case .first:
            let trimmed = last.trimmingCharacters(in: .whitespaces)
            return (first, trimmed.first.map { "\($0)." } ?? "")
        }
    }
}
