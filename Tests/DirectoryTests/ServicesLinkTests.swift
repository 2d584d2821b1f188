import Foundation
import OnTheMapService
import Testing

/// The links of class accounts to services accounts, on every local backend. The store is given
/// names already folded (here as RFC 1459 folds them: `[` is `{`).
@Suite("Services account links")
struct ServicesLinkTests {
    /// One services account links to one class account per network, and a class account to one
    /// services account per network: a second link either way is refused with a sentence naming how
    /// to unlink, and changes nothing; the same name on another network is another person.
    @Test(arguments: DirectoryKind.allCases)
    func oneServicesAccountLinksToOneClassAccount(kind: DirectoryKind) async throws {
        try await DirectoryFixture.with(kind) { fixture in
            let directory = fixture.directory
            let jane = try await directory.addAccount(
                email: "jane@example.com", password: "jane password", firstName: "Jane", lastName: "Doe")
            let ada = try await directory.addAccount(
                email: "ada@example.com", password: "ada password", firstName: "Ada", lastName: "Lovelace")
            let link = try await directory.linkServicesAccount(
                accountKey: jane.accountKey, network: "libera", servicesAccount: "Jane[m]",
                foldedAccount: "jane{m}")
            #expect(link.servicesAccount == "Jane[m]")
            #expect(link.foldedAccount == "jane{m}")
            // Linking again what is linked is not an error.
            _ = try await directory.linkServicesAccount(
                accountKey: jane.accountKey, network: "libera", servicesAccount: "JANE{M}",
                foldedAccount: "jane{m}")

            await #expect(throws: ServiceError.self) {
                try await directory.linkServicesAccount(
                    accountKey: ada.accountKey, network: "libera", servicesAccount: "JANE[M]",
                    foldedAccount: "jane{m}")
            }
            do {
                try await directory.linkServicesAccount(
                    accountKey: ada.accountKey, network: "libera", servicesAccount: "jane[m]",
                    foldedAccount: "jane{m}")
                Issue.record("one services account was linked to two class accounts")
            } catch ServiceError.rejectedInput(let reason) {
                #expect(reason.contains("already linked to another class account"))
                #expect(reason.contains("!unlink"))
            }
            do {
                try await directory.linkServicesAccount(
                    accountKey: jane.accountKey, network: "libera", servicesAccount: "janedoe",
                    foldedAccount: "janedoe")
                Issue.record("a second services account for one class account on one network was linked")
            } catch ServiceError.rejectedInput(let reason) {
                #expect(reason.contains("Jane[m]"))
                #expect(reason.contains("unlink"))
            }
            // Nothing changed.
            let found = try await directory.servicesLink(network: "libera", foldedAccount: "jane{m}")
            #expect(found?.accountKey == jane.accountKey)
            #expect(try await directory.servicesLink(network: "libera", foldedAccount: "janedoe") == nil)

            // The same name on another network belongs to whoever links it there.
            try await directory.linkServicesAccount(
                accountKey: ada.accountKey, network: "oftc", servicesAccount: "jane[m]", foldedAccount: "jane{m}")
            #expect(
                try await directory.servicesLink(network: "oftc", foldedAccount: "jane{m}")?.accountKey
                    == ada.accountKey)

            // Names that cannot be accounts are refused.
            for bad in ["", "*", "jane doe", "jane@example.com", "a\u{200B}b", String(repeating: "x", count: 65)] {
                await #expect(throws: ServiceError.self) {
                    try await directory.linkServicesAccount(
                        accountKey: ada.accountKey, network: "ergo", servicesAccount: bad, foldedAccount: bad)
                }
            }

            // Unlinking frees the services account for another class account.
            let removed = try await directory.unlinkServicesAccount(accountKey: jane.accountKey, network: "libera")
            #expect(removed?.servicesAccount == "Jane[m]")
            #expect(try await directory.unlinkServicesAccount(accountKey: jane.accountKey, network: "libera") == nil)
            try await directory.linkServicesAccount(
                accountKey: ada.accountKey, network: "libera", servicesAccount: "jane[m]", foldedAccount: "jane{m}")
            #expect(try await directory.servicesLinks(accountKey: ada.accountKey).map(\.network) == ["libera", "oftc"])
        }
    }

    /// Erasing or removing an account removes its links (the record shows them first).
    @Test(arguments: DirectoryKind.allCases)
    func erasureAndRemovalTakeTheLinks(kind: DirectoryKind) async throws {
        try await DirectoryFixture.with(kind) { fixture in
            let directory = fixture.directory
            let jane = try await directory.addAccount(
                email: "jane@example.com", password: "jane password", firstName: "Jane", lastName: "Doe")
            let ada = try await directory.addAccount(
                email: "ada@example.com", password: "ada password", firstName: "Ada", lastName: "Lovelace")
            try await directory.linkServicesAccount(
                accountKey: jane.accountKey, network: "default", servicesAccount: "jane", foldedAccount: "jane")
            try await directory.linkServicesAccount(
                accountKey: ada.accountKey, network: "default", servicesAccount: "ada", foldedAccount: "ada")
            let record = try await directory.accountRecord(.key(jane.accountKey))
            #expect(record?.servicesLinks.map(\.servicesAccount) == ["jane"])

            let erased = try await directory.eraseAccount(accountKey: jane.accountKey)
            #expect(erased?.servicesLinks.count == 1)
            #expect(try await directory.servicesLink(network: "default", foldedAccount: "jane") == nil)

            try await directory.removeAccount(email: "ada@example.com")
            #expect(try await directory.servicesLink(network: "default", foldedAccount: "ada") == nil)
        }
    }
}
