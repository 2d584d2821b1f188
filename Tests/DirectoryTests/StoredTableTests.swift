import Foundation
import GRDB
import PostgresNIO
import Testing

@testable import OnTheMapService
@testable import PostgresDirectory

/// Every table of the local directories is in `StoredTables`, the list erasure and export are
/// written against: a table added to either schema without saying what it holds about students,
/// how an erasure takes it out and how an export shows it, fails here.
@Suite struct StoredTableTests {
    @Test(arguments: DirectoryKind.allCases)
    func everyTableOfTheSchemaSaysWhatItHoldsAboutStudents(kind: DirectoryKind) async throws {
        try await DirectoryFixture.with(kind) { fixture in
            let tables: Set<String>
            switch kind {
            case .sqlite:
                let database = try DatabaseQueue(path: fixture.sqlitePath)
                defer { try? database.close() }
                tables = Set(
                    try await database.read { db in
                        try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'")
                    })
            case .postgres:
                let postgres = try #require(fixture.directory as? PostgresStudentDirectory)
                var names: Set<String> = []
                for try await name in try await postgres.client.query(
                    "SELECT table_name::text FROM information_schema.tables WHERE table_schema = 'public'"
                ).decode(String.self) {
                    names.insert(name)
                }
                tables = names
            }
            let listed = StoredTables.names(on: kind == .sqlite ? .sqlite : .postgres)
            #expect(tables.subtracting(listed).isEmpty, "tables not in StoredTables: \(tables.subtracting(listed))")
            #expect(
                listed.subtracting(tables).isEmpty,
                "StoredTables lists tables there are not: \(listed.subtracting(tables))")
        }
    }
}
