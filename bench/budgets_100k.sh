#!/usr/bin/env bash
# Issue 21, item 2 without the GUI: the end-to-end budgets on the ~100k-op GNMT training step
# (`zoo generate nmt-8 --steps 200`: 107,704 ops), measured with /usr/bin/time -v:
#   import (`info FILE`: read, validate, summarise)                    under 5 s
#   `place FILE --cluster C --out P` with the default budget (writes P)  under 60 s
#   peak RSS of every step                                               under 2 GB
# Prints one row per step (wall, CPU = user + system, peak RSS) and PASS or MISS per budget.
# Wall time counts what the machine's other jobs take; the load average is printed with it.
#
# usage: bench/budgets_100k.sh [POST_CLI]   (env: CLUSTER=k80x4 STEPS=200 MODEL=nmt-8)
set -euo pipefail
cli=${1:-build/release/app/cli/post-cli}
cluster=${CLUSTER:-k80x4}
steps=${STEPS:-200}
model=${MODEL:-nmt-8}
[ -x "$cli" ] || { echo "budgets_100k: no post-cli at $cli (build it, or pass its path)" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "budgets_100k: /usr/bin/time is missing (apt-get install time)" >&2; exit 2; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
misses=0

# measure NAME WALL_BUDGET_S COMMAND...: runs it, prints its row.
measure() {
    local name=$1 budget=$2
    shift 2
    if ! /usr/bin/time -v "$@" >"$dir/stdout" 2>"$dir/time"; then
        echo "budgets_100k: $name failed:" >&2
        tail -20 "$dir/time" >&2
        exit 1
    fi
    local wall cpu rss verdict
    wall=$(awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, p, ":"); s = 0; for (i = 1; i <= n; ++i) s = s * 60 + p[i]; print s }' "$dir/time")
    cpu=$(awk -F': ' '/User time/ { u = $2 } /System time/ { s = $2 } END { printf "%.2f", u + s }' "$dir/time")
    rss=$(awk -F': ' '/Maximum resident set size/ { printf "%.0f", $2 / 1024 }' "$dir/time")
    verdict=""
    if [ "$budget" != "-" ]; then
        if awk -v w="$wall" -v b="$budget" 'BEGIN { exit !(w < b) }'; then verdict="wall PASS (< ${budget} s)"
        else verdict="wall MISS (>= ${budget} s)"; misses=$((misses + 1)); fi
    fi
    if [ "$rss" -lt 2048 ]; then verdict="$verdict; RSS PASS"; else verdict="$verdict; RSS MISS (>= 2 GB)"; misses=$((misses + 1)); fi
    printf '%-34s %8.2f %8s %8s MB  %s\n' "$name" "$wall" "$cpu" "$rss" "$verdict"
}

echo "$model --steps $steps on $cluster; $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-34s %8s %8s %11s  %s\n' "step" "wall s" "CPU s" "peak RSS" "budgets"
measure "zoo generate (not budgeted)" - "$cli" zoo generate "$model" --steps "$steps" --out "$dir/graph.json"
measure "import: info FILE" 5 "$cli" info "$dir/graph.json"
measure "place (default budget) + --out" 60 "$cli" place "$dir/graph.json" --cluster "$cluster" --out "$dir/placement.json"
grep -E "^(algorithm|best step|samples|wall time)" "$dir/stdout" | sed 's/^/    /'
measure "simulate the placement" - "$cli" simulate "$dir/graph.json" --cluster "$cluster" --placement "$dir/placement.json"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
[ "$misses" -eq 0 ] && echo "all budgets met" || echo "$misses budget(s) missed"
