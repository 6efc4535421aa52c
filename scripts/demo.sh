#!/usr/bin/env bash
# What Tessera does so far, on the sample images shipped in Tests/Fixtures.
set -uo pipefail
tessera=${1:-.build/release/tessera}
demo=$(dirname "$tessera")/tessera-demo
samples=Tests/Fixtures
out=demo-out
# Keep the generated photos and page media between runs; everything else is made anew.
mkdir -p "$out" && find "$out" -mindepth 1 -maxdepth 1 ! -name photos ! -name pages-root -exec rm -rf {} +

section() { printf '\n\033[1m== %s\033[0m\n' "$1"; }

section "tessera info: what each file is and what a full decode costs (headers only, no pixels)"
"$tessera" info "$samples"/jpeg-baseline.jpg "$samples"/jpeg-progressive.jpg "$samples"/jpeg-cmyk.jpg \
  "$samples"/jpeg-orientation-6.jpg "$samples"/png-adam7-rgba-8.png "$samples"/png-palette-trns.png \
  "$samples"/gif-animated.gif "$samples"/webp-animated.webp "$samples"/heic-alpha.heic "$samples"/avif-basic.avif \
  "$samples"/tiff-rgb-tiled.tif "$samples"/svg-size.svg

section "The 1.6 MB decompression bomb: its header says 40000×40000, so a full decode would take 1.6 GB"
"$tessera" info "$samples"/bomb-40000.png

section "tessera convert: HEIC → PNG, CMYK JPEG → WebP, SVG → PNG, and an EXIF-rotated JPEG turned upright"
"$tessera" convert "$samples"/heic-alpha.heic "$out"/heic-alpha.png
"$tessera" convert "$samples"/jpeg-cmyk.jpg "$out"/jpeg-cmyk.webp --quality 90
"$tessera" convert "$samples"/svg-size.svg "$out"/svg-size.png
"$tessera" convert "$samples"/jpeg-orientation-6.jpg "$out"/upright.png --auto-orient
"$tessera" info "$out"/*

section "Broken input: one line per file on stderr, the others still print, exit status non-zero"
"$tessera" info "$samples"/broken-truncated.jpg "$samples"/png-rgb-8.png "$samples"/broken-random.jpg \
  "$samples"/broken-garbage.gif "$samples"/broken-empty.png
echo "exit status: $?"
"$tessera" convert "$samples"/broken-truncated.jpg "$out"/truncated.png
echo "exit status: $?"
"$tessera" convert "$samples"/bomb-40000.png "$out"/bomb.png
echo "exit status: $?"

section "tessera thumbnail: shrink while decoding (JPEG in the DCT, WebP in libwebp, SVG rendered at size)"
"$tessera" thumbnail "$samples"/jpeg-exif-thumbnail.jpg "$samples"/photo-400x300.png "$samples"/webp-lossy.webp \
  "$samples"/heic-basic.heic "$samples"/svg-size.svg "$samples"/jpeg-orientation-6.jpg "$samples"/broken-truncated.png \
  --max-pixel-size 48 --output-dir "$out"/thumbnails --jobs 2
echo "exit status: $? (one input was broken; the others came out)"

section "The 40000×40000 bomb, thumbnailed by streaming its rows (no 1.6 GB bitmap)"
bomb=("$tessera" thumbnail "$samples"/bomb-40000.png --max-pixel-size 512 --output "$out"/bomb-512.png)
if [ -x /usr/bin/time ]; then /usr/bin/time -f "peak memory %M KB, %e s" "${bomb[@]}"; else "${bomb[@]}"; fi

section "The grid experiment: 100 photos in 100×100-point cells at 3x, full decode vs. downsampled"
"$demo" "$out"/photos 100

section "Video: probe, fast, exact and keyframe-only frame strips, a sprite sheet with a WebVTT track"
video="$samples"/video/gop2.mp4
"$tessera" info "$video" "$samples"/video/rotated.mp4
"$tessera" strip "$video" --frames 6 --height 72 --mode fast --output "$out"/strip-fast.png --json
"$tessera" strip "$video" --frames 6 --height 72 --mode exact --output "$out"/strip-exact.png --json
"$tessera" strip "$video" --frames 6 --height 72 --mode keyframe --output "$out"/strip-keyframe.png --json
"$tessera" strip "$samples"/video/gop1.mp4 --frames 8 --height 54 --layout sprite --columns 4 \
  --output "$out"/sprite.jpg --vtt "$out"/thumbnails.vtt
head -n 5 "$out"/thumbnails.vtt

section "Video: the trimming control drawn for a selection, and the selection cut (copied, then exact)"
"$tessera" trimmer "$video" --size 320x44 --scale 2 --lower 1.2 --upper 3.1 --playhead 2 --output "$out"/trimmer.png
"$tessera" trim "$video" --from 1.2 --to 3.1 --output "$out"/clip-copy.mp4 --json
"$tessera" trim "$video" --from 1.2 --to 3.1 --output "$out"/clip-exact.mp4 --exact --json
"$tessera" trim "$samples"/video/audio-only.m4a --from 0 --to 1 --output "$out"/nothing.mp4
echo "exit status: $? (no video stream; nothing written)"

section "tessera serve: IIIF and Deep Zoom from the sample images, in the background on 127.0.0.1"
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$tessera" serve "$samples" --port "$port" --cache-dir "$out"/serve-cache >"$out"/serve.log 2>&1 &
server=$!
for _ in $(seq 50); do curl -s -o /dev/null "http://127.0.0.1:$port/health" && break; sleep 0.1; done
base="http://127.0.0.1:$port/iiif/3/photo-400x300.png"
echo "GET $base/info.json"
curl -s "$base/info.json" | head -n 12
for path in 0,0,400,300/200,150/0/default.jpg 100,50,200,150/max/90/gray.png full/^600,/0/default.webp full/max/0/default.gif; do
  curl -s -o "$out"/served.bin -w "GET …/$path → %{http_code} %{content_type}, %{size_download} bytes\n" "$base/$path"
done
curl -s -o /dev/null -w "GET /dzi/photo-400x300.png_files/9/0_0.jpeg → %{http_code} %{content_type}\n" \
  "http://127.0.0.1:$port/dzi/photo-400x300.png_files/9/0_0.jpeg"
curl -s -w " ← GET /iiif/3/..%2Fsecret/info.json, %{http_code}\n" "http://127.0.0.1:$port/iiif/3/..%2Fsecret/info.json" | tr -d '\n'
echo
kill -TERM $server; wait $server
echo "server stopped (exit status $?)"

section "The pages: viewer (an image, a book two pages at a time, two pages compared, the gallery, adjustments), grid and trimmer in headless Chromium (screenshots in $out/page-*.png)"
.build/browser-venv/bin/python scripts/page-screenshots.py "$tessera" "$out"

section "tessera manifest: the book published as static IIIF (manifests, collections, level-0 tiles) for any web host"
rm -rf "$out/published"
"$tessera" manifest "$out/pages-root/book" --base-url http://127.0.0.1:8000 --output "$out/published"
echo "(serve it with: python3 -m http.server 8000 --directory $out/published; open $out/published/book/manifest.json in any IIIF viewer)"

section "JSON lines, for scripts"
"$tessera" info --json "$samples"/jpeg-orientation-6.jpg "$samples"/webp-animated.webp
echo
echo "Outputs are in $out/."
