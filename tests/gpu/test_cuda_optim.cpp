// The one-launch optimizer kernels against engine/optim.h's host reference (sgd_update_host,
// adam_update_host): three steps with the network's own gradients; parameters must agree to 1e-5
// relative, with a floor of 1 % of the tensor's scale (the kernel and the host evaluate the same fp32
// expressions, but nvcc contracts a*b+c into FMAs and the bias corrections are rounded differently:
// a few ulps of the operands, which shows as a larger relative error where p - lr*g cancels).
#include "engine/optim.h"
#include "gpu/gpu_test_util.h"

namespace ts::gputest {
namespace {

void check_optimizer(const OptimizerConfig& cfg) {
  const ModelSpec spec = model({2, 6, 6}, {conv("c", 2, 3, 3, 1, 1), simple(LayerType::ReLU), simple(LayerType::Flatten),
                                           linear("fc", 3 * 6 * 6, 10)});
  NetworkOptions opt = exact_options(4);
  opt.optimizer = cfg;
  auto net = make_cuda_network(spec, opt);
  std::vector<NamedTensor> host = net->parameters();
  std::vector<std::vector<float>> m(host.size()), v(host.size());
  for (std::size_t i = 0; i < host.size(); ++i) {
    m[i].assign(host[i].tensor.data.size(), 0.0f);
    v[i].assign(host[i].tensor.data.size(), 0.0f);
  }
  std::vector<std::int32_t> labels{1, 3, 5, 7};
  for (std::int64_t step = 1; step <= 3; ++step) {
    ref::RefTensor x = ref::random_tensor({4, 2, 6, 6}, 10 + step);
    net->forward_backward_loss(ref::to_host(x), labels, nullptr);
    std::vector<NamedTensor> grads = net->gradients();
    for (std::size_t i = 0; i < host.size(); ++i) {
      auto& p = host[i].tensor.data;
      const auto& g = grads[i].tensor.data;
      const auto n = static_cast<std::int64_t>(p.size());
      if (cfg.type == OptimizerType::sgd)
        sgd_update_host(cfg, step, p.data(), g.data(), cfg.momentum != 0 ? m[i].data() : nullptr, n);
      else
        adam_update_host(cfg, step, p.data(), g.data(), m[i].data(), v[i].data(), n);
    }
    net->optimizer_step();
    std::vector<NamedTensor> dev = net->parameters();
    for (std::size_t i = 0; i < host.size(); ++i)
      expect_close("step " + std::to_string(step) + " " + host[i].name, dev[i].tensor, ref::from_host(host[i].tensor),
                   1e-5, 1e-2);
  }
}

TEST(CudaOptimizer, SgdPlain) {
  TS_SKIP_WITHOUT_GPU();
  OptimizerConfig c;
  c.type = OptimizerType::sgd;
  c.lr = 0.05f;
  check_optimizer(c);
}

TEST(CudaOptimizer, SgdMomentumDampeningWeightDecay) {
  TS_SKIP_WITHOUT_GPU();
  OptimizerConfig c;
  c.type = OptimizerType::sgd;
  c.lr = 0.05f, c.momentum = 0.9f, c.dampening = 0.1f, c.weight_decay = 1e-2f;
  check_optimizer(c);
}

TEST(CudaOptimizer, SgdNesterov) {
  TS_SKIP_WITHOUT_GPU();
  OptimizerConfig c;
  c.type = OptimizerType::sgd;
  c.lr = 0.05f, c.momentum = 0.9f, c.nesterov = true, c.weight_decay = 5e-4f;
  check_optimizer(c);
}

TEST(CudaOptimizer, Adam) {
  TS_SKIP_WITHOUT_GPU();
  OptimizerConfig c;
  c.type = OptimizerType::adam;
  check_optimizer(c);
  c.weight_decay = 1e-2f;
  check_optimizer(c);
}

TEST(CudaOptimizer, AdamW) {
  TS_SKIP_WITHOUT_GPU();
  OptimizerConfig c;
  c.type = OptimizerType::adamw;
  c.lr = 3e-3f;
  check_optimizer(c);
}

}  // namespace
}  // namespace ts::gputest
