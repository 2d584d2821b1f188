/// Why a received line could not be parsed as an IRC message.
public enum IRCParseError: Error, Sendable, Equatable {
    /// The line has no bytes at all.
    case empty
    /// The part of the line after the tags is longer than the limit (512 bytes including CRLF).
    case lineTooLong
    /// The tags section (`@` up to and including its trailing space) exceeds 8191 bytes.
    case tagsTooLong
    /// The line holds tags and/or a source but no command.
    case missingCommand
    /// The command is neither letters only nor exactly three digits.
    case invalidCommand
    /// The line starts with `:` but the source is empty.
    case invalidSource
    /// The line contains NUL, CR or LF (lines are passed without their terminator).
    case forbiddenCharacter
}

/// Why a message could not be serialized by ``IRCMessage/serializedChecked()``.
public enum IRCSerializationError: Error, Sendable, Equatable {
    /// The command is empty or contains bytes other than ASCII letters and digits.
    case invalidCommand
    /// A tag key is empty or contains a byte that is not allowed in tag keys.
    case invalidTagKey(String)
    /// The source is empty or contains a space, NUL, CR or LF.
    case invalidSource
    /// A parameter contains NUL, CR or LF.
    case forbiddenCharacter(parameterIndex: Int)
    /// A parameter other than the last is empty, contains a space or starts with `:`.
    case invalidMiddleParameter(index: Int)
}
