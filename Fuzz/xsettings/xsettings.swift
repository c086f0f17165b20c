// Fuzz target: the _XSETTINGS_SETTINGS property (XSetting.decode) and what the app takes from it.
// Property: settings or none, never a trap, whatever the property holds.
import BadgeX11

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafeRawPointer?, _ count: Int) -> CInt {
    let settings = XSetting.decode(FuzzInput(data, count).bytes)
    _ = DesktopSettings(xsettings: settings, resourceScale: nil)
    return 0
}
