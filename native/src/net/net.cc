// The forward pass of a policy-and-value network: the C++ twin of tablezoo/bots/net.py.
#include "net.h"

#include <algorithm>
#include <cmath>
#include <utility>

namespace tablezoo {

// The layers' loops compiled twice, for AVX2 (with fused multiply-adds) and for any x86-64, the
// one the processor runs chosen when the core loads (the two agree to float32 rounding).
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define TABLEZOO_WIDE __attribute__((target_clones("arch=haswell", "default")))
#else
#define TABLEZOO_WIDE
#endif

PolicyValueNet::PolicyValueNet(const std::vector<std::vector<float>>& weights,
                               const std::vector<std::pair<int, int>>& shapes,
                               const std::vector<std::vector<float>>& biases, std::vector<float> value_w,
                               float value_b, bool has_value_head, std::vector<float> scale,
                               std::optional<ActionHead> head, Activation activation, bool padded)
    : value_w_(std::move(value_w)),
      value_b_(value_b),
      has_value_(has_value_head),
      scale_(std::move(scale)),
      head_(std::move(head)),
      activation_(activation),
      padded_(padded) {
  hidden_ = static_cast<int>(weights.size()) - (head_ ? 0 : 1);
  for (size_t l = 0; l < weights.size(); ++l) {
    const auto [out, in] = shapes[l];
    Layer layer{in, out, std::vector<float>(static_cast<size_t>(in) * out), biases[l]};
    // net.py folds the scale into the first layer of a padded network: w0 / scale, in float32
    const bool fold = l == 0 && folds_scale();
    for (int o = 0; o < out; ++o)
      for (int i = 0; i < in; ++i) {
        const float w = weights[l][static_cast<size_t>(o) * in + i];
        layer.wt[static_cast<size_t>(i) * out + o] = fold ? w / scale_[i] : w;
      }
    layers_.push_back(std::move(layer));
  }
}

void PolicyValueNet::activate(float* x, int n) const {
  if (activation_ == Activation::kRelu) {
    for (int i = 0; i < n; ++i) x[i] = x[i] > 0.0f ? x[i] : 0.0f;
  } else {
    for (int i = 0; i < n; ++i) x[i] = std::tanh(x[i]);
  }
}

// out = act(W x + b), as the sum of x's entries times their rows of W transposed; an entry that
// is zero (an observation's one-hots and counts, a ReLU's zeros) adds nothing and is skipped.
// The sum runs in float32 over blocks of kBlock entries, the blocks' sums added in double: a
// float32 sum of hundreds of terms one after the other strays further from the exact one than
// BLAS's blocked sums do, a double one costs twice the time.
constexpr int kBlock = 16;

TABLEZOO_WIDE void PolicyValueNet::dense(const Layer& layer, const float* x, std::vector<float>& out, bool act,
                                         Work& work) const {
  const int n = layer.out;
  std::vector<double>& sum = work.sum;
  sum.assign(layer.b.begin(), layer.b.end());
  out.assign(n, 0.0f);  // the block's sum
  float* block = out.data();
  int in_block = 0;
  for (int i = 0; i < layer.in; ++i) {
    const float xi = x[i];
    if (xi == 0.0f) continue;
    const float* row = layer.wt.data() + static_cast<size_t>(i) * n;
    for (int j = 0; j < n; ++j) block[j] += xi * row[j];
    if (++in_block == kBlock) {
      for (int j = 0; j < n; ++j) sum[j] += block[j];
      std::fill(block, block + n, 0.0f);
      in_block = 0;
    }
  }
  for (int j = 0; j < n; ++j) block[j] = static_cast<float>(sum[j] + block[j]);
  if (act) activate(block, n);
}

// ActionHead.logits: x is the scaled observation, context the last hidden layer.
TABLEZOO_WIDE void PolicyValueNet::head_logits(const float* x, const std::vector<float>& context, float* logits, Work& work,
                                               const std::vector<int>* only) const {
  const ActionHead& head = *head_;
  const int H = head.hidden, K = head.size, F = static_cast<int>(head.offsets.size());
  const int G = static_cast<int>(context.size()), rest = static_cast<int>(head.rest_bias.size());
  // the context's part, the same for every card: context @ self.context.T + self.bias
  std::vector<double>& part = work.sum;
  part.assign(head.bias.begin(), head.bias.end());
  for (int g = 0; g < G; ++g) {
    const float c = context[g];
    if (c == 0.0f) continue;
    const float* row = head.context_t.data() + static_cast<size_t>(g) * H;
    for (int h = 0; h < H; ++h) part[h] += static_cast<double>(c * row[h]);
  }
  // each card: act(features @ card.T + part) @ out + out_bias, features its field entries and (k + 1) / K
  std::vector<float>& hidden = work.cards;
  hidden.resize(H);
  const auto card_logit = [&](int k) {
    for (int h = 0; h < H; ++h) {
      const float* w = head.card.data() + static_cast<size_t>(h) * (F + 1);
      float z = 0.0f;
      for (int f = 0; f < F; ++f) z += x[head.offsets[f] + k] * w[f];
      z += static_cast<float>(k + 1) / static_cast<float>(K) * w[F];
      hidden[h] = static_cast<float>(z + part[h]);
    }
    activate(hidden.data(), H);
    double score = head.out_bias;
    for (int h = 0; h < H; ++h) score += static_cast<double>(hidden[h] * head.out[h]);
    logits[k] = static_cast<float>(score);
  };
  if (only) {
    bool rest_asked = false;
    for (int a : *only) {
      if (a < K) card_logit(a);
      rest_asked = rest_asked || a >= K;
    }
    if (!rest_asked) return;
  } else {
    for (int k = 0; k < K; ++k) card_logit(k);
  }
  // the rest: rest @ context + rest_bias
  part.assign(head.rest_bias.begin(), head.rest_bias.end());
  for (int g = 0; g < G; ++g) {
    const float c = context[g];
    if (c == 0.0f) continue;
    const float* row = head.rest_t.data() + static_cast<size_t>(g) * rest;
    for (int a = 0; a < rest; ++a) part[a] += static_cast<double>(c * row[a]);
  }
  for (int a = 0; a < rest; ++a) logits[K + a] = static_cast<float>(part[a]);
}

// PolicyValueNet._single, then evaluate's win share sigmoid(value_w . h + value_b).
double PolicyValueNet::evaluate(const float* x, float* logits, Work& work, const std::vector<int>* only) const {
  const int size = observation_size();
  // the observation divided by its scale: what an action head reads, and the first layer's
  // input unless the scale is folded into it
  work.x.resize(size);
  for (int i = 0; i < size; ++i) work.x[i] = x[i] / scale_[i];
  const float* input = folds_scale() ? x : work.x.data();
  const std::vector<float>* context = &work.x;  // the last hidden layer (the scaled input without one)
  if (hidden_ > 0) {
    dense(layers_[0], input, work.h, true, work);
    for (int l = 1; l < hidden_; ++l) {
      dense(layers_[l], work.h.data(), work.next, true, work);
      std::swap(work.h, work.next);
    }
    context = &work.h;
  }
  if (head_) {
    head_logits(work.x.data(), *context, logits, work, only);
  } else if (only) {
    // the asked rows of the policy layer alone
    const Layer& policy = layers_.back();
    const float* h = hidden_ > 0 ? context->data() : input;
    for (int a : *only) {
      double sum = policy.b[a];
      for (int i = 0; i < policy.in; ++i) sum += static_cast<double>(h[i] * policy.wt[static_cast<size_t>(i) * policy.out + a]);
      logits[a] = static_cast<float>(sum);
    }
  } else {
    // the policy layer (a policy of one linear layer: the first, on the input)
    dense(layers_.back(), hidden_ > 0 ? context->data() : input, work.next, false, work);
    std::copy(work.next.begin(), work.next.end(), logits);
  }
  if (!has_value_) return 0.0;
  double sum = 0.0;
  for (size_t i = 0; i < value_w_.size(); ++i) sum += static_cast<double>(value_w_[i] * (*context)[i]);
  const float z = static_cast<float>(sum) + value_b_;
  return 0.5f * (1.0f + std::tanh(0.5f * z));  // net.py _sigmoid, in float32 as numpy's
}

}  // namespace tablezoo
