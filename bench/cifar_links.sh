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
