import Foundation

/// A class account's link to a services account (NickServ, SASL) on one IRC network: a student the
/// server vouches for as logged in to that services account is logged in to the class account.
///
/// One services account links to at most one class account on a network, and a class account to at
/// most one services account per network. The account name is kept as the server spelled it and
/// folded with the network's casemapping (``foldedAccount``, the key every lookup uses: the caller
/// folds it, the service layer knows nothing of IRC).
public struct ServicesAccountLink: Sendable, Hashable {
    /// The class account.
    public var accountKey: String
    /// The IRC network's name in the bot's config.
    public var network: String
    /// The services account as it was given.
    public var servicesAccount: String
    /// The services account folded with the network's casemapping.
    public var foldedAccount: String
    public var createdAt: Date

    public init(accountKey: String, network: String, servicesAccount: String, foldedAccount: String, createdAt: Date) {
        self.accountKey = accountKey
        self.network = network
        self.servicesAccount = servicesAccount
        self.foldedAccount = foldedAccount
        self.createdAt = createdAt
    }

    /// The most bytes of a services account name (networks allow far fewer).
    public static let maximumAccountBytes = 64

    /// Throws `.rejectedInput` unless `name` can be a services account name: not empty, not `*`,
    /// at most ``maximumAccountBytes`` bytes, no spaces, control or hidden characters, no `@`, `!`
    /// or `,` (an email typed in its place, or a mask).
    public static func validateAccountName(_ name: String) throws {
        guard !name.isEmpty, name != "*" else {
            throw ServiceError.rejectedInput("A services account name cannot be empty.")
        }
        guard name.utf8.count <= maximumAccountBytes else {
            throw ServiceError.rejectedInput(
                "A services account name has at most \(maximumAccountBytes) bytes.")
        }
        let refused = name.unicodeScalars.contains { scalar in
            scalar.properties.isWhitespace || scalar.value < 0x20 || scalar.value == 0x7F || scalar == "@"
                || scalar == "!" || scalar == ","
        }
        guard !refused, !DirectoryInput.containsHiddenCharacters(name) else {
            throw ServiceError.rejectedInput(
                "A services account name has no spaces, control characters, '@', '!' or ','.")
        }
    }
}

/// What ``AccountStorage/insertServicesLink(_:)`` did.
public enum ServicesLinkInsertion: Sendable, Hashable {
    /// The link was stored.
    case stored
    /// Nothing stored: this very link already exists.
    case alreadyLinked(ServicesAccountLink)
    /// Nothing stored: the services account is linked to another class account on the network.
    case servicesAccountTaken(ServicesAccountLink)
    /// Nothing stored: the class account is linked to another services account on the network.
    case classAccountLinked(ServicesAccountLink)
    /// Nothing stored: there is no class account with this key.
    case noAccount
}
