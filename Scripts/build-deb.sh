#!/bin/sh
# Builds badge-demo_VERSION_amd64.deb from the release binary and the catalogues already built
# (`make deb` builds them first), with the project's own install layout: install.mk with
# DESTDIR=<stage> PREFIX=/usr. Adds what a Debian binary package needs beyond that: the man page
# compressed (gzip -9n), the binary stripped, /usr/share/doc/badge-demo/copyright (machine-readable
# format) and changelog.Debian.gz, DEBIAN/control with Depends from dpkg-shlibdeps on the binary
# (and the packages of the libraries it opens with dlopen),
# DEBIAN/md5sums, DEBIAN/conffiles (the autostart entry in /etc). Built with dpkg-deb --root-owner-group, so no fakeroot is needed.
#
# VERSION is the package's version: the project's version and a Debian revision (0.2.0-1), as a
# package made outside Debian's archive from an upstream release is versioned (it is not a native
# package, so its changelog is changelog.Debian.gz).
#
# Usage: Scripts/build-deb.sh VERSION BIN LOCALE_BUILD OUTDIR     (prints the .deb's path last)
# Needs: dpkg-dev (dpkg-shlibdeps), binutils (strip), make, gzip.
set -eu

[ $# -eq 4 ] || { echo "usage: $0 VERSION BIN LOCALE_BUILD OUTDIR" >&2; exit 2; }
version=$1
bin=$(realpath -e "$2") || { echo "build-deb: no binary at $2 (make release)" >&2; exit 1; }
locale=$(realpath -e "$3") || { echo "build-deb: no catalogues at $3 (make locale)" >&2; exit 1; }
mkdir -p "$4" && out=$(cd "$4" && pwd)
case $version in [0-9]*-[0-9]*) ;; *) echo "build-deb: bad version '$version' (UPSTREAM-REVISION, such as 0.2.0-1)" >&2; exit 2;; esac
[ -x "$bin" ] || { echo "build-deb: no binary at $bin (make release)" >&2; exit 1; }
command -v dpkg-shlibdeps >/dev/null || { echo "build-deb: dpkg-shlibdeps not found (apt-get install dpkg-dev)" >&2; exit 1; }
arch=$(dpkg --print-architecture)
root=$(cd "$(dirname "$0")/.." && pwd)
work=$out/deb-work
stage=$work/badge-demo
rm -rf "$work" && mkdir -p "$stage"

make -s -C "$root" --no-print-directory -f install.mk install-files \
    DESTDIR="$stage" PREFIX=/usr BIN="$bin" LOCALE_BUILD="$locale" >/dev/null

# Debian policy: stripped binaries (the debug symbols would be a -dbgsym package), compressed
# man pages.
strip --remove-section=.comment --remove-section=.note --strip-unneeded "$stage/usr/bin/badge-demo"
gzip -9n "$stage/usr/share/man/man1/badge-demo.1"

doc=$stage/usr/share/doc/badge-demo
mkdir -p "$doc"
cat > "$doc/copyright" <<COPYRIGHT
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: BadgeKit
Source: https://example.org/badgekit

Files: *
Copyright: 2026 BadgeKit developers
License: MIT
 Permission is hereby granted, free of charge, to any person obtaining a copy
 of this software and associated documentation files (the "Software"), to deal
 in the Software without restriction, including without limitation the rights
 to use, copy, modify, merge, publish, distribute, sublicense, and/or sell
 copies of the Software, and to permit persons to whom the Software is
 furnished to do so, subject to the following conditions:
 .
 The above copyright notice and this permission notice shall be included in
 all copies or substantial portions of the Software.
 .
 THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
 IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
 FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE
 AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER
 LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM,
 OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN
 THE SOFTWARE.
COPYRIGHT
# The date of the newest commit, so that the same tree builds the same changelog.
date=$(git -C "$root" log -1 --format=%cD 2>/dev/null || date -R)
cat > "$work/changelog.Debian" <<CHANGELOG
badge-demo ($version) unstable; urgency=medium

  * Upstream release ${version%-*}; see the project's CHANGELOG.md.

 -- BadgeKit developers <badgekit@example.org>  $date
CHANGELOG
gzip -9n -c "$work/changelog.Debian" > "$doc/changelog.Debian.gz"

# dpkg-shlibdeps reads debian/control from the current folder: a minimal one.
mkdir -p "$work/debian"
printf 'Source: badge-demo\n\nPackage: badge-demo\nArchitecture: any\n' > "$work/debian/control"
depends=$(cd "$work" && dpkg-shlibdeps -O -e"badge-demo/usr/bin/badge-demo" 2>"$work/shlibdeps.log" | sed -n 's/^shlibs:Depends=//p') || true
[ -n "$depends" ] || { cat "$work/shlibdeps.log" >&2; echo "build-deb: dpkg-shlibdeps gave no dependencies" >&2; exit 1; }

# The libraries the app opens with dlopen (Sources/C*/shim.h) are not in the binary's NEEDED list,
# so dpkg-shlibdeps cannot see them: the package that ships each soname here, found by dpkg -S.
# Text and icons need theirs (Depends); gmime (mail headers) and OpenSSL (IMAP over TLS) only the
# sources that use them, which say so when they are missing (Recommends).
owner() {  # SONAME -> the package that ships it
    file=$(ldconfig -p | awk -v l="$1" '$1 == l && /x86-64/ { print $NF; exit }')
    [ -n "$file" ] || { echo "build-deb: $1 (opened with dlopen) is not installed" >&2; exit 1; }
    dpkg -S "$(readlink -f "$file")" | sed -n '1s/:.*//p'
}
for so in libpangocairo-1.0.so.0 libfontconfig.so.1 librsvg-2.so.2; do depends="$depends, $(owner $so)"; done
recommends="$(owner libgmime-3.0.so.0), $(owner libssl.so.3)"

size=$(du -sk --exclude=DEBIAN "$stage" | cut -f1)
mkdir -p "$stage/DEBIAN"
cat > "$stage/DEBIAN/control" <<CONTROL
Package: badge-demo
Version: $version
Architecture: $arch
Maintainer: BadgeKit developers <badgekit@example.org>
Installed-Size: $size
Depends: $depends
Recommends: $recommends
Section: x11
Priority: optional
Homepage: https://example.org/badgekit
Description: notification badges on toolbar buttons (BadgeKit demo)
 badge-demo opens a toolbar whose buttons carry iOS-style count badges,
 fed by Maildir, IMAP, notmuch, desktop notifications, launcher counts or
 commands, and driven by scripts through "badge-demo msg" or D-Bus.
 .
 It starts with the session (XDG autostart, or the systemd user unit
 badge-demo.service) and is D-Bus activatable as io.github.badgekit.BadgeDemo.
CONTROL
( cd "$stage" && find . -path ./DEBIAN -prune -o -type f -printf '%P\0' | sort -z | xargs -0 md5sum ) > "$stage/DEBIAN/md5sums"
find "$stage" -type d -exec chmod 755 {} +
# Files in /etc are the admin's: dpkg keeps their edits across upgrades.
( cd "$stage" && find etc -type f -printf '/%p\n' | sort ) > "$stage/DEBIAN/conffiles"
chmod 644 "$stage/DEBIAN/control" "$stage/DEBIAN/md5sums" "$stage/DEBIAN/conffiles"

deb=$out/badge-demo_${version}_$arch.deb
dpkg-deb --root-owner-group -Zxz --build "$stage" "$deb" >/dev/null
echo "$deb"
