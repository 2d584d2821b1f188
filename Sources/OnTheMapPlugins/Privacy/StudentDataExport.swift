import ClassKit
import Foundation
import IRCProtocol
import OnTheMapService

/// A student's data as one JSON document, for a portability request (`accounts export`): what the
/// directory holds (account, pin, session times) and what the bot keeps about them in its state
/// store (trusted hosts, the IRC identities of kept sessions, unit choices, open post steps, the
/// precision chosen). No password hash, session id or digest is part of it.
public struct StudentDataExport: Codable, Sendable, Equatable {
    public struct Account: Codable, Sendable, Equatable {
        public var accountKey: String
        public var email: String
        public var firstName: String
        public var lastName: String
        public var createdAt: Date
    }

    public struct Pin: Codable, Sendable, Equatable {
        public var objectId: String
        public var mapString: String
        public var mediaURL: String
        public var latitude: Double
        public var longitude: Double
        public var createdAt: Date
        public var updatedAt: Date
        /// The trip kept with the pin (`!post <place> until <date>`), ended or not, if any.
        public var trip: TripPlace?
    }

    /// A trip: the place shown instead of the home pin until `endsAt`.
    public struct TripPlace: Codable, Sendable, Equatable {
        public var mapString: String
        public var latitude: Double
        public var longitude: Double
        public var endsAt: Date
    }

    public struct Session: Codable, Sendable, Equatable {
        public var createdAt: Date
        public var expiresAt: Date
    }

    public struct TrustedHost: Codable, Sendable, Equatable {
        /// The services account (`a:…`) or host (`h:…`) that logged in.
        public var identity: String
        public var lastLogin: Date
    }

    public struct KeptSession: Codable, Sendable, Equatable {
        /// The bot instance (network, server and channels) that keeps it.
        public var instance: String
        public var nick: String
        public var servicesAccount: String?
        public var userAndHost: String?
    }

    /// A services account linked to the account on one IRC network.
    public struct ServicesLink: Codable, Sendable, Equatable {
        public var network: String
        public var servicesAccount: String
        public var linkedAt: Date
    }

    public struct UnitChoice: Codable, Sendable, Equatable {
        public var instance: String
        public var unit: String
        public var chosenAt: Date?
    }

    public struct OpenPost: Codable, Sendable, Equatable {
        public var instance: String
        public var place: String
        public var startedAt: Date
    }

    public var account: Account
    public var pin: Pin?
    public var sessions: [Session]
    public var trustedHosts: [TrustedHost]
    public var keptSessions: [KeptSession]
    public var unitChoices: [UnitChoice]
    public var openPosts: [OpenPost]
    /// The pin precision the student chose (`!privacy`), when they chose one.
    public var chosenPrecision: String?
    /// How the student's name shows to others (`!privacy name`), when they chose other than in full.
    public var chosenNameForm: String?
    /// The language the student chose to be answered in (`!lang`), as its tag ("pt-BR").
    public var chosenLanguage: String?
    /// The services accounts linked to the account.
    public var servicesLinks: [ServicesLink] = []
    /// When the sign-in link given out for the class map (a private `!map`) stops working, while
    /// one is kept unused (only a digest of it is kept).
    public var signInLinkExpiresAt: Date?
    /// When the private address of the student's own pin and trips feed (`!mydata links`) was
    /// given out, while it works (only a digest of its token is kept).
    public var dataFeedIssuedAt: Date?

    /// The data of the account `lookup` finds; nil when there is none.
    public static func make(
        _ lookup: AccountLookup, accounts: any AccountDirectory, store: (any BotStateStore)?
    ) async throws -> StudentDataExport? {
        guard let record = try await accounts.accountRecord(lookup) else { return nil }
        let account = record.account
        let key = account.accountKey
        var export = StudentDataExport(
            account: Account(
                accountKey: key, email: account.email, firstName: account.firstName, lastName: account.lastName,
                createdAt: account.createdAt),
            pin: record.pin.map {
                Pin(
                    objectId: $0.objectId, mapString: $0.mapString, mediaURL: $0.mediaURL,
                    latitude: $0.coordinate.latitude, longitude: $0.coordinate.longitude, createdAt: $0.createdAt,
                    updatedAt: $0.updatedAt,
                    trip: $0.trip.map {
                        TripPlace(
                            mapString: $0.mapString, latitude: $0.coordinate.latitude,
                            longitude: $0.coordinate.longitude, endsAt: $0.endsAt)
                    })
            },
            sessions: record.sessions.map { Session(createdAt: $0.createdAt, expiresAt: $0.expiresAt) },
            trustedHosts: [], keptSessions: [], unitChoices: [], openPosts: [], chosenPrecision: nil,
            servicesLinks: record.servicesLinks.map {
                ServicesLink(network: $0.network, servicesAccount: $0.servicesAccount, linkedAt: $0.createdAt)
            })
        guard let store else { return export }
        // What the state store keeps about the student: every entry of the registry that holds
        // something about students, in its order.
        var student = KeptStateRegistry.StudentInState(accountKey: key, email: account.email, identities: [])
        for entry in KeptStateRegistry.entries {
            if case .nothingAboutStudents = entry.holding { continue }
            for stateKey in try await KeptStateRegistry.keys(of: entry, accountKey: key, in: store) {
                guard let text = try await store.state(stateKey) else { continue }
                switch entry.holding {
                case .theAccount(let exportValue): exportValue(text, &export)
                case .entries(_, let exportEntries):
                    exportEntries(text, KeptStateRegistry.instance(of: stateKey, in: entry), &student, &export)
                case .nothingAboutStudents: break
                }
            }
        }
        return export
    }

    /// The document as pretty-printed JSON with ISO 8601 dates.
    public func json() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return String(decoding: try encoder.encode(self), as: UTF8.self)
    }
}
