// Fuzz target: the saved state file (SavedCounts.decodeEntries).
// Properties: entries or a Failure; entries encode to a file that decodes to the same entries.
@testable import BadgeApp

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafeRawPointer?, _ count: Int) -> CInt {
    let bytes = FuzzInput(data, count).bytes
    do {
        let entries = try SavedCounts.decodeEntries(bytes)
        let again = try SavedCounts.decodeEntries(SavedCounts.encode(entries: entries.map { (id: $0.key, entry: $0.value) }))
        guard again == entries else { fuzzFailure("saved entries changed on the way back") }
    } catch {
        checkMessage(error.reason, "a state error")
    }
    return 0
}
