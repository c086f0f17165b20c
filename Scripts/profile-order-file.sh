#!/usr/bin/env bash
# Writes the link order file of the release badge-demo: the functions of the executable that run in
# a typical session (start-up and first frame, control changes with their animations, hover and
# tooltip, clicks, wheel and keys), as callgrind sees them, one symbol per line. The release link
# (Makefile) places these first, so the few hundred kilobytes of code a running demo executes sit on
# adjacent pages instead of being spread over the whole static Swift runtime.
#
# usage: Scripts/profile-order-file.sh BADGE_DEMO OUTPUT      (needs Xvfb, xdotool and valgrind)
set -euo pipefail
demo=${1:?usage: profile-order-file.sh BADGE_DEMO OUTPUT}
output=${2:?usage: profile-order-file.sh BADGE_DEMO OUTPUT}
for tool in Xvfb xdotool valgrind; do
  command -v "$tool" >/dev/null || { echo "profile-order-file: $tool is not installed" >&2; exit 1; }
done
work=$(mktemp -d)
cleanup() {
  [ -n "${DEMO_PID:-}" ] && kill "$DEMO_PID" 2>/dev/null
  [ -n "${XVFB_PID:-}" ] && kill "$XVFB_PID" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT

# Its own XDG folders, so the control socket, the instance lock and the saved counts run as they do
# in a user's session (with no XDG_RUNTIME_DIR there is no socket, and the functions that start it
# would be left out of the order and spread over the text, each pulling in a page-cache folio).
export XDG_RUNTIME_DIR="$work/runtime" XDG_CONFIG_HOME="$work/config" XDG_STATE_HOME="$work/state" \
  XDG_DATA_HOME="$work/data" XDG_CACHE_HOME="$work/cache"
mkdir -p "$XDG_RUNTIME_DIR" && chmod 700 "$XDG_RUNTIME_DIR"

# A private X server, which writes its display number into the pipe once it accepts clients.
mkfifo "$work/display"
Xvfb -displayfd 3 -noreset -screen 0 1024x768x24 3>"$work/display" 2>/dev/null &
XVFB_PID=$!
read -r -t 30 number <"$work/display" || { echo "profile-order-file: Xvfb did not start" >&2; exit 1; }
export DISPLAY=":$number"

# Profiled without its debug information: valgrind cannot read the DWARF 5 that clang writes for the
# C target (CEarlySignals); the symbol table, which is all the order file needs, stays.
objcopy --strip-debug "$demo" "$work/badge-demo"
demo="$work/badge-demo"

# A private session bus when dbus-run-session is here: the bus name, the badges' interface and the
# screen-reader bridge start as they do on a desktop.
bus=()
command -v dbus-run-session >/dev/null && bus=(dbus-run-session --)
coproc DEMO {
  exec "${bus[@]}" valgrind --tool=callgrind --demangle=no --compress-strings=no --compress-pos=no \
    --callgrind-out-file="$work/callgrind.out" --log-file="$work/valgrind.log" "$demo" --control
}
exec {to_demo}>&"${DEMO[1]}" {from_demo}<&"${DEMO[0]}"

# Reads events until one contains $1 (the line is kept in $event).
expect() {
  while read -r -t 120 event <&"$from_demo"; do [[ $event == *"$1"* ]] && return 0; done
  echo "profile-order-file: no event with $1 from badge-demo (see $work/valgrind.log)" >&2
  exit 1
}
send() { printf '%s\n' "$@" >&"$to_demo"; }
# Waits until every animation has finished, asking for the state until it says so.
settle() {
  while :; do send state; expect '"event":"state"'; [[ $event == *'"animating":false'* ]] && return 0; done
}

expect '"event":"ready"'
window=$(sed -E 's/.*"window":([0-9]+).*/\1/' <<<"$event")
send "set bell 5" "inc mail 100" "text chat Hello" "dot updates blink" "dec bell 2" "clear mail"
send "sync changes"
expect '"token":"changes"'
send "dot updates"    # a blinking dot animates until it is made steady again
settle
# Hover the bell until its tooltip shows, then click, right-click, middle-click and scroll on it.
xdotool mousemove --window "$window" 30 30
expect '"event":"tooltip"'
xdotool click 1 click 1 click 3 click 2 click 4 click 5
settle
# Keys go to the window under the pointer (no window manager): focus, change, demo keys.
xdotool key Tab space plus minus BackSpace Delete Tab Return t t b b o r o r
settle
send "sync done"
expect '"token":"done"'
# A producer on the socket, as scripts and bars are: `msg` is a second process, so only the
# server's side is profiled here.
"$demo" msg set mail 7 >"$work/msg.log" 2>&1 || { echo "profile-order-file: msg set failed: $(cat "$work/msg.log")" >&2; exit 1; }
send "sync socket"
expect '"token":"socket"'
send quit
wait "$DEMO_PID" || { echo "profile-order-file: badge-demo failed under callgrind (see $work/valgrind.log)" >&2; exit 1; }
DEMO_PID=

{
  echo "# Link order of badge-demo's hot functions, written by Scripts/profile-order-file.sh (make order-file)."
  echo "# Symbols that no longer exist are skipped by the linker; regenerate after larger code changes."
  awk '/^ob=/ { object = substr($0, 4) }
       /^fn=/ && object ~ /\/badge-demo$/ { print substr($0, 4) }' "$work/callgrind.out" |
    sed -E "s/'[0-9]+$//" | grep -v -E '^(0x|\()' | LC_ALL=C sort -u
} > "$output"
echo "profile-order-file: $(grep -vc '^#' "$output") functions written to $output"
