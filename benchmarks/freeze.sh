# Sourced by the benchmark scripts, which run in a scratch folder $S outside the repository.
# freeze CODE...: for each commit, $S/src-CODE holds the repository's src at that commit,
# whatever is checked out (made once; a run puts it on PYTHONPATH).
FREEZE_REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
freeze() {
  local code dir
  : "${S:?set S to a scratch folder outside the repository}"
  for code in "$@"; do
    dir="$S/src-$code"
    [ -d "$dir" ] && continue
    mkdir -p "$dir.part" \
      && git -C "$FREEZE_REPO" archive -o "$dir.part.tar" "$code" src \
      && tar -x --strip-components=1 -C "$dir.part" -f "$dir.part.tar" \
      && rm "$dir.part.tar" && mv "$dir.part" "$dir" \
      || { echo "freeze: no copy of $code's src made in $dir" >&2; return 1; }
  done
}
