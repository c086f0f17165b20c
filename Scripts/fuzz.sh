#!/usr/bin/env bash
# The fuzz targets in Fuzz/ (docs/reliability.md): built with libFuzzer and AddressSanitizer
# against the package's own modules, run one at a time under `nice -n 19`.
#
#   Scripts/fuzz.sh build [TARGET...]        builds .build/fuzz/bin/fuzz-TARGET (all without names)
#   Scripts/fuzz.sh run SECONDS [TARGET...]  builds, then runs each for SECONDS and prints its figures
#   Scripts/fuzz.sh report                   totals per target over every run so far
#
# How they are built: SwiftPM compiles the library modules and the app's module (BadgeApp, whose
# readers are internal) with -sanitize=fuzzer,address into a build folder of their own
# (.build/fuzz), without linking anything. Each target is then one swiftc invocation: the target's
# file and Fuzz/Support, with the flags SwiftPM used for BadgeApp (module maps, include paths, the
# package name, so `package` symbols are visible) and `@testable import BadgeApp`, linked with the
# modules' objects. SwiftPM renames BadgeApp's entry point (BadgeApp_main), so libFuzzer's main is
# the only one. The shipped binary is built elsewhere and never sees these flags.
#
# Each run works on .build/fuzz/corpus/TARGET (seeded from Fuzz/TARGET/seeds; what the fuzzer finds
# stays there, out of git) and writes crashes, hangs and out-of-memory inputs to
# .build/fuzz/findings/TARGET/. A line per run is appended to .build/fuzz/runs.tsv.
# Environment: FUZZ_TIMEOUT (s per input, 10), FUZZ_RSS_MB (2048), FUZZ_NICE (19), FUZZ_SANITIZERS.
set -euo pipefail
cd "$(dirname "$0")/.."
SWIFT=${SWIFT:-swift}
BUILD=.build/fuzz
TRIPLE_DIR=$BUILD/x86_64-unknown-linux-gnu/debug
BIN=$BUILD/bin
SANITIZERS=${FUZZ_SANITIZERS:-fuzzer,address}
NICE=${FUZZ_NICE:-19}

all_targets() { for d in Fuzz/*/; do d=${d%/}; [ -f "$d/$(basename "$d").swift" ] && basename "$d"; done; }

build_modules() {
    nice -n "$NICE" "$SWIFT" build --build-path "$BUILD" --target BadgeApp \
        -Xswiftc "-sanitize=$SANITIZERS" -Xcc "-fsanitize=${SANITIZERS/fuzzer/fuzzer-no-link}" >"$BUILD.log" 2>&1 \
        || { tail -40 "$BUILD.log" >&2; echo "fuzz: building the modules failed (log: $BUILD.log)" >&2; exit 1; }
}

# BadgeApp's compile flags from SwiftPM's manifest, less its sources and outputs; then the objects
# of every module badge-demo links but the pre-initializer that blocks signals (CEarlySignals: the
# fuzzer needs SIGINT and its timeouts).
flags_and_objects() {
    python3 - "$BUILD/debug.yaml" "$TRIPLE_DIR" <<'EOF'
import json, re, sys, glob, os
manifest, debug = sys.argv[1], sys.argv[2]
text = open(manifest).read()
start = text.index('"C.BadgeApp-')
block = text[start:text.find('\n  "', start + 10)]
args = json.loads(re.search(r'args: (\[.*\])', block).group(1))
keep, i = [], 1
skip_with_value = {"-module-name", "-emit-module-path", "-output-file-map", "-index-store-path", "-j2", "-module-cache-path"}
drop = {"-emit-dependencies", "-emit-module", "-incremental", "-c", "-enable-batch-mode", "-serialize-diagnostics", "-parseable-output", "-enable-testing"}
while i < len(args):
    a = args[i]
    if a in skip_with_value: i += 2; continue
    if a in drop or a.startswith("@") or a.endswith(".swift") or a.startswith("-j"): i += 1; continue
    if a == "-Xfrontend" and i + 1 < len(args) and args[i + 1] in ("-entry-point-function-name",):
        i += 4; continue
    keep.append(a); i += 1
print("\n".join(keep))
print("--objects--")
for module in ["BadgeApp", "BadgeCore", "BadgeControl", "BadgeIO", "BadgeSources", "BadgeDrawing", "BadgeDesktop", "BadgeX11", "BadgeResources", "CNetClient"]:
    for o in sorted(glob.glob(os.path.join(debug, module + ".build", "**", "*.o"), recursive=True)):
        print(o)
EOF
}

build_targets() {
    build_modules
    mkdir -p "$BIN"
    local flags=() objects=() line mode=flags
    while IFS= read -r line; do
        if [ "$line" = "--objects--" ]; then mode=objects; continue; fi
        if [ $mode = flags ]; then flags+=("$line"); else objects+=("$line"); fi
    done < <(flags_and_objects)
    for t in "$@"; do
        [ -f "Fuzz/$t/$t.swift" ] || { echo "fuzz: no target $t (Fuzz/$t/$t.swift)" >&2; exit 1; }
        echo "fuzz: linking fuzz-$t"
        # ld.gold warns about ASan's local symbols; those lines are noise.
        nice -n "$NICE" swiftc -parse-as-library -module-name "Fuzz_${t//-/_}" "${flags[@]}" \
            "Fuzz/$t/$t.swift" Fuzz/Support/*.swift "${objects[@]}" -o "$BIN/fuzz-$t" 2>&1 \
            | grep -v -e 'warning: .*__asan' -e 'warning: .*odr_asan' -e '^$' || true
        [ -x "$BIN/fuzz-$t" ] || { echo "fuzz: linking fuzz-$t failed" >&2; exit 1; }
    done
}

run_target() {
    local t=$1 seconds=$2 corpus=$BUILD/corpus/$1 findings=$BUILD/findings/$1 log=$BUILD/logs/$1.log
    mkdir -p "$corpus" "$findings" "$BUILD/logs"
    local extra=()
    [ -f "Fuzz/$t/$t.dict" ] && extra+=("-dict=Fuzz/$t/$t.dict")
    local seeds=()
    [ -d "Fuzz/$t/seeds" ] && seeds+=("Fuzz/$t/seeds")
    [ -d "Fuzz/$t/regressions" ] && seeds+=("Fuzz/$t/regressions")
    local before; before=$(ls "$findings" | wc -l)
    # A copy runs, so that a rebuild during a long run does not write over the running binary.
    mkdir -p "$BUILD/run" && cp "$BIN/fuzz-$t" "$BUILD/run/fuzz-$t"
    # Leak detection stays off (ASan and libFuzzer, which would run each input twice): the Swift
    # runtime's caches read as leaks; growth shows in -rss_limit_mb and -malloc_limit_mb.
    local began=$SECONDS
    ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0:allocator_may_return_null=1} \
    nice -n "$NICE" "$BUILD/run/fuzz-$t" -max_total_time="$seconds" -timeout="${FUZZ_TIMEOUT:-10}" \
        -rss_limit_mb="${FUZZ_RSS_MB:-2048}" -malloc_limit_mb="${FUZZ_RSS_MB:-2048}" -detect_leaks=0 -print_final_stats=1 \
        -artifact_prefix="$findings/" "${extra[@]}" "$corpus" "${seeds[@]}" >"$log" 2>&1 || true
    local after; after=$(ls "$findings" | wc -l)
    local ran=$((SECONDS - began))  # less than asked when a finding stopped it
    local execs cov ft units
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
    ft=$(grep -o 'ft: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
    units=$(ls "$corpus" | wc -l)
    local found=$((after - before))
    printf '%-16s %6ss  execs %10s  cov %5s  ft %6s  corpus %5s  findings %s\n' "$t" "$ran" "${execs:-?}" "${cov:-?}" "${ft:-?}" "$units" "$found"
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$(date -u +%FT%TZ)" "$t" "$ran" "${execs:-0}" "${cov:-0}" "$units" "$found" >>"$BUILD/runs.tsv"
    if [ "$found" -gt 0 ]; then
        grep -m3 -e 'ERROR:' -e 'Fatal error' -e 'fuzz property' "$log" | sed 's/^/    /'
        echo "    inputs in $findings/, log $log"
        return 1
    fi
}

command=${1:-}
shift || true
case "$command" in
build)
    [ $# -gt 0 ] || set -- $(all_targets)
    build_targets "$@" ;;
run)
    seconds=${1:?"usage: $0 run SECONDS [TARGET...]"}; shift
    [ $# -gt 0 ] || set -- $(all_targets)
    [ -n "${FUZZ_NO_BUILD:-}" ] || build_targets "$@"
    failed=0
    for t in "$@"; do run_target "$t" "$seconds" || failed=1; done
    exit $failed ;;
report)
    # Totals per target over every run recorded in .build/fuzz/runs.tsv.
    [ -f "$BUILD/runs.tsv" ] || { echo "fuzz: no runs recorded yet" >&2; exit 1; }
    awk -F'\t' '{ s[$2] += $3; e[$2] += $4; if ($5 > c[$2]) c[$2] = $5; u[$2] = $6; f[$2] += $7; n[$2]++ }
        END { for (t in s) { printf "%-16s runs %3d  %6d s  execs %11d  cov %5d  corpus %5d  findings %d\n", t, n[t], s[t], e[t], c[t], u[t], f[t];
                             ts += s[t]; te += e[t]; tf += f[t] }
              printf "%-16s          %6d s  execs %11d  (%.1f h)                    findings %d\n", "total", ts, te, ts / 3600, tf }' \
        "$BUILD/runs.tsv" | sort ;;
*)
    echo "usage: $0 build [TARGET...] | run SECONDS [TARGET...] | report" >&2; exit 2 ;;
esac
