#!/bin/sh
# Reruns the figures of docs/cost-model.md's "Calibration against published training
# throughputs" and "Kernel fusion" tables: one training step of a zoo model with every op on one
# GPU of a preset, throughput = batch / step time.
#   bench/calibration.sh [build/release/app/cli/post-cli] [output folder]
set -eu
B=${1:-build/release/app/cli/post-cli}
OUT=${2:-build/release/calibration}
mkdir -p "$OUT"
step() { # model batch steps cluster mode [--no-fusion]
    file="$OUT/$1-b$2-s$3$6.json"
    [ -f "$file" ] || if [ "$3" = 0 ]; then "$B" zoo generate "$1" --batch "$2" $6 --out "$file" 2>/dev/null
                      else "$B" zoo generate "$1" --batch "$2" --steps "$3" $6 --out "$file" 2>/dev/null; fi
    ms=$("$B" simulate "$file" --cluster "$4" --all-on /device:GPU:0 --precision "$5" --json |
         python3 -c 'import json,sys; print(json.load(sys.stdin)["step_time_ms"])')
    python3 -c "import sys; b,ms=float(sys.argv[1]),float(sys.argv[2]); print('%-10s batch %-4s seq %-4s %-15s %-5s %s  %6.0f /s  %9.1f ms' % (sys.argv[3], sys.argv[4], sys.argv[5], sys.argv[6], sys.argv[7], sys.argv[8], b/ms*1000, ms))" "$2" "$ms" "$1" "$2" "$3" "$4" "$5" "${6:-}"
}
echo "# Calibration (published throughputs)"
step resnet-50 32 0 k80x4 fp32 ""
step resnet-50 32 0 v100x4-nvlink fp32 ""
step resnet-50 32 0 v100x4-nvlink amp ""
step resnet-50 32 0 a100x8-nvlink tf32 ""
step resnet-50 32 0 a100x8-nvlink amp ""
step resnet-50 32 0 h100x8-nvlink amp ""
# Lambda's PyTorch benchmarks (docs/cost-model.md, [BERT]): ResNet-50 on the H100 SXM5 at the H100
# PCIe's batches (the SXM5's are not listed), "fp32" (TF32 convolutions) and fp16 (amp)
step resnet-50 640 0 h100x8-nvlink tf32 ""
step resnet-50 1280 0 h100x8-nvlink amp ""
step bert-base 32 128 k80x4 fp32 ""
step bert-base 24 384 v100x4-nvlink fp32 ""
step bert-base 48 384 v100x4-nvlink amp ""
step bert-base 172 384 a100x8-nvlink tf32 ""
step bert-base 320 384 a100x8-nvlink amp ""
sed 's/: 1555/: 2039/' resources/clusters/a100x8-nvlink.json > "$OUT/a100-80gb.json"
step bert-base 172 384 "$OUT/a100-80gb.json" tf32 ""
step bert-base 320 384 "$OUT/a100-80gb.json" amp ""
step bert-base 172 384 h100x8-nvlink tf32 ""
step bert-base 320 384 h100x8-nvlink amp ""
echo "# Kernel fusion effect (BERT-base, sequence 128, batch 32)"
for c in "v100x4-nvlink fp32" "v100x4-nvlink amp" "a100x8-nvlink tf32" "a100x8-nvlink amp" "h100x8-nvlink tf32" "h100x8-nvlink amp"; do
    set -- $c
    step bert-base 32 128 "$1" "$2" --no-fusion
    step bert-base 32 128 "$1" "$2" ""
done
