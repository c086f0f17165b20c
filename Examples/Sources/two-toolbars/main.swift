// two-toolbars: one window of the example's own with two badge toolbars in it, on one X
// connection, run by the example's own loop beside a timer of its own; or (`--into WINDOW`) one
// toolbar in a window that another client created. Built on BadgeKit's library products only,
// with no `import Glibc`: the loop sleeps in `DesktopSession.wait`, the timer is a deadline read
// from BadgeCore's `SystemClock`, and standard input is a `DesktopSession.PollDescriptor`.
//
//     two-toolbars [--mail-every SECONDS] [--into WINDOW-ID]
//
// The window: toolbar A spans the top, toolbar B sits below it, and everything else is the
// example's own green "widget". Keys pressed in the window go to the toolbar that has the focus
// (A at first); Tab past a toolbar's last button hands the focus on, A → B → the widget, and
// Shift+Tab back. New mail arrives on A's inbox every 0.2 s (0: never). Desktop settings (the
// DPI, the dark theme) are applied to both toolbars, which are laid out again.
//
// It reports JSON lines on standard output and reads one command per line on standard input
// (send the next once the answer to the last has come):
//   sync                 both toolbars drawn, the window settled: {"event":"synced", frames, counts}
//   resize WIDTH HEIGHT  resizes the window and toolbar A in one turn, with a synchronize
//   focus a|b [backward] your window's focus chain reaches a toolbar (as Tab would)
//   mail on|off          starts or stops the new-mail timer
//   idle                 answers {"event":"idle"} once nothing is due (no timer, no animation)
//   quit
// Standard output is a terminal's (line by line) or a pipe's (flushed when full): flushing it
// needs C's fflush, which this example does not import, so a program reading it through a pipe
// runs it under `stdbuf -oL`.

let options = Options(arguments: Array(CommandLine.arguments.dropFirst()))
if let problem = options.problem {
    say(#"{"event":"error","message":"\#(problem)"}"#)
} else {
    do {
        try TwoToolbars(options: options).run()
        say(#"{"event":"closed"}"#)
    } catch {
        say(#"{"event":"error","message":"\#(error)"}"#)
    }
}
