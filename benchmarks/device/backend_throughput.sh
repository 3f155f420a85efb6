#!/bin/bash
# The GPU check of the speed issue: benchmarks/backend_throughput.py (JAX and torch) on a machine
# with a GPU but neither TensorFlow, spaCy nor the corpus.  Prepared here:
#   python benchmarks/backend_throughput.py --save-inputs .device/isarcasm.npz
#   pip download --no-deps --only-binary=:all: -d .device/wheels keras==3.15.1 tabulate namex optree ...
# then run from the repository root there (OUT: a folder for the output):  bash benchmarks/device/backend_throughput.sh
set -u
OUT=${OUT:-.}
nvidia-smi -L; python --version
python - <<'P'
import importlib
for m in ["numpy","jax","torch","keras","optree","ml_dtypes","h5py","rich","absl","namex","spacy","sklearn"]:
    try:
        mod = importlib.import_module(m); print(m, getattr(mod, "__version__", "?"))
    except Exception as e:
        print(m, "MISSING", type(e).__name__)
import jax, torch
print("jax devices", jax.devices(), "torch cuda", torch.cuda.is_available())
P
PK=/tmp/pk; mkdir -p $PK
python -m pip install -q --no-deps --no-index --find-links .device/wheels --target $PK keras==3.15.1 2>&1 | tail -2
for pair in tabulate:tabulate absl:absl-py rich:rich markdown_it:markdown-it-py mdurl:mdurl pygments:pygments namex:namex packaging:packaging h5py:h5py optree:optree ml_dtypes:ml-dtypes; do
  mod=${pair%%:*}; pkg=${pair##*:}
  python -c "import $mod" 2>/dev/null || python -m pip install -q --no-deps --no-index --find-links .device/wheels --target $PK $pkg 2>&1 | tail -1
done
export PYTHONPATH=$PK:$PWD XLA_PYTHON_CLIENT_PREALLOCATE=false
KERAS_BACKEND=jax python -c "import keras; print('keras', keras.__version__, keras.__file__)"
timeout 470 python benchmarks/backend_throughput.py --inputs .device/isarcasm.npz --backends jax,torch --epochs 4 --predictions 3 2>&1 | tee $OUT/gpu-backend-throughput.txt
