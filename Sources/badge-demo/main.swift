// badge-demo: a toolbar whose buttons carry count, text and dot badges. Wiring only.
import BadgeDrawing
import BadgeX11
import Glibc

let environment: [String: String] = Dictionary(uniqueKeysWithValues: ["BADGE_REDUCE_MOTION", "BADGE_DEBUG"].map { name in
    (name, getenv(name).map { String(cString: $0) } ?? "")
})

/// Runs an offscreen render (`--gallery`, `--screenshot`) and exits: 0 when written, 1 with a message otherwise.
func renderAndExit(_ render: () throws -> Void) -> Never {
    do {
        try render()
    } catch {
        StandardError.write("badge-demo: \(error)")
        exit(1)
    }
    exit(0)
}

switch DemoOptions.parse(Array(CommandLine.arguments.dropFirst()), environment: environment) {
case .failure(let error):
    StandardError.write("badge-demo: \(error.message)\n\(DemoOptions.usage)")
    exit(2)
case .success(let options):
    if options.showHelp {
        print(DemoOptions.usage)
        exit(0)
    }
    if options.showVersion {
        print(DemoOptions.version)
        exit(0)
    }
    if let path = options.galleryPath {
        renderAndExit { try BadgeGallery.render(to: path) }
    }
    let app: DemoApplication
    do {
        app = try DemoApplication(options: options)
    } catch let error as X11Error {
        // A bad icon file or button id (status 2), named in the message.
        StandardError.write("badge-demo: \(error)")
        exit(error.exitStatus)
    } catch let error as ToolbarConfig.Error {
        StandardError.write("badge-demo: \(error)")
        exit(2)
    } catch {
        // Text or icon set-up failed (fonts, Pango, cairo): not the user's arguments.
        StandardError.write("badge-demo: \(error)")
        exit(4)
    }
    if let path = options.screenshotPath {
        renderAndExit { try app.renderScreenshot(to: path) }
    }
    exit(app.run())
}
