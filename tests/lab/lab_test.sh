#!/bin/sh
# ctest lab_torchrun: runs the failure lab under real torchrun, then checks faultline's diagnoses.
# usage: lab_test.sh FAULTLINE_BIN OUT_DIR [check_lab.py options, e.g. --report-only]
# Exit 77 (ctest skip) when Debian's python3-torch is missing.
set -u
here=$(dirname "$0")
bin=$1 out=$2
shift 2
if ! /usr/bin/python3 -c 'import torch' >/dev/null 2>&1; then
  echo "SKIP: /usr/bin/python3 cannot import torch (apt-get install python3-torch)"
  exit 77
fi
/usr/bin/python3 "$here/run_lab.py" --out "$out" || exit 1
exec /usr/bin/python3 "$here/check_lab.py" --faultline "$bin" --captures "$out" --write-eval "$out/eval" "$@"
