import Testing
@testable import BadgeApp

/// The config's `monitors` and `scaleFromMonitorSize`: good entries are taken, each bad one gets
/// one warning and is left out, and the rest of the file still loads.
@Suite struct MonitorScaleConfigTests {
    static func parse(_ text: String) throws -> ToolbarConfig {
        try ToolbarConfig.parse(Array(text.utf8), file: "c.json")
    }

    @Test func goodEntries() throws {
        let config = try Self.parse(#"{"monitors": {"HDMI-1": 1.5, "eDP-1": 2, "LEFT": 1}, "scaleFromMonitorSize": true, "buttons": [{"id": "bell"}]}"#)
        #expect(config.monitorScales.perMonitor == ["HDMI-1": 1.5, "eDP-1": 2, "LEFT": 1])
        #expect(config.monitorScales.fromMonitorSize && config.monitorScales.warnings.isEmpty)
    }

    @Test func badEntriesWarnOnceEachAndAreLeftOut() throws {
        let config = try Self.parse(#"""
        {"monitors": {"ZERO": 0, "NEG": -1, "HUGE": 1e9, "TEXT": "2", "LIST": [2], "NULL": null, "": 2, "OK": 0.5},
         "scaleFromMonitorSize": "yes", "buttons": [{"id": "bell"}]}
        """#)
        #expect(config.monitorScales.perMonitor == ["OK": 0.5])
        #expect(!config.monitorScales.fromMonitorSize)
        let warnings = config.monitorScales.warnings
        #expect(warnings.count == 8, "\(warnings)")
        for field in ["monitors.ZERO", "monitors.NEG", "monitors.HUGE", "monitors.TEXT", "monitors.LIST", "monitors.NULL", "scaleFromMonitorSize"] {
            #expect(warnings.filter { $0.contains("c.json: \(field):") }.count == 1, "\(field): \(warnings)")
        }
        #expect(warnings.allSatisfy { $0.hasSuffix("; ignored") })
        #expect(config.buttons.map(\.id) == ["bell"], "the rest of the file is used")
    }

    @Test func monitorsMustBeAnObject() throws {
        let config = try Self.parse(#"{"monitors": [1, 2], "buttons": [{"id": "bell"}]}"#)
        #expect(config.monitorScales.perMonitor.isEmpty && config.monitorScales.warnings.count == 1)
    }
}
