#!/bin/bash
# Table 7 on a GPU against the CPU: every cell at one seed and EPOCHS epochs (default 10), trained on the GPU, then
# with the GPU hidden (CUDA_VISIBLE_DEVICES=-1); benchmarks/gpu_check.py then prints, per cell, the training seconds
# per epoch on each side and their ratio, and whether the sarcastic-class F1 stays within the spread over seeds.
# Each side is cut off after GPU_LIMIT / CPU_LIMIT seconds, so the whole check stays under 8 minutes.
# Needs TensorFlow's GPU build (pip install -e '.[gpu]') and the corpora (./data, $ISARCASM_DATA, or DATA=DIR).
# Run from the repository root:  bash benchmarks/gpu_check.sh    (OUT=DIR keeps the runs, logs and results there)
# Exit status: 0 within, 1 not within, 2 a bad setup or a failed side, 77 no GPU here (nothing trained).
set -u
EPOCHS=${EPOCHS:-10}
GPU_LIMIT=${GPU_LIMIT:-280}
CPU_LIMIT=${CPU_LIMIT:-150}
PYTHON=${PYTHON:-python}
if ! nvidia-smi -L > /dev/null 2>&1; then
  echo "gpu_check: no NVIDIA GPU here (nvidia-smi lists none); nothing trained" >&2
  exit 77
fi
gpus=$($PYTHON -c "import tensorflow as tf; print(len(tf.config.list_physical_devices('GPU')))" 2>/dev/null)
if [ "${gpus:-0}" = 0 ]; then  # none, or no TensorFlow at all
  echo "gpu_check: TensorFlow sees no GPU ($(nvidia-smi -L | head -1)): pip install -e '.[gpu]'" >&2
  exit 2
fi
OUT=${OUT:-$(mktemp -d)}
nvidia-smi -L
$PYTHON -c "import tensorflow as tf; b = tf.sysconfig.get_build_info(); print('tensorflow', tf.__version__, 'CUDA', b.get('cuda_version'), 'cuDNN', b.get('cudnn_version'))"
CORES=$(nproc)
# One run at a time on the GPU; on the CPU one run per core, at most the 14 cells.
train() {  # side, jobs, time limit, then the environment's changes
  local side=$1 jobs=$2 limit=$3 start=$SECONDS
  shift 3
  env "$@" timeout "$limit" $PYTHON -m experiments.cli -q ${DATA:+--data-dir "$DATA"} reproduce table7 --seeds 1 \
    --epochs "$EPOCHS" --retrain --jobs "$jobs" --output-dir "$OUT/$side/runs" --results-dir "$OUT/$side/results" \
    > "$OUT/$side.log" 2>&1
  local status=$?
  echo "$side: $jobs run(s) at once, $((SECONDS - start)) s wall, exit status $status (log: $OUT/$side.log)"
  if [ $status -eq 124 ]; then
    echo "gpu_check: the $side side ran past $limit s: run again with fewer epochs (EPOCHS=2)" >&2
    exit 2
  elif [ $status -ne 0 ]; then
    echo "gpu_check: the $side side failed: $(tail -1 "$OUT/$side.log")" >&2
    exit 2
  fi
}
train gpu 1 "$GPU_LIMIT" TF_FORCE_GPU_ALLOW_GROWTH=true
train cpu $((CORES < 14 ? CORES : 14)) "$CPU_LIMIT" CUDA_VISIBLE_DEVICES=-1
$PYTHON benchmarks/gpu_check.py "$OUT"/gpu/results/table7*.json "$OUT"/cpu/results/table7*.json
