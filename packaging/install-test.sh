#!/usr/bin/env bash
# CTest packaging/install_deb: builds the .deb from this (release) build directory with
# CPack, unpacks it into a scratch root with dpkg-deb and runs the installed programs from
# there. Exits 77 (CTest: skipped) when it cannot run here.
#   install-test.sh BUILD_DIR BUILD_TYPE VERSION
set -euo pipefail
BUILD_DIR=$1 BUILD_TYPE=$2 VERSION=$3

skip() { echo "SKIPPED: $*"; exit 77; }
fail() { echo "FAILED: $*" >&2; exit 1; }

[ "$BUILD_TYPE" = Release ] || skip "the package test runs on a Release build only (this is '$BUILD_TYPE')"
for tool in cpack dpkg-deb dpkg-shlibdeps; do
  command -v "$tool" >/dev/null || skip "$tool is not installed (apt-get install cmake dpkg-dev)"
done

scratch=$BUILD_DIR/install-test
rm -rf "$scratch"
mkdir -p "$scratch"
(cd "$BUILD_DIR" && cpack -G DEB -B "$scratch/out" >"$scratch/cpack.log" 2>&1) || { cat "$scratch/cpack.log"; fail "cpack"; }
debs=("$scratch"/out/post-studio_*.deb)
[ ${#debs[@]} -eq 1 ] && [ -f "${debs[0]}" ] || fail "expected one post-studio_*.deb in $scratch/out"
deb=${debs[0]}
echo "package: $(basename "$deb") ($(stat -c %s "$deb") bytes)"

# Dependencies: from dpkg-shlibdeps (libc, Qt, Graphviz) plus the run-time plugins.
depends=$(dpkg-deb -f "$deb" Depends)
echo "Depends: $depends"
for dep in libc6 libstdc++6 libqt6widgets6 libqt6charts6 libgvc6 libcgraph6 libglpk40 libmetis5 coinor-libcbc3 qt6-qpa-plugins; do
  [[ $depends == *"$dep"* ]] || fail "Depends lacks $dep"
done

root=$scratch/root
dpkg-deb -x "$deb" "$root"
for f in usr/bin/post-cli usr/bin/post-studio; do
  [ -x "$root/$f" ] || fail "$f missing or not executable"
done

for f in __init__ modules placement profile; do
  [ -f "$root/usr/lib/python3/dist-packages/post_torch/$f.py" ] || fail "post_torch/$f.py missing"
done

version=$("$root/usr/bin/post-cli" --version)
[ "$version" = "post-cli $VERSION" ] || fail "post-cli --version printed '$version', expected 'post-cli $VERSION'"
echo "$version"

sample=$root/usr/share/post-studio/samples/graphs/tiny-mlp.json
cluster=$root/usr/share/post-studio/clusters/k80x4.json
[ -f "$sample" ] && [ -f "$root/usr/share/post-studio/samples/graphs/inception-block.json" ] || fail "samples missing"
[ -f "$cluster" ] || fail "cluster presets missing"
for schema in post-graph-1 post-cluster-1 post-placement-1 post-session-1 post-info-1 post-simulate-1 post-place-1 \
  post-compare-1 post-zoo-list-1; do
  [ -f "$root/usr/share/post-studio/schemas/$schema.schema.json" ] || fail "schema $schema missing"
done
"$root/usr/bin/post-cli" simulate "$sample" --cluster "$cluster" --all-on /device:GPU:0 >"$scratch/simulate.txt" \
  || fail "post-cli simulate on the installed sample and preset"

# A PNG's width and height are the big-endian words at bytes 16 and 20.
png_size() { od -An -tu1 -j16 -N8 "$1" | awk '{ printf "%dx%d", $1*16777216+$2*65536+$3*256+$4, $5*16777216+$6*65536+$7*256+$8 }'; }
is_png() { [ "$(od -An -c -j1 -N3 "$1" | tr -d ' ')" = PNG ]; }

shot=$scratch/screenshot.png
QT_QPA_PLATFORM=offscreen timeout 120 "$root/usr/bin/post-studio" "$sample" --screenshot "$shot" \
  || fail "post-studio --screenshot"
is_png "$shot" || fail "screenshot is not a PNG"
size=$(png_size "$shot")
bytes=$(stat -c %s "$shot")
echo "screenshot: $size, $bytes bytes"
[ "${size%x*}" -ge 400 ] && [ "${size#*x}" -ge 300 ] || fail "screenshot only $size"
[ "$bytes" -ge 20000 ] || fail "screenshot only $bytes bytes: an empty window?"

desktop=$root/usr/share/applications/post-studio.desktop
[ -f "$desktop" ] || fail "desktop entry missing"
grep -qx 'Exec=post-studio %f' "$desktop" && grep -qx 'Icon=post-studio' "$desktop" || fail "desktop entry's Exec or Icon"
[ -f "$root/usr/share/mime/packages/post-studio.xml" ] || fail "MIME types (post-studio.xml) missing"
grep -q '^MimeType=.*application/x-onnx;' "$desktop" || fail "desktop entry's MimeType"
if command -v desktop-file-validate >/dev/null; then desktop-file-validate "$desktop" || fail "desktop-file-validate"
else echo "note: desktop-file-validate not installed, desktop entry not validated"; fi

svg=$root/usr/share/icons/hicolor/scalable/apps/post-studio.svg
png=$root/usr/share/icons/hicolor/256x256/apps/post-studio.png
grep -q '<svg' "$svg" || fail "scalable icon missing"
is_png "$png" && [ "$(png_size "$png")" = 256x256 ] || fail "256 px icon missing or not 256x256"

metainfo=$root/usr/share/metainfo/post-studio.metainfo.xml
grep -q '<launchable type="desktop-id">post-studio.desktop</launchable>' "$metainfo" || fail "metainfo missing"
if command -v appstreamcli >/dev/null; then appstreamcli validate --no-net "$metainfo" >/dev/null || fail "appstreamcli validate"
else echo "note: appstreamcli not installed, metainfo not validated"; fi

man=$(ls "$root"/usr/share/man/man1/post-cli.1* 2>/dev/null | head -n1)
[ -n "$man" ] || fail "man page missing"
if command -v man >/dev/null; then
  text=$(LC_ALL=C.UTF-8 MANWIDTH=80 man -l -P cat "$man" 2>"$scratch/man-warnings.txt")
  [ ! -s "$scratch/man-warnings.txt" ] || { cat "$scratch/man-warnings.txt"; fail "man reported problems"; }
  for want in "post-cli - find fast device placements" "COMMAND OPTIONS" "Usage: post-cli place [OPTIONS] graph" "EXIT STATUS"; do
    grep -qF -- "$want" <<<"$text" || fail "man page lacks '$want'"
  done
else
  echo "note: man not installed, man page not rendered"
fi
[ -f "$root/usr/share/man/man1/post-studio.1.gz" ] || fail "post-studio man page missing"
[ -f "$root/usr/share/doc/post-studio/copyright" ] || fail "copyright file missing"
gzip -t "$root/usr/share/doc/post-studio/changelog.gz" || fail "changelog.gz missing or not gzip"
# lintian (when installed): no error and no warning; docs/packaging.md.
if command -v lintian >/dev/null; then
  lintian "$deb" >"$scratch/lintian.txt" 2>&1 || true
  if grep -E '^[EW]: ' "$scratch/lintian.txt" >"$scratch/lintian-problems.txt"; then
    cat "$scratch/lintian-problems.txt"
    fail "lintian"
  fi
else
  echo "note: lintian not installed, the package not linted"
fi
echo "PASSED: $deb installs and runs"
