// Fuzz target: a desktop file (DesktopKeyFile) and its Exec line (ExecLine.arguments, the field
// codes expanded), the way a launcher button reads them.
// Properties: values or a ReasonError, one bounded line.
import BadgeSources

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafeRawPointer?, _ count: Int) -> CInt {
    let text = String(decoding: FuzzInput(data, count).bytes, as: UTF8.self)
    do {
        let file = try DesktopKeyFile(parsing: text)
        _ = file.localized("Name", locale: "de_DE.UTF-8@euro")
        _ = try? file.boolean("Hidden")
        if let exec = file.string("Exec") {
            do {
                _ = try ExecLine.arguments(exec, context: .init(icon: file.string("Icon"), name: file.string("Name") ?? "", path: "/x.desktop"))
            } catch {
                checkMessage(error.description, "an Exec error")
            }
        }
    } catch {
        checkMessage(error.description, "a desktop-file error")
    }
    // The text as an Exec line on its own too.
    do { _ = try ExecLine.arguments(text, context: .init(icon: "i", name: "n", path: "/p")) } catch { checkMessage(error.description, "an Exec error") }
    return 0
}
