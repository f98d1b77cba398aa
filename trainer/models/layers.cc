#include "models/layers.h"

#include <cmath>

namespace dlp::fmnist {
namespace {

// He initialisation suits ReLU networks: N(0, 2 / fan_in), zero biases.
void HeInit(Rng& rng, int fan_in, size_t count, float* w) {
  const double scale = std::sqrt(2.0 / fan_in);
  for (size_t i = 0; i < count; ++i) w[i] = static_cast<float>(rng.Normal() * scale);
}

class Dense final : public Layer {
 public:
  Dense(int in, int out, bool relu) : in_(in), out_(out), relu_(relu) {}

  size_t parameter_count() const override { return size_t{weights()} + out_; }
  int output_size() const override { return out_; }
  std::optional<DenseShape> dense() const override { return DenseShape{in_, out_}; }
  void Init(Rng& rng, float* params) const override { HeInit(rng, in_, weights(), params); }

  void Forward(Kernels& k, const float* params, const float* x, int rows, float* y) override {
    k.Gemm(false, false, rows, out_, in_, x, params, 0.0f, y);
    k.AddRowVector(y, params + weights(), rows, out_);
    if (relu_) k.Relu(y, static_cast<size_t>(rows) * out_);
  }

  void ThroughActivation(Kernels& k, const float* y, float* dy, int rows) override {
    if (relu_) k.ReluBackward(y, dy, static_cast<size_t>(rows) * out_);
  }
  void ParameterGradient(Kernels& k, const float* x, const float* dy, int rows,
                         float* grads) override {
    k.Gemm(true, false, in_, out_, rows, x, dy, 0.0f, grads);
    k.SumRows(dy, rows, out_, grads + weights());
  }
  void InputGradient(Kernels& k, const float* params, const float* dy, int rows,
                     float* dx) override {
    k.Gemm(false, true, rows, in_, out_, dy, params, 0.0f, dx);
  }

 private:
  size_t weights() const { return static_cast<size_t>(in_) * out_; }
  int in_, out_;
  bool relu_;
};

class Conv final : public Layer {
 public:
  Conv(int h, int w, int cin, int cout, int k) : h_(h), w_(w), cin_(cin), cout_(cout), k_(k) {}

  size_t parameter_count() const override { return weights() + cout_; }
  int output_size() const override { return h_ * w_ * cout_; }
  void Init(Rng& rng, float* params) const override { HeInit(rng, window(), weights(), params); }

  void Reserve(Kernels& k, int rows) override {
    const size_t n = static_cast<size_t>(rows) * h_ * w_ * window();
    if (cols_.size() >= n) return;
    cols_ = DeviceBuffer<float>(&k, n);
    dcols_ = DeviceBuffer<float>(&k, n);
  }

  void Forward(Kernels& k, const float* params, const float* x, int rows, float* y) override {
    const int pixels = rows * h_ * w_;
    k.Im2Col(x, rows, h_, w_, cin_, k_, cols_.get());
    k.Gemm(false, false, pixels, cout_, window(), cols_.get(), params, 0.0f, y);
    k.AddRowVector(y, params + weights(), pixels, cout_);
    k.Relu(y, static_cast<size_t>(pixels) * cout_);
  }

  void ThroughActivation(Kernels& k, const float* y, float* dy, int rows) override {
    k.ReluBackward(y, dy, static_cast<size_t>(rows) * h_ * w_ * cout_);
  }
  // From the forward windows, not x.
  void ParameterGradient(Kernels& k, const float* /*x*/, const float* dy, int rows,
                         float* grads) override {
    const int pixels = rows * h_ * w_;
    k.Gemm(true, false, window(), cout_, pixels, cols_.get(), dy, 0.0f, grads);
    k.SumRows(dy, pixels, cout_, grads + weights());
  }
  void InputGradient(Kernels& k, const float* params, const float* dy, int rows,
                     float* dx) override {
    k.Gemm(false, true, rows * h_ * w_, window(), cout_, dy, params, 0.0f, dcols_.get());
    k.Col2Im(dcols_.get(), rows, h_, w_, cin_, k_, dx);
  }

 private:
  int window() const { return k_ * k_ * cin_; }
  size_t weights() const { return static_cast<size_t>(window()) * cout_; }
  int h_, w_, cin_, cout_, k_;
  DeviceBuffer<float> cols_, dcols_;  // the forward windows, kept for backward
};

class MaxPool final : public Layer {
 public:
  MaxPool(int h, int w, int c) : h_(h), w_(w), c_(c) {}

  int output_size() const override { return (h_ / 2) * (w_ / 2) * c_; }

  void Reserve(Kernels& k, int rows) override {
    const size_t n = static_cast<size_t>(rows) * output_size();
    if (argmax_.size() < n) argmax_ = DeviceBuffer<int32_t>(&k, n);
  }

  void Forward(Kernels& k, const float* /*params*/, const float* x, int rows,
               float* y) override {
    k.MaxPool(x, rows, h_, w_, c_, y, argmax_.get());
  }

  void InputGradient(Kernels& k, const float* /*params*/, const float* dy, int rows,
                     float* dx) override {
    k.MaxPoolBackward(dy, argmax_.get(), rows, h_, w_, c_, dx);
  }

 private:
  int h_, w_, c_;
  DeviceBuffer<int32_t> argmax_;
};

}  // namespace

std::unique_ptr<Layer> MakeDense(int in, int out, bool relu) {
  return std::make_unique<Dense>(in, out, relu);
}
std::unique_ptr<Layer> MakeConv(int h, int w, int cin, int cout, int k) {
  return std::make_unique<Conv>(h, w, cin, cout, k);
}
std::unique_ptr<Layer> MakeMaxPool(int h, int w, int c) {
  return std::make_unique<MaxPool>(h, w, c);
}

}  // namespace dlp::fmnist
