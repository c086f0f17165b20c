// mail-client: a small mail window built on BadgeKit's public API. The window and its message list
// are the example's own; the badge toolbar along its top is a ToolbarHost embedded as a child
// window. The example runs its own poll() loop and hands the host its events.
//
// Click a toolbar button: its badge changes (left +1, right -1, middle clears). Click a message:
// it toggles read/unread, and the Inbox badge follows the unread count. Events are printed as JSON
// lines on standard output, so a test can follow along.
import Glibc

let scale = CommandLine.arguments.dropFirst().first.flatMap(Double.init) ?? 1
do {
    try MailClient(scale: scale).run()
    MailClient.say(#"{"event":"closed"}"#)
} catch {
    MailClient.say(#"{"event":"error","message":"\#(error)"}"#)
    exit(1)
}
