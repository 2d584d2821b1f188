import BotKit
import BotTesting
import ClassKit
import Foundation
import IRCProtocol
import OnTheMapPlugins
import OnTheMapService
import Testing

/// Logins through a services account linked to a class account, with the real router and a SQLite
/// class: the server's `account` tag is what vouches for the account.
@Suite struct ServicesAccountLoginTests {
    /// A class where Jane's account is linked to the services account `Jane[m]` (folded with RFC
    /// 1459 casemapping, the router's until the server says otherwise).
    static func linkedClass(passwords: Bool = true) async throws -> (ClassFixture, LocalAccount) {
        let fixture = try ClassFixture(replacing: { services in
            [LoginPlugin(services: .init(services), settings: LoginPlugin.Settings(passwords: passwords))]
        })
        let jane = try await fixture.addStudent("jane@class.test", "Jane", "Doe")
        try await fixture.sqlite.linkServicesAccount(
            accountKey: jane.accountKey, network: ClassSettings.defaultNetworkName, servicesAccount: "Jane[m]",
            foldedAccount: CaseMapping.rfc1459.lowercased("Jane[m]"))
        fixture.bot.transport.setAccountTracking(.tagged)
        return (fixture, jane)
    }

    static func whoami(_ fixture: ClassFixture, nick: String = "jane", tag: String?) async -> String {
        let sender = fixture.bot.user(nick, account: tag)
        return await fixture.bot.dm("!whoami", from: sender, tags: tag.map { ["account": $0] } ?? [:]).first?.text
            ?? ""
    }

    /// The account the server tags a message with logs its linked class account in, compared under
    /// the casemapping (`JANE{M}` is `Jane[m]` in RFC 1459); `!whoami` says how. The same nick with
    /// no tag, another account, or an account the server does not vouch for is nobody.
    @Test func aVouchedLinkedAccountIsLoggedInWithoutACommand() async throws {
        let (fixture, _) = try await Self.linkedClass()
        #expect(
            await Self.whoami(fixture, tag: "JANE{M}")
                == "You are logged in as Jane Doe, through your services account JANE{M}.")
        #expect(await fixture.bot.sessions.count == 1)

        let (other, _) = try await Self.linkedClass()
        #expect(await Self.whoami(other, tag: nil).hasPrefix("You are not logged in."))
        #expect(await Self.whoami(other, nick: "ada", tag: "ada").hasPrefix("You are not logged in."))
        // ASCII casemapping does not fold `[` to `{`: under it, Jane[m] is another account.
        await other.bot.router.setCaseMapping(.ascii)
        #expect(await Self.whoami(other, tag: "Jane[m]").hasPrefix("You are not logged in."))
        // The account the client tracks, without the server's tag on this message, is not believed.
        await other.bot.router.setCaseMapping(.rfc1459)
        let untagged = await other.bot.dm("!whoami", from: other.bot.user("jane", account: "Jane[m]"), tags: [:])
        #expect(untagged.first?.text.hasPrefix("You are not logged in.") == true)
        // A server that vouches for no account: the tag is not believed either.
        other.bot.transport.setAccountTracking(.none)
        #expect(await Self.whoami(other, tag: "Jane[m]").hasPrefix("You are not logged in."))
        #expect(await other.bot.sessions.count == 0)
    }

    /// A services logout, a QUIT, and an unlink by the operator each end the session the link made.
    @Test func logoutQuitAndUnlinkEndTheSession() async throws {
        let (fixture, jane) = try await Self.linkedClass()
        #expect(await Self.whoami(fixture, tag: "Jane[m]").contains("through your services account"))
        await fixture.bot.sessions.follow(.accountChanged(nick: "jane", account: nil))
        #expect(await fixture.bot.sessions.count == 0)

        #expect(await Self.whoami(fixture, tag: "Jane[m]").contains("through your services account"))
        await fixture.bot.sessions.follow(.quit(nick: "jane", user: "~jane", host: "jane.example"))
        #expect(await fixture.bot.sessions.count == 0)

        #expect(await Self.whoami(fixture, tag: "Jane[m]").contains("through your services account"))
        _ = try await fixture.sqlite.unlinkServicesAccount(
            accountKey: jane.accountKey, network: ClassSettings.defaultNetworkName)
        #expect(await Self.whoami(fixture, tag: "Jane[m]").hasPrefix("You are not logged in."))
        #expect(await fixture.bot.sessions.count == 0)
    }

    /// `!login` while identified links the services account (the reply says so); `!unlink` undoes
    /// it and ends the sessions the link made; a services account linked to someone else is not
    /// taken over, and the reply says how it is freed.
    @Test func loginWhileIdentifiedLinksAndUnlinkUndoesIt() async throws {
        let fixture = try ClassFixture()
        fixture.bot.transport.setAccountTracking(.tagged)
        try await fixture.addStudent("ada@class.test", "Ada", "Lovelace")
        let ada = fixture.bot.user("ada", account: "ada")
        let welcome = await fixture.bot.dm(
            "!login ada@class.test \(ClassFixture.password)", from: ada, tags: ["account": "ada"])
        #expect(welcome.first?.text.contains("Your services account ada is linked to this class account") == true)
        let link = try await fixture.sqlite.servicesLink(
            network: ClassSettings.defaultNetworkName, foldedAccount: "ada")
        #expect(link != nil)

        let unlink = await fixture.bot.dm("!unlink", from: ada, tags: ["account": "ada"])
        #expect(unlink.first?.text.hasPrefix("Your services account ada is no longer linked") == true, "\(unlink)")
        #expect(
            try await fixture.sqlite.servicesLink(network: ClassSettings.defaultNetworkName, foldedAccount: "ada")
                == nil)

        // Linked again, the services account cannot be linked to a second class account.
        _ = await fixture.bot.dm("!login ada@class.test \(ClassFixture.password)", from: ada, tags: ["account": "ada"])
        try await fixture.addStudent("eve@class.test", "Eve", "Other")
        let eve = await fixture.bot.dm(
            "!login eve@class.test \(ClassFixture.password)", from: fixture.bot.user("ada", account: "ADA"),
            tags: ["account": "ADA"])
        #expect(eve.first?.text.contains("was not linked: The services account ADA is already linked") == true)
        let still = try await fixture.sqlite.servicesLink(
            network: ClassSettings.defaultNetworkName, foldedAccount: "ada")
        #expect(still?.accountKey == link?.accountKey)
    }

    /// With passwords off, `!login` with a password is refused with the sentence that explains the
    /// services login, before the directory is asked (a directory that is down changes nothing).
    @Test func passwordsOffRefusesPasswordLogins() async throws {
        let (fixture, _) = try await Self.linkedClass(passwords: false)
        fixture.directory.setFault(.networkUnreachable("down"))
        let reply = await fixture.logIn("jane", email: "jane@class.test")
        #expect(reply.count == 1)
        #expect(reply.first?.contains("/msg NickServ IDENTIFY") == true)
        #expect(reply.first?.contains("SASL") == true)
        #expect(await fixture.bot.sessions.count == 0)
        fixture.directory.setFault(nil)
    }

    /// `!register` while identified needs no password: the new account is linked to the services
    /// account and logged in through it at the next command. An email that has an account gets the
    /// same answer and is not linked; a password typed out of habit is refused, not taken as a name;
    /// with passwords off, someone not identified is told to identify first.
    @Test func registerWhileIdentifiedNeedsNoPassword() async throws {
        let fixture = try ClassFixture(
            signUpURL: nil,
            replacing: { services in
                [
                    LoginPlugin(
                        services: .init(services),
                        settings: LoginPlugin.Settings(allowRegistration: true, passwords: false))
                ]
            })
        fixture.bot.transport.setAccountTracking(.tagged)
        let robin = fixture.bot.user("robin", account: "Robin")
        let tags = ["account": "Robin"]
        let habit = await fixture.bot.dm("!register robin@class.test s3cret-pass Robin Milner", from: robin, tags: tags)
        #expect(
            habit.first?.text.hasPrefix("While you are identified to services, !register takes no password") == true)
        #expect(try await fixture.sqlite.listAccounts().isEmpty)

        let made = await fixture.bot.dm("!register robin@class.test Robin Milner", from: robin, tags: tags)
        #expect(made.first?.text.contains("linked to your services account Robin") == true, "\(made)")
        #expect(
            await fixture.bot.dm("!whoami", from: robin, tags: tags).first?.text
                == "You are logged in as Robin Milner, through your services account Robin.")

        // Another services account registering a taken email: the same answer, and no link.
        try await fixture.addStudent("jane@class.test", "Jane", "Doe")
        let mallory = fixture.bot.user("mallory", account: "mallory")
        let taken = await fixture.bot.dm(
            "!register jane@class.test Jane Doe", from: mallory, tags: ["account": "mallory"])
        #expect(taken.first?.text.hasPrefix("Thank you. If jane@class.test had no account") == true, "\(taken)")
        #expect(
            try await fixture.sqlite.servicesLink(network: ClassSettings.defaultNetworkName, foldedAccount: "mallory")
                == nil)
        #expect(
            await fixture.bot.dm("!whoami", from: mallory, tags: ["account": "mallory"]).first?.text.hasPrefix(
                "You are not logged in.") == true)

        let signup = await fixture.dm("!signup", as: "eve")
        #expect(signup.first?.contains("register <email> <first name> [last name] (no password") == true, "\(signup)")
        let anonymous = await fixture.dm("!register eve@class.test pass-1234 Eve", as: "eve")
        #expect(anonymous.first?.contains("identify to services first") == true, "\(anonymous)")
    }

    /// `!mydata` names the linked services account; `!forget confirm` erases the link with the
    /// account and ends the session it made.
    @Test func mydataShowsTheLinkAndForgetErasesIt() async throws {
        let (fixture, jane) = try await Self.linkedClass()
        let tags = ["account": "Jane[m]"]
        let sender = fixture.bot.user("jane", account: "Jane[m]")
        let mydata = await fixture.bot.dm("!mydata", from: sender, tags: tags).map(\.text).joined(separator: "\n")
        #expect(mydata.contains("linked services accounts: Jane[m] on default"), "\(mydata)")
        _ = await fixture.bot.dm("!forget", from: sender, tags: tags)
        let erased = await fixture.bot.dm("!forget confirm", from: sender, tags: tags).map(\.text)
        #expect(erased.first?.contains("1 services account link") == true, "\(erased)")
        #expect(try await fixture.sqlite.servicesLinks(accountKey: jane.accountKey).isEmpty)
        #expect(
            try await fixture.sqlite.servicesLink(network: ClassSettings.defaultNetworkName, foldedAccount: "jane{m}")
                == nil)
        #expect(await Self.whoami(fixture, tag: "Jane[m]").hasPrefix("You are not logged in."))
    }
}
