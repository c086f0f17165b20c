#!/usr/bin/env bash
# Builds the DocC documentation of the library products offline, from what the toolchain ships:
# `swift package dump-symbol-graph`, then `docc convert` per module (warnings are errors), then
# `docc merge` into one archive. Fails when a public symbol has no documentation comment.
# Usage: Scripts/build-docs.sh OUTPUT_DIR
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-.build/docs}"
modules=(BadgeCore BadgeIO BadgeDrawing BadgeDesktop BadgeX11 BadgeSources)
# dump-symbol-graph reads every module of the package, test modules included: build them first,
# so that it works from a fresh clone too.
swift build --build-tests >/dev/null
swift package dump-symbol-graph --minimum-access-level public --skip-synthesized-members >/dev/null
graphs="$(swift build --show-bin-path)/../$(uname -m)-unknown-linux-gnu/symbolgraph"
[ -d "$graphs" ] || graphs=".build/$(uname -m)-unknown-linux-gnu/symbolgraph"
rm -rf "$out" && mkdir -p "$out"
archives=()
for module in "${modules[@]}"; do
  dir="$out/graphs/$module" && mkdir -p "$dir"
  cp "$graphs/$module.symbols.json" "$dir/"
  for extension in "$graphs/$module@"*.symbols.json; do [ -e "$extension" ] && cp "$extension" "$dir/"; done
  docc convert "Sources/$module/$module.docc" --additional-symbol-graph-dir "$dir" \
    --fallback-display-name "$module" --fallback-bundle-identifier "org.badgekit.$module" \
    --output-path "$out/$module.doccarchive" --warnings-as-errors \
    --experimental-documentation-coverage --coverage-summary-level brief >"$out/$module.log" 2>&1 \
    || { cat "$out/$module.log" >&2; echo "docc convert failed for $module" >&2; exit 1; }
  # Every public symbol documented: the coverage file lists each with whether it has an abstract.
  python3 - "$out/$module.doccarchive/documentation-coverage.json" "$module" <<'PY'
import json, sys
entries = json.load(open(sys.argv[1]))
# The compiler writes RawRepresentable's init(rawValue:) itself; there is no comment to write.
synthesized = {"init(rawValue:)"}
missing = [e.get("referencePath", "").split("/documentation/")[-1] for e in entries
           if e.get("kind", {}).get("isSymbol") and not e.get("hasAbstract", True) and e.get("title") not in synthesized]
if missing:
    print(f"{sys.argv[2]}: {len(missing)} public symbols without a documentation comment:", file=sys.stderr)
    for name in sorted(set(missing)): print(f"  {name}", file=sys.stderr)
    sys.exit(1)
print(f"{sys.argv[2]}: {len(entries)} pages, every public symbol documented")
PY
  archives+=("$out/$module.doccarchive")
done
docc merge "${archives[@]}" --synthesized-landing-page-name BadgeKit --output-path "$out/BadgeKit.doccarchive" >/dev/null
echo "documentation: $out/BadgeKit.doccarchive"
