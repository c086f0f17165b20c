// badge-demo: a toolbar of bell and mail buttons whose badges count clicks. Wiring only.
import BadgeDrawing
import BadgeX11
import Glibc

let environment: [String: String] = Dictionary(uniqueKeysWithValues: ["BADGE_REDUCE_MOTION", "BADGE_DEBUG"].map { name in
    (name, getenv(name).map { String(cString: $0) } ?? "")
})

func fail(_ message: String, status: Int32) -> Never {
    StandardError.write("badge-demo: \(message)\n\(DemoOptions.usage)")
    exit(status)
}

switch DemoOptions.parse(Array(CommandLine.arguments.dropFirst()), environment: environment) {
case .failure(let error):
    fail(error.message, status: 2)
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
        do {
            try BadgeGallery.render(to: path)
        } catch {
            StandardError.write("badge-demo: \(error)")
            exit(1)
        }
        exit(0)
    }
    let app: DemoApplication
    do {
        app = try DemoApplication(options: options)
    } catch {
        StandardError.write("badge-demo: \(error)")
        exit(2)
    }
    if let path = options.screenshotPath {
        do {
            try app.renderScreenshot(to: path)
        } catch {
            StandardError.write("badge-demo: \(error)")
            exit(1)
        }
        exit(0)
    }
    exit(app.run())
}
