import Testing
import XvfbHarness

/// The README's library page compiles as written: `make examples` builds the generated
/// `Examples/Sources/readme-*` programs (each block as top-level code and inside a function), and
/// this test fails when they no longer match README.md.
@Suite("The README's code") struct ReadmeCodeTests {
    @Test("Examples/Sources/readme-* hold exactly the README's library code")
    func generatedExamplesMatchTheReadme() throws {
        let script = #filePath.split(separator: "/", omittingEmptySubsequences: false).dropLast(3).joined(separator: "/")
            + "/Scripts/readme-examples.py"
        let check = try ChildProcess(executable: "/usr/bin/python3", arguments: [script, "--check"], stdin: .null)
        #expect(check.waitForExit(timeout: 30) == .exited(0), "\(check.stderrText)")
    }
}
