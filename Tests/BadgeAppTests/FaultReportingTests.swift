import BadgeX11
import Glibc
import Testing
@testable import BadgeApp

@Suite struct FaultReportingTests {
    @Test func debugCommandsOnlyWithBadgeDebugEqualToOne() throws {
        #expect(try AppOptions.parse([], environment: ["BADGE_DEBUG": "1"]).get().debugCommands)
        #expect(try !AppOptions.parse([], environment: ["BADGE_DEBUG": "0"]).get().debugCommands)
        #expect(try !AppOptions.parse([], environment: ["BADGE_DEBUG": ""]).get().debugCommands)
        #expect(try !AppOptions.parse([]).get().debugCommands)
        #expect(!AppOptions.usage.contains("debug"), "fault injection is not a documented flag")
    }

    @Test func exitStatusesAreTheReadmeTable() throws {
        #expect(ExitStatus.allCases.map(\.rawValue) == [0, 1, 2, 3, 4, 5])
        #expect(ExitStatus(X11Error.noDisplay) == .cannotOpenDisplay)
        #expect(ExitStatus(X11Error.cannotOpenDisplay(":9", reason: "x")) == .cannotOpenDisplay)
        #expect(ExitStatus(X11Error.connectionLost(display: ":9", reason: "x")) == .connectionLost)
        #expect(ExitStatus(X11Error.noSuchWindow(7)) == .setupFailed)
        // Every row of the README's exit-status table is one of these, in this order, worded the same.
        let readme = try String(decoding: readFile(packageRoot() + "/README.md"), as: UTF8.self)
        for status in ExitStatus.allCases {
            #expect(readme.contains("| \(status.rawValue) | \(status.meaning) |"), "README lacks the row for \(status)")
        }
    }
}

/// The package's root folder (this file is in Tests/BadgeAppTests).
func packageRoot() -> String {
    var parts = #filePath.split(separator: "/", omittingEmptySubsequences: false)
    parts.removeLast(3)
    return parts.joined(separator: "/")
}

/// The bytes of a file (empty when it cannot be read).
func readFile(_ path: String) -> [UInt8] {
    guard let file = fopen(path, "rb") else { return [] }
    defer { fclose(file) }
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65_536)
    while true {
        let count = fread(&buffer, 1, buffer.count, file)
        if count <= 0 { break }
        bytes += buffer[0..<count]
    }
    return bytes
}
