#!/usr/bin/env bash
# Makes demo/clip.webm, the clip the default catalog's Video Player (mpv) plays in a loop: 12 seconds of a square
# circling over turning colour gradients, under the name and above the time, 640x360 at 24 fps in VP9, over a slow
# arpeggio (A minor, F, C, G) in Opus. All of it is made here, the picture by ffmpeg's own sources and filters and
# the notes by Python's standard library, so that the repository holds the recipe beside the file. The clip is
# committed (about 250 KB): neither `npm run setup` nor `npm start` runs this; run it again after changing it.
set -euo pipefail
cd "$(dirname "$0")/.."
out=demo/clip.webm
seconds=12
sound="$(mktemp --suffix=.wav)"
trap 'rm -f "$sound"' EXIT
python3 - "$sound" "$seconds" <<'PY'
import math, struct, sys, wave
path, seconds = sys.argv[1], int(sys.argv[2])
rate = 48000
# Four notes of a chord a second, each chord three seconds: A minor, F, C, G, and again.
chords = [[220.0, 261.63, 329.63, 440.0], [174.61, 220.0, 261.63, 349.23],
          [130.81, 164.81, 196.0, 261.63], [196.0, 246.94, 293.66, 392.0]]
note = 0.25
frames = bytearray()
for i in range(rate * seconds):
    t = i / rate
    chord = chords[int(t // 3) % 4]
    f = chord[int(t / note) % 4]
    dt = t % note
    # A soft attack and a decay, so that no note clicks; the root of the chord hums under them.
    level = min(1.0, dt * 40) * math.exp(-dt * 6) * 0.3 + 0.08
    s = level * math.sin(2 * math.pi * f * t) + 0.06 * math.sin(2 * math.pi * chord[0] / 2 * t)
    left = int(max(-1.0, min(1.0, s)) * 32767)
    right = int(max(-1.0, min(1.0, s * 0.9)) * 32767)
    frames += struct.pack('<hh', left, right)
with wave.open(path, 'wb') as w:
    w.setnchannels(2)
    w.setsampwidth(2)
    w.setframerate(rate)
    w.writeframes(bytes(frames))
PY
ffmpeg -hide_banner -loglevel error -y \
  -f lavfi -i "gradients=size=640x360:rate=24:n=4:c0=0x1d3557:c1=0x457b9d:c2=0xa8dadc:c3=0xf4a261:speed=0.03:seed=7" \
  -f lavfi -i "color=white@0.9:size=48x48:rate=24,format=yuva420p" \
  -i "$sound" \
  -filter_complex "[0:v][1:v]overlay=x=(W-w)/2+200*sin(2*PI*t/3):y=(H-h)/2+80*sin(4*PI*t/3):shortest=1,\
drawtext=font=DejaVu Sans:text=Streamgate:fontsize=48:fontcolor=white:borderw=2:bordercolor=0x1d3557:x=(w-tw)/2:y=36,\
drawtext=font=DejaVu Sans Mono:text='%{pts\:hms}':fontsize=24:fontcolor=white:x=(w-tw)/2:y=h-th-24[v]" \
  -map '[v]' -map 2:a \
  -t "$seconds" -c:v libvpx-vp9 -b:v 160k -deadline good -cpu-used 4 -row-mt 1 -g 96 \
  -c:a libopus -b:a 48k "$out"
echo "wrote $out ($(stat -c %s "$out") bytes)"
