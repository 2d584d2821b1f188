import BotKit
import ClassKit
import Foundation
import IRCProtocol
import Localization
import OnTheMapService

/// Logins through a services account: a class account linked to a services account on this
/// network (see ``ServicesAccountLink``) is logged in, with no command, whenever the server vouches
/// that the sender is logged in to that services account, and for as long as it does: a services
/// logout, a QUIT, an unlink (here or by the operator) or the account's removal end the session.
extension LoginPlugin: ServicesAccountSignIn {
    public func session(
        for sender: UserIdentity, vouchedAccount: String?, found: StudentSession?, caseMapping: CaseMapping,
        book: SessionBook<StudentLogin>, context: PluginContext
    ) async -> StudentSession? {
        guard let accounts = services.accounts else { return found }
        let network = services.networkName
        if let bound = found {
            guard let through = bound.login.servicesAccount else { return found }
            // Kept while the server vouches for that services account and its link stands.
            let folded = caseMapping.lowercased(through)
            if let vouchedAccount, caseMapping.lowercased(vouchedAccount) == folded {
                do {
                    let link = try await accounts.servicesLink(network: network, foldedAccount: folded)
                    if link?.accountKey == bound.session.accountKey { return found }
                } catch {
                    // The directory cannot say just now: the session stays as it is.
                    return found
                }
            }
            await Self.end([bound], services, book: book)
        }
        guard let vouchedAccount else { return nil }
        do {
            guard
                let link = try await accounts.servicesLink(
                    network: network, foldedAccount: caseMapping.lowercased(vouchedAccount)),
                let session = try await accounts.openSession(accountKey: link.accountKey)
            else { return nil }
            let profile = try await accounts.profile(accountKey: link.accountKey, session: session)
            var vouched = sender
            vouched.account = vouchedAccount
            return await book.bind(
                StudentLogin(session: session, profile: profile, servicesAccount: vouchedAccount), to: vouched)
        } catch {
            context.logger.warning(
                "a services account's login could not be looked up", metadata: ["error": "\(error)"])
            return nil
        }
    }

    /// Ends `sessions` in `book` and in the directory.
    static func end(_ sessions: [StudentSession], _ services: LoginPlugin.Needs, book: SessionBook<StudentLogin>) async
    {
        for bound in sessions {
            await book.unbindAll { $0 == bound.login }
            await services.keepers.loggedOut(bound.owner)
            try? await services.directory.logOut(bound.session)
        }
        if !sessions.isEmpty { await services.sessionArchive.save() }
    }

    /// `!unlink`: removes the link of the sender's class account on this network and ends every
    /// session bound to that services account, in every running bot on the directory.
    static func unlink(_ call: Invocation, _ services: LoginPlugin.Needs) async throws {
        guard let accounts = services.accounts else {
            throw UserFacingError(call.phrases("unlink.noLinks"))
        }
        guard let bound = services.session(of: call) else {
            throw UserFacingError(call.phrases("unlink.notLoggedIn"))
        }
        let key = bound.session.accountKey
        let removed: ServicesAccountLink?
        do {
            removed = try await accounts.unlinkServicesAccount(accountKey: key, network: services.networkName)
        } catch let error as ServiceError {
            throw ServiceErrorWording.error(for: error)
        }
        guard let removed else {
            await call.reply(call.phrases("unlink.nothingLinked"))
            return
        }
        // Every session bound to that services account ends here at once (those the link made and
        // those a !login made while identified to it); other processes and networks follow the
        // account event the unlink left.
        let made = await services.networks.endSessions(boundTo: removed.foldedAccount) { $0.session.accountKey == key }
        await services.accountEvents?.catchUp()
        let name = Formatting.clean(removed.servicesAccount, maxBytes: 64)
        await call.reply(
            call.phrases(
                made.isEmpty ? "unlink.done" : "unlink.doneAndLoggedOut",
                ["account": name, "hint": "/msg \(call.botNick) \(call.prefix)login"]))
    }

    /// `!register <email> <first name> [last name]` by someone the server vouches for as logged in
    /// to the services account `servicesAccount`: a new account with no password anyone knows,
    /// linked to that services account. Only an account made here is linked: an email that had an
    /// account gets the same answer and nothing changes (the answer never tells who is in the class).
    static func registerThroughServices(
        _ call: Invocation, _ services: LoginPlugin.Needs, _ accounts: any AccountDirectory, servicesAccount: String
    ) async throws {
        let words = call.words
        let usage = call.phrases("register.throughServicesUsage", ["command": call.prefix + "register"])
        guard words.count >= 2 else { throw UserFacingError(call.phrases("register.usagePrefix", ["usage": usage])) }
        // A password typed out of habit must not become a name.
        guard !words[1].contains(where: \.isNumber) else { throw UserFacingError(usage) }
        let email = words[0]
        let firstName = words[1]
        let lastName = words.dropFirst(2).joined(separator: " ")
        for (field, value) in [
            ("register.hiddenInEmail", email), ("register.hiddenInName", firstName + " " + lastName),
        ]
        where TextSanitizer.untrusted(value) != value || DirectoryInput.containsHiddenCharacters(value) {
            throw UserFacingError(call.phrases(field))
        }
        do {
            _ = try DirectoryInput.normalizedEmail(email)
            _ = try DirectoryInput.validateNames(firstName: firstName, lastName: lastName)
            try ServicesAccountLink.validateAccountName(servicesAccount)
        } catch let error as ServiceError {
            throw ServiceErrorWording.error(for: error)
        }
        let network = services.networkName
        let folded = call.caseMapping.lowercased(servicesAccount)
        let name = Formatting.clean(servicesAccount, maxBytes: 64)
        if try await services.call({ try await accounts.servicesLink(network: network, foldedAccount: folded) }) != nil
        {
            throw UserFacingError(call.phrases("register.alreadyLinked", ["account": name, "prefix": call.prefix]))
        }
        let origin = throttleKeys(call.sender, caseMapping: call.caseMapping, network: services.settings.networkName)
            .origin
        if let wait = await services.registrations.take(origin: origin) {
            throw UserFacingError(
                call.phrases(
                    "register.hostLimit",
                    [
                        "count": RegistrationAllowance.perHost,
                        "duration": call.phrases.duration(seconds: wait, hours: true),
                    ]))
        }
        do {
            let account = try await accounts.addAccount(
                email: email, password: RandomID.password(), firstName: firstName, lastName: lastName)
            try await accounts.linkServicesAccount(
                accountKey: account.accountKey, network: network, servicesAccount: servicesAccount,
                foldedAccount: folded)
        } catch ServiceError.rejectedInput(let reason) where reason == DirectoryInput.emailTaken {
            // Nothing changes: the account of that email stays as it is, unlinked.
        } catch let error as ServiceError {
            throw ServiceErrorWording.error(for: error)
        }
        let shown = Formatting.clean(email, maxBytes: 100)
        await call.reply(call.phrases("register.doneThroughServices", ["email": shown, "account": name]))
    }

    /// After a password login by someone the server vouches for as logged in to a services
    /// account: links it to the class account, and says so (or why not).
    static func linkAfterLogin(
        _ call: Invocation, _ services: LoginPlugin.Needs, accountKey: String
    ) async -> String? {
        guard let accounts = services.accounts, let vouched = call.vouchedAccount else { return nil }
        let name = Formatting.clean(vouched, maxBytes: 64)
        do {
            try await accounts.linkServicesAccount(
                accountKey: accountKey, network: services.networkName, servicesAccount: vouched,
                foldedAccount: call.caseMapping.lowercased(vouched))
            return call.phrases("login.linked", ["account": name, "prefix": call.prefix])
        } catch ServiceError.rejectedInput(let reason) {
            return call.phrases("login.notLinked", ["account": name, "reason": reason])
        } catch {
            return call.phrases("login.couldNotLink", ["account": name])
        }
    }
}
