// display-check: BadgeX11 from outside, with nothing else imported (not even Glibc, so nothing
// else could make it link). Opens the display named by $DISPLAY (or the first argument) and says
// what it found, or the shell's typed error.
import BadgeX11

let name = CommandLine.arguments.dropFirst().first
do {
    let connection = try XConnection(display: name)
    print("display \(connection.displayName): screen \(connection.screenWidth)x\(connection.screenHeight), root 0x\(String(connection.root, radix: 16))")
} catch .noDisplay {
    print("no display: \(X11Error.noDisplay)")
} catch {
    print("error: \(error)")
}
