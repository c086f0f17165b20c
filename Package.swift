// swift-tools-version: 6.0
// BadgeKit: notification badges for toolbar buttons of XCB/Cairo windows on Linux.
import PackageDescription

/// A C library found through pkg-config, with the Debian package that provides it.
func systemLibrary(_ name: String, pkgConfig: String?, apt: [String]) -> Target {
    .systemLibrary(name: name, pkgConfig: pkgConfig, providers: [.apt(apt)])
}

let package = Package(
    name: "BadgeKit",
    products: [
        .library(name: "BadgeCore", targets: ["BadgeCore"]),
        .library(name: "BadgeDrawing", targets: ["BadgeDrawing"]),
        .library(name: "BadgeIO", targets: ["BadgeIO"]),
        .library(name: "BadgeDesktop", targets: ["BadgeDesktop"]),
        .library(name: "BadgeX11", targets: ["BadgeX11"]),
        .library(name: "BadgeSources", targets: ["BadgeSources"]),
        .executable(name: "badge-demo", targets: ["BadgeApp"]),
    ],
    targets: [
        // C libraries from Debian -dev packages, one per pkg-config family.
        systemLibrary("CXCB", pkgConfig: "xcb", apt: ["libxcb1-dev"]),
        systemLibrary("CXvfbHarness", pkgConfig: "xcb-xtest", apt: ["libxcb-xtest0-dev"]),
        systemLibrary("CXCBICCCM", pkgConfig: nil, apt: ["libxcb-icccm4-dev"]),  // header only: structs and flag names
        systemLibrary("CXCBShm", pkgConfig: "xcb-shm", apt: ["libxcb-shm0-dev"]),
        systemLibrary("CXCBSync", pkgConfig: "xcb-sync", apt: ["libxcb-sync-dev"]),
        systemLibrary("CXCBDamage", pkgConfig: "xcb-damage", apt: ["libxcb-damage0-dev"]),  // test harness only
        systemLibrary("CXCBRandR", pkgConfig: "xcb-randr", apt: ["libxcb-randr0-dev"]),  // monitors, for per-monitor scale
        systemLibrary("CCairo", pkgConfig: "cairo", apt: ["libcairo2-dev"]),
        systemLibrary("CPangoCairo", pkgConfig: nil, apt: ["libpango-1.0-0", "libpangocairo-1.0-0"]),  // dlopen()ed when text is first shaped
        systemLibrary("CRsvg", pkgConfig: nil, apt: ["librsvg2-2"]),  // dlopen()ed on demand
        systemLibrary("CGMime", pkgConfig: nil, apt: ["libgmime-3.0-0"]),  // dlopen()ed by a Maildir source that lists messages
        systemLibrary("CXKBCommonX11", pkgConfig: "xkbcommon-x11", apt: ["libxkbcommon-x11-dev", "libxcb-xkb-dev"]),
        systemLibrary("CGlibcExtras", pkgConfig: nil, apt: ["libc6-dev"]),
        systemLibrary("COpenSSL", pkgConfig: nil, apt: ["libssl-dev"]),  // headers only: dlopen()ed by an IMAP source
        systemLibrary("CDBus", pkgConfig: "dbus-1", apt: ["libdbus-1-dev"]),  // linked: test harness only
        systemLibrary("CDBusProtocol", pkgConfig: nil, apt: ["libdbus-1-dev"]),  // header only: the protocol's constants
        systemLibrary("CAtspi", pkgConfig: nil, apt: ["libatspi2.0-dev"]),  // header only: AT-SPI2's role, state and name constants

        // The icons, embedded in code so the binary needs no resource search at run time.
        .target(
            name: "BadgeResources",
            path: "Resources",
            exclude: ["screenshot.png", "gallery.png", "scaling.png", "badge-demo.desktop", "session", "badge-demo.order",
                      "badge-demo.svg", "badge-demo.1", "badge-demo.metainfo.xml", "hicolor"],
            sources: ["BundledIcons.swift"],
            resources: [
                .embedInCode("Icons/bell.svg"), .embedInCode("Icons/mail.svg"),
                .embedInCode("Icons/chat.svg"), .embedInCode("Icons/updates.svg"),
            ] + ["bell", "mail", "chat", "updates"].flatMap { name in
                [12, 16, 24, 30, 32, 36, 48].map { Resource.embedInCode("IconMasks/\(name)-\($0).a8") }
            }
        ),

        // Pure badge core: content, formatting, geometry, animation. No C, no Foundation.
        // It rounds with Double's methods, which call libm: linked here so that a program using only
        // this product links without importing Glibc itself.
        .target(name: "BadgeCore", linkerSettings: [.linkedLibrary("m")]),
        // The control protocol (command lines in, JSON events out): pure Swift, no C.
        .target(name: "BadgeControl", dependencies: ["BadgeCore"]),
        // I/O without X: the poll() event loop, signals as descriptors, the D-Bus client (no libdbus),
        // the control socket and its client, and the single-instance lock.
        .target(name: "BadgeIO", dependencies: ["BadgeCore", "CGlibcExtras", "CDBusProtocol"]),
        // Where counts come from, without X: Maildir folders (inotify), a command's output, notmuch
        // queries, the notification daemon and other applications' launcher counts (D-Bus, through
        // BadgeIO). Sources are polled through their descriptors and deadlines by any event loop.
        .target(name: "BadgeSources", dependencies: ["BadgeCore", "BadgeControl", "BadgeIO", "CGlibcExtras", "CGMime", "COpenSSL", "CNetClient"]),
        // Name lookups on a thread of their own and non-blocking TCP connects, for the IMAP source.
        .target(name: "CNetClient"),
        // Drawing on any cairo context: badges, icons, toolbar; Pango for text, librsvg for icons.
        .target(
            name: "BadgeDrawing",
            dependencies: ["BadgeCore", "BadgeResources", "CCairo", "CPangoCairo", "CRsvg"]
        ),
        // The desktop's services that need no X, on BadgeIO's D-Bus: the screen-reader bridge
        // (AT-SPI2: the tree, its answers, events and listeners), the StatusNotifierItem, the badges'
        // D-Bus interface, the locale and its catalogues, and the portal's colour scheme.
        .target(name: "BadgeDesktop", dependencies: ["BadgeCore", "BadgeIO", "CAtspi", "CDBusProtocol", "CGlibcExtras"]),
        // The reusable X11 shell: connection, windows and their ICCCM/EWMH properties, input routing,
        // tooltips, the window icon and the toolbar host, on BadgeIO's loop. It knows no application.
        .target(
            name: "BadgeX11",
            dependencies: ["BadgeCore", "BadgeDrawing", "BadgeIO", "BadgeDesktop", "CXCB", "CXCBICCCM", "CXCBShm", "CXCBSync", "CXCBRandR", "CCairo", "CXKBCommonX11", "CGlibcExtras", "CDBusProtocol", "CAtspi"]
        ),
        // Blocks SIGTERM, SIGINT and SIGHUP in the demo's ELF pre-initializer, before any library's
        // initializer or Swift code runs, so a signal at any moment after exec ends it cleanly.
        .target(name: "CEarlySignals"),
        // The application on that shell, in rooms (LifeCycle, Model: the board, Config, Inputs,
        // Outputs, State, Instance, Msg: the `msg` client, Demo: the demo toolbar and keys). The
        // product, its paths and bus names keep their name, badge-demo.
        .executableTarget(
            name: "BadgeApp",
            dependencies: ["BadgeCore", "BadgeControl", "BadgeDrawing", "BadgeIO", "BadgeSources", "BadgeX11", "CDBusProtocol", "CGlibcExtras", "CEarlySignals"]
        ),

        // `make bench`: the README's figures (the bare C baseline is Benchmarks/peers/c-badge-toolbar.c).
        .executableTarget(name: "badge-bench", dependencies: ["BadgeCore", "BadgeDrawing", "BadgeX11", "CCairo", "XvfbHarness"]),
        // `make icon-masks`: renders the bundled SVGs with librsvg into Resources/IconMasks.
        .executableTarget(name: "badge-icon-masks", dependencies: ["BadgeDrawing", "BadgeResources"]),

        // Test support: private Xvfb servers, XTEST input, GetImage capture, child processes.
        .target(name: "XvfbHarness", dependencies: ["BadgeCore", "BadgeControl", "BadgeIO", "BadgeX11", "CXCB", "CXvfbHarness", "CXCBDamage", "CXCBSync", "CXCBRandR", "CDBus"]),

        // Test support shared by test targets: the trait that makes in-process cairo drawing take turns.
        .target(name: "TestSupport", path: "Tests/TestSupport"),

        .testTarget(name: "BadgeCoreTests", dependencies: ["BadgeCore"]),
        .testTarget(name: "BadgeControlTests", dependencies: ["BadgeControl"]),
        .testTarget(name: "BadgeIOTests", dependencies: ["BadgeIO"]),
        .testTarget(name: "BadgeSourcesTests", dependencies: ["BadgeCore", "BadgeIO", "BadgeSources", "CGlibcExtras", "XvfbHarness"]),
        .testTarget(
            name: "BadgeDrawingTests",
            dependencies: ["BadgeCore", "BadgeDrawing", "BadgeResources", "CCairo", "XvfbHarness", "TestSupport"],
            exclude: ["Golden"]
        ),
        .testTarget(name: "BadgeDesktopTests", dependencies: ["BadgeCore", "BadgeIO", "BadgeDesktop", "CAtspi", "CDBusProtocol"]),
        .testTarget(name: "BadgeX11Tests", dependencies: ["BadgeCore", "BadgeDrawing", "BadgeX11", "CXCB", "XvfbHarness", "TestSupport"]),
        .testTarget(name: "BadgeAppTests", dependencies: ["BadgeCore", "BadgeControl", "BadgeDrawing", "BadgeIO", "BadgeSources", "BadgeX11", "BadgeApp", "CEarlySignals", "XvfbHarness", "TestSupport"]),
        .testTarget(name: "EndToEndTests", dependencies: ["BadgeCore", "BadgeControl", "BadgeDrawing", "BadgeIO", "BadgeSources", "BadgeX11", "XvfbHarness", "TestSupport"], exclude: ["Fixtures"]),
    ]
)
