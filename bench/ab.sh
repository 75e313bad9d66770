#!/usr/bin/env bash
# Two builds of the gate side by side on the same trace files: the median
# wall time and the peak RSS of `trace FILE --format json` (output to
# /dev/null), runs interleaved (A, B, A, B, ...) so both see the same load.
#
# Usage: bench/ab.sh BIN_A BIN_B RUNS FILE...
# e.g. the commit before a change and after it, both `cargo build --profile bench`:
#   bench/ab.sh /tmp/aeg-before /tmp/aeg-after 5 bench/out/ingest-py/one-82000.json
set -euo pipefail
A=$1 B=$2 RUNS=$3
shift 3
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
printf '| file | MB | A: wall s | A: peak RSS MB (×file) | B: wall s | B: peak RSS MB (×file) | B/A wall | B/A RSS |\n'
printf '|---|---:|---:|---:|---:|---:|---:|---:|\n'
for file in "$@"; do
  bytes=$(stat -c %s "$file")
  declare -A wall=() rss=()
  for _ in $(seq "$RUNS"); do
    for side in A B; do
      bin=$A
      [[ $side == B ]] && bin=$B
      /usr/bin/time -f '%e %M' -o "$tmp" "$bin" --isolated trace "$file" --format json >/dev/null
      read -r w r <"$tmp"
      wall[$side]+="$w "
      rss[$side]+="$r "
    done
  done
  row() { # side -> "wall rss_mb ratio"
    local w r
    w=$(tr ' ' '\n' <<<"${wall[$1]}" | grep . | median)
    r=$(tr ' ' '\n' <<<"${rss[$1]}" | grep . | sort -g | tail -1)
    python3 -c "import sys; w,r,b=float(sys.argv[1]),int(sys.argv[2]),int(sys.argv[3]); print(f'{w:.2f} {r/1024:.0f} {r*1024/b:.1f}')" "$w" "$r" "$bytes"
  }
  read -r wa ra xa < <(row A)
  read -r wb rb xb < <(row B)
  python3 -c "import sys; f,b,wa,ra,xa,wb,rb,xb=sys.argv[1:]; print(f'| {f} | {int(b)/1e6:.1f} | {wa} | {ra} ({xa}×) | {wb} | {rb} ({xb}×) | {float(wb)/float(wa):.2f} | {float(rb)/float(ra):.2f} |')" \
    "$(basename "$file")" "$bytes" "$wa" "$ra" "$xa" "$wb" "$rb" "$xb"
  unset wall rss
done
