# Reruns scripts/ddp_bucket_truth.py against the committed tests/data/ddp_bucket_truth.json
# when Debian's python3 can import torch (it takes minutes: real DDP models on CPU).
source "$(dirname "$0")/lib.bash"
if ! /usr/bin/python3 -c 'import torch, torchvision' 2>/dev/null; then
  echo "SKIP: /usr/bin/python3 cannot import torch and torchvision (apt-get install python3-torch python3-torchvision)"
  exit 0
fi
/usr/bin/python3 "$SRC/scripts/ddp_bucket_truth.py" --check "$SRC/tests/data/ddp_bucket_truth.json" 2>"$TMP/err" ||
  fail "real PyTorch bucket layouts differ from the committed truth: $(grep -v -i warn "$TMP/err" | tail -5)"
