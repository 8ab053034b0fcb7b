// The small option types that say how positions are applied, shared by the encodings' core functions
// (rope.hpp, learned.hpp), the tiny model's config (model.hpp) and the language models (lm.hpp). They
// live here, below all of them, so that a config names them without including an encoding.
#pragma once

namespace posenc {

// Which channels RoPE rotates together.
enum class RopeLayout {
  Interleaved,  // pairs (2i, 2i+1): the seed, GPT-J, the RoFormer paper
  Half,         // pairs (i, i + r/2): HF Llama's rotate_half
};

// What a learned position table does with a position at or past its end. There is no silent
// default: Error is the default, and every other policy is named.
enum class OutOfRange {
  Error,  // throw posenc::Error (RangeError)
  Clamp,  // reuse the last trained row
  Zero,   // a zero vector (as if the position had no encoding)
};

}  // namespace posenc
