#!/bin/sh
# What an IMAP source costs in memory (issue 30), measured from outside on the release build:
# a private Dovecot (Tests/EndToEndTests/Fixtures/imap-server.py) with one unseen message, one Xvfb,
# and badge-demo started ROUNDS times each, interleaved, with
#   plain:  a mail button showing a count (so text is drawn in both), no source;
#   imap:   the mail button on the IMAP account, TLS with the test's CA, IDLE open, one item;
#   system: the same without caFile (the system's trust store is read; the handshake then fails);
#   two:    two accounts on the mail button (issue 37: "imap": [{…}, {…}], the same user twice).
# Each figure is the median, 3 s after start, of /proc/PID/smaps_rollup (kB).
# Usage: Benchmarks/imap-memory.sh [ROUNDS]   (after `swift build -c release --product badge-demo`;
#        DEMO=path/to/badge-demo to measure another build)
set -eu
ROUNDS=${1:-5}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
DEMO=${DEMO:-$ROOT/.build/release/badge-demo}
FIXTURE=$ROOT/Tests/EndToEndTests/Fixtures/imap-server.py
W=$(mktemp -d /tmp/imap-memory-XXXXXX)
chmod 755 "$W"; mkdir -p "$W/dv" "$W/home" && chmod 700 "$W/home"
python3 "$FIXTURE" setup "$W/dv"
dovecot -F -c "$W/dv/dovecot.conf" & DOVECOT=$!
exec 3>"$W/display"
Xvfb -displayfd 3 -screen 0 640x480x24 -nolisten tcp >/dev/null 2>&1 & XVFB=$!
trap 'kill $DOVECOT $XVFB 2>/dev/null; rm -rf "$W"' EXIT
python3 "$FIXTURE" wait "$W/dv"
python3 "$FIXTURE" deliver "$W/dv" "Alice <a@example.org>" "Hello"
while [ ! -s "$W/display" ]; do sleep 0.05; done
export DISPLAY=":$(cat "$W/display")" HOME="$W/home" XDG_RUNTIME_DIR="$W/home" XDG_CONFIG_HOME="$W/home/c" XDG_STATE_HOME="$W/home/s"
PORT=$(cut -d' ' -f1 "$W/dv/ports")
IMAP='"source": {"imap": {"host": "localhost", "port": '$PORT', "user": "alice", CA"password": {"command": ["cat", "'$W/dv/password'"]}}}'
echo '{"buttons": [{"id": "mail", "icon": "mail", "content": {"kind": "count", "count": 1}}, {"id": "bell", "icon": "bell"}]}' > "$W/plain.json"
echo '{"buttons": [{"id": "mail", "icon": "mail", '"$(echo "$IMAP" | sed "s|CA|\"caFile\": \"$W/dv/cert.pem\", |")"'}, {"id": "bell", "icon": "bell"}]}' > "$W/imap.json"
echo '{"buttons": [{"id": "mail", "icon": "mail", '"$(echo "$IMAP" | sed "s|CA||")"'}, {"id": "bell", "icon": "bell"}]}' > "$W/system.json"
ACCOUNT='{"name": "NAME", "host": "localhost", "port": '$PORT', "user": "alice", "caFile": "'$W/dv/cert.pem'", "password": {"command": ["cat", "'$W/dv/password'"]}}'
echo '{"buttons": [{"id": "mail", "icon": "mail", "source": {"imap": ['"$(echo "$ACCOUNT" | sed s/NAME/work/)"', '"$(echo "$ACCOUNT" | sed s/NAME/home/)"']}}, {"id": "bell", "icon": "bell"}]}' > "$W/two.json"
measure() {
    "$DEMO" --no-state --config "$W/$1.json" --profile "m$1" >/dev/null 2>&1 & pid=$!
    sleep 3
    awk '/^Rss:/ {r=$2} /^Pss:/ {p=$2} /^Private_Dirty:/ {d=$2} END {print r, p, d}' /proc/$pid/smaps_rollup >> "$W/$1.txt"
    kill $pid; wait $pid 2>/dev/null || true
}
i=0
while [ $i -lt "$ROUNDS" ]; do measure plain; measure imap; measure system; measure two; i=$((i + 1)); done
median() { sort -n | awk '{v[NR]=$1} END {print v[int((NR + 1) / 2)]}'; }
printf '%-8s %10s %10s %14s\n' config "Rss kB" "Pss kB" "Private_Dirty"
for c in plain imap system two; do
    printf '%-8s %10s %10s %14s\n' $c "$(cut -d' ' -f1 "$W/$c.txt" | median)" "$(cut -d' ' -f2 "$W/$c.txt" | median)" "$(cut -d' ' -f3 "$W/$c.txt" | median)"
done
