import Foundation
import Testing

@testable import OnTheMapService

@Suite("Great-circle distance")
struct GreatCircleTests {
    static let seattle = Coordinate(latitude: 47.6062, longitude: -122.3321)
    static let portland = Coordinate(latitude: 45.5152, longitude: -122.6784)
    static let london = Coordinate(latitude: 51.5074, longitude: -0.1278)
    static let paris = Coordinate(latitude: 48.8566, longitude: 2.3522)

    @Test func knownCityDistances() {
        // Geodesic (WGS-84) distances: Seattle–Portland 233.95 km, London–Paris 343.92 km
        // (Vincenty), so the spherical figures must be within 0.5 % of them.
        let seattlePortland = GreatCircle.distanceKilometres(Self.seattle, Self.portland)
        #expect(abs(seattlePortland - 233.95) / 233.95 < 0.005)
        let londonParis = Self.london.distanceKilometres(to: Self.paris)
        #expect(abs(londonParis - 343.92) / 343.92 < 0.005)
        // The exact spherical values on R = 6371.0088 km (computed independently).
        #expect(abs(seattlePortland - 234.0108) < 0.001)
        #expect(abs(londonParis - 343.5565) < 0.001)
    }

    @Test func symmetricAndZeroAtTheSameSpot() {
        #expect(GreatCircle.distanceKilometres(Self.seattle, Self.seattle) == 0)
        let ab = GreatCircle.distanceKilometres(Self.london, Self.seattle)
        let ba = GreatCircle.distanceKilometres(Self.seattle, Self.london)
        #expect(abs(ab - ba) < 1e-9)
    }

    @Test func antipodesAreHalfTheCircumference() {
        let halfCircumference = Double.pi * GreatCircle.earthRadiusKilometres
        #expect(abs(halfCircumference - 20015.114) < 0.01)
        let pairs: [(Coordinate, Coordinate)] = [
            (Coordinate(latitude: 0, longitude: 0), Coordinate(latitude: 0, longitude: 180)),
            (Coordinate(latitude: 90, longitude: 0), Coordinate(latitude: -90, longitude: 0)),
            (Coordinate(latitude: 47.6, longitude: -122.3), Coordinate(latitude: -47.6, longitude: 57.7)),
        ]
        for (a, b) in pairs {
            #expect(abs(GreatCircle.distanceKilometres(a, b) - halfCircumference) < 1e-6)
        }
    }

    @Test func antimeridianAndPolesNeedNoSpecialCase() {
        let west = Coordinate(latitude: 10, longitude: 179.9)
        let east = Coordinate(latitude: 10, longitude: -179.9)
        // 0.2° of longitude at 10° N: 0.2 × 111.195 km × cos 10° ≈ 21.9 km.
        #expect(abs(west.distanceKilometres(to: east) - 21.90) < 0.05)
        // At a pole every longitude is the same point.
        let poleA = Coordinate(latitude: 90, longitude: -120)
        let poleB = Coordinate(latitude: 90, longitude: 45)
        #expect(poleA.distanceKilometres(to: poleB) < 1e-9)
    }

    @Test func chordConversionMatchesHaversine() {
        let a = GreatCircle.unitVector(Self.london)
        let b = GreatCircle.unitVector(Self.seattle)
        let delta = a - b
        let chord = (delta * delta).sum().squareRoot()
        let viaChord = GreatCircle.earthRadiusKilometres * GreatCircle.centralAngle(chord: chord)
        #expect(abs(viaChord - GreatCircle.distanceKilometres(Self.london, Self.seattle)) < 1e-6)
    }

    /// The documented promise: under 0.5 % of the WGS-84 geodesic for nearly all pairs, 0.56 % at worst.
    @Test func withinHalfAPercentOfTheGeodesic() {
        var generator = SplitMix64(seed: 42)
        var checked = 0
        var worst = 0.0
        var withinHalfPercent = 0
        for _ in 0..<2_000 {
            let a = Coordinate(
                latitude: Double.random(in: -89...89, using: &generator),
                longitude: Double.random(in: -180...180, using: &generator))
            let b = Coordinate(
                latitude: Double.random(in: -89...89, using: &generator),
                longitude: Double.random(in: -180...180, using: &generator))
            guard let geodesic = vincentyKilometres(a, b), geodesic > 1 else { continue }
            let error = abs(GreatCircle.distanceKilometres(a, b) - geodesic) / geodesic
            worst = max(worst, error)
            if error < 0.005 { withinHalfPercent += 1 }
            checked += 1
        }
        #expect(checked > 1_500)
        // The bound is 0.56 % (meridian radius of curvature at the equator, 6335.44 km, against 6371.0088 km).
        #expect(worst < 0.0056, "worst relative error \(worst)")
        #expect(Double(withinHalfPercent) / Double(checked) > 0.95)
    }
}

/// Vincenty's inverse formula on the WGS-84 ellipsoid; nil when it does not converge (near antipodes).
func vincentyKilometres(_ p: Coordinate, _ q: Coordinate) -> Double? {
    let a = 6378.137
    let f = 1 / 298.257223563
    let b = (1 - f) * a
    let l = (q.longitude - p.longitude) * .pi / 180
    let u1 = atan((1 - f) * tan(p.latitude * .pi / 180))
    let u2 = atan((1 - f) * tan(q.latitude * .pi / 180))
    let sinU1 = sin(u1)
    let cosU1 = cos(u1)
    let sinU2 = sin(u2)
    let cosU2 = cos(u2)
    var lambda = l
    for _ in 0..<200 {
        let sinLambda = sin(lambda)
        let cosLambda = cos(lambda)
        let sinSigma =
            ((cosU2 * sinLambda) * (cosU2 * sinLambda)
            + (cosU1 * sinU2 - sinU1 * cosU2 * cosLambda) * (cosU1 * sinU2 - sinU1 * cosU2 * cosLambda)).squareRoot()
        if sinSigma == 0 { return 0 }
        let cosSigma = sinU1 * sinU2 + cosU1 * cosU2 * cosLambda
        let sigma = atan2(sinSigma, cosSigma)
        let sinAlpha = cosU1 * cosU2 * sinLambda / sinSigma
        let cos2Alpha = 1 - sinAlpha * sinAlpha
        let cos2SigmaM = cos2Alpha == 0 ? 0 : cosSigma - 2 * sinU1 * sinU2 / cos2Alpha
        let c = f / 16 * cos2Alpha * (4 + f * (4 - 3 * cos2Alpha))
        let previous = lambda
        lambda =
            l + (1 - c) * f * sinAlpha
            * (sigma + c * sinSigma * (cos2SigmaM + c * cosSigma * (-1 + 2 * cos2SigmaM * cos2SigmaM)))
        if abs(lambda - previous) < 1e-12 {
            let uSquared = cos2Alpha * (a * a - b * b) / (b * b)
            let bigA = 1 + uSquared / 16384 * (4096 + uSquared * (-768 + uSquared * (320 - 175 * uSquared)))
            let bigB = uSquared / 1024 * (256 + uSquared * (-128 + uSquared * (74 - 47 * uSquared)))
            let deltaSigma =
                bigB * sinSigma
                * (cos2SigmaM + bigB / 4
                    * (cosSigma * (-1 + 2 * cos2SigmaM * cos2SigmaM) - bigB / 6 * cos2SigmaM
                        * (-3 + 4 * sinSigma * sinSigma) * (-3 + 4 * cos2SigmaM * cos2SigmaM)))
            return b * bigA * (sigma - deltaSigma)
        }
    }
    return nil
}

/// A small seeded generator so that random tests are reproducible.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
