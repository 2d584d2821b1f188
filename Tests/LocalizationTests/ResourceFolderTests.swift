import Foundation
import Localization
import Testing

@Suite struct ResourceFolderTests {
    /// The first place that has the folder with the file in it wins; a place with the folder but
    /// not the file does not count.
    @Test func theFirstPlaceHoldingTheFileIsUsed() throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("resources-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: base) }
        let empty = base.appendingPathComponent("empty")
        let wrong = base.appendingPathComponent("wrong")
        let right = base.appendingPathComponent("right")
        try FileManager.default.createDirectory(
            at: wrong.appendingPathComponent("Kit.resources"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(
            at: right.appendingPathComponent("Kit.resources"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        try Data("x".utf8).write(to: right.appendingPathComponent("Kit.resources/data.tsv"))
        let found = try ResourceFolder.locate(
            "Kit.resources", item: "data.tsv", purpose: "data", in: [empty, wrong, right])
        #expect(found.path == right.appendingPathComponent("Kit.resources/data.tsv").path)
    }

    /// A missing folder names itself, what it holds and every place looked in.
    @Test func aMissingFolderIsNamedWithEveryPlaceLookedIn() {
        let places = [URL(fileURLWithPath: "/nowhere/a"), URL(fileURLWithPath: "/nowhere/b")]
        #expect(
            throws: ResourceFolderMissing(
                folder: "Kit.resources", item: "data.tsv", purpose: "the data", searched: ["/nowhere/a", "/nowhere/b"])
        ) {
            try ResourceFolder.locate("Kit.resources", item: "data.tsv", purpose: "the data", in: places)
        }
        let text = ResourceFolderMissing(
            folder: "Kit.resources", item: "data.tsv", purpose: "the data", searched: ["/nowhere/a", "/nowhere/b"]
        ).description
        #expect(text.hasPrefix("Kit.resources/data.tsv (the data) is missing: looked in /nowhere/a, /nowhere/b."))
    }

    /// The places searched by default include the running program's own folder.
    @Test func theRunningProgramsFolderIsSearched() {
        let folder = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
            .deletingLastPathComponent()
        #expect(ResourceFolder.searchPlaces.map(\.path).contains(folder.standardizedFileURL.path))
        #expect(throws: Never.self) { try Catalogs.bundledFolder() }
    }
}
