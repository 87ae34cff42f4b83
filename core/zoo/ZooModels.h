#pragma once

#include "core/cost/ShapedGraph.h"

namespace post {

// The model zoo's forward graphs at TensorFlow-op granularity (docs/zoo.md gives each
// model's source, layer table and op counts). `batch` >= 1.

// Inception-V3 at 299x299 (Szegedy et al. 2016; TF-slim inception_v3.py, with the
// auxiliary head and 1001 classes).
ShapedGraph buildInceptionV3(int batch);

// ResNet-50 v1.5 at 224x224 (He et al. 2016, Table 1; stride on the 3x3 convolution as
// in torchvision and TF official models).
ShapedGraph buildResNet50(int batch);

// LSTM language model (Zaremba et al. 2014; ColocRL's RNNLM): `layers` LSTM layers of
// 2048 units, 10,000-word vocabulary, unrolled over `steps` steps (20 in the zoo's default).
ShapedGraph buildRnnlm(int batch, int layers, int steps = 20);

// GNMT-style translation model (Wu et al. 2016): `layers` encoder and decoder LSTM layers
// of 1024 units (the first encoder layer bidirectional, residual connections from the
// third layer), additive attention, 32,000-wordpiece vocabularies, `steps` steps each side
// (30 in the zoo's default).
ShapedGraph buildNmt(int batch, int layers, int steps = 30);

// BERT-base pre-training (Devlin et al. 2019): 12 layers, hidden 768, 12 heads, feed-forward
// 3072, 30,522-word vocabulary, sequence 128, masked-LM and next-sentence heads.
ShapedGraph buildBertBase(int batch, int seq = 128); // seq: tokens per sequence, 1..512

// GPT-2-style decoder (Radford et al. 2019; OpenAI's gpt-2 model.py): `layers` pre-norm
// blocks of width `hidden` (heads of 64), 50,257-token vocabulary, 1,024 positions, sequence
// 1,024, logits tied to the token embeddings. The graph is named `name`.
ShapedGraph buildGpt(const std::string& name, int batch, int layers, int hidden);

} // namespace post
