import BotTesting
import Foundation
import Testing

/// The product as people meet it: the built `onthemap-bot`, started with a config made from
/// `config/onthemap.example.yaml`, on InspIRCd over TLS with Atheme services, once on SQLite and
/// once on PostgreSQL. Each journey is what one person does, checked by what that person sees: the
/// bot's answers, the web map's pages and JSON, the HTTP status codes, the operator's command-line
/// output. One ircd serves the whole suite and one bot process each store; every journey of a store
/// talks to that bot with its own people, so a failing journey names itself and leaves the others
/// their footing.
@Suite(.tags(.startsProcesses), .serialized, .journeyNetwork)
struct JourneyLiveTests {
    /// The journeys on the SQLite store (`service.backend: local`).
    @Suite(.journeyBot(.sqlite), .timeLimit(.minutes(5))) struct OnSQLite {
        /// A student logs in, posts in two steps, travels, looks classmates up, opens the map in a
        /// browser session, changes their privacy, takes their pin off, reads their data and erases it.
        @Test func student() async throws { try await Journeys.run(.student) }

        /// Someone who never logged in gets no classmate from any lookup, the map's JSON or the API.
        @Test func stranger() async throws { try await Journeys.run(.stranger) }

        /// A student of a roster imported by services account while the bot runs is logged in by the
        /// network alone, and `!unlink` and `accounts unlink` end that login.
        @Test func servicesAccountStudent() async throws { try await Journeys.run(.servicesAccountStudent) }

        /// The operator moves a class map in, coarsens it as the config's privacy says, exports a
        /// student's data, reloads and reads the status, health and metrics while the bot runs.
        @Test func operatorWhileRunning() async throws { try await Journeys.run(.operatorWhileRunning) }

        /// `accounts forget` while the student is logged in and halfway through a post: afterwards
        /// the bot does not know them, and nothing of them comes back into the database.
        @Test func erasureWhileRunning() async throws { try await Journeys.run(.erasureWhileRunning) }

        /// Every command `!help` lists is walked by one of the journeys above.
        @Test func everyListedCommandIsWalked() async throws { try await Journeys.helpCoverage() }
    }

    /// The same journeys on the PostgreSQL store (`service.backend: postgres`).
    @Suite(.journeyBot(.postgres), .timeLimit(.minutes(5))) struct OnPostgreSQL {
        /// A student logs in, posts in two steps, travels, looks classmates up, opens the map in a
        /// browser session, changes their privacy, takes their pin off, reads their data and erases it.
        @Test func student() async throws { try await Journeys.run(.student) }

        /// Someone who never logged in gets no classmate from any lookup, the map's JSON or the API.
        @Test func stranger() async throws { try await Journeys.run(.stranger) }

        /// A student of a roster imported by services account while the bot runs is logged in by the
        /// network alone, and `!unlink` and `accounts unlink` end that login.
        @Test func servicesAccountStudent() async throws { try await Journeys.run(.servicesAccountStudent) }

        /// The operator moves a class map in, coarsens it as the config's privacy says, exports a
        /// student's data, reloads and reads the status, health and metrics while the bot runs.
        @Test func operatorWhileRunning() async throws { try await Journeys.run(.operatorWhileRunning) }

        /// `accounts forget` while the student is logged in and halfway through a post: afterwards
        /// the bot does not know them, and nothing of them comes back into the database.
        @Test func erasureWhileRunning() async throws { try await Journeys.run(.erasureWhileRunning) }

        /// Every command `!help` lists is walked by one of the journeys above.
        @Test func everyListedCommandIsWalked() async throws { try await Journeys.helpCoverage() }
    }
}
