#!/usr/bin/env bash
# Installs everything Streamgate needs on a Debian machine with Node 20: the system packages (ffmpeg encodes the
# video, chromium runs the end-to-end tests and benchmarks, fonts draw text, Xvfb and the programs of the catalog
# for the display host), then the npm packages as locked.
set -euo pipefail
cd "$(dirname "$0")/.."
# xvfb, xterm, f3d and mesa-utils: the display host and the real programs of the catalog; the catalog's other real
# programs, each a kind of application people stream: openscad (CAD, 15 MB to download, 50 MB on disk), firefox-esr
# (a web browser, 80 MB, 310 MB), libreoffice-impress (slides, 85 MB, 270 MB) and mpv (a video player with sound,
# 2.5 MB, 9 MB), together about 45 s of this install on a machine that has the rest (README, "Set-up"); bubblewrap and
# python3-seccomp (libseccomp's own binding, which compiles the filter): the sandbox every real program runs in;
# x11vnc, novnc and python3-websockify: the noVNC peer that `npm run bench -- display` measures the display host
# against; slurmctld, slurmd, slurm-client and munge (Slurm 22.05 on Debian 12): the Slurm runner and the two-node
# test cluster of scripts/slurm-cluster.sh (with iproute2), which starts its own daemons, so the Debian services
# stay off; pulseaudio and pulseaudio-utils (pacat, parec): the sound server each display session runs in its sandbox
# and the display host reads, so the package's own per-login server stays off too; coturn: the embedded TURN relay of
# the door, which the service runs itself with a configuration of its own, so the Debian service stays off as well;
# nftables: the tests drop UDP in a client network namespace with nft.
packages=(chromium ffmpeg fonts-dejavu-core ca-certificates xvfb xterm f3d mesa-utils openscad firefox-esr
  libreoffice-impress mpv bubblewrap python3-seccomp
  x11vnc novnc python3-websockify slurmctld slurmd slurm-client munge iproute2 pulseaudio pulseaudio-utils coturn
  nftables)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
  sudo=""
  [ "$(id -u)" = 0 ] || sudo="sudo"
  export DEBIAN_FRONTEND=noninteractive
  # The packages' own services (munge, slurmctld, slurmd, coturn) must not start or be enabled: a policy-rc.d that
  # refuses every start for the length of the install, unless the machine already has one (containers often do).
  if [ ! -e /usr/sbin/policy-rc.d ]; then
    printf '#!/bin/sh\nexit 101\n' | $sudo tee /usr/sbin/policy-rc.d >/dev/null
    $sudo chmod 755 /usr/sbin/policy-rc.d
    trap '$sudo rm -f /usr/sbin/policy-rc.d' EXIT
    trap 'exit 130' INT TERM
  fi
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  # The postinst of each enables its unit and init script even when policy-rc.d stops it starting: disable the ones
  # this install brought (systemctl does that without a running systemd too, init scripts included), and stop them
  # where systemd runs. A machine that had them before keeps its own settings.
  services=()
  for p in "${missing[@]}"; do
    case "$p" in munge | slurmctld | slurmd | coturn) services+=("$p") ;; esac
  done
  if [ "${#services[@]}" -gt 0 ] && command -v systemctl >/dev/null; then
    now=""
    [ -d /run/systemd/system ] && now="--now"
    $sudo systemctl disable $now "${services[@]}" >/dev/null 2>&1 || true
  fi
  # PulseAudio's postinst enables its user units for every login (--global) and an init script that turns on its
  # clients' autospawn: each session's own server is all that may run.
  if printf '%s\n' "${missing[@]}" | grep -qx pulseaudio; then
    if command -v systemctl >/dev/null; then
      $sudo systemctl --global disable pulseaudio.service pulseaudio.socket >/dev/null 2>&1 || true
    fi
    $sudo update-rc.d pulseaudio-enable-autospawn disable >/dev/null 2>&1 || true
  fi
fi
# Exactly the locked packages, and the lock left as it is (a fresh clone stays clean): scripts/setup.test.ts checks
# that the lock suits the Node the project names and that every install script is approved or denied in package.json.
npm ci --no-audit --no-fund
