# BadgeKit: `make run` starts the demo, `make test` runs the whole suite (unit, golden, end-to-end under Xvfb).
# Both install the Debian packages they need first (apt-get; sudo when not root; skipped when present).

SWIFT      ?= swift
BUILD_PKGS := pkg-config libxcb1-dev libxcb-xtest0-dev libxcb-xkb-dev libxcb-icccm4-dev libxcb-shm0-dev libxcb-sync-dev libxcb-damage0-dev libxcb-randr0-dev \
              libcairo2-dev libpango1.0-dev librsvg2-2 libgmime-3.0-0 libssl-dev libxkbcommon-x11-dev libdbus-1-dev libatspi2.0-dev
FONT_PKGS  := fonts-dejavu-core fonts-wqy-microhei fonts-noto-color-emoji fontconfig
TEST_PKGS  := xvfb xauth x11-xkb-utils xkb-data imagemagick openbox i3-wm xdotool wmctrl dbus-daemon \
              gettext desktop-file-utils appstream man-db xsettingsd x11-xserver-utils \
              python3-dbus python3-gi at-spi2-core python3-pyatspi socat dunst libnotify-bin notification-daemon xfce4-notifyd notmuch polybar lemonbar i3blocks \
              systemd libglib2.0-bin dbus-bin util-linux trayer \
              dovecot-imapd openssl gnome-keyring libsecret-tools gdb
# What `make deb` and `make deb-check` need (dpkg-shlibdeps, strip, lintian); dpkg-deb builds with
# --root-owner-group, so no fakeroot.
DEB_PKGS   := dpkg-dev binutils lintian desktop-file-utils systemd
SUDO       := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
DEMO       := .build/release/badge-demo

.PHONY: deb deb-check deps test-deps build release release-link run test test-release examples docs bench peers c-baseline screenshot gallery icon-masks clean

# Installs whichever of the named packages are missing, then refreshes the font cache once.
define install_missing
	@missing=$$(for p in $(1); do dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q '^install ok installed' || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	  echo "Installing: $$missing"; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends $$missing >/dev/null && \
	  fc-cache -f >/dev/null 2>&1 || { echo "apt-get install failed for: $$missing" >&2; exit 1; }; \
	fi
endef

deps:
	$(call install_missing,$(BUILD_PKGS) $(FONT_PKGS))

# The locales the tests run the app in (German digit grouping, Arabic right to left), generated once.
TEST_LOCALES := de_DE ar_EG
test-deps: deps
	$(call install_missing,$(TEST_PKGS) $(DEB_PKGS) locales)
	@for l in $(TEST_LOCALES); do locale -a 2>/dev/null | grep -qi "^$$l.utf-\?8$$" || $(SUDO) localedef -i $$l -f UTF-8 $$l.UTF-8; done

build: deps
	$(SWIFT) build

# How the release binary is linked (resident memory after start-up, measured as the README says):
# - the Swift runtime statically (--static-swift-stdlib): only what is used is mapped (-3.5 MB);
# - the runtime's C++ support library statically too: the static runtime links with -lstdc++, and
#   RELEASE_LINK, searched before the compiler's own directory, holds only libstdc++.a. That keeps
#   libstdc++.so and its start-up work out of the process (-1.0 MB; nothing else here uses it);
# - with lld and Resources/badge-demo.order (make order-file): the functions a session runs are
#   placed together, so they share a few pages instead of touching most of the 4.5 MB of code
#   (-1.4 MB); relative relocations are packed (-z pack-relative-relocs, glibc 2.36+), so the
#   loader no longer reads half a megabyte of them (-0.4 MB).
# The settings reach the link through a SwiftPM toolset (SE-0387) written by `make release-link`.
RELEASE_LINK  := $(CURDIR)/.build/release-link
ORDER_FILE    := $(CURDIR)/Resources/badge-demo.order
RELEASE_FLAGS := -c release --static-swift-stdlib --toolset $(RELEASE_LINK)/toolset.json

release-link:
	@archive=$$($(dir $(realpath $(shell command -v $(SWIFT))))clang -print-file-name=libstdc++.a); \
	if [ ! -f "$$archive" ]; then echo "libstdc++.a not found: install libstdc++-12-dev (or newer)" >&2; exit 1; fi; \
	mkdir -p $(RELEASE_LINK) && ln -sf "$$archive" $(RELEASE_LINK)/libstdc++.a && \
	printf '%s\n' '{"schemaVersion": "1.0",' \
	  ' "swiftCompiler": {"extraCLIOptions": ["-L$(RELEASE_LINK)", "-use-ld=lld"]},' \
	  ' "linker": {"extraCLIOptions": ["--symbol-ordering-file=$(ORDER_FILE)", "--no-warn-symbol-ordering",' \
	  '                                "-z", "pack-relative-relocs"]}}' > $(RELEASE_LINK)/toolset.json

# The catalogues too: the uninstalled release binary finds them in .build/locale (DesktopLocale).
release: deps release-link locale
	$(SWIFT) build $(RELEASE_FLAGS) --product badge-demo

# Starts the demo on $DISPLAY; with no display, renders the window offscreen instead. The
# catalogues compiled by `make locale` are used, so the demo speaks the user's language uninstalled.
run: release locale
	@export BADGEKIT_LOCALEDIR=$(CURDIR)/$(LOCALE_DIR); \
	if [ -n "$$DISPLAY" ]; then exec $(DEMO); \
	else $(DEMO) --screenshot badge-demo.png && \
	  echo "No DISPLAY: rendered the window offscreen to $$(pwd)/badge-demo.png"; \
	  echo "To run it interactively, start an X session (or: Xvfb :5 & DISPLAY=:5 $(DEMO)) and run 'make run' there."; fi

# Unit, golden-image and end-to-end tests; the end-to-end tests start their own Xvfb servers.
# The Examples package is built first (debug and release): its programs are tested as an outside
# user's would be.
test: test-deps examples locale
	$(SWIFT) build
	$(SWIFT) test --disable-xctest

# Examples/: a separate package that depends on BadgeKit by path and uses only its library
# products, built in both configurations the way an outside user builds it.
examples: deps
	python3 Scripts/readme-examples.py
	$(SWIFT) build --package-path Examples
	$(SWIFT) build --package-path Examples -c release

# The end-to-end tests once more, driving the release binary exactly as `make release` links it
# (static runtime, lld, order file) instead of the debug build.
test-release: test-deps release examples locale
	$(SWIFT) build --build-tests
	BADGE_DEMO_PATH=$(CURDIR)/$(DEMO) $(SWIFT) test --skip-build --disable-xctest --filter EndToEndTests

screenshot: release
	$(DEMO) --screenshot Resources/screenshot.png --count mail=120 --scale 2

gallery: release
	$(DEMO) --gallery Resources/gallery.png

# Re-renders the bundled icons' alpha masks with librsvg after an SVG in Resources/Icons changed.
icon-masks: deps
	$(SWIFT) build --product badge-icon-masks
	.build/debug/badge-icon-masks Resources/IconMasks

# The same toolbar in Tk and GTK 3 (Benchmarks/peers), which `make bench` measures beside badge-demo
# and the bare C baseline once they are here: installs Tk and GTK 3's development files (large),
# builds the GTK program.
PEER_PKGS := tk libgtk-3-dev gcc
peers: c-baseline
	$(call install_missing,$(PEER_PKGS))
	@mkdir -p .build/peers
	cc -O2 -Wall -o .build/peers/gtk3-badge-toolbar Benchmarks/peers/gtk3-badge-toolbar.c \
	  $$(pkg-config --cflags --libs gtk+-3.0)

# The benchmark's baseline: the same toolbar in C on XCB and cairo, no toolkit.
c-baseline: deps
	$(call install_missing,gcc)
	@mkdir -p .build/peers
	cc -O2 -Wall -Wextra -o .build/peers/c-badge-toolbar Benchmarks/peers/c-badge-toolbar.c \
	  $$(pkg-config --cflags --libs xcb cairo) -lm

# The DocC documentation of BadgeCore, BadgeDrawing and BadgeX11, built offline with the toolchain's
# own docc (warnings are errors; every public symbol must have a doc comment), merged into one
# archive: .build/docs/BadgeKit.doccarchive (open with `docc preview`, or serve it statically).
docs: deps
	PATH="$(dir $(realpath $(shell command -v $(SWIFT)))):$$PATH" Scripts/build-docs.sh .build/docs

bench: test-deps release-link c-baseline
	$(SWIFT) build $(RELEASE_FLAGS) --product badge-demo
	$(SWIFT) build $(RELEASE_FLAGS) --product badge-bench
	.build/release/badge-bench Resources/scaling.png

clean:
	rm -rf .build Examples/.build

# The gettext catalogues: po/<domain>/<lang>.po compiled into .build/locale/<lang>/LC_MESSAGES/<domain>.mo.
LOCALE_DIR := .build/locale
locale:
	$(call install_missing,gettext)
	@for po in po/*/*.po; do d=$$(basename $$(dirname $$po)); l=$$(basename $$po .po); \
	  mkdir -p $(LOCALE_DIR)/$$l/LC_MESSAGES && msgfmt --check --check-format -o $(LOCALE_DIR)/$$l/LC_MESSAGES/$$d.mo $$po || exit 1; \
	done

# `make install` / `make uninstall`, with PREFIX (default /usr/local) and DESTDIR: the release binary,
# the desktop file, the app icon (SVG and PNGs in hicolor), the AppStream metainfo, the man page,
# the catalogues, and the session files (XDG autostart entry, systemd user unit, D-Bus service file:
# docs/session.md). The recipes are in install.mk.
include install.mk

# The Debian package: .build/deb/badge-demo_VERSION_ARCH.deb (VERSION is BadgeKitVersion.string,
# what --version prints, with the Debian revision DEB_REVISION: 0.2.0-1), laid out by install.mk with PREFIX=/usr, Depends from dpkg-shlibdeps
# (Scripts/build-deb.sh; docs/packaging.md). `make deb-check` also runs lintian, installs it with
# dpkg -i on this machine (root), checks every file and removes it with dpkg -r (Scripts/check-deb.sh).
DEB_DIR     := .build/deb
DEB_REVISION ?= 1
DEB_VERSION  = $(shell sed -n 's/.*static let string = "\(.*\)".*/\1/p' Sources/BadgeCore/BadgeKitVersion.swift)-$(DEB_REVISION)
deb: release locale
	$(call install_missing,$(DEB_PKGS))
	Scripts/build-deb.sh '$(DEB_VERSION)' $(DEMO) $(LOCALE_DIR) $(DEB_DIR)

# The install (dpkg -i / -r / -P on this machine's /usr and /etc) runs as root, or with
# DEB_INSTALL=1 through sudo; otherwise lintian and the contents only. Not part of `make test`:
# .ci/run runs `make deb-check DEB_INSTALL=1` on its throwaway machine (docs/packaging.md).
deb-check: deb
	$(if $(or $(filter 0,$(shell id -u)),$(DEB_INSTALL)),$(SUDO) Scripts/check-deb.sh --install,Scripts/check-deb.sh) \
	  $(DEB_DIR)/badge-demo_$(DEB_VERSION)_$$(dpkg --print-architecture).deb
install: release locale
	$(MAKE) install-files

.PHONY: locale install

# Reliability: `make soak` runs the soak tests at full length against the release binary as
# `make release` links it: 100,000 animated changes (SoakTests), and everything live for
# SOAK_SECONDS (default 1800: LiveSoakTests, issue 38); `make sanitize` the whole suite under AddressSanitizer
# (own build directory; leak detection off, see README). Both need the test packages.
ASAN_BUILD := .build/asan
ASAN_LOGS  := $(ASAN_BUILD)/asan-logs

SOAK_SECONDS ?= 1800
.PHONY: soak sanitize order-file fuzz fuzz-build

# Fuzzing (issue 38, docs/reliability.md): every reader's fuzz target in Fuzz/ built with libFuzzer
# and AddressSanitizer into .build/fuzz (Scripts/fuzz.sh; never part of the shipped binary), then
# each run for FUZZ_SECONDS, one at a time under nice -n 19, with a per-input -timeout and an
# -rss_limit_mb; prints executions, coverage and findings per target, fails on any finding (the
# inputs are in .build/fuzz/findings/TARGET/; keep each in Fuzz/TARGET/regressions/ once fixed:
# make test replays them, FuzzCorpusTests). FUZZ_TARGETS picks some (default: all).
# UndefinedBehaviorSanitizer: swiftc has no -sanitize=undefined on Linux (the readers are Swift,
# whose overflow and bounds checks trap anyway).
FUZZ_SECONDS ?= 180
FUZZ_TARGETS ?=
fuzz: deps
	Scripts/fuzz.sh run $(FUZZ_SECONDS) $(FUZZ_TARGETS)

fuzz-build: deps
	Scripts/fuzz.sh build $(FUZZ_TARGETS)

soak: test-deps release
	$(SWIFT) build --build-tests
	BADGE_SOAK=1 BADGE_SOAK_SECONDS=$(SOAK_SECONDS) BADGE_DEMO_PATH=$(CURDIR)/$(DEMO) $(SWIFT) test --skip-build --disable-xctest --filter Soak

# Every sanitized process (the test runner and each badge-demo it starts) writes any ASan report to
# $(ASAN_LOGS)/asan.PID; the target fails when one exists, even if the tests passed.
sanitize: test-deps examples locale
	$(SWIFT) build --sanitize=address --scratch-path $(ASAN_BUILD)
	rm -rf $(ASAN_LOGS) && mkdir -p $(ASAN_LOGS)
	ASAN_OPTIONS=detect_leaks=0:halt_on_error=1:log_path=$(abspath $(ASAN_LOGS))/asan \
	  $(SWIFT) test --sanitize=address --scratch-path $(ASAN_BUILD) --disable-xctest
	@if ls $(ASAN_LOGS)/asan.* >/dev/null 2>&1; then cat $(ASAN_LOGS)/asan.*; \
	  echo "AddressSanitizer reported errors (logs in $(ASAN_LOGS))" >&2; exit 1; fi
	@echo "AddressSanitizer: the whole suite ran clean"

# Re-profiles which functions a demo session runs (callgrind under Xvfb, Scripts/profile-order-file.sh)
# into the order file the release link uses, then relinks. Run it after larger code changes.
order-file: test-deps release
	$(call install_missing,valgrind)
	Scripts/profile-order-file.sh $(DEMO) $(ORDER_FILE)
	rm -f $(DEMO) && $(SWIFT) build $(RELEASE_FLAGS) --product badge-demo
