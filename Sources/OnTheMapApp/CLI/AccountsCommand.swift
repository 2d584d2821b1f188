import ArgumentParser
import Foundation
import IRCProtocol
import Logging
import OnTheMapPlugins
import OnTheMapService

/// `onthemap-bot accounts …`: the operator's account tools for the local and PostgreSQL
/// directories. Passwords are read from standard input, never from arguments.
struct AccountsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "accounts",
        abstract:
            "Adds, imports, lists and removes student accounts; sets passwords; erases or exports one student's data.",
        subcommands: [
            Add.self, Import.self, List.self, Remove.self, Passwd.self, Link.self, Unlink.self, Forget.self,
            Export.self,
        ])

    /// Opens the account directory of the config, or explains why there is none.
    static func openAccounts(_ options: ConfigOptions) async throws -> (any AccountDirectory, ServiceStack) {
        var config = try options.loadForService()
        config.geocoder.kind = .gazetteer
        let logger = Logger(label: "onthemap.accounts", factory: { _ in SwiftLogNoOpLogHandler() })
        let stack: ServiceStack
        do {
            stack = try await ServiceStack.make(config: config, logger: logger, loadGeocoder: false)
        } catch {
            throw ValidationError(
                "cannot open the \(config.service.backend.rawValue) directory: \(ServiceErrorText.describe(error))")
        }
        guard let accounts = stack.accounts else {
            await stack.shutdown()
            throw ValidationError(
                "the \(config.service.backend.rawValue) backend keeps its own accounts; accounts are managed only for the local and postgres backends"
            )
        }
        return (accounts, stack)
    }

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Adds one account; the password is read from standard input (one line).")
        @OptionGroup var options: ConfigOptions
        @Option(help: "The student's email (their login).") var email: String
        @Option(help: "First name, shown on the map.") var first: String
        @Option(help: "Last name, shown on the map.") var last: String

        func run() async throws {
            let line = try PasswordInput.read(prompt: "Password for \(email): ")
            let (accounts, stack) = try await AccountsCommand.openAccounts(options)
            defer { Task { await stack.shutdown() } }
            do {
                let account = try await accounts.addAccount(
                    email: email, password: line, firstName: first, lastName: last)
                print("Added \(account.firstName) \(account.lastName) <\(account.email)>.")
            } catch {
                throw ValidationError(ServiceErrorText.describe(error))
            }
        }
    }

    struct Import: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "Imports a roster CSV: email,first_name,last_name[,password][,irc_account]. A row with an irc_account is linked to that services account and needs no password; other missing passwords are generated and printed once."
        )
        @OptionGroup var options: ConfigOptions
        @Option(help: "The IRC network of the irc_account column (a name under networks:; the only one by default).")
        var network: String?
        @Argument(help: "The roster file (CSV with a header line).") var roster: String

        func run() async throws {
            let text: String
            do {
                text = try String(contentsOfFile: roster, encoding: .utf8)
            } catch {
                throw ValidationError("cannot read \(roster): \(error.localizedDescription)")
            }
            let network = try AccountsCommand.networkName(options, requested: network)
            let (accounts, stack) = try await AccountsCommand.openAccounts(options)
            defer { Task { await stack.shutdown() } }
            let lines: [RosterImportLine]
            do {
                lines = try await accounts.importRoster(
                    csv: text, network: network, fold: AccountsCommand.foldServicesAccount)
            } catch {
                throw ValidationError(ServiceErrorText.describe(error))
            }
            var added = 0
            var problems = 0
            for result in lines {
                switch result.outcome {
                case .added(let account, let generated, let servicesAccount):
                    added += 1
                    if let servicesAccount {
                        print(
                            "line \(result.line): added \(account.email), linked to the services account \(servicesAccount)"
                        )
                    } else if let generated {
                        print("line \(result.line): added \(account.email) — generated password: \(generated)")
                    } else {
                        print("line \(result.line): added \(account.email)")
                    }
                case .skippedDuplicate(let email):
                    print("line \(result.line): skipped \(email) (already has an account)")
                case .failed(let reason):
                    problems += 1
                    print("line \(result.line): not imported — \(reason)")
                }
            }
            print("\(added) added, \(lines.count - added - problems) skipped, \(problems) with problems.")
            if problems > 0 { throw ExitCode(1) }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Lists the accounts.")
        @OptionGroup var options: ConfigOptions

        func run() async throws {
            let (accounts, stack) = try await AccountsCommand.openAccounts(options)
            defer { Task { await stack.shutdown() } }
            let all = try await accounts.listAccounts()
            for account in all {
                print("\(account.email)\t\(account.firstName) \(account.lastName)")
            }
            print("\(all.count) account\(all.count == 1 ? "" : "s").")
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Removes an account with its sessions and pin.")
        @OptionGroup var options: ConfigOptions
        @Option(help: "The account's email.") var email: String

        func run() async throws {
            let (accounts, stack) = try await AccountsCommand.openAccounts(options)
            defer { Task { await stack.shutdown() } }
            do {
                try await accounts.removeAccount(email: email)
                print("Removed \(email).")
            } catch {
                throw ValidationError(ServiceErrorText.describe(error))
            }
        }
    }
}

extension AccountsCommand {
    /// The network a link belongs to: `requested` when the config names it, else the config's only
    /// network (a config with several needs `--network`).
    static func networkName(_ options: ConfigOptions, requested: String?) throws -> String {
        let names = try options.loadForService().networks.map(\.name)
        if let requested {
            guard names.contains(requested) else {
                throw ValidationError(
                    "the config has no network named \(requested); its networks: \(names.joined(separator: ", "))")
            }
            return requested
        }
        guard names.count <= 1 else {
            throw ValidationError(
                "the config has several networks; say which with --network (\(names.joined(separator: ", ")))")
        }
        return names.first ?? BotConfiguration.defaultNetworkName
    }

    /// How the tools fold a services account name: RFC 1459 casemapping, the IRC default (the bot
    /// folds with the server's own CASEMAPPING, which is RFC 1459 on most networks).
    @Sendable static func foldServicesAccount(_ name: String) -> String {
        CaseMapping.rfc1459.lowercased(name)
    }

    /// `accounts link --email E --irc-account NAME [--network N]`.
    struct Link: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "Links an account to a services account on one IRC network: the student is logged in whenever the server says they are identified to it."
        )
        @OptionGroup var options: ConfigOptions
        @Option(help: "The account's email.") var email: String
        @Option(name: .customLong("irc-account"), help: "The services account (NickServ account) name.")
        var ircAccount: String
        @Option(help: "The IRC network (a name under networks:; the only one by default).") var network: String?

        func run() async throws {
            let network = try AccountsCommand.networkName(options, requested: network)
            let (accounts, stack) = try await AccountsCommand.openAccounts(options)
            defer { Task { await stack.shutdown() } }
            do {
                guard let record = try await accounts.accountRecord(.email(email)) else {
                    throw ValidationError("no account with the email \(email)")
                }
                let link = try await accounts.linkServicesAccount(
                    accountKey: record.account.accountKey, network: network, servicesAccount: ircAccount,
                    foldedAccount: AccountsCommand.foldServicesAccount(ircAccount))
                print("Linked \(record.account.email) to the services account \(link.servicesAccount) on \(network).")
            } catch let error as ValidationError {
                throw error
            } catch {
                throw ValidationError(ServiceErrorText.describe(error))
            }
        }
    }

    /// `accounts unlink --email E [--network N]`.
    struct Unlink: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "Removes an account's services account link on one IRC network; every running bot on the directory ends the sessions bound to that services account before its next command."
        )
        @OptionGroup var options: ConfigOptions
        @Option(help: "The account's email.") var email: String
        @Option(help: "The IRC network (a name under networks:; the only one by default).") var network: String?

        func run() async throws {
            let network = try AccountsCommand.networkName(options, requested: network)
            let (accounts, stack) = try await AccountsCommand.openAccounts(options)
            defer { Task { await stack.shutdown() } }
            do {
                guard let record = try await accounts.accountRecord(.email(email)) else {
                    throw ValidationError("no account with the email \(email)")
                }
                guard
                    let removed = try await accounts.unlinkServicesAccount(
                        accountKey: record.account.accountKey, network: network)
                else {
                    throw ValidationError("\(record.account.email) has no services account linked on \(network)")
                }
                print(
                    "Unlinked \(record.account.email) from the services account \(removed.servicesAccount) on \(network)."
                )
                print(
                    "Every running bot on this directory ends the sessions bound to \(removed.servicesAccount) on \(network) before its next command, within seconds."
                )
            } catch let error as ValidationError {
                throw error
            } catch {
                throw ValidationError(ServiceErrorText.describe(error))
            }
        }
    }

    /// `accounts forget --email E`: the erasure `!forget confirm` does, for a request by email.
    struct Forget: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "Erases a student for good: account, pin, sessions, trusted hosts and everything the bot keeps about them."
        )
        @OptionGroup var options: ConfigOptions
        @Option(help: "The account's email.") var email: String

        func run() async throws {
            let (accounts, stack) = try await AccountsCommand.openAccounts(options)
            defer { Task { await stack.shutdown() } }
            let report: StudentErasure.Report
            do {
                guard let record = try await accounts.accountRecord(.email(email)) else {
                    throw ValidationError("no account with the email \(email)")
                }
                let erasure = StudentErasure(accounts: accounts, store: stack.state)
                guard let done = try await erasure.erase(accountKey: record.account.accountKey) else {
                    throw ValidationError("no account with the email \(email)")
                }
                report = done
            } catch let error as ValidationError {
                throw error
            } catch {
                throw ValidationError(ServiceErrorText.describe(error))
            }
            let account = report.record.account
            var parts = ["the account"]
            if let pin = report.record.pin { parts.append("the pin (\(pin.mapString))") }
            parts.append("\(report.record.sessions.count) session\(report.record.sessions.count == 1 ? "" : "s")")
            parts.append("\(report.trustedHosts) trusted host\(report.trustedHosts == 1 ? "" : "s")")
            parts.append("\(report.storeEntries) kept state entr\(report.storeEntries == 1 ? "y" : "ies")")
            print(
                "Erased \(account.email) (\(account.firstName) \(account.lastName)): \(parts.joined(separator: ", ")).")
            print(
                "Every running bot on this directory ends the student's IRC sessions and forgets their open post step and unit choice before its next command or write, within seconds; its map drops the pin at its next read."
            )
        }
    }

    /// `accounts export --email E`: one student's data as JSON, for a portability request.
    struct Export: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Prints everything kept about one student as JSON (no password hash or session id).")
        @OptionGroup var options: ConfigOptions
        @Option(help: "The account's email.") var email: String

        func run() async throws {
            let (accounts, stack) = try await AccountsCommand.openAccounts(options)
            defer { Task { await stack.shutdown() } }
            let export: StudentDataExport
            do {
                guard
                    let found = try await StudentDataExport.make(.email(email), accounts: accounts, store: stack.state)
                else { throw ValidationError("no account with the email \(email)") }
                export = found
            } catch let error as ValidationError {
                throw error
            } catch {
                throw ValidationError(ServiceErrorText.describe(error))
            }
            print(try export.json())
        }
    }
}

/// One plain sentence for a service-layer error (operator-facing).
enum ServiceErrorText {
    static func describe(_ error: any Error) -> String {
        guard let error = error as? ServiceError else { return String(describing: error) }
        switch error {
        case .networkUnreachable(let reason): return "the backend cannot be reached (\(reason))"
        case .invalidCredentials: return "wrong email or password"
        case .sessionExpired: return "the session has expired"
        case .notFound(let what): return "not found: \(what)"
        case .rejectedInput(let reason): return reason
        case .unavailable(let cause): return "the directory cannot be read or written: \(cause)"
        case .backendFailure(let status, let message):
            return "the backend failed" + (status.map { " (status \($0))" } ?? "") + ": \(message)"
        case .malformedResponse(let what): return "the backend's answer made no sense: \(what)"
        case .throttled(let seconds): return "too many attempts; try again in \(seconds) s"
        case .unsupported(let what): return "not supported: \(what)"
        }
    }
}
