import BadgeX11
import Testing

@Suite struct FaultReportingTests {
    @Test func debugCommandsOnlyWithBadgeDebugEqualToOne() throws {
        #expect(try DemoOptions.parse([], environment: ["BADGE_DEBUG": "1"]).get().debugCommands)
        #expect(try !DemoOptions.parse([], environment: ["BADGE_DEBUG": "0"]).get().debugCommands)
        #expect(try !DemoOptions.parse([], environment: ["BADGE_DEBUG": ""]).get().debugCommands)
        #expect(try !DemoOptions.parse([]).get().debugCommands)
        #expect(!DemoOptions.usage.contains("debug"), "fault injection is not a documented flag")
    }

    @Test func refusedRequestsAreNamed() {
        #expect(XErrorDescription.describe(code: 4, major: 54, minor: 0, resource: 0) == "BadPixmap (4) in FreePixmap (54), resource 0x0")
        #expect(XErrorDescription.describe(code: 3, major: 72, minor: 0, resource: 0x200001)
            == "BadWindow (3) in PutImage (72), resource 0x200001")
        #expect(XErrorDescription.describe(code: 200, major: 140, minor: 3, resource: 7) == "error 200 in extension request 140.3, resource 0x7")
        #expect(XErrorDescription.errorName(0) == "error 0" && XErrorDescription.errorName(17) == "BadImplementation (17)")
        #expect(XErrorDescription.requestName(99) == "request 99")
    }

    @Test func exitStatusesAreDistinct() {
        let statuses = [X11Error.cannotOpenDisplayStatus, X11Error.connectionLostStatus, X11Error.windowDestroyedStatus]
        #expect(Set(statuses).count == 3 && X11Error.windowDestroyedStatus == 5)
    }
}
