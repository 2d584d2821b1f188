import Foundation
import Localization
import Logging
import Testing

@testable import OnTheMapApp

/// At start the bot says in one warning when the names of places in other languages (iso-codes)
/// could not be read, and runs on; with every file read it says nothing.
@Suite struct PlaceNamesStartTests {
    @Test func missingIsoCodesIsOneWarning() {
        let recorder = LogRecorder()
        let nowhere = URL(fileURLWithPath: "/nowhere/iso-codes")
        RunCommand.checkPlaceNames(
            missing: PlaceNames.missingFiles(jsonFolder: nowhere, localeFolder: nowhere), logger: recorder.logger())
        #expect(recorder.all.count == 1, "\(recorder.all)")
        let line = recorder.all.first ?? ""
        #expect(line.hasPrefix("warning [hostile] place names stay as stored"), "\(line)")
        #expect(line.contains("install the iso-codes package"), "\(line)")
        #expect(
            line.contains("/nowhere/iso-codes/iso_3166-1.json") && line.contains("/nowhere/iso-codes/iso_3166-2.json"))
    }

    @Test func installedIsoCodesIsSilent() {
        let recorder = LogRecorder()
        RunCommand.checkPlaceNames(missing: PlaceNames.missingFiles(), logger: recorder.logger())
        #expect(recorder.all.isEmpty, "\(recorder.all)")
    }
}
