// posenc::lm: the byte-level BPE vocabulary of a GGUF (tokenizer.ggml.model "gpt2") as Hugging Face's tokenizer.json
// (lm.hpp, Loaded::tokenizer_json), and the one table of pre-tokenizers, by the names llama.cpp's converter writes to
// tokenizer.ggml.pre. The encoding itself is left to a tokenizer.json reader (the JS library's): what this file decides
// is what the GGUF says, in the shape that reader takes.
#include <algorithm>
#include <set>
#include <string_view>
#include <unordered_set>
#include <utility>

#include "lm_internal.hpp"

namespace posenc::lm {
namespace {

// The splits of the models' own tokenizer.json files (pre_tokenizer), in Hugging Face's regex syntax.
// GPT-2's (its ByteLevel pre-tokenizer's built-in regex).
constexpr const char* kGpt2 = R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)";
// Llama 3's (also DBRX's and OLMo 2's, tiktoken's cl100k): digits in runs of up to three.
constexpr const char* kLlama3 =
    R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";
// Qwen2's (Qwen2, 2.5 and 3): Llama 3's with every digit a piece of its own.
constexpr const char* kQwen2 =
    R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";

}  // namespace

const std::vector<BpePreTokenizer>& bpe_pre_tokenizers() {
  static const std::vector<BpePreTokenizer> rows = {
      {"llama-bpe,llama3,llama-v3,falcon3,pixtral", "Llama 3's way (digits in runs of up to three)", {kLlama3}, true, true},
      {"qwen2,deepseek-r1-qwen,stablelm2,megrez", "Qwen2's way (each digit alone)", {kQwen2}, false, false},
      {"dbrx,smaug-bpe", "DBRX's way, as OLMo 2's (digits in runs of up to three)", {kLlama3}, false, false},
      {"smollm,starcoder,refact,command-r,codeshell,exaone,minerva-7b", "SmolLM's way (each digit alone, the rest as GPT-2 splits it)",
       {R"(\p{N})", kGpt2}, false, false},
      {"gpt-2,phi-2,olmo,mpt,jais,exaone4", "GPT-2's way (a run of digits together)", {kGpt2}, false, false},
      // llama.cpp's fallback for a file that names no pre-tokenizer (its converter's output before tokenizer.ggml.pre).
      {"default", "by llama.cpp's fallback for files that name no way of splitting",
       {R"([\p{P}\$\+<=>\^~\|]+)", R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S))", R"(\p{N}+)",
        R"([0-9][0-9][0-9])"},
       false, false},
  };
  return rows;
}

namespace {

const GgufValue* find(const GgufFile& f, const std::string& key) {
  const auto it = f.kv.find(key);
  return it == f.kv.end() ? nullptr : &it->second;
}

bool has_name(std::string_view names, std::string_view name) {
  while (!names.empty()) {
    const std::size_t comma = names.find(',');
    if (names.substr(0, comma) == name) return true;
    if (comma == std::string_view::npos) break;
    names.remove_prefix(comma + 1);
  }
  return false;
}

std::string first_name(std::string_view names) { return std::string(names.substr(0, names.find(','))); }

// Well-formed UTF-8 (no overlong forms, surrogates or code points past U+10FFFF).
bool valid_utf8(std::string_view s) {
  for (std::size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    const int n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
    if (!n || i + n > s.size()) return false;
    uint32_t cp = n == 1 ? c : c & (0x7f >> n);
    for (int k = 1; k < n; ++k) {
      const auto b = static_cast<unsigned char>(s[i + k]);
      if ((b >> 6) != 2) return false;
      cp = (cp << 6) | (b & 0x3f);
    }
    if ((n == 2 && cp < 0x80) || (n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) || (cp >= 0xd800 && cp <= 0xdfff))
      return false;
    i += n;
  }
  return true;
}

// A JSON string literal of UTF-8 text.
void json_string(std::string& out, std::string_view s) {
  static const char* hex = "0123456789abcdef";
  out += '"';
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += ch;
    } else if (c < 0x20) {
      out += "\\u00";
      out += hex[c >> 4];
      out += hex[c & 15];
    } else {
      out += ch;
    }
  }
  out += '"';
}

const GgufValue& string_array(const GgufFile& f, const std::string& key) {
  const GgufValue* v = find(f, key);
  if (!v) throw Error(ErrorKind::Range, "GGUF key " + key + " is missing");
  if (v->type != GgufType::Array || v->elem != GgufType::String) throw Error(ErrorKind::Type, "GGUF key " + key + " must be an array of strings");
  return *v;
}

bool get_bool(const GgufFile& f, const std::string& key, bool fallback) {
  const GgufValue* v = find(f, key);
  if (!v) return fallback;
  if (v->type != GgufType::Bool) throw Error(ErrorKind::Type, "GGUF key " + key + " must be a bool");
  return v->u != 0;
}

// A token id key, or -1 when absent.
int token_id(const GgufFile& f, const std::string& key, int vocab_size) {
  const GgufValue* v = find(f, key);
  if (!v) return -1;
  const bool sig = v->type == GgufType::I8 || v->type == GgufType::I16 || v->type == GgufType::I32 || v->type == GgufType::I64;
  const bool uns = v->type == GgufType::U8 || v->type == GgufType::U16 || v->type == GgufType::U32 || v->type == GgufType::U64;
  if (!sig && !uns) throw Error(ErrorKind::Type, "GGUF key " + key + " must be an integer");
  const long long id = sig ? v->i : static_cast<long long>(std::min<uint64_t>(v->u, 1ull << 40));
  if (id < 0 || id >= vocab_size)
    throw Error(ErrorKind::Range, "GGUF key " + key + " must be a token id in [0, " + std::to_string(vocab_size - 1) + "] (got " + std::to_string(id) + ")");
  return static_cast<int>(id);
}

}  // namespace

void gguf_bpe_tokenizer(const GgufFile& f, int vocab_size, Loaded& out) {
  const GgufValue* pre_key = find(f, "tokenizer.ggml.pre");
  if (pre_key && pre_key->type != GgufType::String) throw Error(ErrorKind::Type, "GGUF key tokenizer.ggml.pre must be a string");
  const std::string pre_name = pre_key ? pre_key->s : "default";  // llama.cpp reads a file that names none with its fallback
  const BpePreTokenizer* pre = nullptr;
  for (const BpePreTokenizer& row : bpe_pre_tokenizers())
    if (has_name(row.names, pre_name)) pre = &row;
  if (!pre) {
    std::string known;
    for (const BpePreTokenizer& row : bpe_pre_tokenizers()) known += (known.empty() ? "" : ", ") + first_name(row.names);
    out.tokenizer_note = "its byte-level tokenizer splits text with the pre-tokenizer \"" + pre_name.substr(0, 40) +
                         "\", which posenc does not know (it knows " + known + ")";
    return;
  }

  const GgufValue& tokens = string_array(f, "tokenizer.ggml.tokens");
  const GgufValue& merges = string_array(f, "tokenizer.ggml.merges");
  if (static_cast<long long>(tokens.items.size()) != vocab_size)
    throw Error(ErrorKind::Range, "GGUF tokenizer.ggml.tokens has " + std::to_string(tokens.items.size()) + " tokens; token_embd.weight has " +
                                      std::to_string(vocab_size));
  const GgufValue* types = find(f, "tokenizer.ggml.token_type");
  if (types && (types->type != GgufType::Array || !(types->elem == GgufType::I32 || types->elem == GgufType::U32) ||
                types->items.size() != tokens.items.size()))
    throw Error(ErrorKind::Range, "GGUF tokenizer.ggml.token_type must be an array of int32, one per token");
  for (std::size_t i = 0; i < tokens.items.size(); ++i)
    if (!valid_utf8(tokens.items[i].s)) throw Error(ErrorKind::Range, "GGUF tokenizer.ggml.tokens[" + std::to_string(i) + "] is not valid UTF-8");
  const int bos = token_id(f, "tokenizer.ggml.bos_token_id", vocab_size);
  const int eos = token_id(f, "tokenizer.ggml.eos_token_id", vocab_size);
  const bool add_bos = get_bool(f, "tokenizer.ggml.add_bos_token", pre->add_bos);
  const bool add_eos = get_bool(f, "tokenizer.ggml.add_eos_token", false);
  if (add_bos && bos < 0) throw Error(ErrorKind::Range, "GGUF tokenizer.ggml.add_bos_token is true but tokenizer.ggml.bos_token_id is missing");
  if (add_eos && eos < 0) throw Error(ErrorKind::Range, "GGUF tokenizer.ggml.add_eos_token is true but tokenizer.ggml.eos_token_id is missing");
  const auto& piece = [&](int id) -> const std::string& { return tokens.items[static_cast<std::size_t>(id)].s; };

  std::string& j = out.tokenizer_json;
  j.reserve(tokens.items.size() * 24 + merges.items.size() * 24 + 4096);
  j += R"({"version":"1.0","truncation":null,"padding":null,"normalizer":null,"pre_tokenizer":{"type":"Sequence","pretokenizers":[)";
  for (const char* regex : pre->splits) {
    j += R"({"type":"Split","pattern":{"Regex":)";
    json_string(j, regex);
    j += R"(},"behavior":"Isolated","invert":false},)";
  }
  j += R"({"type":"ByteLevel","add_prefix_space":false,"trim_offsets":false,"use_regex":false}]},)";
  j += R"("added_tokens":[)";
  bool first = true;
  for (std::size_t i = 0; types && i < tokens.items.size(); ++i) {
    const long long t = types->elem == GgufType::I32 ? types->items[i].i : static_cast<long long>(types->items[i].u);
    if (t != 3 && t != 4) continue;  // llama.cpp's CONTROL and USER_DEFINED: matched whole in the text, never merged into
    j += first ? "" : ",";
    first = false;
    j += R"({"id":)" + std::to_string(i) + R"(,"content":)";
    json_string(j, tokens.items[i].s);
    j += R"(,"single_word":false,"lstrip":false,"rstrip":false,"normalized":false,"special":)";
    j += t == 3 ? "true}" : "false}";
  }
  j += R"(],"model":{"type":"BPE","dropout":null,"unk_token":null,"continuing_subword_prefix":null,"end_of_word_suffix":null,)";
  j += R"("fuse_unk":false,"byte_fallback":false,"ignore_merges":)";
  j += pre->ignore_merges ? "true" : "false";
  j += R"(,"vocab":{)";
  for (std::size_t i = 0; i < tokens.items.size(); ++i) {
    if (i) j += ',';
    json_string(j, tokens.items[i].s);
    j += ':' + std::to_string(i);
  }
  j += R"(},"merges":[)";
  // "a b": the pair split at the first space past the first byte (as llama.cpp reads it); a repeated pair keeps its
  // first rank (llama.cpp's), where a tokenizer.json reader would keep its last.
  // Every merge joins two tokens into a third (as Hugging Face's BPE requires; a merge into no token would make llama.cpp
  // and a tokenizer.json reader disagree, and lose text in the latter).
  std::unordered_set<std::string_view> vocab;
  for (const GgufValue& t : tokens.items) vocab.insert(t.s);
  std::set<std::pair<std::string_view, std::string_view>> seen;
  first = true;
  for (std::size_t i = 0; i < merges.items.size(); ++i) {
    const std::string_view m = merges.items[i].s;
    const std::size_t space = m.size() > 1 ? m.find(' ', 1) : std::string_view::npos;
    if (space == std::string_view::npos) continue;  // no pair: llama.cpp ranks an empty one that never matches
    const std::string_view a = m.substr(0, space), b = m.substr(space + 1);
    if (!valid_utf8(m)) throw Error(ErrorKind::Range, "GGUF tokenizer.ggml.merges[" + std::to_string(i) + "] is not valid UTF-8");
    if (!vocab.count(a) || !vocab.count(b) || !vocab.count(std::string(a) + std::string(b)))
      throw Error(ErrorKind::Range, "GGUF tokenizer.ggml.merges[" + std::to_string(i) + "] (\"" + std::string(m.substr(0, 40)) +
                                        "\") joins or makes a piece that is not a token");
    if (!seen.insert({a, b}).second) continue;
    j += first ? "[" : ",[";
    first = false;
    json_string(j, a);
    j += ',';
    json_string(j, b);
    j += ']';
  }
  j += "]},";
  // BOS / EOS as the file's add_bos_token / add_eos_token say (llama.cpp's default for the pre-tokenizer when absent).
  if (add_bos || add_eos) {
    std::string single, specials;
    const auto special = [&](int id) {
      single += R"({"SpecialToken":{"id":)";
      json_string(single, piece(id));
      single += R"(,"type_id":0}},)";
      if (!specials.empty()) specials += ',';
      json_string(specials, piece(id));
      specials += R"(:{"id":)";
      json_string(specials, piece(id));
      specials += R"(,"ids":[)" + std::to_string(id) + R"(],"tokens":[)";
      json_string(specials, piece(id));
      specials += "]}";
    };
    if (add_bos) special(bos);
    single += R"({"Sequence":{"id":"A","type_id":0}})";
    if (add_eos) {
      single += ',';
      special(eos);
      single.pop_back();
    }
    j += R"("post_processor":{"type":"TemplateProcessing","single":[)" + single + R"(],"pair":[)" + single + R"(],"special_tokens":{)" +
         specials + "}},";
  } else {
    j += R"("post_processor":null,)";
  }
  j += R"("decoder":{"type":"ByteLevel","add_prefix_space":true,"trim_offsets":true,"use_regex":true}})";

  out.tokenizer_label = std::string("byte-level BPE, text split ") + pre->label;
  std::string& c = out.tokenizer_config_json;
  c = "{";
  if (bos >= 0) c += R"("bos_token":)", json_string(c, piece(bos));
  if (eos >= 0) c += bos >= 0 ? R"(,"eos_token":)" : R"("eos_token":)", json_string(c, piece(eos));
  c += "}";
}

}  // namespace posenc::lm
