/// Where the running executable was built from (the git commit is read at build time by
/// BuildCommitPlugin).
public enum BuildInfo {
    /// The git commit of the build (12 hex digits, "-modified" when tracked files differed from it),
    /// or nil for a build outside a git checkout.
    public static let commit: String? = generatedCommit
}
