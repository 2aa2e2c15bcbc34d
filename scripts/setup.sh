#!/usr/bin/env bash
# Installs everything Streamgate needs on a Debian machine with Node 20: the system packages (ffmpeg encodes the
# video, chromium runs the end-to-end tests and benchmarks, fonts draw text, Xvfb and the programs of the catalog
# for the display host), then the npm packages as locked.
set -euo pipefail
cd "$(dirname "$0")/.."
# xvfb, xterm, f3d and mesa-utils: the display host and the real programs of the catalog; bubblewrap and
# python3-seccomp (libseccomp's own binding, which compiles the filter): the sandbox every real program runs in;
# x11vnc, novnc and python3-websockify: the noVNC peer that `npm run bench -- display` measures the display host
# against.
packages=(chromium ffmpeg fonts-dejavu-core ca-certificates xvfb xterm f3d mesa-utils bubblewrap python3-seccomp
  x11vnc novnc python3-websockify)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
  sudo=""
  [ "$(id -u)" = 0 ] || sudo="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
# Exactly the locked packages, and the lock left as it is (a fresh clone stays clean): scripts/setup.test.ts checks
# that the lock suits the Node the project names and that every install script is approved or denied in package.json.
npm ci --no-audit --no-fund
