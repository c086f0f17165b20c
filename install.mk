# install.mk: the desktop install layout of badge-demo, included by the Makefile.
#
#   make install-files [DESTDIR=/tmp/stage] [PREFIX=/usr] [BIN=...]   installs what is already built
#   make uninstall     [DESTDIR=/tmp/stage] [PREFIX=/usr]             removes exactly that again
#   make app-icons                                                   re-renders the PNG icons
#
# install-files builds nothing: BIN must exist (the Makefile's `install` target builds it first),
# and the .mo catalogues are whatever LOCALE_BUILD holds. The PNG icons are pre-rendered from
# Resources/badge-demo.svg into Resources/hicolor/ (committed; `make app-icons` after the SVG
# changes), so installing needs no librsvg tools. The man page is installed uncompressed (a
# distribution's packaging compresses it, as dh_compress does, and `make deb` does). The session
# files (Resources/session: the autostart entry, the systemd user unit, the D-Bus service file) are
# installed too; the unit's and the service file's .in templates get BINDIR written into their Exec
# lines. Recipes run with /bin/sh.
#
# The AppStream component id is reverse-DNS, as AppStream requires of a desktop application, and
# the metainfo file is installed under that id (appstreamcli validate-tree checks the name); the
# desktop file keeps the name badge-demo.desktop, which the window's StartupWMClass and the dock
# badge's LauncherEntry (application://badge-demo.desktop) use.

PREFIX       ?= /usr/local
DESTDIR      ?=
BINDIR       ?= $(PREFIX)/bin
DATADIR      ?= $(PREFIX)/share
MANDIR       ?= $(DATADIR)/man
LOCALEDIR    ?= $(DATADIR)/locale
LIBDIR       ?= $(PREFIX)/lib
# The session files (docs/session.md): the XDG autostart entry goes where every desktop's autostart
# looks (XDG_CONFIG_DIRS is /etc/xdg by default, also for a PREFIX of /usr/local); the systemd user
# unit and the D-Bus service file go where systemd and dbus-daemon look below PREFIX, and both name
# the installed binary (BINDIR) in their Exec lines.
AUTOSTARTDIR ?= /etc/xdg/autostart
USERUNITDIR  ?= $(LIBDIR)/systemd/user
DBUSSERVICEDIR ?= $(DATADIR)/dbus-1/services
BIN          ?= .build/release/badge-demo
LOCALE_BUILD ?= .build/locale
# The gettext sources (po/<domain>/<lang>.po): uninstall also removes the catalogues they compile
# to, so that it still finds them after `make clean` emptied LOCALE_BUILD.
PO_DIR       ?= po

# Keep the including Makefile's default goal: this fragment's targets are never the default.
badge_install_saved_goal := $(.DEFAULT_GOAL)

BADGE_APPSTREAM_ID := io.github.badgekit.BadgeDemo
BADGE_BUS_NAME     := io.github.badgekit.BadgeDemo
BADGE_ICON_SIZES   := 16 24 32 48 64 128 256
BADGE_ICON_SRC     := Resources/hicolor
BADGE_ICONDIR       = $(DATADIR)/icons/hicolor

# Every installed file but the .mo catalogues, as a path below DESTDIR.
BADGE_INSTALLED = $(BINDIR)/badge-demo \
                  $(DATADIR)/applications/badge-demo.desktop \
                  $(BADGE_ICONDIR)/scalable/apps/badge-demo.svg \
                  $(foreach s,$(BADGE_ICON_SIZES),$(BADGE_ICONDIR)/$(s)x$(s)/apps/badge-demo.png) \
                  $(DATADIR)/metainfo/$(BADGE_APPSTREAM_ID).metainfo.xml \
                  $(MANDIR)/man1/badge-demo.1 \
                  $(AUTOSTARTDIR)/badge-demo.desktop \
                  $(USERUNITDIR)/badge-demo.service \
                  $(DBUSSERVICEDIR)/$(BADGE_BUS_NAME).service

# The directories uninstall removes once empty. Into a staging tree (DESTDIR set, and not /):
# each directory a file went into and its parents, up to, not including, DESTDIR, so an emptied
# stage is empty again. Into the live system (DESTDIR empty): the same, but never PREFIX, BINDIR,
# DATADIR, MANDIR or LIBDIR themselves (Debian's base-files creates them in /usr/local) nor anything
# above them; a directory outside all five (such as LOCALEDIR=/opt/locale, or AUTOSTARTDIR in /etc)
# is left alone.
BADGE_BASE_DIRS = $(PREFIX) $(BINDIR) $(DATADIR) $(MANDIR) $(LIBDIR)

# Shell helpers for the recipes (dash).
#   prune TOP SUB: removes TOP/SUB, then its parents, each only while empty, never TOP or anything
#     above it: rmdir -p on a path relative to TOP stops there.
#   prune_dir DIR: removes DIR (a directory without DESTDIR) and its parents as described above.
#   catalogues [ALL]: the .mo files as LANG/LC_MESSAGES/NAME.mo, found in LOCALE_BUILD; with ALL
#     also those the po/ sources compile to (po/DOMAIN/LANG.po), for an uninstall after make clean.
define badge_install_sh
prune() { if [ -d "$$1/$$2" ]; then ( cd "$$1" && rmdir --ignore-fail-on-non-empty -p "$$2" ); fi; }; \
prune_dir() { \
  case "$$(printf %s '$(DESTDIR)' | tr -d /)" in ?*) prune '$(DESTDIR)' "$${1#/}"; return;; esac; \
  best=; \
  for base in $(foreach d,$(BADGE_BASE_DIRS),'$(d)'); do \
    case "$$1" in "$$base") return;; "$$base"/*) [ $${#base} -gt $${#best} ] && best=$$base;; esac; \
  done; \
  if [ -n "$$best" ]; then prune "$$best" "$${1#"$$best"/}"; fi; }; \
catalogues() { \
  if [ -d '$(LOCALE_BUILD)' ]; then \
    ( cd '$(LOCALE_BUILD)' && find . -mindepth 3 -maxdepth 3 -path './*/LC_MESSAGES/*.mo' -type f ) | \
      sed 's|^\./||'; \
  fi; \
  if [ "$${1:-}" = ALL ]; then \
    for po in '$(PO_DIR)'/*/*.po; do [ -f "$$po" ] || continue; \
      domain=$${po%/*}; domain=$${domain##*/}; lang=$${po##*/}; lang=$${lang%.po}; \
      printf '%s\n' "$$lang/LC_MESSAGES/$$domain.mo"; done; \
  fi; }
endef

.PHONY: install-files uninstall app-icons

install-files:
	@case '$(PREFIX)' in /*) ;; *) echo "install.mk: PREFIX must be an absolute path, not '$(PREFIX)'" >&2; exit 1;; esac
	@[ -f '$(BIN)' ] || { echo "install.mk: no binary at $(BIN): run 'make release' first (or pass BIN=...)" >&2; exit 1; }
	install -D -m 755 '$(BIN)' '$(DESTDIR)$(BINDIR)/badge-demo'
	install -D -m 644 Resources/badge-demo.desktop '$(DESTDIR)$(DATADIR)/applications/badge-demo.desktop'
	install -D -m 644 Resources/badge-demo.svg '$(DESTDIR)$(BADGE_ICONDIR)/scalable/apps/badge-demo.svg'
	@for s in $(BADGE_ICON_SIZES); do \
	  echo "install -D -m 644 $(BADGE_ICON_SRC)/$${s}x$${s}/apps/badge-demo.png '$(DESTDIR)$(BADGE_ICONDIR)/$${s}x$${s}/apps/badge-demo.png'"; \
	  install -D -m 644 "$(BADGE_ICON_SRC)/$${s}x$${s}/apps/badge-demo.png" \
	    '$(DESTDIR)$(BADGE_ICONDIR)/'"$${s}x$${s}/apps/badge-demo.png" || exit 1; \
	done
	install -D -m 644 Resources/badge-demo.metainfo.xml '$(DESTDIR)$(DATADIR)/metainfo/$(BADGE_APPSTREAM_ID).metainfo.xml'
	install -D -m 644 Resources/badge-demo.1 '$(DESTDIR)$(MANDIR)/man1/badge-demo.1'
	install -D -m 644 Resources/session/badge-demo-autostart.desktop '$(DESTDIR)$(AUTOSTARTDIR)/badge-demo.desktop'
	@for f in badge-demo.service:'$(USERUNITDIR)' $(BADGE_BUS_NAME).service:'$(DBUSSERVICEDIR)'; do \
	  name=$${f%%:*}; dir=$${f#*:}; \
	  echo "install -D -m 644 Resources/session/$$name.in '$(DESTDIR)'$$dir/$$name (Exec: $(BINDIR)/badge-demo)"; \
	  mkdir -p '$(DESTDIR)'"$$dir" && \
	  sed 's|@BINDIR@|$(BINDIR)|g' "Resources/session/$$name.in" > '$(DESTDIR)'"$$dir/$$name" && \
	  chmod 644 '$(DESTDIR)'"$$dir/$$name" || exit 1; \
	done
	@$(badge_install_sh); \
	catalogues | sort -u | while IFS= read -r mo; do \
	  echo "install -D -m 644 '$(LOCALE_BUILD)/$$mo' '$(DESTDIR)$(LOCALEDIR)/$$mo'"; \
	  install -D -m 644 '$(LOCALE_BUILD)'/"$$mo" '$(DESTDIR)$(LOCALEDIR)'/"$$mo" || exit 1; \
	done

uninstall:
	@case '$(PREFIX)' in /*) ;; *) echo "install.mk: PREFIX must be an absolute path, not '$(PREFIX)'" >&2; exit 1;; esac
	rm -f $(foreach f,$(BADGE_INSTALLED),'$(DESTDIR)$(f)')
	@$(badge_install_sh); \
	catalogues ALL | sort -u | while IFS= read -r mo; do \
	  if [ -f '$(DESTDIR)$(LOCALEDIR)'/"$$mo" ]; then \
	    echo "rm -f '$(DESTDIR)$(LOCALEDIR)/$$mo'"; rm -f '$(DESTDIR)$(LOCALEDIR)'/"$$mo" || exit 1; \
	  fi; \
	  prune_dir '$(LOCALEDIR)'/"$${mo%/*}" || exit 1; \
	done || exit 1; \
	for dir in $(foreach f,$(BADGE_INSTALLED),'$(patsubst %/,%,$(dir $(f)))'); do \
	  prune_dir "$$dir" || exit 1; \
	done

# Re-renders the PNG icons from the SVG (needs rsvg-convert: apt-get install librsvg2-bin).
app-icons:
	@command -v rsvg-convert >/dev/null || { echo "install.mk: rsvg-convert not found: apt-get install librsvg2-bin" >&2; exit 1; }
	@for s in $(BADGE_ICON_SIZES); do \
	  mkdir -p "$(BADGE_ICON_SRC)/$${s}x$${s}/apps" && \
	  rsvg-convert -w $$s -h $$s -o "$(BADGE_ICON_SRC)/$${s}x$${s}/apps/badge-demo.png" Resources/badge-demo.svg || exit 1; \
	  echo "rendered $(BADGE_ICON_SRC)/$${s}x$${s}/apps/badge-demo.png"; \
	done

.DEFAULT_GOAL := $(badge_install_saved_goal)
