# BadgeKit: `make run` starts the demo, `make test` runs the whole suite (unit, golden, end-to-end under Xvfb).
# Both install the Debian packages they need first (apt-get; sudo when not root; skipped when present).

SWIFT      ?= swift
BUILD_PKGS := pkg-config libxcb1-dev libxcb-xtest0-dev libxcb-xkb-dev libcairo2-dev libpango1.0-dev \
              librsvg2-2 libxkbcommon-x11-dev libdbus-1-dev
FONT_PKGS  := fonts-dejavu-core fonts-wqy-microhei fonts-noto-color-emoji fontconfig
TEST_PKGS  := xvfb xauth x11-xkb-utils xkb-data imagemagick openbox i3-wm xdotool wmctrl dbus-daemon
SUDO       := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
DEMO       := .build/release/badge-demo

.PHONY: deps test-deps build release run test bench screenshot gallery icon-masks clean

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

test-deps: deps
	$(call install_missing,$(TEST_PKGS))

build: deps
	$(SWIFT) build

# The release binary links the Swift runtime statically: only the parts it uses are mapped, which
# saves about 3.5 MB of resident memory and some start-up time.
RELEASE_FLAGS := -c release --static-swift-stdlib

release: deps
	$(SWIFT) build $(RELEASE_FLAGS) --product badge-demo

# Starts the demo on $DISPLAY; with no display, renders the window offscreen instead.
run: release
	@if [ -n "$$DISPLAY" ]; then exec $(DEMO); \
	else $(DEMO) --screenshot badge-demo.png && \
	  echo "No DISPLAY: rendered the window offscreen to $$(pwd)/badge-demo.png"; \
	  echo "To run it interactively, start an X session (or: Xvfb :5 & DISPLAY=:5 $(DEMO)) and run 'make run' there."; fi

# Unit, golden-image and end-to-end tests; the end-to-end tests start their own Xvfb servers.
test: test-deps
	$(SWIFT) build
	$(SWIFT) test --disable-xctest

screenshot: release
	$(DEMO) --screenshot Resources/screenshot.png --count mail=120 --scale 2

gallery: release
	$(DEMO) --gallery Resources/gallery.png

# Re-renders the bundled icons' alpha masks with librsvg after an SVG in Resources/Icons changed.
icon-masks: deps
	$(SWIFT) build --product badge-icon-masks
	.build/debug/badge-icon-masks Resources/IconMasks

bench: test-deps
	$(SWIFT) build $(RELEASE_FLAGS) --product badge-demo
	$(SWIFT) build $(RELEASE_FLAGS) --product bench-baseline-window
	$(SWIFT) build $(RELEASE_FLAGS) --product badge-bench
	.build/release/badge-bench Resources/scaling.png

clean:
	rm -rf .build

# Reliability: `make soak` runs the soak test at full length (100,000 animated changes; release build
# with -enable-testing in its own build directory), `make sanitize` the whole suite under
# AddressSanitizer (own build directory; leak detection off, see README). Both need the test packages.
SOAK_BUILD := .build/soak
ASAN_BUILD := .build/asan
ASAN_LOGS  := $(ASAN_BUILD)/asan-logs

.PHONY: soak sanitize

soak: test-deps
	$(SWIFT) build -c release -Xswiftc -enable-testing --scratch-path $(SOAK_BUILD)
	BADGE_SOAK=1 $(SWIFT) test -c release -Xswiftc -enable-testing --scratch-path $(SOAK_BUILD) --disable-xctest --filter Soak

# Every sanitized process (the test runner and each badge-demo it starts) writes any ASan report to
# $(ASAN_LOGS)/asan.PID; the target fails when one exists, even if the tests passed.
sanitize: test-deps
	$(SWIFT) build --sanitize=address --scratch-path $(ASAN_BUILD)
	rm -rf $(ASAN_LOGS) && mkdir -p $(ASAN_LOGS)
	ASAN_OPTIONS=detect_leaks=0:halt_on_error=1:log_path=$(abspath $(ASAN_LOGS))/asan \
	  $(SWIFT) test --sanitize=address --scratch-path $(ASAN_BUILD) --disable-xctest
	@if ls $(ASAN_LOGS)/asan.* >/dev/null 2>&1; then cat $(ASAN_LOGS)/asan.*; \
	  echo "AddressSanitizer reported errors (logs in $(ASAN_LOGS))" >&2; exit 1; fi
	@echo "AddressSanitizer: the whole suite ran clean"
