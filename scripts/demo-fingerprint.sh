#!/usr/bin/env bash
# The demo's report files as SHA-256 fingerprints, comparable between two commits: "demo files
# identical before and after". Runs `payrecon demo` (PGlite, a temp dir, a clean environment) with
# the clock standing at FP_NOW until the sandbox starts (scripts/demo-clock.mjs), so the business
# date and the provider's USDT rates are fixed; the times written after that are normalised:
#   text files: the time of day of every timestamp -> <time> (the date is kept);
#   reconciliation.xlsx: hashed part by part, a date-time cell's fraction of a day -> <time>;
#   manifest.json: created_at's time, every SHA-256 and the workbook's byte count (they follow the times).
# Usage: scripts/demo-fingerprint.sh [checkout]   (default: the one this script is in)
#   FP_KEEP=dir: copy the version's files there too, to see what a differing hash differs in.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "${1:-$here/..}" && pwd)
now=${FP_NOW:-2026-11-26T12:00:00Z}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# A clean environment and cwd, so no .env, DATABASE_URL or REPORT_* of the caller changes the files.
if ! (cd "$tmp" && env -i PATH="$PATH" HOME="$HOME" FP_NOW="$now" REPORT_DIR="$tmp/reports" LOG_LEVEL=error \
  node --import "$here/demo-clock.mjs" "$root/bin/payrecon.mjs" demo --data-dir "$tmp/data" >"$tmp/demo.out" 2>&1); then
  cat "$tmp/demo.out" >&2
  exit 1
fi
version=$(ls -d "$tmp"/reports/demo/*/v1)
if [ -n "${FP_KEEP:-}" ]; then mkdir -p "$FP_KEEP" && cp -r "$version"/. "$FP_KEEP"/; fi

times='s/T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?/T<time>/g; s/ [0-9]{2}:[0-9]{2}:[0-9]{2} ([+-][0-9]{2}:[0-9]{2})/ <time> \1/g'
hash() { sha256sum | cut -d' ' -f1; }

echo "demo at $(git -C "$root" rev-parse --short HEAD), clock $now"
for f in $(cd "$version" && ls | LC_ALL=C sort); do
  case "$f" in
    *.png) h=$(hash <"$version/$f") ;;
    manifest.json)
      h=$(jq -S '.created_at |= sub("T.*"; "T<time>")
        | walk(if type == "string" and test("^[0-9a-f]{64}$") then "<sha256>" else . end)
        | .files["reconciliation.xlsx"].bytes = "<bytes>"' "$version/$f" | hash) ;;
    *.xlsx)
      # Part by part; a cell in the date-time format (yyyy-mm-dd hh:mm:ss) keeps its day, not its time.
      python3 - "$version/$f" <<'PY'
import hashlib, re, sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
styles = z.read('xl/styles.xml').decode()
fmt = re.search(r'numFmtId="(\d+)" formatCode="yyyy-mm-dd hh:mm:ss"', styles).group(1)
xfs = re.findall(r'<xf [^>]*>', styles.split('<cellXfs')[1].split('</cellXfs>')[0])
dt = [str(i) for i, x in enumerate(xfs) if f'numFmtId="{fmt}"' in x]
cell = re.compile(r'(<c (?:r="[A-Z]+\d+" )?s="(?:' + '|'.join(dt) + r')"><v>\d+)(?:\.\d+)?(</v>)')
for name in sorted(z.namelist()):
    data = cell.sub(r'\1.<time>\2', z.read(name).decode())
    print(f'{hashlib.sha256(data.encode()).hexdigest()}  {sys.argv[1].rsplit("/", 1)[1]}:{name}')
PY
      continue ;;
    *) h=$(sed -E "$times" "$version/$f" | hash) ;;
  esac
  echo "$h  $f"
done
