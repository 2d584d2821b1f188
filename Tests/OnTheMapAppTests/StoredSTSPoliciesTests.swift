import BotTesting
import Foundation
import IRCClient
import Logging
import OnTheMapPlugins
import SQLiteDirectory
import Testing

@testable import OnTheMapApp

/// STS policies kept in the directory's bot state survive a restart of the bot (a new store over the
/// same SQLite file), are kept per host, and a removal removes only that host's.
@Suite struct StoredSTSPoliciesTests {
    @Test func policiesSurviveARestartAndAreRemovedPerHost() async throws {
        let folder = try TemporaryDirectory(prefix: "sts-state")
        let path = folder.path + "/class.sqlite"
        let expires = Date(timeIntervalSince1970: 1_900_000_000)
        do {
            let store = StoredSTSPolicies(store: try SQLiteStudentDirectory(path: path), logger: Logger(label: "test"))
            await store.setSTSPolicy(STSPolicy(port: 6697, expires: expires), forHost: "irc.example.org")
            await store.setSTSPolicy(STSPolicy(port: 7000, expires: expires), forHost: "irc.other.net")
        }
        let directory = try SQLiteStudentDirectory(path: path)
        let reopened = StoredSTSPolicies(store: directory, logger: Logger(label: "test"))
        #expect(await reopened.stsPolicy(forHost: "irc.example.org") == STSPolicy(port: 6697, expires: expires))
        await reopened.setSTSPolicy(nil, forHost: "irc.example.org")
        #expect(await reopened.stsPolicy(forHost: "irc.example.org") == nil)
        #expect(await reopened.stsPolicy(forHost: "irc.other.net")?.port == 7000)
        // The value is in the registry erasure and export read, as holding nothing about students.
        let entry = try #require(KeptStateRegistry.entry(claiming: StoredSTSPolicies.stateKey))
        guard case .nothingAboutStudents = entry.holding else {
            Issue.record("STS policies are listed as student data")
            return
        }
        await reopened.setSTSPolicy(nil, forHost: "irc.other.net")
        #expect(try await directory.state(StoredSTSPolicies.stateKey) == nil)
        // Garbage in the state reads as no policy.
        try await directory.setState(StoredSTSPolicies.stateKey, "{not json")
        #expect(await reopened.stsPolicy(forHost: "irc.other.net") == nil)
    }
}
