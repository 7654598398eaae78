// The forward pass of a policy-and-value network: the C++ twin of tablezoo/bots/net.py's
// PolicyValueNet, from the same arrays (the .npz's, handed over from Python once).
//
// It mirrors the network's one-observation path (PolicyValueNet._single and evaluate), which
// the search asks at every step: the observation (padded, or plain) divided by its scale
// (folded into the first layer for a padded network, which then reads only the observation's
// nonzero entries), hidden layers act(W x + b), a policy layer or an ActionHead, and the
// win-share head sigmoid(v . h + c). The weights are kept transposed, (in, out): a layer adds
// each input's row times the input, so the sum over a layer's outputs runs in SIMD lanes, and
// an input a ReLU zeroed costs nothing. The floats are float32 as numpy's; the sums run in
// another order than BLAS's, so the two agree to about 1e-6, not to the bit.
#pragma once

#include <optional>
#include <utility>
#include <vector>

namespace tablezoo {

// net.py ACTIVATIONS
enum class Activation { kRelu, kTanh };

// net.py ActionHead: the first `size` logits from one small network shared by every card, read
// from the card's own action-field entries, its position and the context (the last hidden
// layer); the other logits linear in the context.
struct ActionHead {
  std::vector<int> offsets;      // (F,): where each action field starts in the observation
  int size = 0;                  // K: the actions scored by the shared network
  int hidden = 0;                // H: its hidden units
  std::vector<float> card;       // (H, F + 1): weights of a card's field entries and position
  std::vector<float> context_t;  // (G, H): the context's weights, transposed
  std::vector<float> bias;       // (H,)
  std::vector<float> out;        // (H,): a card's score from the hidden units
  float out_bias = 0;
  std::vector<float> rest_t;     // (G, A - K): the other actions' linear layer, transposed
  std::vector<float> rest_bias;  // (A - K,)

  int num_actions() const { return size + static_cast<int>(rest_bias.size()); }
};

// A dense layer kept transposed: out = act(b + sum_i x[i] * wt[i, :]).
struct Layer {
  int in = 0, out = 0;
  std::vector<float> wt;  // (in, out)
  std::vector<float> b;   // (out,)
};

class PolicyValueNet {
 public:
  // Scratch of one caller: the net itself never changes, so many bots may share it.
  struct Work {
    std::vector<float> x, h, next, cards;
    std::vector<double> sum;
  };

  // `weights` as numpy holds them, (out, in) row-major, each with its bias; the last is the
  // policy layer unless there is a head. The caller (bind/net_search.h) has checked every shape.
  PolicyValueNet(const std::vector<std::vector<float>>& weights, const std::vector<std::pair<int, int>>& shapes,
                 const std::vector<std::vector<float>>& biases, std::vector<float> value_w, float value_b,
                 bool has_value_head, std::vector<float> scale, std::optional<ActionHead> head,
                 Activation activation, bool padded);

  int observation_size() const { return static_cast<int>(scale_.size()); }
  int num_actions() const { return head_ ? head_->num_actions() : layers_.back().out; }
  bool has_value_head() const { return has_value_; }
  // Whether the logits come from an ActionHead (each action's own, so that `only` writes the
  // same numbers as the whole evaluation) rather than a dense policy layer.
  bool has_action_head() const { return head_.has_value(); }
  bool padded() const { return padded_; }
  // Whether the scale is folded into the first layer (net.py folds_scale: a padded network).
  bool folds_scale() const { return padded_; }

  // The logits (num_actions() of them) and the win share of one observation of the layout it
  // reads (PolicyValueNet.evaluate; the win share is 0 for a model without a value head).
  // `only`: the logits of these actions alone are written (the others are left as they are; none:
  // the win share alone), which spares a search the moves it cannot play.
  double evaluate(const float* x, float* logits, Work& work, const std::vector<int>* only = nullptr) const;

 private:
  void dense(const Layer& layer, const float* x, std::vector<float>& out, bool activate, Work& work) const;
  void activate(float* x, int n) const;
  void head_logits(const float* x, const std::vector<float>& context, float* logits, Work& work,
                   const std::vector<int>* only) const;

  std::vector<Layer> layers_;   // the first one's weights folded with the scale where folds_scale()
  int hidden_ = 0;              // how many of layers_ are hidden (all of them with a head)
  std::vector<float> value_w_;  // (G,)
  float value_b_ = 0;
  bool has_value_ = false;
  std::vector<float> scale_;
  std::optional<ActionHead> head_;
  Activation activation_;
  bool padded_;
};

}  // namespace tablezoo
