import Testing

/// Runs the tests it marks one at a time, across suites and test targets: tests that draw text
/// with cairo in this process. cairo keeps one process-wide cache of scaled fonts, and two
/// threads drawing the same font at once can trip its assertion in `cairo_scaled_font_destroy`
/// (seen under AddressSanitizer). BadgeKit draws on the one thread that runs its loop; Swift
/// Testing runs tests on many, so the tests that draw take turns.
package struct DrawsWithCairo: TestTrait, SuiteTrait, TestScoping {
    package var isRecursive: Bool { true }

    package func provideScope(for test: Test, testCase: Test.Case?,
                              performing function: @Sendable () async throws -> Void) async throws {
        // A suite's own scope passes through: its tests (and test cases) take turns one by one.
        guard testCase != nil else { return try await function() }
        await Turns.shared.take()
        do {
            try await function()
        } catch {
            await Turns.shared.pass()
            throw error
        }
        await Turns.shared.pass()
    }
}

extension Trait where Self == DrawsWithCairo {
    /// The test draws with cairo in-process: it takes its turn with the others that do.
    package static var drawsWithCairo: DrawsWithCairo { DrawsWithCairo() }
}

/// One turn at a time, first come, first served.
private actor Turns {
    static let shared = Turns()
    private var taken = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    func take() async {
        guard taken else {
            taken = true
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    func pass() {
        if waiting.isEmpty {
            taken = false
        } else {
            waiting.removeFirst().resume()
        }
    }
}
