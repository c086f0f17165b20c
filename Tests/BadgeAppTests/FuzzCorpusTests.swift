import BadgeControl
import BadgeCore
import BadgeIO
import BadgeSources
import BadgeX11
import Glibc
import Testing
@testable import BadgeApp

/// Every input kept in Fuzz/ (each target's `seeds/` and `regressions/`: what the fuzzers found,
/// issue 38) fed to its reader as the fuzz target feeds it, in the normal suite: each must give its
/// defined result (a value or the reader's own error, whose message is one bounded line), and
/// none may trap. The fuzz targets themselves (Fuzz/TARGET/TARGET.swift) are built by `make fuzz`.
@Suite struct FuzzCorpusTests {
    /// The package's Fuzz folder.
    static let fuzzFolder: String = {
        var path = #filePath
        for _ in 0..<3 { path = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)]) }
        return path + "/Fuzz"
    }()

    /// Each target's reader, fed one input.
    static let readers: [String: @Sendable ([UInt8]) throws -> Void] = [
        "json": json, "control-command": controlCommand, "config": config, "state": state,
        "command-output": commandOutput, "dbus-framer": dbusFramer, "dbus-message": dbusMessage, "imap": imap,
        "xsettings": xsettings, "desktop-file": desktopFile, "bar-stream": barStream, "mail-header": mailHeader,
    ]

    @Test("Every fuzz target has a reader here, and every kept input gives its defined result", arguments: readers.keys.sorted())
    func corpus(target: String) throws {
        let inputs = Self.files(in: "\(Self.fuzzFolder)/\(target)/seeds") + Self.files(in: "\(Self.fuzzFolder)/\(target)/regressions")
        #expect(!inputs.isEmpty, "no seeds for \(target)")
        let reader = try #require(Self.readers[target])
        for file in inputs {
            let bytes = try #require(Self.read(file), "cannot read \(file)")
            do { try reader(bytes) } catch { Issue.record("\(file): \(error)") }
        }
    }

    @Test("Each folder in Fuzz/ with a target is known to this test")
    func everyTargetReplayed() {
        for name in Self.files(in: Self.fuzzFolder, directories: true).map({ String($0.split(separator: "/").last ?? "") })
        where name != "Support" && access("\(Self.fuzzFolder)/\(name)/\(name).swift", F_OK) == 0 {
            #expect(Self.readers[name] != nil, "Fuzz/\(name) has no reader in FuzzCorpusTests")
        }
    }

    // MARK: the readers, as the fuzz targets call them

    struct Broken: Error, CustomStringConvertible { let description: String }

    /// A message about input is one line of bounded length.
    static func check(_ message: String, limit: Int = 1200, _ what: String) throws {
        if let scalar = message.unicodeScalars.first(where: InputEcho.needsEscape) {
            throw Broken(description: "\(what) holds U+\(String(scalar.value, radix: 16)): \(message.debugDescription.prefix(200))")
        }
        if message.count > limit { throw Broken(description: "\(what) is \(message.count) characters long") }
    }

    /// The fuzz input's cuts (Fuzz/Support/FuzzSupport.swift's `chunks`).
    static func chunks(_ bytes: [UInt8]) -> [ArraySlice<UInt8>] {
        guard let seed = bytes.first else { return [] }
        let stream = bytes[1...]
        var state = UInt32(seed) &* 2_654_435_761 | 1
        var pieces: [ArraySlice<UInt8>] = []
        var start = stream.startIndex
        while start < stream.endIndex {
            state ^= state << 13; state ^= state >> 17; state ^= state << 5
            let length = state % 8 == 0 ? Int(state >> 20) % 4096 + 1 : Int(state % 16) + 1
            let end = min(stream.endIndex, start + length)
            pieces.append(stream[start..<end])
            start = end
        }
        return pieces
    }

    static func json(_ bytes: [UInt8]) throws {
        do {
            let text = try JSONValue.parse(bytes).serialized
            guard (try? JSONValue.parse(Array(text.utf8)))?.serialized == text else { throw Broken(description: "round trip changed \(text.prefix(80))") }
        } catch let error as JSONParseError {
            guard error.offset >= 0, error.offset <= bytes.count else { throw Broken(description: "error outside the text") }
            try check(error.description, "a JSON error")
        }
    }

    static func controlCommand(_ bytes: [UInt8]) throws {
        if case .failure(let error) = ControlCommand.parse(String(decoding: bytes, as: UTF8.self)) { try check(error.reason, "a control error") }
    }

    static func config(_ bytes: [UInt8]) throws {
        do {
            let config = try ToolbarConfig.parse(bytes, file: "config.json")
            for warning in config.warnings { try check(warning, "a config warning") }
            _ = AppConfig(config, fromFile: true)
        } catch let error as ToolbarConfig.Error {
            try check(error.message, "a config error")
        }
    }

    static func state(_ bytes: [UInt8]) throws {
        do {
            let entries = try SavedCounts.decodeEntries(bytes)
            let again = try SavedCounts.decodeEntries(SavedCounts.encode(entries: entries.map { (id: $0.key, entry: $0.value) }))
            guard again == entries else { throw Broken(description: "entries changed on the way back") }
        } catch let error as SmallFile.Failure {
            try check(error.reason, "a state error")
        }
    }

    static func commandOutput(_ bytes: [UInt8]) throws {
        if case .failure(let error) = CommandOutput.parse(bytes) { try check(error.description, "a command-output error") }
    }

    static func dbusFramer(_ bytes: [UInt8]) throws {
        var framer = DBusInputFramer()
        let startsWithLines = (bytes.first ?? 0) & 1 == 1
        for (number, chunk) in chunks(bytes).enumerated() {
            framer.append(chunk)
            do {
                if startsWithLines && number == 0 { while try framer.nextLine() != nil {} }
                while let message = try framer.nextMessage() { _ = message.encoded(serial: 1) }
                framer.compact()
            } catch {
                try check(error.reason, "a framer failure")
                return
            }
        }
    }

    static func dbusMessage(_ bytes: [UInt8]) throws {
        do {
            let message = try DBusMessage(decoding: bytes)
            _ = try DBusMessage(decoding: message.encoded(serial: message.serial == 0 ? 1 : message.serial))
        } catch let error as DBusWire.Malformed {
            try check("\(error)", "a decoder failure")
        }
    }

    static func imap(_ bytes: [UInt8]) throws {
        var framer = IMAPResponseFramer()
        var responses: [[UInt8]] = []
        do {
            for chunk in chunks(bytes) { responses += try framer.append(chunk) }
        } catch {
            try check(error.description, "an IMAP framer error")
        }
        for response in responses {
            do { _ = try IMAPResponse.parse(response) } catch { try check(error.description, "an IMAP response error") }
        }
    }

    static func xsettings(_ bytes: [UInt8]) throws {
        _ = DesktopSettings(xsettings: XSetting.decode(bytes), resourceScale: nil)
    }

    static func desktopFile(_ bytes: [UInt8]) throws {
        let text = String(decoding: bytes, as: UTF8.self)
        do {
            let file = try DesktopKeyFile(parsing: text)
            _ = file.localized("Name", locale: "de_DE.UTF-8@euro")
            if let exec = file.string("Exec") {
                do { _ = try ExecLine.arguments(exec, context: .init(icon: file.string("Icon"), name: "n", path: "/x.desktop")) } catch { try check(error.description, "an Exec error") }
            }
        } catch let error as ReasonError {
            try check(error.description, "a desktop-file error")
        }
        do { _ = try ExecLine.arguments(text, context: .init(icon: "i", name: "n", path: "/p")) } catch { try check(error.description, "an Exec error") }
    }

    static func barStream(_ bytes: [UInt8]) throws {
        var model = BarFormat.Model(only: (bytes.first ?? 0) & 1 == 1 ? "mail" : nil)
        let actions = BarActions(program: "/usr/bin/badge-demo", socket: "/run/user/1000/badge-demo/control")
        for line in (bytes.count > 1 ? bytes[1...] : []).split(separator: 0x0A) {
            guard let event = try? JSONValue.parse(Array(line)), model.apply(event) else { continue }
            for format in BarFormat.allCases {
                for settings in [BarFormat.Settings(), BarFormat.Settings(actions: actions, separator: false)] {
                    if let shown = format.line(model, settings), shown.contains(where: \.isNewline) { throw Broken(description: "\(format) wrote a line break") }
                }
            }
        }
        var clicks = I3barClickReader()
        for chunk in chunks(bytes) {
            for item in chunk.withUnsafeBytes({ clicks.feed($0) }) {
                switch item {
                case .problem(let problem): try check(problem, "a click problem")
                case .command(let command):
                    guard case .success = ControlCommand.parse(command) else { throw Broken(description: "a click became \(command.debugDescription)") }
                }
            }
        }
    }

    nonisolated(unsafe) static let decoder = MailHeaderDecoder()
    static func mailHeader(_ bytes: [UInt8]) throws {
        _ = decoder.summary(ofMessage: bytes)
    }

    // MARK: files

    static func files(in folder: String, directories: Bool = false) -> [String] {
        guard let dir = opendir(folder) else { return [] }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = DirectoryEntry.name(of: entry)
            guard !name.hasPrefix(".") else { continue }
            var status = stat()
            let path = "\(folder)/\(name)"
            guard stat(path, &status) == 0 else { continue }
            if ((status.st_mode & S_IFMT) == S_IFDIR) == directories { names.append(path) }
        }
        return names.sorted()
    }

    static func read(_ path: String) -> [UInt8]? {
        guard let file = fopen(path, "rb") else { return nil }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = fread(&buffer, 1, buffer.count, file)
            if count <= 0 { break }
            bytes += buffer[0..<count]
        }
        return bytes
    }
}
