import Foundation

/// The outcome of one record of a roster import.
public struct RosterImportLine: Sendable, Hashable {
    public enum Outcome: Sendable, Hashable {
        /// The account was made. `generatedPassword` is set when the roster gave none and no
        /// services account: show it to the operator once, never log it. `servicesAccount` is the
        /// services account linked to it, when the roster gave one.
        case added(LocalAccount, generatedPassword: String?, servicesAccount: String? = nil)
        /// An account with this email already exists (or appeared earlier in the file).
        case skippedDuplicate(email: String)
        /// The record was refused, with a reason (never containing the password).
        case failed(String)
    }

    /// The 1-based line of the file where the record starts.
    public var line: Int
    public var outcome: Outcome

    public init(line: Int, outcome: Outcome) {
        self.line = line
        self.outcome = outcome
    }
}

/// A small RFC 4180 CSV reader: comma-separated, fields optionally in double quotes (`""` for a
/// quote inside; commas and line breaks allowed inside quotes), LF or CRLF line ends, blank lines
/// skipped, a leading byte-order mark ignored.
public enum CSVReader {
    public struct Record: Sendable, Hashable {
        /// The 1-based line where the record starts.
        public var line: Int
        public var fields: [String]
        /// Set when the record could not be read (e.g. an unterminated quote).
        public var error: String?
    }

    public static func records(_ text: String) -> [Record] {
        var records: [Record] = []
        var fields: [String] = []
        var field = ""
        var inQuotes = false
        var fieldWasQuoted = false
        var afterClosingQuote = false
        var recordError: String?
        var line = 1
        var recordLine = 1
        var scalars = Array(text.unicodeScalars)
        if scalars.first == "\u{FEFF}" { scalars.removeFirst() }

        func finishRecord() {
            fields.append(field)
            let isBlank =
                fields.count == 1 && fields[0].trimmingCharacters(in: .whitespaces).isEmpty
                && !fieldWasQuoted
            if !isBlank || recordError != nil {
                records.append(Record(line: recordLine, fields: fields, error: recordError))
            }
            fields = []
            field = ""
            fieldWasQuoted = false
            afterClosingQuote = false
            recordError = nil
        }

        var index = 0
        while index < scalars.count {
            let scalar = scalars[index]
            index += 1
            if inQuotes {
                if scalar == "\"" {
                    if index < scalars.count && scalars[index] == "\"" {
                        field.unicodeScalars.append("\"")
                        index += 1
                    } else {
                        inQuotes = false
                        afterClosingQuote = true
                    }
                } else {
                    if scalar == "\n" { line += 1 }
                    field.unicodeScalars.append(scalar)
                }
                continue
            }
            switch scalar {
            case ",":
                fields.append(field)
                field = ""
                fieldWasQuoted = false
                afterClosingQuote = false
            case "\r" where index < scalars.count && scalars[index] == "\n":
                continue
            case "\n", "\r":
                finishRecord()
                line += 1
                recordLine = line
            case "\"" where field.trimmingCharacters(in: .whitespaces).isEmpty && !afterClosingQuote:
                field = ""
                inQuotes = true
                fieldWasQuoted = true
            default:
                if afterClosingQuote && !(scalar == " " || scalar == "\t") {
                    recordError = recordError ?? "text after a closing quote"
                }
                if !afterClosingQuote { field.unicodeScalars.append(scalar) }
            }
        }
        if inQuotes { recordError = "a quoted field is not closed" }
        if !(fields.isEmpty && field.isEmpty && !fieldWasQuoted) || recordError != nil { finishRecord() }
        return records
    }
}

extension AccountDirectory {
    /// Imports a class roster in CSV with the header `email,first_name,last_name,password,irc_account`
    /// (any column order; `password` and `irc_account` optional). A record with an `irc_account`
    /// is linked to that services account on `network` (folded with `fold`, the network's
    /// casemapping); without a password it gets none anyone knows (a random one, never shown): the
    /// student logs in through services. A record with neither gets a random password, returned
    /// in its outcome. Existing emails are skipped, and a services account linked already is
    /// refused before its account is made. Throws `.rejectedInput` when the header lacks `email`,
    /// `first_name` or `last_name`; other problems are reported per line.
    public func importRoster(
        csv: String, network: String = "default", fold: @Sendable (String) -> String = { $0.lowercased() }
    ) async throws -> [RosterImportLine] {
        let records = CSVReader.records(csv)
        guard let header = records.first else { throw ServiceError.rejectedInput("The roster is empty.") }
        if let error = header.error { throw ServiceError.rejectedInput("Line \(header.line): \(error).") }
        let columns = header.fields.map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        guard let emailColumn = columns.firstIndex(of: "email"),
            let firstColumn = columns.firstIndex(of: "first_name"),
            let lastColumn = columns.firstIndex(of: "last_name")
        else {
            throw ServiceError.rejectedInput(
                "The roster's first line must be the header email,first_name,last_name[,password][,irc_account].")
        }
        let passwordColumn = columns.firstIndex(of: "password")
        let servicesColumn = columns.firstIndex(of: "irc_account")

        var known = Set(try await listAccounts().map(\.email))
        var results: [RosterImportLine] = []
        for record in records.dropFirst() {
            if let error = record.error {
                results.append(RosterImportLine(line: record.line, outcome: .failed(error)))
                continue
            }
            guard record.fields.count == columns.count else {
                results.append(
                    RosterImportLine(
                        line: record.line,
                        outcome: .failed("expected \(columns.count) fields, found \(record.fields.count)")))
                continue
            }
            let email: String
            do {
                email = try DirectoryInput.normalizedEmail(record.fields[emailColumn])
            } catch let ServiceError.rejectedInput(reason) {
                results.append(RosterImportLine(line: record.line, outcome: .failed(reason)))
                continue
            }
            if known.contains(email) {
                results.append(RosterImportLine(line: record.line, outcome: .skippedDuplicate(email: email)))
                continue
            }
            let servicesAccount = servicesColumn.map { record.fields[$0].trimmingCharacters(in: .whitespaces) }
                .flatMap { $0.isEmpty ? nil : $0 }
            if let servicesAccount {
                do {
                    try ServicesAccountLink.validateAccountName(servicesAccount)
                    if try await servicesLink(network: network, foldedAccount: fold(servicesAccount)) != nil {
                        throw ServiceError.rejectedInput(
                            "the services account \(servicesAccount) is already linked to another class account "
                                + "(accounts unlink --email … frees it)")
                    }
                } catch let ServiceError.rejectedInput(reason) {
                    results.append(RosterImportLine(line: record.line, outcome: .failed(reason)))
                    continue
                }
            }
            var password = passwordColumn.map { record.fields[$0] } ?? ""
            var generated: String?
            if password.isEmpty {
                password = RandomID.password()
                // A student who logs in through services has no password to be told.
                if servicesAccount == nil { generated = password }
            }
            do {
                let account = try await addAccount(
                    email: email, password: password, firstName: record.fields[firstColumn],
                    lastName: record.fields[lastColumn])
                known.insert(email)
                if let servicesAccount {
                    try await linkServicesAccount(
                        accountKey: account.accountKey, network: network, servicesAccount: servicesAccount,
                        foldedAccount: fold(servicesAccount))
                }
                results.append(
                    RosterImportLine(
                        line: record.line,
                        outcome: .added(account, generatedPassword: generated, servicesAccount: servicesAccount)))
            } catch let ServiceError.rejectedInput(reason) {
                results.append(RosterImportLine(line: record.line, outcome: .failed(reason)))
            }
        }
        return results
    }
}
