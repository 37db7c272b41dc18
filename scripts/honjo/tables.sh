#!/usr/bin/env bash
# Reruns the experiments of Honjo et al. (2010) on 7x7 Hex without swap:
# Table 1 (E_k against E, 200 games a pairing, seats alternating) as a
# league, and Table 2 (E_k against E_k, first player in rows) as single
# games: E_k has no random part, so each pairing has one game.
# Usage: scripts/honjo/tables.sh [OUT_DIR]   (default honjo-results)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-honjo-results}
darkhex=${DARKHEX:-darkhex}
mkdir -p "$out"
"$darkhex" league "$here/table1.toml" --out "$out/table1"
echo
echo "Table 2: the winner of E_k (first, rows) against E_k (second, columns)"
echo
echo "| first \\ second | E0 | E1 | E2 |"
echo "|---|---|---|---|"
for a in 0 1 2; do
  row="| E$a |"
  for b in 0 1 2; do
    result=$("$darkhex" play 'hex(board_size=7)' \
      --p0 "network(eval=ek,k=$a,x=0.00001)" --p1 "network(eval=ek,k=$b,x=0.00001)" | tail -n 1)
    case "$result" in
      "x wins"*) row="$row first |" ;;
      "o wins"*) row="$row second |" ;;
      *) echo "unexpected result: $result" >&2; exit 1 ;;
    esac
  done
  echo "$row"
done
