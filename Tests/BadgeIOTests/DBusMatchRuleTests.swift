@testable import BadgeIO
import Testing

/// Match rules: the text the bus reads, and the local matching that keeps each subscriber's traffic
/// its own.
@Suite("D-Bus match rules")
struct DBusMatchRuleTests {
    static func nameOwnerChanged(_ name: String, old: String, new: String) -> DBusMessage {
        var message = DBusMessage(kind: .signal, path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus", member: "NameOwnerChanged",
                                  body: [.string(name), .string(old), .string(new)])
        message.sender = "org.freedesktop.DBus"
        return message
    }

    @Test("The rule's text: keys in the specification's form, arguments in order, quotes escaped")
    func text() {
        #expect(DBusMatchRule.nameOwnerChanged("org.freedesktop.Notifications").description
                == "type='signal',sender='org.freedesktop.DBus',interface='org.freedesktop.DBus',member='NameOwnerChanged',arg0='org.freedesktop.Notifications'")
        #expect(DBusMatchRule(kind: .methodReturn, sender: ":1.7").description == "type='method_return',sender=':1.7'")
        #expect(DBusMatchRule(kind: .methodCall, interface: "a.b").description == "type='method_call',interface='a.b'")
        #expect(DBusMatchRule.signal("a.b", "C", arguments: [2: "", 0: "x"]).description == "type='signal',interface='a.b',member='C',arg0='x',arg2=''")
        #expect(DBusMatchRule.signal("a.b", "C", arguments: [0: "it's"]).description == #"type='signal',interface='a.b',member='C',arg0='it'\''s'"#)
    }

    @Test("A name's NameOwnerChanged matches only that name: another peer leaving is not the daemon leaving")
    func argumentZero() {
        let rule = DBusMatchRule.nameOwnerChanged("org.freedesktop.Notifications")
        #expect(rule.matches(Self.nameOwnerChanged("org.freedesktop.Notifications", old: ":1.4", new: "")))
        #expect(!rule.matches(Self.nameOwnerChanged(":1.9", old: ":1.9", new: "")), "a notify-send that leaves")
        var forged = Self.nameOwnerChanged("org.freedesktop.Notifications", old: ":1.4", new: "")
        forged.sender = ":1.12"
        #expect(!rule.matches(forged), "only the bus says who owns a name")
        var short = Self.nameOwnerChanged("x", old: "", new: "")
        short.body = []
        #expect(!DBusMatchRule.signal("org.freedesktop.DBus", "NameOwnerChanged", arguments: [0: ""]).matches(short), "a missing argument never matches")
    }

    @Test("Kind, interface, member and path must all agree")
    func keys() {
        var message = DBusMessage(kind: .signal, path: "/org/freedesktop/Notifications", interface: "org.freedesktop.DBus.Properties",
                                  member: "PropertiesChanged", body: [.string("org.dunstproject.cmd0")])
        message.sender = ":1.3"
        #expect(DBusMatchRule.signal("org.freedesktop.DBus.Properties", "PropertiesChanged", path: "/org/freedesktop/Notifications").matches(message))
        #expect(!DBusMatchRule.signal("org.freedesktop.DBus.Properties", "PropertiesChanged", path: "/other").matches(message))
        #expect(!DBusMatchRule.signal("org.freedesktop.DBus.Properties", "Other").matches(message))
        #expect(!DBusMatchRule(kind: .methodCall, interface: "org.freedesktop.DBus.Properties").matches(message))
        #expect(DBusMatchRule().matches(message), "an empty rule takes everything")
        #expect(DBusMatchRule(sender: ":1.3").matches(message) && !DBusMatchRule(sender: ":1.4").matches(message))
    }

    @Test("A well-known sender is its current owner; with none known, nothing from it matches")
    func wellKnownSender() {
        var message = DBusMessage(kind: .signal, path: "/org/freedesktop/login1", interface: "org.freedesktop.login1.Manager",
                                  member: "PrepareForSleep", body: [.bool(true)])
        message.sender = ":1.2"
        let rule = DBusMatchRule.signal("org.freedesktop.login1.Manager", "PrepareForSleep", sender: "org.freedesktop.login1")
        #expect(rule.followedSender == "org.freedesktop.login1")
        #expect(rule.matches(message) { $0 == "org.freedesktop.login1" ? ":1.2" : nil })
        #expect(!rule.matches(message) { _ in ":1.5" }, "a stranger's PrepareForSleep")
        #expect(!rule.matches(message), "no owner known yet")
        #expect(DBusMatchRule.nameOwnerChanged("x").followedSender == nil && DBusMatchRule(sender: ":1.2").followedSender == nil)
    }
}
