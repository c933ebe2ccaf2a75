#!/usr/bin/env bash
# The GPU checks as one run, for a machine with a GPU (each step with its own time limit,
# 570 s in all, within one 10-minute command):
#
#   1. tests/backends/test_gpu.py at 1 rank, then at 2 ranks (ranks sharing the GPU);
#   2. benchmarks/gpu.py: k-means, Lasso, the moments and cdist against Torch alone;
#   3. benchmarks/pipelines.py's GPU rows: the scikit-learn and SciPy pipelines on Torch
#      tensors on the GPU against xdist's Torch-CUDA backend (NumPy's results the reference).
#
# Each step has its own time limit; a step that fails or runs out of time is reported and the
# next one runs. Logs and JSON are written to $OUT (default /tmp/xdist-gpu).
#
# Usage, from the repository's root:
#
#   bash benchmarks/gpu_check.sh
#
# xdist runs from this checkout (copied to a folder laid out as the package installs:
# backends/ as xdist.backends, ml/ as xdist.ml, put first on PYTHONPATH). Wheels in .whl/
# are installed beside it first: for a machine that has Python 3.12, Torch, CuPy, SciPy,
# scikit-learn and mpi4py but cannot reach PyPI, fetch the two packages it lacks where pip
# works (array-api-compat; mpich, the MPI library of the 2-rank tests):
#
#   python3 -m pip download --no-deps --only-binary=:all: --python-version 3.12 \
#       --implementation cp --platform manylinux_2_28_x86_64 -d .whl array-api-compat mpich
#
# GPU_CHECK_DEVICE=cpu runs the same steps on the CPU at a small scale (the GPU tests skip),
# to check the script on a machine without a GPU. PYTHON picks the interpreter (python3).
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/xdist-gpu}
PY=${PYTHON:-python3}
DEVICE=${GPU_CHECK_DEVICE:-cuda}
SITE=$(mktemp -d /tmp/xdist-site.XXXXXX)
trap 'rm -rf "$SITE"' EXIT
mkdir -p "$OUT"

for wheel in .whl/*.whl; do
    [ -e "$wheel" ] || continue
    case $(basename "$wheel") in
        # MPICH's wheel holds a prefix (bin/, lib/) as data, which pip --target drops
        mpich-*) "$PY" -m zipfile -e "$wheel" "$SITE/mpich" || exit 1 ;;
        *) "$PY" -m pip install -q --no-index --no-deps --no-compile --target "$SITE" "$wheel" ||
            exit 1 ;;
    esac
done
for prefix in "$SITE"/mpich/mpich-*.data/data; do
    [ -d "$prefix" ] || continue
    chmod +x "$prefix"/bin/*
    export PATH="$prefix/bin:$PATH" LD_LIBRARY_PATH="$prefix/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
done
cp -r xdist "$SITE/xdist" && cp -r backends "$SITE/xdist/backends" && cp -r ml "$SITE/xdist/ml"
export PYTHONPATH="$SITE${PYTHONPATH:+:$PYTHONPATH}"
# PYTHONSAFEPATH: no process puts the working directory (this checkout's root, whose
# xdist/ lacks backends/ and ml/) before the copy on its path
export PYTHONUNBUFFERED=1 SCIPY_ARRAY_API=1 PYTHONSAFEPATH=1

if [ "$DEVICE" = cpu ]; then
    SCALE=(--scale 0.01 --cdist-rows 300 --rounds 1 --repeat 1 --contenders torch,xdist-torch)
    ROWS=(--rows 400 --rounds 1)
else
    SCALE=(--scale 1 --rounds 3 --repeat 7)
    ROWS=(--rows 200000 --rounds 3)
fi

{
    date -u
    nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1
    "$PY" -c "import sys, numpy, torch, xdist; print('Python', sys.version.split()[0], \
'numpy', numpy.__version__, 'torch', torch.__version__, 'CUDA', torch.cuda.is_available(), \
'xdist from', xdist.__file__)"
} 2>&1 | tee "$OUT/machine.txt"

step() {  # step NAME SECONDS COMMAND...: its output in $OUT/NAME.log, the tail shown
    local name=$1 limit=$2
    shift 2
    echo "== $name (at most ${limit} s): $*"
    local start=$SECONDS
    timeout "$limit" "$@" > "$OUT/$name.log" 2>&1
    local rc=$?
    tail -n 40 "$OUT/$name.log"
    echo "== $name: exit $rc in $((SECONDS - start)) s"
}

# the ranks see each other (else each would run as a process of its own)
step mpi 30 mpiexec -n 2 "$PY" -c "import xdist; c = xdist.default_comm(); print('rank', c.rank, 'of', c.size)"
TESTS=(-q -p no:cacheprovider tests/backends/test_gpu.py)
step tests-1-rank 90 "$PY" -m pytest "${TESTS[@]}"
step tests-2-ranks 120 mpiexec -n 2 "$PY" -m mpi4py -m pytest "${TESTS[@]}"
step workloads 180 "$PY" benchmarks/gpu.py --device "$DEVICE" "${SCALE[@]}"
step pipelines 150 "$PY" benchmarks/pipelines.py "${ROWS[@]}" --cuda-device "$DEVICE" \
    --contenders numpy,torchcuda,xdist1cuda --json "$OUT/pipelines.json"
