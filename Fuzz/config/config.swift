// Fuzz target: the configuration file and its key schema (ToolbarConfig.parse, the unknown-key
// warnings, what the app derives from it).
// Properties: a config or an Error; every error and warning one bounded line.
@testable import BadgeApp

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafeRawPointer?, _ count: Int) -> CInt {
    let bytes = FuzzInput(data, count).bytes
    do {
        let config = try ToolbarConfig.parse(bytes, file: "config.json")
        for warning in config.warnings { checkMessage(warning, limit: 1200, "a config warning") }
        _ = AppConfig(config, fromFile: true)
    } catch {
        checkMessage(error.message, limit: 1200, "a config error")
    }
    return 0
}
