import GRDB
import GRDBSQLite

/// Binds one row's values to a prepared statement through SQLite's C API, in column order, and runs
/// it. For `pins import`, whose hundred thousand rows each cost as much in building GRDB's argument
/// array (sixteen boxed values) as in SQLite's own writing; everything else uses GRDB's arguments.
struct SQLiteRowBinder {
    private let statement: Statement
    private var column: Int32 = 0

    /// SQLite copies each text before the call returns (the Swift string's bytes live no longer).
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    /// Starts a row: the statement's previous run and values are cleared.
    init(_ statement: Statement) {
        self.statement = statement
        sqlite3_reset(statement.sqliteStatement)
        sqlite3_clear_bindings(statement.sqliteStatement)
    }

    mutating func text(_ value: String?) {
        column += 1
        guard let value else { return }
        let (handle, index) = (statement.sqliteStatement, column)
        value.withCString { _ = sqlite3_bind_text(handle, index, $0, Int32(value.utf8.count), Self.transient) }
    }

    mutating func double(_ value: Double?) {
        column += 1
        if let value { sqlite3_bind_double(statement.sqliteStatement, column, value) }
    }

    mutating func integer(_ value: Int64?) {
        column += 1
        if let value { sqlite3_bind_int64(statement.sqliteStatement, column, value) }
    }

    /// Runs the statement once with the values bound; throws SQLite's error (a constraint, a full
    /// disk) as GRDB would.
    func run(in db: Database) throws {
        let code = sqlite3_step(statement.sqliteStatement)
        guard code == SQLITE_DONE else {
            let message = db.sqliteConnection.map { String(cString: sqlite3_errmsg($0)) }
            sqlite3_reset(statement.sqliteStatement)
            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: message, sql: statement.sql)
        }
    }
}
