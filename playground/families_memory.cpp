// vector_add, copy, stride and transpose ladders (see families.h). Bandwidth = bytes read + bytes
// written by the kernel's useful accesses, per launch.
#include <fmt/core.h>

#include "playground/families.h"
#include "playground/kernels/launch.h"

namespace ts::playground {

void run_vector_add(Context& ctx, Ladder& ladder, std::int64_t n) {
  ladder.unit = Unit::gbps;
  DeviceBuffer<float> a(n), b(n), c(n);
  TS_PG_CUDA(k::fill(a.get(), n, 1, 0, nullptr));
  TS_PG_CUDA(k::fill(b.get(), n, 2, 0, nullptr));
  std::vector<float> want(static_cast<std::size_t>(n));
  vector_add_ref(n, 1, 2, want.data());
  const double bytes = 3.0 * n * sizeof(float);
  const int sms = ctx.prop.multiProcessorCount;
  const int tpb = ctx.options.threads_per_block;
  const int bpg = ctx.options.blocks_per_grid > 0 ? ctx.options.blocks_per_grid : static_cast<int>((n + tpb - 1) / tpb);
  struct Launch {
    const char* name;
    std::string what;
    int threads, blocks;
  };
  const Launch launches[] = {
      {"one block per SM",
       fmt::format("256 threads x {} blocks (one per SM): each thread loops over ~{} elements; "
                   "too few warps in flight to hide DRAM latency",
                   sms, n / (256ll * sms)),
       256, sms},
      {"full wave",
       fmt::format("256 x {} blocks: as many threads as the SMs hold at once (2048 per SM), grid-stride", sms * 8), 256,
       sms * 8},
      {"thread per element",
       fmt::format("256 x {} blocks: the classic launch, one element per thread", (n + 255) / 256), 256,
       static_cast<int>((n + 255) / 256)},
      {"your launch", fmt::format("--threads-per-block {} --blocks-per-grid {}: the launch you chose", tpb, bpg), tpb,
       bpg},
  };
  for (const auto& l : launches)
    run_variant(
        ctx, ladder, variant(l.name, l.what, bytes),
        [&, l] { return k::vector_add(a.get(), b.get(), c.get(), n, l.threads, l.blocks, nullptr); },
        [&] { return check_exact(c.to_host().data(), want.data(), n); }, [&] { poison(c.get(), n); });
}

void run_copy(Context& ctx, Ladder& ladder, std::int64_t n) {
  ladder.unit = Unit::gbps;
  DeviceBuffer<float> in(n), out(n);
  TS_PG_CUDA(k::fill(in.get(), n, 3, 0, nullptr));
  std::vector<float> want(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) want[i] = pattern(i, 3);
  const double bytes = 2.0 * n * sizeof(float);
  run_variant(
      ctx, ladder, variant("float per thread", "out[i] = in[i]: 4-byte loads and stores, a thread each", bytes),
      [&] { return k::copy(in.get(), out.get(), n, 1, nullptr); },
      [&] { return check_exact(out.to_host().data(), want.data(), n); }, [&] { poison(out.get(), n); });
  run_variant(
      ctx, ladder,
      variant("float4 per thread", "16-byte loads and stores: a quarter of the instructions and threads", bytes),
      [&] { return k::copy(in.get(), out.get(), n, 4, nullptr); },
      [&] { return check_exact(out.to_host().data(), want.data(), n); }, [&] { poison(out.get(), n); });
}

void run_stride(Context& ctx, Ladder& ladder, std::int64_t n) {
  ladder.unit = Unit::gbps;
  constexpr int kMaxStride = 32;
  DeviceBuffer<float> in(n * kMaxStride), out(n);
  TS_PG_CUDA(k::fill(in.get(), n * kMaxStride, 4, 0, nullptr));
  const double bytes = 2.0 * n * sizeof(float);  // the useful bytes: n read, n written
  for (int stride : {1, 2, 4, 8, 16, 32}) {
    std::vector<float> want(static_cast<std::size_t>(n));
    strided_read_ref(n, stride, 4, want.data());
    const int useful = stride >= 8 ? 4 : 32 / stride;  // useful bytes per 32-byte sector read
    run_variant(
        ctx, ladder,
        variant(
            fmt::format("stride {}", stride),
            fmt::format("a warp's 32 reads span {} bytes: {} useful bytes per 32-byte sector", 128 * stride, useful),
            bytes),
        [&, stride] { return k::strided_read(in.get(), out.get(), n, stride, nullptr); },
        [&] { return check_exact(out.to_host().data(), want.data(), n); }, [&] { poison(out.get(), n); });
  }
}

void run_transpose(Context& ctx, Ladder& ladder, std::int64_t rows) {
  ladder.unit = Unit::gbps;
  const std::int64_t cols = 2 * rows, n = rows * cols;
  DeviceBuffer<float> in(n), out(n);
  TS_PG_CUDA(k::fill(in.get(), n, 5, 0, nullptr));
  std::vector<float> want(static_cast<std::size_t>(n));
  {
    const std::vector<float> h = in.to_host();
    transpose_ref(h.data(), rows, cols, want.data());
  }
  const double bytes = 2.0 * n * sizeof(float);
  const char* what[] = {"a thread per element: reads along rows (coalesced), writes down columns (a sector per lane)",
                        "through a 32x32 shared tile: reads and writes both along rows; the tile's column reads "
                        "hit one bank 32 times",
                        "the tile's rows padded to 33 floats: a column's 32 reads fall in 32 banks"};
  const char* names[] = {"naive", "shared tile", "padded tile"};
  for (int v = 0; v < 3; ++v)
    run_variant(
        ctx, ladder, variant(names[v], what[v], bytes),
        [&, v] {
          return k::transpose(in.get(), out.get(), static_cast<int>(rows), static_cast<int>(cols), v, nullptr);
        },
        [&] { return check_exact(out.to_host().data(), want.data(), n); }, [&] { poison(out.get(), n); });
}

}  // namespace ts::playground
