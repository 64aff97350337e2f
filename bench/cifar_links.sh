# Sourced by the bench scripts: link_cifar SRC DST fills folder DST with links to SRC's CIFAR-10
# binary batches, data_batch_1.bin standing in for any of batches 2-5 that SRC lacks (50,000 training
# images either way, as the PyTorch baseline makes them), and test_batch.bin.
link_cifar() {
  local src dir=$2 i
  for i in 1 2 3 4 5; do
    src="$1/data_batch_$i.bin"; [ -f "$src" ] || src="$1/data_batch_1.bin"
    ln -s "$(realpath "$src")" "$dir/data_batch_$i.bin"
  done
  ln -s "$(realpath "$1/test_batch.bin")" "$dir/test_batch.bin"
}

# device_cifar DIR: on the GPU machine, CIFAR-10 staged in .devdata/cifar (../shared/tools/stage-cifar.sh
# quick: xz batches) unpacked into DIR once; the first 5,000 training images stand in for a test batch
# that did not travel (64 MiB). Then DIR5 (DIR with a 5 appended): links to 50,000 training images.
device_cifar() {
  local c=$1 f
  if [ ! -f "$c/data_batch_1.bin" ]; then
    mkdir -p "$c" && for f in .devdata/cifar/*.xz; do xz -dc "$f" > "$c/$(basename "$f" .xz)"; done
    [ -f "$c/test_batch.bin" ] || head -c $((5000 * 3073)) "$c/data_batch_1.bin" > "$c/test_batch.bin"
  fi
  [ -d "${c}5" ] || { mkdir -p "${c}5" && link_cifar "$c" "${c}5"; }
}
