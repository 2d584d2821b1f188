import Foundation
import PackagePlugin

/// Writes the git commit the build comes from into a Swift file of the target it is applied to
/// (`generatedCommit`: the commit's first 12 hex digits, with "-modified" when tracked files differ
/// from it, or nil for a build outside a git checkout, like a container build without `.git`).
/// It runs before every build and rewrites the file only when the commit changed, so an unchanged
/// checkout recompiles nothing.
@main
struct BuildCommitPlugin: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let outputDirectory = context.pluginWorkDirectoryURL.appending(path: "Generated")
        let script = """
            set -u
            dir="$1"; out="$2/BuildCommit.swift"; mkdir -p "$2"
            commit=$(git -C "$dir" rev-parse --short=12 HEAD 2>/dev/null) || commit=""
            if [ -n "$commit" ] && [ -n "$(git -C "$dir" status --porcelain --untracked-files=no 2>/dev/null)" ]; then
              commit="$commit-modified"
            fi
            if [ -n "$commit" ]; then value="\\"$commit\\""; else value="nil"; fi
            text="// Written by BuildCommitPlugin at build time.
            let generatedCommit: String? = $value"
            if [ "$(cat "$out" 2>/dev/null)" != "$text" ]; then printf '%s\\n' "$text" > "$out"; fi
            """
        return [
            .prebuildCommand(
                displayName: "Reading the git commit of the build",
                executable: URL(fileURLWithPath: "/bin/sh"),
                arguments: ["-c", script, "sh", context.package.directoryURL.path, outputDirectory.path],
                outputFilesDirectory: outputDirectory)
        ]
    }
}
