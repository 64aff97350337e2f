#!/usr/bin/env bash
# The layer rules of ARCHITECTURE.md, checked: every #include of a module's sources (.h .hpp .cpp
# .cu .cuh) names only the modules below it (or itself), and the Qt-free modules include no Qt
# header (<Q...>, <Qt...>). Prints one line per broken rule, "file:line: what (rule)", and exits 1
# when there is any; 0 and one summary line otherwise. ctest runs it (IncludeRules.Layers, label
# `unit`) over this tree, and over tests/data/include_rules to show that it catches a bad include.
#   scripts/check-includes.sh [ROOT]      ROOT: the source tree (default: this script's ../)
set -euo pipefail
root=${1:-"$(cd "$(dirname "$0")/.." && pwd)"}
cd "$root"

# module | the modules it may include besides itself | qt-free or qt. Lowest first; keep it the same
# as ARCHITECTURE.md's table. A path's module is its first folder, except those of kPrefixes.
rules="
base||qt-free
kernels|base|qt-free
engine|base kernels|qt-free
runconfig|base kernels engine|qt-free
doctor|base|qt-free
profiling|base kernels engine|qt-free
lessons|base kernels engine runconfig profiling|qt-free
setups|base kernels engine runconfig profiling lessons|qt-free
playground|base kernels engine profiling|qt-free
widgets|base kernels engine runconfig doctor profiling lessons setups playground|qt
app|base kernels engine runconfig doctor profiling lessons setups playground widgets|qt
"
# Folders that are a module of their own inside another's folder ("path/prefix=module", one a
# space), longest first. None today.
prefixes=""
# Known exceptions, "file|included path" one a line, each with its reason. None today: fix the
# include (move what both sides need down, to base/ or kernels/) rather than add one here.
exceptions=""

dirs=()
while IFS='|' read -r module _ _; do
  [ -n "$module" ] && [ -d "$module" ] && dirs+=("$module")
done <<<"$rules"
if [ ${#dirs[@]} -eq 0 ]; then
  echo "check-includes: no module folder under $root" >&2
  exit 2
fi

grep -rnE --include='*.h' --include='*.hpp' --include='*.cpp' --include='*.cu' --include='*.cuh' \
  '^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"]' "${dirs[@]}" |
  awk -v rules="$rules" -v prefixes="$prefixes" -v exceptions="$exceptions" '
    function module_of(path,   i, n, p, kv) {
      n = split(prefixes, p, " ")
      for (i = 1; i <= n; i++) {
        split(p[i], kv, "=")
        if (index(path, kv[1] "/") == 1) return kv[2]
      }
      split(path, p, "/")
      return p[1]
    }
    BEGIN {
      n = split(rules, lines, "\n")
      for (i = 1; i <= n; i++) {
        if (lines[i] == "") continue
        split(lines[i], f, "|")
        known[f[1]] = 1
        allowed[f[1], f[1]] = 1
        m = split(f[2], below, " ")
        for (j = 1; j <= m; j++) allowed[f[1], below[j]] = 1
        qtfree[f[1]] = (f[3] == "qt-free")
        modules++
      }
      n = split(exceptions, ex, "\n")
      for (i = 1; i <= n; i++) if (ex[i] != "") excepted[ex[i]] = 1
      bad = 0; files = 0
    }
    {
      # grep -n: FILE:LINE:TEXT
      file = $0; sub(/:.*/, "", file)
      rest = substr($0, length(file) + 2)
      line = rest; sub(/:.*/, "", line)
      text = substr(rest, length(line) + 2)
      if (!(file in seen)) { seen[file] = 1; files++ }
      from = module_of(file)
      if (match(text, /"[^"]+"/)) {
        inc = substr(text, RSTART + 1, RLENGTH - 2)
        if (index(inc, "/") == 0) next
        to = module_of(inc)
        if (!(to in known) || allowed[from, to]) next
        if ((file "|" inc) in excepted) next
        printf "%s:%s: %s includes %s: %s may include only %s\n", file, line, from, inc, from, list(from)
        bad++
      } else if (qtfree[from] && match(text, /<Q[A-Za-z]*[>\/]/)) {
        inc = substr(text, RSTART, RLENGTH)
        printf "%s:%s: %s is Qt-free but includes %s\n", file, line, from, inc
        bad++
      }
    }
    function list(m,   k, out, parts) {
      out = ""
      for (k in known) if (k != m && allowed[m, k]) out = out (out == "" ? "" : ", ") k
      return out == "" ? "itself" : out
    }
    END {
      if (bad) { printf "check-includes: %d forbidden include(s) (ARCHITECTURE.md: the layers)\n", bad; exit 1 }
      printf "check-includes: %d files of %d modules keep the layer rules\n", files, modules
    }'
