import ArgumentParser
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

extension AccountsCommand {
    /// `onthemap-bot accounts passwd --email E`: sets a student's password (local and postgres
    /// backends). The password comes from standard input, never from arguments; typed at a
    /// terminal it is not echoed and is asked twice. The student's sessions end; the pin stays.
    struct Passwd: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "Sets an account's password, read from standard input (one line); ends its sessions, keeps its pin.")
        @OptionGroup var options: ConfigOptions
        @Option(help: "The account's email.") var email: String

        func run() async throws {
            let password = try PasswordInput.read(prompt: "New password for \(email): ")
            let (accounts, stack) = try await AccountsCommand.openAccounts(options)
            defer { Task { await stack.shutdown() } }
            do {
                try await accounts.changePassword(email: email, newPassword: password)
            } catch {
                throw ValidationError(ServiceErrorText.describe(error))
            }
            print("Changed the password of \(email); its sessions have ended.")
        }
    }
}

/// A password from standard input: one line from a pipe, or typed at a terminal with echo off
/// (asked twice).
enum PasswordInput {
    static func read(prompt: String) throws -> String {
        guard isatty(STDIN_FILENO) == 1 else {
            guard let line = readLine(strippingNewline: true), !line.isEmpty else {
                throw ValidationError(
                    "no password on standard input: type it at the terminal, or pipe it in (`read -s pw; echo \"$pw\" | onthemap-bot accounts …`)"
                )
            }
            return line
        }
        let first = try readWithoutEcho(prompt)
        let second = try readWithoutEcho("Again: ")
        guard first == second else { throw ValidationError("the two passwords differ; nothing was changed") }
        guard !first.isEmpty else { throw ValidationError("the password is empty; nothing was changed") }
        return first
    }

    /// One line typed at the terminal with echo turned off (and back on, whatever happens).
    private static func readWithoutEcho(_ prompt: String) throws -> String {
        var stderr = StandardError()
        print(prompt, terminator: "", to: &stderr)
        var saved = termios()
        guard tcgetattr(STDIN_FILENO, &saved) == 0 else { throw ValidationError("cannot read from the terminal") }
        var silent = saved
        silent.c_lflag &= ~tcflag_t(ECHO)
        tcsetattr(STDIN_FILENO, TCSAFLUSH, &silent)
        defer {
            tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved)
            print("", to: &stderr)
        }
        return readLine(strippingNewline: true) ?? ""
    }
}
