import Foundation

/// The input rules shared by the local directories (SQLite, PostgreSQL). Every check throws
/// `ServiceError.rejectedInput` with a reason a person can read.
public enum DirectoryInput {
    public static let maximumEmailBytes = 254
    public static let maximumNameBytes = 100
    public static let maximumMapStringBytes = 512
    public static let maximumMediaURLBytes = 2048
    public static let minimumPasswordCharacters = 8
    public static let maximumPasswordBytes = 1024
    /// Why a new account is refused when its email has one (what `!register` never tells the
    /// person asking).
    public static let emailTaken = "An account with this email already exists."

    // Why an account's fields are refused, the reasons `ServiceError.rejectedInput` carries (the
    // bot says each in the asker's language, see ClassKit's ServiceErrorWording).
    public static let emailEmpty = "The email is empty."
    public static let emailTooLong = "The email is too long."
    public static let notAnEmail = "That does not look like an email address."
    public static let passwordEmpty = "The password is empty."
    public static let passwordTooShort = "The password must have at least \(minimumPasswordCharacters) characters."
    public static let passwordTooLong = "The password is too long."
    public static let passwordControlCharacters = "The password contains control characters."
    public static let nameEmpty = "The name is empty."
    public static let nameTooLong = "The name is too long."
    public static let nameHiddenCharacters = "The name contains \(hiddenCharactersWording)."

    /// The email as stored and compared: trimmed and lowercased. Rejects empty or malformed ones.
    public static func normalizedEmail(_ email: String) throws -> String {
        let normalized = email.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
        guard !normalized.isEmpty else { throw ServiceError.rejectedInput(emailEmpty) }
        guard normalized.utf8.count <= maximumEmailBytes else {
            throw ServiceError.rejectedInput(emailTooLong)
        }
        let parts = normalized.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty,
            !normalized.unicodeScalars.contains(where: { $0.properties.isWhitespace || isControl($0) })
        else { throw ServiceError.rejectedInput(notAnEmail) }
        return normalized
    }

    /// Checks a new password: 8 characters or more, at most 1024 bytes, no control characters.
    public static func validateNewPassword(_ password: String) throws {
        guard !password.isEmpty else { throw ServiceError.rejectedInput(passwordEmpty) }
        guard password.count >= minimumPasswordCharacters else {
            throw ServiceError.rejectedInput(passwordTooShort)
        }
        guard password.utf8.count <= maximumPasswordBytes else {
            throw ServiceError.rejectedInput(passwordTooLong)
        }
        guard !containsControlCharacters(password) else {
            throw ServiceError.rejectedInput(passwordControlCharacters)
        }
    }

    /// Checks an account's names (trimmed): at least one non-empty, each short and printable.
    /// Returns the trimmed names.
    public static func validateNames(firstName: String, lastName: String) throws -> (String, String) {
        let first = trimmedOfSpaces(firstName)
        let last = trimmedOfSpaces(lastName)
        guard !(first.isEmpty && last.isEmpty) else { throw ServiceError.rejectedInput(nameEmpty) }
        for name in [first, last] {
            guard name.utf8.count <= maximumNameBytes else {
                throw ServiceError.rejectedInput(nameTooLong)
            }
            guard !containsHiddenCharacters(name) else {
                throw ServiceError.rejectedInput(nameHiddenCharacters)
            }
        }
        return (first, last)
    }

    /// Checks every record of an import at `now` (a trip's end must be after it) before anything
    /// is written; the refusal names the record (counted from 1).
    public static func validateImport(_ records: [PinImportRecord], now: Date) throws {
        for (position, record) in records.enumerated() {
            do {
                try validatePin(record.pin.draft)
                if let trip = record.pin.draft.trip { try validateTrip(trip, now: now) }
            } catch ServiceError.rejectedInput(let reason) {
                throw ServiceError.rejectedInput("Record \(position + 1): \(reason)")
            }
        }
    }

    /// Checks a pin before it is saved: an owner, a name, a place, a valid coordinate, a link of
    /// at most 2048 bytes, no control characters anywhere; and the place and coordinate of its trip,
    /// when it has one (its end is checked against a clock by ``validateTrip(_:now:)``).
    public static func validatePin(_ draft: PinDraft) throws {
        guard !draft.uniqueKey.isEmpty, draft.uniqueKey.utf8.count <= 200,
            !containsControlCharacters(draft.uniqueKey)
        else { throw ServiceError.rejectedInput("The pin has no valid account key.") }
        _ = try validateNames(firstName: draft.firstName, lastName: draft.lastName)
        try validatePlace(draft.mapString, coordinate: draft.coordinate, called: "place", coordinateNoun: "coordinate")
        guard draft.mediaURL.utf8.count <= maximumMediaURLBytes else {
            throw ServiceError.rejectedInput("The link is longer than \(maximumMediaURLBytes) bytes.")
        }
        guard !containsHiddenCharacters(draft.mediaURL) else {
            throw ServiceError.rejectedInput("The link contains \(hiddenCharactersWording).")
        }
        if let trip = draft.trip {
            try validatePlace(
                trip.mapString, coordinate: trip.coordinate, called: "trip's place", coordinateNoun: "trip's coordinate"
            )
        }
    }

    /// The longest a trip may last from the moment it is saved.
    public static let maximumTripLength: TimeInterval = 366 * 24 * 3600

    /// Checks a trip before it is saved at `now`: a place as for a pin, a valid coordinate, and an
    /// end after `now` but at most ``maximumTripLength`` later.
    public static func validateTrip(_ trip: Trip, now: Date) throws {
        try validatePlace(
            trip.mapString, coordinate: trip.coordinate, called: "trip's place", coordinateNoun: "trip's coordinate")
        guard trip.endsAt > now else { throw ServiceError.rejectedInput("The trip's end is not in the future.") }
        guard trip.endsAt.timeIntervalSince(now) <= maximumTripLength else {
            throw ServiceError.rejectedInput("A trip can last at most 366 days.")
        }
    }

    /// Checks a place and its coordinate; the nouns name them in the refusal ("The place is empty.").
    private static func validatePlace(
        _ mapString: String, coordinate: Coordinate, called noun: String, coordinateNoun: String
    ) throws {
        let place = trimmedOfSpaces(mapString)
        guard !place.isEmpty else { throw ServiceError.rejectedInput("The \(noun) is empty.") }
        guard place.utf8.count <= maximumMapStringBytes else {
            throw ServiceError.rejectedInput("The \(noun) is too long.")
        }
        guard !containsHiddenCharacters(mapString) else {
            throw ServiceError.rejectedInput("The \(noun) contains \(hiddenCharactersWording).")
        }
        guard coordinate.isValid else {
            throw ServiceError.rejectedInput("The \(coordinateNoun) is not a valid latitude/longitude.")
        }
    }

    /// Email and password must both be non-empty before a login is tried.
    public static func requireCredentials(email: String, password: String) throws {
        if email.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
            throw ServiceError.rejectedInput(emailEmpty)
        }
        if password.isEmpty { throw ServiceError.rejectedInput(passwordEmpty) }
    }

    /// `text` without the spaces and tabs at either end: what `trimmingCharacters(in: .whitespaces)`
    /// gives (tab and the space separators). A text that starts and ends with an ASCII character
    /// other than space and tab has none to lose and is returned as it is, without Foundation's
    /// detour through `NSString` on Linux (several calls a pin, most of an import's checks).
    public static func trimmedOfSpaces(_ text: String) -> String {
        let utf8 = text.utf8
        guard let first = utf8.first, let last = utf8.last else { return text }
        func keeps(_ byte: UInt8) -> Bool { byte < 0x80 && byte != 0x20 && byte != 0x09 }
        if keeps(first) && keeps(last) { return text }
        return text.trimmingCharacters(in: .whitespaces)
    }

    /// For a text of ASCII alone, whether one of its bytes is a C0 control character or DEL (the
    /// ASCII characters of the control category; ASCII has no format character); nil when the
    /// text has other characters, whose categories are then looked up one by one.
    private static func asciiHasControl(_ text: String) -> Bool? {
        text.utf8.withContiguousStorageIfAvailable { bytes -> Bool? in
            var control = false
            for byte in bytes {
                if byte >= 0x80 { return nil }
                if byte < 0x20 || byte == 0x7F { control = true }
            }
            return control
        } ?? nil
    }

    /// True for NUL, C0/C1 control characters (which include IRC formatting codes) and DEL.
    public static func containsControlCharacters(_ text: String) -> Bool {
        if let ascii = asciiHasControl(text) { return ascii }
        return text.unicodeScalars.contains(where: isControl)
    }

    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.properties.generalCategory == .control
    }

    /// The one rule for the text of places, names and links on every way in (IRC, the web page,
    /// the API, imports): no control character (NUL, CR, LF, IRC formatting codes, DEL) and no
    /// format character — text-direction controls, zero-width spaces, soft hyphens, the byte-order
    /// mark, tag characters — which change how a text looks without being seen ("Paris\u{202E}gnp.exe").
    /// Zero-width joiner and non-joiner (U+200D, U+200C) stay allowed: Persian and Indic spellings
    /// and emoji need them, and they reorder nothing.
    public static func isHiddenCharacter(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .control: return true
        case .format: return scalar.value != 0x200C && scalar.value != 0x200D
        default: return false
        }
    }

    /// Whether `text` has a character ``isHiddenCharacter(_:)`` refuses.
    public static func containsHiddenCharacters(_ text: String) -> Bool {
        if let ascii = asciiHasControl(text) { return ascii }
        return text.unicodeScalars.contains(where: isHiddenCharacter)
    }

    /// What a refusal calls them.
    public static let hiddenCharactersWording =
        "hidden characters (control, text-direction or zero-width characters)"

}
