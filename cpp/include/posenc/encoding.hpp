// The encoding registry: the one place that lists the model's position encodings.
//
// Each encoding is one entry of kEncodings (cpp/src/encodings/encodings.cpp): its stable checkpoint id (its place
// in the table, written into checkpoints: rows are only ever appended), its name, the config fields it reads, what it needs from the model, a display label and a one-line
// explanation, and the factory of its model hooks (cpp/src/model/encoding_model.hpp), which
// live in the encoding's own file (learned.cpp, t5.cpp, rope.cpp, ...).
// Parsing, error messages, the JS list (encodingNames() in the wasm module), the page's
// labels and the tests all read this list.
#pragma once

#include <cstdint>
#include <span>
#include <string>

namespace posenc {

// An encoding's checkpoint id: its row's place in encodings() (stable: existing checkpoints store it). The values
// have no names here; code names an encoding by the table's name, parse_encoding("rope"), so that an encoding is
// declared in one place, its row.
enum class Encoding : uint32_t {};

struct ModelConfig;
class EncodingModel;  // internal (cpp/src/model/encoding_model.hpp)

struct EncodingInfo {
  Encoding id;
  const char* name;    // "rope": the config value, the checkpoint file suffix
  const char* label;   // "RoPE": for people
  const char* blurb;   // one sentence, plain words (the explorer shows it)
  const char* fields;  // config fields only it (and encodings listing them too) reads: "ropeLayout,ropeBase,rotaryDim"
  // What it needs from the model:
  bool position_table;  // adds a vector per position to the token embedding
  bool score_bias;      // adds a bias to the attention scores (a slope or a table)
  bool qk_transform;    // transforms q and k per position (rotations, scales)
  bool streaming;       // inference can stream attention without forming [T, T]
  bool prefix_stable;   // the logits of a prefix do not depend on the sequence's length (causal
                        // models: true unless positions depend on T, as randomized positions do)
  EncodingModel* (*make)(const ModelConfig&);  // its model hooks (owned by the caller)
  bool sink = false;  // a learned sink logit joins each softmax: attention rows sum to less than 1
};

// Every encoding, in id order (encodings()[i].id == Encoding(i)).
std::span<const EncodingInfo> encodings();
// nullptr if `e` is not a registered id.
const EncodingInfo* find_encoding(Encoding e);
const char* encoding_name(Encoding e);             // "?" for an unknown id
Encoding parse_encoding(const std::string& name);  // RangeError naming `encoding` and listing the names
// "one of 'none', 'sinusoidal', ...": the allowed values, for error messages.
std::string encoding_choices();

}  // namespace posenc
