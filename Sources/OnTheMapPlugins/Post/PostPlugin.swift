import BotKit
import Foundation
import IRCProtocol
import Logging
import OnTheMapService

/// Putting yourself on the map, privately, in two steps: `!post <place>` (geocoded and shown),
/// then `!post <link>` or `!link <link>` (validated and saved). One shot: `!post <place> | <link>`.
/// `!cancel` ends the flow; an open flow expires. A failed save keeps the flow for a retry.
public struct PostPlugin: Plugin {
    public let name = "post"
    let services: ClassServices

    public init(services: ClassServices) {
        self.services = services
    }

    public var commands: [Command] {
        let services = self.services
        return [
            Command(
                "post", aliases: ["pin"], usage: "!post <place> | <link>",
                help:
                    "Puts you on the map: first the place, then your link (or both at once, separated by |).",
                allowed: .privateMessage, requiresLogin: true
            ) { call in try await Self.post(call, services) },
            Command(
                "link", usage: "!link <https://…>",
                help: "The second step of !post: your link, then the pin is saved.",
                allowed: .privateMessage, requiresLogin: true
            ) { call in try await Self.link(call.argument, call, services) },
            Command("cancel", usage: "!cancel", help: "Ends an unfinished !post.", allowed: .privateMessage) {
                call in
                guard let bound = call.session, await services.postFlows.close(bound.owner) else {
                    await call.reply("There is nothing to cancel.")
                    return
                }
                await call.reply("OK, your post is cancelled; nothing was changed.")
            },
        ]
    }

    static func post(_ call: Invocation, _ services: ClassServices) async throws {
        guard let bound = call.session else { return }
        let argument = call.argument
        if let bar = argument.firstIndex(of: "|") {
            let place = argument[..<bar].trimmingCharacters(in: .whitespaces)
            let link = argument[argument.index(after: bar)...].trimmingCharacters(in: .whitespaces)
            guard !place.isEmpty else {
                throw UserFacingError("The place is missing: \(call.prefix)post <place> | <link>")
            }
            let draft = try await startFlow(
                place: place, bound: bound, call: call, services, announceStep: false)
            try await finish(draft, link: link, bound: bound, call: call, services, oneShot: true)
            return
        }
        let lookup = await services.postFlows.draft(of: bound.owner)
        if argument.isEmpty {
            if case .open = lookup {
                throw UserFacingError(
                    "Now send your link: \(call.prefix)link https://… (or \(call.prefix)cancel).")
            }
            throw UserFacingError(
                "Where are you? \(call.prefix)post <place>, e.g. \(call.prefix)post Seattle, WA — then your link."
            )
        }
        let isLinkLike =
            argument.contains("://")
            || (!argument.contains(where: \.isWhitespace) && LinkRules.looksLikeHost(argument))
        if isLinkLike {
            switch lookup {
            case .open(let draft):
                try await finish(draft, link: argument, bound: bound, call: call, services, oneShot: false)
                return
            case .expired:
                throw UserFacingError(
                    "Your post waited too long and expired; start again with \(call.prefix)post <place>.")
            case .none:
                if argument.contains("://") {
                    throw UserFacingError(
                        "First tell me where you are: \(call.prefix)post <place>, then send this link.")
                }
            }
        }
        _ = try await startFlow(place: argument, bound: bound, call: call, services, announceStep: true)
    }

    static func link(_ argument: String, _ call: Invocation, _ services: ClassServices) async throws {
        guard let bound = call.session else { return }
        switch await services.postFlows.draft(of: bound.owner) {
        case .open(let draft):
            try await finish(draft, link: argument, bound: bound, call: call, services, oneShot: false)
        case .expired:
            throw UserFacingError(
                "Your post waited too long and expired; start again with \(call.prefix)post <place>.")
        case .none:
            throw UserFacingError("First tell me where you are: \(call.prefix)post <place>, then your link.")
        }
    }

    /// Geocodes the place and opens (or restarts) the flow.
    static func startFlow(
        place typed: String, bound: StudentSession, call: Invocation, _ services: ClassServices,
        announceStep: Bool
    ) async throws -> PostDraft {
        guard typed.utf8.count <= DirectoryInput.maximumMapStringBytes else {
            throw UserFacingError("That place is too long; try 'City, Country'.")
        }
        // U+FFFD stands for bytes that were not UTF-8 (the line decoder puts it there): saved, the
        // place would show as "Madrid ����" to the whole class.
        guard !typed.unicodeScalars.contains("\u{FFFD}") else {
            throw UserFacingError(
                "That place has characters I could not read (the text did not arrive as UTF-8); please set your IRC client to UTF-8 and send it again."
            )
        }
        // The place becomes the pin's text: no colours, control or text-direction characters.
        let typed = TextSanitizer.untrusted(typed).split(whereSeparator: \.isWhitespace).joined(separator: " ")
        guard !typed.isEmpty else {
            throw UserFacingError(
                "Where are you? \(call.prefix)post <place>, e.g. \(call.prefix)post Seattle, WA — then your link.")
        }
        let candidates = try await services.geocode(typed, limit: 1)
        guard let place = candidates.first else {
            throw UserFacingError(
                "No place called \"\(Formatting.clean(typed, maxBytes: 60))\" was found; try 'City, Country'."
            )
        }
        let existing = try await services.call {
            try await services.directory.location(ofAccount: bound.profile.accountKey)
        }
        let draft = PostDraft(
            typedPlace: typed, place: place, replacesPin: existing != nil,
            startedAt: await services.postFlows.currentTime)
        await services.postFlows.open(draft, for: bound.owner)
        if announceStep {
            var found =
                "Found \(Formatting.clean(place.displayName, maxBytes: 120)) (\(Formatting.coordinate(place.coordinate)))."
            if let existing {
                found += " This will replace your pin at \(Formatting.place(existing.mapString))."
            }
            var next =
                "Now send your link: \(call.prefix)link https://… (or \(call.prefix)cancel; this waits \(await services.postFlows.lifetimeMinutes) minutes)."
            if let map = services.settings.webMapURL {
                next += " Map: \(Formatting.clean(map, maxBytes: 200))"
            }
            await call.reply(lines: [found, next])
        }
        return draft
    }

    /// Validates the link and saves the pin; on failure the flow stays open.
    static func finish(
        _ draft: PostDraft, link: String, bound: StudentSession, call: Invocation, _ services: ClassServices,
        oneShot: Bool
    ) async throws {
        let found = "Found \(Formatting.clean(draft.place.displayName, maxBytes: 120))."
        let keepOpen =
            " Your place is kept: send \(call.prefix)link <link> to finish, or \(call.prefix)cancel."
        let mediaURL: String
        switch LinkRules.validate(link) {
        case .success(let valid): mediaURL = valid
        case .failure(let problem):
            throw UserFacingError(
                (oneShot ? found + " " : "") + problem.sentence(prefix: call.prefix)
                    + (oneShot ? keepOpen : ""))
        }
        let profile = bound.profile
        let pinDraft = PinDraft(
            uniqueKey: profile.accountKey,
            firstName: profile.firstName.isEmpty && profile.lastName.isEmpty
                ? (profile.nickname ?? "") : profile.firstName,
            lastName: profile.lastName, mapString: draft.typedPlace, mediaURL: mediaURL,
            coordinate: draft.place.coordinate)
        let saved: StudentLocation
        let replaced: Bool
        do {
            (saved, replaced) = try await services.directory.savePin(pinDraft, session: bound.session)
        } catch let error as ServiceError {
            if case .sessionExpired = error {
                await services.postFlows.close(bound.owner)
                await call.sessions.unbind(call.sender)
                throw ServiceErrorWording.error(for: error)
            }
            let reason: String
            switch error {
            case .networkUnreachable:
                reason = "I could not reach the class directory, so your pin was not saved."
            default:
                reason = "Your pin was not saved. " + ServiceErrorWording.sentence(for: error)
            }
            throw UserFacingError(
                reason
                    + " Your place and link are kept: send \(call.prefix)link <link> to try again, or \(call.prefix)cancel."
            )
        }
        await services.postFlows.close(bound.owner)
        await services.classMap.record(saved)
        let name = Formatting.name(saved)
        let place = Formatting.place(saved.mapString)
        let shownLink = Formatting.link(saved.mediaURL)
        await call.reply(
            "\(replaced ? "Your pin is updated" : "You are on the map"): \(name) — \(place) (\(Formatting.coordinate(saved.coordinate))) — \(shownLink)"
        )
        // Announce once: claimed so the announcer does not announce it too; it saves the pin as
        // announced once these lines have left (see AnnouncePlugin).
        if !(await services.ledger.claim([saved]).isEmpty) {
            let text = Formatting.line([
                (replaced ? "Moved pin: " : "New pin: ") + name, place, shownLink,
            ])
            for channel in services.settings.announceChannels {
                await call.say(text, in: channel)
            }
            await services.ledger.handedOver([saved])
        }
    }
}
