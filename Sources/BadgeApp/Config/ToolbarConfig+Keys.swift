import BadgeControl
import BadgeCore

extension ToolbarConfig {
    /// Every key the config file may hold. A key not here gets a warning naming its path and the
    /// nearest known key, and the file still loads: a typo must never pass in silence.
    static let keys: JSONKeySchema = .object([
        "theme": .anything,
        "scale": .anything,
        "monitors": .anything,
        "scaleFromMonitorSize": .anything,
        "control": .object(["allowRoot": .anything]),
        "buttons": .array(of: .object([
            "id": .anything,
            "icon": .anything,
            "label": .anything,
            "content": .object(["kind": .anything, "count": .anything, "text": .anything, "blink": .anything]),
            "style": .object(["background": .anything, "textColor": .anything, "fontSize": .anything,
                              "maximumCount": .anything, "maximumTextLength": .anything]),
            "source": .object([
                "maildir": .anything, "folders": .anything, "newOnly": .anything, "open": .anything,
                "notmuch": .anything,
                "notifications": .object(["apps": .anything]),
                "launcher": .anything,
                "command": .anything, "interval": .anything, "timeout": .anything,
                "imap": .objectOrArray(["name": .anything, "host": .anything, "port": .anything, "security": .anything, "user": .anything,
                                 "folders": .anything, "caFile": .anything, "keepalive": .anything, "timeout": .anything, "auth": .anything,
                                 "open": .misplaced(advice: Sentence("belongs beside \"imap\" (as source.open), not inside it; it is taken from here this time, but move it")),
                                 "password": .object(["command": .anything, "secretService": .anything])]),
            ]),
            "click": .object(["run": .anything, "raise": .anything, "launch": .anything, "count": .anything]),
            "doNotDisturb": .anything,
        ])),
    ])
}
