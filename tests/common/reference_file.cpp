// See reference_file.h.
#include "common/reference_file.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>

#include "base/errors.h"

namespace ts::test {

const HostTensor& ReferenceFile::get(const std::string& name) const {
  for (const auto& t : tensors)
    if (t.name == name) return t.tensor;
  throw InputError("reference file has no tensor '" + name + "'");
}

std::vector<NamedTensor> ReferenceFile::with_prefix(const std::string& prefix) const {
  std::vector<NamedTensor> out;
  for (const auto& t : tensors)
    if (t.name.rfind(prefix, 0) == 0) out.push_back({t.name.substr(prefix.size()), t.tensor});
  return out;
}

namespace {

struct Cursor {
  const std::vector<char>& buf;
  std::size_t pos = 0;
  const std::string& path;
  void read(void* dst, std::size_t n) {
    if (pos + n > buf.size())
      throw InputError(path + ": truncated at byte " + std::to_string(pos) + " (needs " + std::to_string(n) + " more)");
    std::memcpy(dst, buf.data() + pos, n);
    pos += n;
  }
  template <class T> T get() { T v; read(&v, sizeof v); return v; }
};

}  // namespace

ReferenceFile read_reference_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw InputError(path + ": cannot open reference file");
  std::vector<char> buf((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  Cursor c{buf, 0, path};
  char magic[8];
  c.read(magic, 8);
  if (std::memcmp(magic, "TSREF\0\0\0", 8) != 0) throw InputError(path + ": not a TrainScope reference file (bad magic at byte 0)");
  const auto version = c.get<std::uint32_t>();
  if (version != 1) throw InputError(path + ": reference file version " + std::to_string(version) + " (expected 1)");
  const auto count = c.get<std::uint32_t>();
  ReferenceFile out;
  for (std::uint32_t i = 0; i < count; ++i) {
    NamedTensor t;
    t.name.resize(c.get<std::uint32_t>());
    c.read(t.name.data(), t.name.size());
    const auto ndim = c.get<std::uint32_t>();
    if (ndim > 8) throw InputError(path + ": tensor '" + t.name + "' has " + std::to_string(ndim) + " dimensions at byte " + std::to_string(c.pos));
    for (std::uint32_t d = 0; d < ndim; ++d) t.tensor.shape.push_back(c.get<std::int64_t>());
    t.tensor.data.resize(static_cast<std::size_t>(numel(t.tensor.shape)));
    c.read(t.tensor.data.data(), t.tensor.data.size() * sizeof(float));
    out.tensors.push_back(std::move(t));
  }
  return out;
}

double relative_error(const HostTensor& a, const HostTensor& b) {
  if (a.data.size() != b.data.size()) return INFINITY;
  double num = 0, den = 0;
  for (std::size_t i = 0; i < a.data.size(); ++i) {
    const double d = static_cast<double>(a.data[i]) - b.data[i];
    num += d * d;
    den += static_cast<double>(b.data[i]) * b.data[i];
  }
  if (std::isnan(num)) return INFINITY;
  return std::sqrt(num) / std::max(std::sqrt(den), 1e-30);
}

double reference_tolerance(const std::string& name) {
  if (name == "logits" || name == "loss") return 1e-5;
  if (name.rfind("grad.", 0) == 0) return 1e-4;
  if (name.rfind("after_adam.", 0) == 0) return 1e-5;
  return 0;  // inputs are not checked
}

std::vector<ReferenceCheck> check_against_reference(Network& net, const ReferenceFile& ref) {
  net.set_parameters(ref.with_prefix("init."));
  net.set_dropout_enabled(false);
  const HostTensor& labels_f = ref.get("labels");
  std::vector<std::int32_t> labels(labels_f.data.begin(), labels_f.data.end());
  HostTensor logits;
  const float loss = net.forward_backward_loss(ref.get("input"), labels, &logits);
  std::vector<ReferenceCheck> out;
  out.push_back({"logits", relative_error(logits, ref.get("logits")), reference_tolerance("logits")});
  out.push_back({"loss", relative_error(HostTensor({1}, {loss}), ref.get("loss")), reference_tolerance("loss")});
  for (const auto& g : net.gradients())
    out.push_back({"grad." + g.name, relative_error(g.tensor, ref.get("grad." + g.name)), reference_tolerance("grad.")});
  net.optimizer_step();
  for (const auto& p : net.parameters())
    out.push_back({"after_adam." + p.name, relative_error(p.tensor, ref.get("after_adam." + p.name)),
                   reference_tolerance("after_adam.")});
  return out;
}

}  // namespace ts::test
