import Foundation
import Logging
import OnTheMapService
import PostgresNIO

extension PostgresStudentDirectory: AccountEventFeed {
    public func accountEvents(after revision: Int64, limit: Int) async throws -> [AccountEvent] {
        try await store.guarded { [client, logger] in
            var events: [AccountEvent] = []
            let rows = try await client.query(
                """
                SELECT revision, kind, account_digest, network, folded_account, at FROM account_events
                WHERE revision > \(revision) ORDER BY revision LIMIT \(max(1, min(limit, 10_000)))
                """, logger: logger)
            for try await (number, kind, digest, network, folded, at) in rows.decode(
                (Int64, String, String, String, String, Date).self)
            {
                guard let kind = AccountEvent.Kind(rawValue: kind) else { continue }
                events.append(
                    AccountEvent(
                        revision: number, kind: kind, accountDigest: digest, network: network, foldedAccount: folded,
                        at: at))
            }
            return events
        }
    }

    public func latestAccountEventRevision() async throws -> Int64 {
        try await store.guarded { [client, logger] in
            // The sequence outlives the rows: an hour without events still continues the count.
            let rows = try await client.query(
                "SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM account_events_revision_seq",
                logger: logger)
            for try await latest in rows.decode(Int64.self) { return latest }
            return 0
        }
    }

    /// Appends an account event in the caller's transaction, and drops the events older than
    /// `AccountEvent.memory`.
    static func appendAccountEvent(
        _ kind: AccountEvent.Kind, accountKey: String, _ connection: PostgresConnection, logger: Logger
    ) async throws {
        try await connection.query(
            "DELETE FROM account_events WHERE at < now() - make_interval(secs => \(AccountEvent.memory))",
            logger: logger)
        try await connection.query(
            """
            INSERT INTO account_events (kind, account_digest, network, folded_account)
            VALUES (\(kind.rawValue), \(AccountEvent.digest(accountKey: accountKey)), '', '')
            """, logger: logger)
    }
}
