import Testing

@testable import OnTheMapApp

/// The optional backends are package traits, on by default.
struct BuildFeaturesTests {
    /// The default build (the package's, and the tests') has both: a trait that stopped being a
    /// default, or a compilation condition that no longer reaches the app, fails here.
    @Test func theDefaultBuildHasBothBackends() {
        #expect(BuildFeatures.has(.postgres))
        #expect(BuildFeatures.has(.udacity))
    }

    /// The sentence for a missing part names it and the trait, so the operator knows what to build.
    @Test func aMissingPartIsNamedWithItsTrait() {
        let sentence = BuildFeatures.Missing(feature: .postgres).description
        #expect(sentence.contains("the PostgreSQL directory"))
        #expect(sentence.contains("postgres trait"))
        #expect(BuildFeatures.Missing(feature: .udacity).description.contains("Nominatim"))
    }
}
