#!/bin/sh
# Checks a badge-demo .deb built by Scripts/build-deb.sh: lintian finds no errors (the warnings
# it prints are listed in docs/packaging.md, each explained; any other warning fails here), the
# contents are where Debian puts them, and, with --install (root; changes this machine's /usr
# and /etc for a moment), dpkg -i installs it, the files are there and valid, the installed
# binary runs, dpkg -r removes all but the conffile, and dpkg -P that too. Refuses --install when a badge-demo
# package was installed before.
#
# Usage: Scripts/check-deb.sh [--install] DEB
# Needs: lintian, dpkg, desktop-file-utils (and systemd for systemd-analyze, optional).
set -u

fail() { echo "check-deb: FAIL: $*" >&2; exit 1; }
ok() { echo "ok: $*"; }
install=no
[ "${1:-}" = --install ] && { install=yes; shift; }
[ $# -eq 1 ] || { echo "usage: $0 [--install] DEB" >&2; exit 2; }
deb=$1
[ -f "$deb" ] || fail "no package at $deb"

# The warnings docs/packaging.md explains; anything else lintian says fails.
expected='initial-upload-closes-no-bugs'
command -v lintian >/dev/null || fail "lintian not found (apt-get install lintian)"
out=$(lintian --tag-display-limit 0 "$deb" 2>&1); status=$?
echo "$out" | sed 's/^/lintian: /'
echo "$out" | grep -q '^E: ' && fail "lintian reported errors (above)"
unexpected=$(echo "$out" | grep '^W: ' | grep -Ev ": ($expected)( |$)")
[ -z "$unexpected" ] || fail "lintian warnings not explained in docs/packaging.md: $unexpected"
[ $status -eq 0 ] || fail "lintian exited with status $status"
ok "lintian: no errors, $(echo "$out" | grep -c '^W: ') warnings (explained)"

files="/usr/bin/badge-demo
/usr/share/applications/badge-demo.desktop
/usr/share/metainfo/io.github.badgekit.BadgeDemo.metainfo.xml
/usr/share/icons/hicolor/scalable/apps/badge-demo.svg
/usr/share/icons/hicolor/48x48/apps/badge-demo.png
/usr/share/man/man1/badge-demo.1.gz
/usr/share/locale/de/LC_MESSAGES/badgekit.mo
/etc/xdg/autostart/badge-demo.desktop
/usr/lib/systemd/user/badge-demo.service
/usr/share/dbus-1/services/io.github.badgekit.BadgeDemo.service
/usr/share/doc/badge-demo/copyright
/usr/share/doc/badge-demo/changelog.Debian.gz"
contents=$(dpkg-deb --contents "$deb" | awk '{print $NF}' | sed 's|^\.||')
for f in $files; do
    echo "$contents" | grep -qx "$f" || fail "$deb has no $f"
done
depends=$(dpkg-deb --field "$deb" Depends)
echo "$depends" | grep -q 'libxcb1' || fail "Depends does not name libxcb1: $depends"
echo "$depends" | grep -q 'libcairo2' || fail "Depends does not name libcairo2: $depends"
echo "$depends" | grep -q 'librsvg2-2' || fail "Depends does not name librsvg2-2 (opened with dlopen): $depends"
ok "contents: $(echo "$contents" | grep -vc '/$') files, each in place; Depends: $depends"

[ $install = yes ] || { echo "package OK (not installed: pass --install)"; exit 0; }
[ "$(id -u)" = 0 ] || fail "--install needs root"
if dpkg-query -W -f='${Status}' badge-demo 2>/dev/null | grep -q 'installed'; then
    fail "a badge-demo package is installed already: not touching it"
fi
dpkg -i "$deb" >/dev/null || fail "dpkg -i $deb"
trap 'dpkg -P badge-demo >/dev/null 2>&1' EXIT
for f in $files; do [ -f "$f" ] || fail "installed, but $f is missing"; done
out=$(desktop-file-validate /etc/xdg/autostart/badge-demo.desktop /usr/share/applications/badge-demo.desktop 2>&1)
[ -z "$out" ] || fail "desktop-file-validate: $out"
if command -v systemd-analyze >/dev/null; then
    run=$(mktemp -d) && chmod 700 "$run"
    out=$(XDG_RUNTIME_DIR=$run systemd-analyze --user --man=no verify /usr/lib/systemd/user/badge-demo.service 2>&1); status=$?
    rm -rf "$run"
    [ $status -eq 0 ] && [ -z "$out" ] || fail "systemd-analyze verify: $out"
fi
version=$(/usr/bin/badge-demo --version 2>&1) || fail "/usr/bin/badge-demo --version: $version"
# Only root could have run this: the autostart entry really is in /etc/xdg/autostart now.
ok "dpkg -i: every file installed, valid; /usr/bin/badge-demo --version: $(echo "$version" | head -n 1)"
# dpkg -r keeps the conffiles (the autostart entry an admin may have edited); dpkg -P purges them.
trap 'dpkg -P badge-demo >/dev/null 2>&1' EXIT
dpkg -r badge-demo >/dev/null || fail "dpkg -r badge-demo"
for f in $files; do
    case $f in /etc/*) [ -f "$f" ] || fail "dpkg -r removed the conffile $f";; *) [ ! -e "$f" ] || fail "dpkg -r left $f";; esac
done
dpkg -P badge-demo >/dev/null || fail "dpkg -P badge-demo"
trap - EXIT
for f in $files; do [ ! -e "$f" ] || fail "dpkg -P left $f"; done
dpkg-query -W -f='${Status}' badge-demo 2>/dev/null | grep -q 'installed' && fail "dpkg still lists badge-demo"
ok "dpkg -r: every file removed but the conffile; dpkg -P: that too"
echo "package OK"
