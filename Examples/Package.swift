// swift-tools-version: 6.0
// BadgeKit's examples: a separate package that uses BadgeKit the way any outside program does,
// by path, through its library products only (no C module of BadgeKit's, no `import Glibc` to
// make it link). `make test` builds it in debug and release and runs each program.
import PackageDescription

let package = Package(
    name: "BadgeKitExamples",
    dependencies: [
        .package(name: "BadgeKit", path: ".."),
    ],
    targets: [
        // The pure core alone: formatting, accessible descriptions and geometry, no drawing.
        .executableTarget(name: "badge-text", dependencies: [
            .product(name: "BadgeCore", package: "BadgeKit"),
        ]),
        // Core and drawing: the README's library example, writing a badge into a PNG file.
        .executableTarget(name: "badge-png", dependencies: [
            .product(name: "BadgeCore", package: "BadgeKit"),
            .product(name: "BadgeDrawing", package: "BadgeKit"),
        ]),
        // The X11 shell alone, with nothing else imported (not even Glibc): it must link on its own.
        .executableTarget(name: "display-check", dependencies: [
            .product(name: "BadgeX11", package: "BadgeKit"),
        ]),
        // The X11 shell: a mail-client window that draws its own message list and embeds a badge
        // toolbar as a child window, run in the example's own poll() loop.
        .executableTarget(name: "mail-client", dependencies: [
            .product(name: "BadgeCore", package: "BadgeKit"),
            .product(name: "BadgeDrawing", package: "BadgeKit"),
            .product(name: "BadgeX11", package: "BadgeKit"),
        ]),
        // The X11 shell, twice on one connection: a window with two toolbars as children, run in
        // the example's own loop beside a timer of its own, keys forwarded and the focus handed on;
        // or (--into) a toolbar in another client's window. No `import Glibc`.
        .executableTarget(name: "two-toolbars", dependencies: [
            .product(name: "BadgeCore", package: "BadgeKit"),
            .product(name: "BadgeDrawing", package: "BadgeKit"),
            .product(name: "BadgeX11", package: "BadgeKit"),
        ]),
        // The README's library page, compiled exactly as written (Scripts/readme-examples.py writes
        // them from README.md), as top-level code and inside a function.
        .executableTarget(name: "readme-badge", dependencies: [
            .product(name: "BadgeCore", package: "BadgeKit"),
            .product(name: "BadgeDrawing", package: "BadgeKit"),
        ]),
        .executableTarget(name: "readme-toolbar", dependencies: [
            .product(name: "BadgeCore", package: "BadgeKit"),
            .product(name: "BadgeDrawing", package: "BadgeKit"),
            .product(name: "BadgeX11", package: "BadgeKit"),
        ]),
    ]
)
