import BotKit
import ClassKit
import Foundation
import Localization
import OnTheMapService

/// Taking pins off the map, for a student (`!unpost`) and for the bot's owners (`!pin remove`).
/// Only the directories that keep their own pins (local, PostgreSQL) can delete one; the
/// Udacity-compatible API has no delete, and the answer says so.
public enum PinRemoval {
    /// What taking a pin off reads: the lookup rule's needs (`!pin remove` finds pins by nick and
    /// name), and the directory's accounts, the only one that can remove a pin.
    protocol Needs: ClassLookup.Needs {
        var accounts: (any AccountDirectory)? { get }
    }

    /// What the owners' `!pin remove` uses, from the network's assembly.
    struct OwnerNeeds: Needs {
        let settingsInForce: SettingsInForce
        let logins: LoginGate<StudentLogin>
        let placeFinder: PlaceFinder
        let directory: any StudentDirectory
        let classMap: ClassMap
        let accounts: (any AccountDirectory)?
        let call = ServiceCalls()

        init(_ services: ClassServices) {
            self.settingsInForce = services.settingsInForce
            self.logins = services.logins
            self.placeFinder = services.placeFinder
            self.directory = services.directory
            self.classMap = services.classMap
            self.accounts = services.accounts
        }
    }

    /// The directory that can remove pins, or a refusal in `phrases`' language that says why there
    /// is none (only the Udacity-compatible API keeps no accounts of its own, and its contract has
    /// no delete), followed by `hint`.
    static func remover(
        _ services: some Needs, phrases: Phrasebook = .english, hint: String = ""
    ) throws -> any AccountDirectory {
        guard let accounts = services.accounts else { throw UserFacingError(phrases("unpost.noDelete") + hint) }
        return accounts
    }

    /// Removes `pin` as a trusted caller and takes it off the bot's map at once; nil when someone
    /// removed it meanwhile.
    static func removeAsOwner(_ pin: StudentLocation, services: some Needs) async throws -> StudentLocation? {
        let remover = try remover(services)
        let removed = try await services.call { try await remover.removeLocation(objectId: pin.objectId) }
        await services.classMap.forget(removed ?? pin)
        return removed
    }

    /// One pin as a candidate: name — place — objectId (what `!pin remove` takes to pick it).
    static func candidate(_ pin: StudentLocation) -> String {
        "\(Formatting.name(pin)) — \(Formatting.place(pin.mapString)) (id \(Formatting.clean(pin.objectId, maxBytes: 40)))"
    }

    /// The pins `!pin remove <query>` may mean: the pin with that objectId, the pin of the account
    /// with that email, the pin of whoever is logged in under that nick, and every pin whose name
    /// matches (first, last or full name), without repeats, newest first.
    static func candidates(for query: String, call: Invocation, services: some Needs) async throws
        -> [StudentLocation]
    {
        var found: [StudentLocation] = []
        var seen: Set<String> = []
        func add(_ pin: StudentLocation?) {
            if let pin, seen.insert(pin.objectId).inserted { found.append(pin) }
        }
        add(try await services.call { try await services.classMap.pin(objectId: query) })
        if query.contains("@"), let accounts = services.accounts, let email = try? DirectoryInput.normalizedEmail(query)
        {
            let all = try await services.call { try await accounts.listAccounts() }
            if let account = all.first(where: { $0.email == email }) {
                add(try await services.call { try await services.directory.location(ofAccount: account.accountKey) })
            }
        }
        // The nick's student and the namesakes, as every lookup finds them (an owner may see anyone).
        let lookup = try await ClassLookup.resolve(
            call, services, argument: query, accepting: [.nick, .name], matching: .every)
        if case .classmates(let nick, let named) = lookup.found {
            add(nick?.pin)
            for pin in named { add(pin) }
        }
        return found
    }
}

extension PinRemoval {
    /// `!unpost` shows the student's pin and asks for `!unpost confirm`; `!unpost confirm` removes it.
    static func unpost(_ call: Invocation, services: some Needs) async throws {
        guard let bound = services.session(of: call) else { return }
        let phrases = call.phrases
        let words = call.words.map { $0.lowercased() }
        let commands: [String: any PhraseValue] = [
            "unpost": call.prefix + "unpost", "confirm": call.prefix + "unpost confirm", "post": call.prefix + "post",
        ]
        guard words.isEmpty || words == ["confirm"] else {
            throw UserFacingError(phrases("unpost.usage", commands))
        }
        let remover = try remover(services, phrases: phrases, hint: " " + phrases("unpost.canMove", commands))
        let key = bound.profile.accountKey
        guard words == ["confirm"] else {
            guard let pin = try await services.call({ try await services.directory.location(ofAccount: key) }) else {
                throw UserFacingError(phrases("unpost.noPin"))
            }
            await call.reply(
                phrases(
                    "unpost.confirmFirst",
                    [
                        "name": Formatting.name(pin), "place": Formatting.place(pin.mapString, phrases: phrases),
                        "confirm": call.prefix + "unpost confirm",
                    ]))
            return
        }
        let removed: StudentLocation?
        do {
            removed = try await remover.removeLocation(ofAccount: key, session: bound.session)
        } catch let error as ServiceError {
            if case .sessionExpired = error { await services.sessions.unbind(call.sender) }
            throw ServiceErrorWording.error(for: error)
        }
        guard let removed else { throw UserFacingError(phrases("unpost.noPin")) }
        await services.classMap.forget(removed)
        await call.reply(
            phrases(
                "unpost.done",
                ["place": Formatting.place(removed.mapString, phrases: phrases), "post": call.prefix + "post"]))
    }

    /// `!pin remove` for the owner plugin, which holds the network's assembly: the command is
    /// given only what it uses (``OwnerNeeds``).
    public static func ownerRemove(_ call: Invocation, services: ClassServices) async throws {
        try await ownerRemove(call, services: OwnerNeeds(services))
    }

    /// `!pin remove <name | nick | email | id>` (owners only): removes the one pin the words mean,
    /// or lists the candidates when they mean several, so that a shared name never removes the
    /// wrong student.
    static func ownerRemove(_ call: Invocation, services: some Needs) async throws {
        let phrases = call.phrases
        let usage = phrases("owner.pin.usage", ["command": call.prefix + "pin remove"])
        guard call.words.first?.lowercased() == "remove" else { throw UserFacingError(usage) }
        let query = call.argument.dropFirst("remove".count).trimmingCharacters(in: .whitespaces)
        guard !query.isEmpty, query.utf8.count <= 200 else { throw UserFacingError(usage) }
        _ = try remover(services, phrases: phrases)
        let shown = Formatting.clean(query, maxBytes: 60)
        let found = try await candidates(for: query, call: call, services: services)
        switch found.count {
        case 0:
            throw UserFacingError(phrases("owner.pin.noMatch", ["query": shown]))
        case 1:
            guard let removed = try await removeAsOwner(found[0], services: services) else {
                throw UserFacingError(phrases("owner.pin.gone", ["pin": candidate(found[0])]))
            }
            await call.reply(phrases("owner.pin.removed", ["pin": candidate(removed)]))
        default:
            let shownCount = call.isPrivate ? 8 : 3
            let listed = found.prefix(shownCount).map(candidate).joined(separator: "; ")
            let pins =
                found.count > shownCount
                ? phrases("owner.pin.andMore", ["pins": listed, "count": found.count - shownCount]) : listed
            await call.reply(
                phrases(
                    "owner.pin.several",
                    ["count": found.count, "query": shown, "pins": pins, "command": call.prefix + "pin remove"]))
        }
    }
}
