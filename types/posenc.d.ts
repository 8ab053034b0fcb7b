// Hand-written declarations for the posenc npm entry ('posenc' and 'posenc/single').
//
// Emscripten 3.1.6 cannot emit declarations, so these are written from web/lib/*.js.
// tests/js/types.test.js keeps them honest: it compiles examples/typescript with tsc
// (including `@ts-expect-error` lines that must stay errors) and compares every
// exported name, API function, Model/Task member, option key and constant here with
// what the running library accepts.
//
// Conventions used throughout:
//  - Every error is a TypeError (wrong kind of value) or a RangeError (right kind, out of
//    range, or an unknown option key) whose message names the argument and the allowed
//    values. The module stays usable after any error.
//  - "int [a, b]" below means an integer from a to b inclusive.
//  - Outputs are fresh typed arrays, owned by the caller (not views on wasm memory).
//  - No single output may exceed 2^26 values (256 MiB of float32): larger requests
//    throw a RangeError before any work.

// The few platform types these declarations use, declared so that they also check in a
// project without the DOM lib (Node, no @types/node). Each merges with the full
// declaration where the DOM lib or @types/node provides one.
declare global {
  namespace WebAssembly {
    interface Module {}
  }
  interface URL {
    href: string;
  }
  interface AbortSignal {
    readonly aborted: boolean;
  }
}

/**
 * Position encodings a {@link Model} can use (the C++ registry, cpp/src/encodings/encodings.cpp; tests/js/types.test.js
 * checks this union against the module's list). `'none'` is NoPE.
 */
// generated:encoding (scripts/registry.js writes these lines from the core's tables)
export type Encoding = 'none' | 'sinusoidal' | 'learned' | 't5' | 'alibi' | 'rope' | 'shaw' | 'xpos' | 'prope' | 'fire' | 'rope_random' | 'learned_random' | 'ssmax' | 'sinks';
// end:encoding
/** Seeded training tasks (see {@link TaskOptions}). */
export type TaskName = 'copy' | 'reverse' | 'retrieval' | 'markov' | 'kth_retrieval';
/** HF transformers `rope_type`s, computed as `modeling_rope_utils.py` computes them. */
// generated:rope-type (scripts/registry.js writes these lines from the core's tables)
export type RopeType = 'default' | 'linear' | 'dynamic' | 'yarn' | 'llama3' | 'longrope' | 'proportional';
// end:rope-type
/** Which wasm build is running: SIMD128, or the scalar fallback compiled from the same source. */
export type Build = 'simd' | 'scalar';
/**
 * RoPE pair layout. `'interleaved'`: pairs (x[2i], x[2i+1]) (the RoFormer paper, GPT-J).
 * `'half'`: pairs (x[i], x[i + r/2]) (HF Llama's `rotate_half`).
 */
// generated:rope-layout (scripts/registry.js writes these lines from the core's tables)
export type RopeLayout = 'interleaved' | 'half';
// end:rope-layout
/**
 * What a learned table does at a position >= its number of rows: `'error'` throws a
 * RangeError, `'clamp'` reuses the last row, `'zero'` gives no position signal.
 */
// generated:out-of-range (scripts/registry.js writes these lines from the core's tables)
export type OutOfRangePolicy = 'error' | 'clamp' | 'zero';
// end:out-of-range

/** Every {@link Encoding}, in the order of the C++ registry (their checkpoint ids). */
// generated:encodings (scripts/registry.js writes these lines from the core's tables)
export declare const ENCODINGS: readonly ['none', 'sinusoidal', 'learned', 't5', 'alibi', 'rope', 'shaw', 'xpos', 'prope', 'fire', 'rope_random', 'learned_random', 'ssmax', 'sinks'];
// end:encodings
/** One entry of the encoding registry (cpp/src/encodings/encodings.cpp), as the module reports it. */
export interface EncodingInfo {
  readonly name: Encoding;
  /** Stable checkpoint id. */
  readonly id: number;
  /** Display name, e.g. 'RoPE'. */
  readonly label: string;
  /** One sentence in plain words. */
  readonly blurb: string;
  /** Comma-separated config fields only it reads, e.g. 'ropeLayout,ropeBase,rotaryDim'. */
  readonly fields: string;
  /** Adds a vector per position to the token embedding. */
  readonly positionTable: boolean;
  /** Adds a bias to the attention scores. */
  readonly scoreBias: boolean;
  /** Transforms queries and keys per position. */
  readonly qkTransform: boolean;
  /** Inference can stream attention without forming [T, T]. */
  readonly streaming: boolean;
  /** The logits of a prefix do not depend on the sequence length (false: positions sampled per length). */
  readonly prefixStable: boolean;
  /** A learned sink joins each softmax, so a row of the attention map sums to less than 1. */
  readonly sink: boolean;
}
/** The registry, in id order. */
export declare const ENCODING_INFO: readonly EncodingInfo[];
/** One field of the model-config schema (cpp/src/model/config_schema.cpp). */
export interface ConfigField {
  readonly name: keyof ModelOptions;
  readonly type: 'int' | 'uint64' | 'float' | 'choice';
  readonly min: number;
  readonly max: number;
  readonly minExclusive: boolean;
  /** No default (vocabSize). */
  readonly required: boolean;
  /** First checkpoint version that stores it. */
  readonly since: number;
  /** The default; for a choice, the index into `choices`. */
  readonly default: number;
  readonly choices: readonly string[];
  /** The encodings whose models check (and read) it. */
  readonly encodings: readonly Encoding[];
}
/** Every field of {@link ModelOptions}, in checkpoint order, with its range and default. */
export declare const CONFIG_SCHEMA: readonly ConfigField[];
/** Every {@link TaskName}, in the order of the C++ enum. */
export declare const TASKS: readonly ['copy', 'reverse', 'retrieval', 'markov', 'kth_retrieval'];
/** Every supported {@link RopeType}. */
export declare const ROPE_TYPES: readonly ['default', 'linear', 'dynamic', 'yarn', 'llama3', 'longrope', 'proportional'];
/** One row of the core's table of RoPE scaling types. */
export interface RopeTypeInfo {
  readonly name: RopeType;
  /** llama.cpp's `rope.scaling.type` spelling, or `''` when llama.cpp has none. */
  readonly gguf: string;
  /** As readers know it, e.g. `'YaRN'`. */
  readonly label: string;
  /** The scaling keys it reads (snake_case). */
  readonly fields: readonly string[];
  /** Offered by the explorer's RoPE scaling control. */
  readonly page: boolean;
}
/** One key of a scaling block, from the core's table. */
export interface ScalingField {
  readonly key: string;
  readonly camel: string;
  readonly kind: 'number' | 'integer' | 'flag' | 'factors';
  /** What the core accepts (for `factors`, each value); `minExclusive`: `min` itself is refused. */
  readonly min: number;
  readonly max: number;
  readonly minExclusive: boolean;
  /** HF's default when the key is left out; null: none (required, or derived from other keys). */
  readonly hfDefault: number | null;
  /** HF fills it from the model's context when left out. */
  readonly fromContext: boolean;
  /** The explorer's slider for it: its state key, default and range; null: none. */
  readonly page: { readonly key: string; readonly default: number; readonly min: number; readonly max: number } | null;
}
/** Every {@link RopeType} with the keys it reads, in the core's order. */
export declare const ROPE_TYPE_INFO: readonly RopeTypeInfo[];
/** Every scaling key, numbers first in the order the core takes them. */
export declare const SCALING_FIELDS: readonly ScalingField[];
/**
 * An HF `rope_scaling` block of `type` (null for `'none'` or `'default'`) from slider values keyed by the explorer's
 * keys (`factor`, `betaFast`, ...); a key with no HF default takes the slider's default; `context` fills the key
 * HF fills from the model's context.
 */
export declare function scalingBlock(type: RopeType | 'none', values?: Record<string, number>, options?: { context?: number }): RopeScaling | null;
/** The table of per-family rules (model_types, HF source files, what is read). */
export declare const ROPE_FAMILIES: readonly { id: string; models: string[]; source: string; reads: string }[];
/** One layer of {@link ArchitectureFacts}. */
export interface ArchitectureLayer {
  index: number;
  layerType: string;
  rope: boolean;
  ropeType: RopeType | null;
  theta: number | null;
  headDim: number;
  rotaryDim: number;
  layout: 'half' | 'interleaved' | null;
  slice: 'leading' | 'trailing' | null;
  window: number | null;
  ropeParameters: Record<string, unknown> | null;
}
/** The facts a Llama-family loader needs from a config.json. */
export interface ArchitectureFacts {
  modelType: string;
  family: RopeFamily;
  hiddenSize: number;
  numAttentionHeads: number;
  numKeyValueHeads: number;
  headDim: number;
  intermediateSize: number;
  rmsNormEps: number;
  vocabSize: number;
  tieWordEmbeddings: boolean;
  attentionBias: boolean;
  maxPositionEmbeddings: number;
  layers: ArchitectureLayer[];
  notes: string[];
}
/** Reads an HF config.json (object or JSON text) for a loader; TypeError/RangeError naming a missing or bad key. */
export declare function describeArchitecture(config: object | string): ArchitectureFacts;

/** Whether this engine validates a wasm SIMD128 module (what `build: 'auto'` uses to choose). */
export declare function simdSupported(): boolean;

// ---------------------------------------------------------------------------
// Inputs

/**
 * Floating-point input: a Float32Array, a Float64Array or a plain array of numbers.
 * Every value must be finite (NaN or ±Infinity is a RangeError naming the index).
 */
export type FloatArray = Float32Array | Float64Array | readonly number[];
/**
 * Integer input: an integer typed array or a plain array of integers (checked value by
 * value against the argument's range).
 */
export type IntArray = Int32Array | Uint32Array | Int16Array | Uint16Array | Int8Array | Uint8Array | readonly number[];

// ---------------------------------------------------------------------------
// Loading

/** Options of {@link loadPosenc}. Give at most one of `wasmUrl`, `locateFile` and `wasmBinary`. */
export interface LoadOptions {
  /**
   * `'auto'` (default) picks `'simd'` when {@link simdSupported} and `'scalar'` otherwise.
   * Asking for `'simd'` on an engine without wasm SIMD is a RangeError.
   * @default 'auto'
   */
  build?: 'auto' | Build;
  /**
   * Where to fetch the `.wasm` of the chosen build from (default: next to the module, via
   * `new URL(..., import.meta.url)`). In Node a `file:` URL or an absolute file path.
   */
  wasmUrl?: string | URL;
  /**
   * As in Emscripten: called with the file name (`'posenc-simd.wasm'` or
   * `'posenc-scalar.wasm'`), returns where to fetch it. Ignored when `wasmUrl` is given.
   * Also asked for the language models' module (`'posenc-lm-simd.wasm'` or `'posenc-lm-scalar.wasm'`)
   * when {@link Posenc.loadLanguageModel} first needs it, unless `lmWasmUrl` is given.
   */
  locateFile?: (file: WasmFileName) => string | URL;
  /**
   * The `.wasm` bytes, if you already have them (no fetch at all). They must be the build
   * that is chosen: pass `build` too if `'auto'` might pick the other one.
   */
  wasmBinary?: ArrayBuffer | Uint8Array;
  /**
   * A module compiled by {@link compileWasm}: nothing is fetched or compiled. A
   * `WebAssembly.Module` can be posted to Workers, so a page and its Workers share one.
   * Pass the `build` that compileWasm returned with it.
   */
  wasmModule?: WebAssembly.Module;
  /**
   * Where to fetch the language models' `.wasm` (a module of its own, fetched only by the first
   * {@link Posenc.loadLanguageModel} call, in the same build as the page's module; default: next to
   * its glue, or `locateFile`'s answer). In Node a `file:` URL or an absolute file path.
   */
  lmWasmUrl?: string | URL;
}

/**
 * Fetches and compiles the `.wasm` once, for sharing:
 * `const { module, build } = await compileWasm(); await loadPosenc({ wasmModule: module, build })`,
 * here and in any Worker the module is posted to.
 * @throws {TypeError} `options` is not an object, or an option has the wrong type.
 * @throws {Error} the `.wasm` could not be fetched or compiled (the message has the URL).
 */
export declare function compileWasm(options?: LoadOptions): Promise<{ module: WebAssembly.Module; build: Build }>;

/** File names of the wasm builds (the page's module and the language models'), as passed to {@link LoadOptions.locateFile}. */
export type WasmFileName = 'posenc-simd.wasm' | 'posenc-scalar.wasm' | 'posenc-lm-simd.wasm' | 'posenc-lm-scalar.wasm';

/**
 * Loads and instantiates the wasm module. Each call instantiates a new module; share the
 * result instead of calling it per use.
 * @throws {TypeError} `options` is not an object, has an unknown key, or an option has the wrong type.
 * @throws {RangeError} `build` is not `'auto'`, `'simd'` or `'scalar'`, or `'simd'` is asked
 *   for on an engine without wasm SIMD.
 * @throws {Error} the `.wasm` could not be fetched or instantiated (the message has the URL).
 */
export declare function loadPosenc(options?: LoadOptions): Promise<Posenc>;

// ---------------------------------------------------------------------------
// Encodings

/** Options of {@link Posenc.sinusoidal}. */
export interface SinusoidalOptions {
  /** Number of positions (rows), int [0, 2^24]. */
  length: number;
  /** Model width, even int [2, 65536] (>= 4 with `spacing: 'tensor2tensor'`). */
  dim: number;
  /** Wavelength base, finite and > 1. @default 10000 */
  base?: number;
  /**
   * `'interleaved'`: sin, cos alternate (`pe[p, 2i] = sin`, `pe[p, 2i+1] = cos`, the paper);
   * `'concat'`: all sines then all cosines (tensor2tensor).
   * @default 'interleaved'
   */
  layout?: 'interleaved' | 'concat';
  /**
   * Frequency spacing: `'paper'` is `base^(-2i/dim)`; `'tensor2tensor'` is
   * `base^(-i/(dim/2 - 1))`.
   * @default 'paper'
   */
  spacing?: 'paper' | 'tensor2tensor';
  /** First position, int [0, 2^31-1]; `start + length` must stay <= 2^31-1. @default 0 */
  start?: number;
}

/**
 * Common keys of every `rope_scaling` block (snake_case, as in an HF `config.json`).
 * `rope_theta` (used as the base when the call has no `base`) and
 * `partial_rotary_factor` are accepted because HF configs carry them.
 */
export interface RopeScalingCommonFields {
  /** The model's `config.max_position_embeddings`, int [1, 2^31-1]. */
  max_position_embeddings?: number;
  /** Used as `base` when the call gives none. */
  rope_theta?: number;
  /** Read by `proportional` only (the share of pairs that rotate, [0, 1]); other types ignore it (pass `rotaryDim` instead). */
  partial_rotary_factor?: number;
}
/**
 * Keys HF knows that do not change the frequencies (snake_case only): accepted, and
 * reported by {@link Posenc.ropeFromConfig}. A legacy `type: 'mrope'` (Qwen2-VL) is
 * computed as `'default'`, as HF's Qwen2VLConfig does.
 */
export interface HfKnownUnusedFields {
  /** Qwen2-VL / Qwen3-VL: pairs per (temporal, height, width) section; ints >= 0. */
  mrope_section?: ArrayLike<number>;
  /** Qwen3-VL: sections interleaved over the pairs. */
  mrope_interleaved?: boolean;
  /** Ministral 3 / Mistral 4: queries times 1 + beta * log(1 + floor(position / original_max_position_embeddings)). */
  llama_4_scaling_beta?: number;
  /** Phi-3.5-MoE. Finite, > 0. */
  long_mscale?: number;
  /** Phi-3.5-MoE. Finite, > 0. */
  short_mscale?: number;
}
/** `rope_type: 'linear'` (position interpolation): every frequency divided by `factor`. */
export interface LinearScalingFields {
  /** Finite, > 0. */
  factor: number;
}
/** `rope_type: 'dynamic'` (dynamic NTK): the base grows with `seqLen` past `max_position_embeddings`. Needs dim >= 4. */
export interface DynamicScalingFields {
  /** Finite, > 0. */
  factor: number;
  /** int [1, 2^31-1]. */
  max_position_embeddings: number;
}
/**
 * `rope_type: 'yarn'`. Needs `original_max_position_embeddings` or
 * `max_position_embeddings` (the first defaults to the second, as in HF).
 */
export interface YarnScalingFields {
  /** Finite, > 0. Default: `max_position_embeddings / original_max_position_embeddings`. */
  factor?: number;
  /** int [1, 2^31-1]. Default: `max_position_embeddings`. */
  original_max_position_embeddings?: number;
  /** Finite, > 0. Default: derived from `mscale`, `mscale_all_dim` and `factor` (HF's get_mscale). */
  attention_factor?: number;
  /** Finite, > 0; 0 or unset means 32 (HF's `or 32`). */
  beta_fast?: number;
  /** Finite, > 0; 0 or unset means 1. */
  beta_slow?: number;
  /** Finite, >= 0 (DeepSeek). */
  mscale?: number;
  /** Finite, >= 0 (DeepSeek). */
  mscale_all_dim?: number;
  /** Floor/ceil the correction range. @default true */
  truncate?: boolean;
  /** llama.cpp's YaRN ext_factor (not an HF key): scales the ramp; 0 = every pair divided by factor. In [0, 1]. @default 1 */
  ext_factor?: number;
}
/**
 * `rope_type: 'proportional'` (Gemma 4's full-attention layers): `dim` is the whole head_dim;
 * `int(partial_rotary_factor * head_dim // 2)` pairs rotate with exponent 2i/head_dim, the
 * rest get frequency 0; all divided by `factor`.
 */
export interface ProportionalScalingFields {
  /** Finite, > 0. @default 1 */
  factor?: number;
}
/**
 * `rope_type: 'llama3'`. Needs `original_max_position_embeddings` or
 * `max_position_embeddings`.
 */
export interface Llama3ScalingFields {
  /** Finite, > 0. */
  factor: number;
  /** Finite, > 0. */
  low_freq_factor: number;
  /** Finite, > 0. HF only warns when it is <= `low_freq_factor` (Llama 4 Scout has both 1): then no pair is smoothed. */
  high_freq_factor: number;
  /** int [1, 2^31-1]. Default: `max_position_embeddings`. */
  original_max_position_embeddings?: number;
}
/**
 * `rope_type: 'longrope'` (Phi-3). `long_factor` is used when `seqLen` >
 * `original_max_position_embeddings`, `short_factor` otherwise. Needs
 * `original_max_position_embeddings` or `max_position_embeddings`.
 */
export interface LongRopeScalingFields {
  /** rotaryDim/2 finite values > 0. */
  long_factor: FloatArray;
  /** rotaryDim/2 finite values > 0. */
  short_factor: FloatArray;
  /** Finite, > 0. Default: `max_position_embeddings / original_max_position_embeddings`. */
  factor?: number;
  /** int [1, 2^31-1] (>= 2 when `attention_factor` is derived). Default: `max_position_embeddings`. */
  original_max_position_embeddings?: number;
  /** Finite, > 0. Default: `sqrt(1 + ln(factor) / ln(original_max_position_embeddings))`, 1 when factor <= 1. */
  attention_factor?: number;
}

/** `'rope_type'` -> `'ropeType'`, `'mscale_all_dim'` -> `'mscaleAllDim'`. */
export type CamelCase<S extends string> = S extends `${infer Head}_${infer Tail}`
  ? `${Head}${Capitalize<CamelCase<Tail>>}`
  : S;
/** The same fields with camelCase keys. */
export type CamelCaseKeys<T> = { [K in keyof T as CamelCase<K & string>]: T[K] };

/** Every key a `rope_scaling` block may have, in both spellings. */
export type RopeScalingKey =
  | 'rope_type' | 'type' | 'ropeType'
  | keyof AllScalingFields | CamelCase<keyof AllScalingFields> | keyof HfKnownUnusedFields;
type AllScalingFields = RopeScalingCommonFields & LinearScalingFields & DynamicScalingFields & YarnScalingFields &
  Llama3ScalingFields & LongRopeScalingFields & ProportionalScalingFields;
/**
 * `T` with every other scaling key forbidden, so that a key of another type or spelling
 * (which the library would reject or ignore) is a compile error too.
 */
export type OnlyKeysOf<T> = T & { [K in Exclude<RopeScalingKey, keyof T>]?: never };

/**
 * One `rope_scaling` shape: snake_case keys with `rope_type` (or HF's older `type`), or
 * camelCase keys with `ropeType`. Both are accepted; mixing spellings of one key with
 * different values is a RangeError.
 */
export type RopeScalingShape<T extends RopeType, Fields> =
  | OnlyKeysOf<{ ropeType: T } & CamelCaseKeys<Fields & RopeScalingCommonFields>>
  | OnlyKeysOf<{ type: T; rope_type?: T } & Fields & RopeScalingCommonFields & HfKnownUnusedFields>
  | OnlyKeysOf<{ rope_type: T; type?: T } & Fields & RopeScalingCommonFields & HfKnownUnusedFields>;

/** No scaling: the original RoPE frequencies (an empty object or `rope_type: 'default'`). */
export type DefaultRopeScaling =
  | OnlyKeysOf<{ rope_type?: 'default'; type?: 'default' | 'mrope' } & RopeScalingCommonFields & HfKnownUnusedFields>
  | OnlyKeysOf<{ ropeType?: 'default' } & CamelCaseKeys<RopeScalingCommonFields>>;
export type LinearRopeScaling = RopeScalingShape<'linear', LinearScalingFields>;
export type DynamicRopeScaling = RopeScalingShape<'dynamic', DynamicScalingFields>;
export type YarnRopeScaling = RopeScalingShape<'yarn', YarnScalingFields>;
export type Llama3RopeScaling = RopeScalingShape<'llama3', Llama3ScalingFields>;
export type LongRopeScaling = RopeScalingShape<'longrope', LongRopeScalingFields>;
export type ProportionalRopeScaling = RopeScalingShape<'proportional', ProportionalScalingFields>;

/**
 * An HF `rope_scaling` block as it stands in a model's `config.json`, or the same keys in
 * camelCase, plus `max_position_embeddings`. Unknown keys are a RangeError (so a typo is
 * never silently ignored); which keys each type requires, and their ranges, are checked
 * with HF's defaults and named in the error.
 */
export type RopeScaling =
  | DefaultRopeScaling
  | LinearRopeScaling
  | DynamicRopeScaling
  | YarnRopeScaling
  | Llama3RopeScaling
  | LongRopeScaling
  | ProportionalRopeScaling;

/** Options of {@link Posenc.ropeFrequencies}. */
export interface RopeFrequenciesOptions {
  /** Rotary dimension, even int [2, 65536] (`dynamic` needs >= 4). */
  dim: number;
  /** Finite, > 1. Default: `scaling.rope_theta` if given, else 10000. */
  base?: number;
  /** HF `rope_scaling`; `null` or unset means none. */
  scaling?: RopeScaling | null;
  /**
   * The current sequence length (max position + 1), int [1, 2^31-1]. Drives `dynamic`
   * (unset: `max_position_embeddings`) and `longrope` (unset: short factors).
   */
  seqLen?: number;
}

/** Options of {@link Posenc.ropeFromConfig}. */
export interface RopeFromConfigOptions {
  /**
   * The sequence length the frequencies are for, int [1, 2^31-1] (drives `dynamic` and
   * `longrope`). Default: the config's `max_position_embeddings` (GGUF: `context_length`).
   */
  seqLen?: number;
}
/** What the scaling does to one pair. */
export type RopeRegime = 'kept' | 'interpolated' | 'blended' | 'dropped';
/** One rotary pair of a layer type. */
export interface RopePair {
  index: number;
  /** The scaled inverse frequency (radians per token), float64. */
  invFreq: number;
  /** The unscaled (as trained) one. */
  baseInvFreq: number;
  /** 2π / invFreq, tokens per turn (Infinity for a dropped pair). */
  wavelength: number;
  baseWavelength: number;
  /** Turns of the as-trained pair within the original context: originalContext / baseWavelength. */
  turns: number;
  /** kept: unchanged; interpolated: divided by the factor; blended: anything between; dropped: frequency 0. */
  regime: RopeRegime;
}
/** A query scale that depends on the position. */
export interface RopeQueryScale {
  /** Llama 4's NoPE-layer temperature tuning, or Ministral 3's llama_4_scaling_beta. */
  kind: 'llama4Temperature' | 'llama4ScalingBeta';
  /** The formula, with the config's numbers (0-based positions). */
  formula: string;
  /** Its two constants (attn_scale, floor_scale; or beta, original_max_position_embeddings). */
  a?: number;
  b?: number;
}
/** A context length and how it is known. */
export interface RopeContext {
  value: number;
  /** true where the config does not state it (e.g. max_position_embeddings ÷ factor). */
  inferred: boolean;
  /** Where it comes from, in words. */
  how: string;
}
/** The per-family rule a config was read with (web/lib/rope-families.js). */
export interface RopeFamily {
  id: string;
  /** false: the model_type is in no row, and the generic rules were used. */
  known: boolean;
  /** The HF transformers files the rule follows. */
  source: string;
  /** What posenc reads for this family. */
  reads: string;
}
/** One layer type of a model (Gemma 3's sliding / full, Llama 4's RoPE / NoPE layers, ...). */
export interface RopeLayerType {
  /** `layer_types` name (HF's, or derived as the config class does), with ' (NoPE)' where a type has both kinds. */
  name: string;
  /** The HF layer type. */
  layerType: string;
  /** 'leading' (the first rotary dims rotate) or 'trailing' (DeepSeek-V4). */
  slice: 'leading' | 'trailing';
  /** The sliding window of this layer type, or null. */
  window: number | null;
  /** MLA (DeepSeek): qk_nope_head_dim + qk_rope_head_dim; else null. */
  qkHeadDim: number | null;
  /** M-RoPE (Qwen2-VL, Qwen3-VL): the position id of each pair, 't' time, 'h' height, 'w' width. */
  mrope?: { section: number[]; interleaved: boolean; axes: ('t' | 'h' | 'w')[] } | null;
  /** The model's extended context (every layer type has the same). */
  extendedContext?: number;
  /** 0-based layer indices of this type. */
  layers: number[];
  /** false for NoPE layers. */
  rope: boolean;
  headDim: number;
  /** 'half' (HF rotate_half) or 'interleaved' (Llama 4, DeepSeek's rope_interleave); GGUF: llama.cpp's rope type decides. */
  layout: string;
  ropeType: RopeType | null;
  theta: number | null;
  /** Dims that rotate (HF: int(head_dim * partial_rotary_factor); proportional: 2 * rotating pairs). */
  rotaryDim: number;
  /** The frequencies HF computes (float64; proportional: head_dim/2 values, zeros for the dropped pairs). */
  invFreq: Float64Array;
  pairs: RopePair[];
  counts: Record<RopeRegime, number>;
  /** Multiplies cos and sin of q and k (HF's attention_scaling): logits scale by its square. */
  cosSinScale: number;
  /** DeepSeek-V2/V3's softmax-scale correction (mscale^2), else 1. */
  softmaxScale: number;
  queryScale: RopeQueryScale | null;
  /** The scaling factor (or max_position_embeddings / original_max_position_embeddings when derived). */
  factor?: number;
  /** The model's original context (every layer type has the same). */
  originalContext?: number;
  /** HF-known keys that do not change the frequencies, with what uses them. */
  knownKeys?: { key: string; value: unknown; use: string }[];
  /** The rope parameters as HF standardises them (type, theta, original length filled in). */
  ropeParameters?: Record<string, unknown>;
  /** The query scale at 0-based positions (1 where none). */
  queryScaleAt(positions: ArrayLike<number>): Float64Array;
  /** cosSinScale^2 * softmaxScale * queryScale(p): the factor on the logits beyond the model's 1/sqrt(d). */
  logitScaleAt(positions: ArrayLike<number>): Float64Array;
}
/** Result of {@link Posenc.ropeFromConfig}. */
export interface RopeFromConfigResult {
  /** 'hf' (config.json) or 'gguf' (llama.cpp metadata names). */
  source: 'hf' | 'gguf';
  modelType: string;
  seqLen: number | undefined;
  /** max_position_embeddings (GGUF: context_length): the advertised context. */
  contextLength: number | undefined;
  /** The original context (contexts.original.value). */
  originalContext: number | undefined;
  /** The extended context (contexts.extended.value). */
  extendedContext: number | undefined;
  /** One original and one extended context for every layer type and chart, with how each is known. */
  contexts: { original: RopeContext | null; extended: RopeContext | null };
  /** The per-family rule used. */
  family: RopeFamily;
  layerTypes: RopeLayerType[];
  /** What was read from where, renames HF applies, and llama.cpp differences met. */
  notes: string[];
}

/** Result of {@link Posenc.ropeFrequencies}. */
export interface RopeFrequencies {
  /** The dim/2 inverse frequencies (HF's `inv_freq`), rounded to float32. */
  invFreq: Float32Array;
  /** The same in float64, as computed. */
  invFreq64: Float64Array;
  /** Multiplies cos and sin (HF's `attention_scaling`); 1 except for `yarn` and `longrope`. */
  attentionScale: number;
}

/** Options of {@link Posenc.applyRope}. */
export interface ApplyRopeOptions extends Omit<RopeFrequenciesOptions, 'dim'> {
  /** Rows of `x`, int [0, 2^24]. */
  length: number;
  /** Row width, even int [2, 65536]. */
  dim: number;
  /**
   * The position of each row: `length` ints in [0, 2^31-1]. Default 0..length-1. Angles are
   * formed and reduced modulo 2π in float64, so large positions stay accurate.
   */
  positions?: IntArray;
  /** @default 'interleaved' */
  layout?: RopeLayout;
  /**
   * Rotate only the first `rotaryDim` values of each row (partial rotary, as GPT-NeoX /
   * Phi); the rest are copied. Even int [2, dim]. The frequencies use `rotaryDim`.
   * @default dim
   */
  rotaryDim?: number;
}

/** Options of {@link Posenc.alibiBias}. */
export interface AlibiBiasOptions {
  /** int [1, 4096]. */
  heads: number;
  /** int [0, 2^24], <= keyLength. Query i sits at position i + keyLength - queryLength. */
  queryLength: number;
  /** int [queryLength, 2^24]. @default queryLength */
  keyLength?: number;
  /** Mask keys after the query with -Infinity. @default true */
  causal?: boolean;
}

/** Options of {@link Posenc.t5Bucket}. */
export interface T5BucketOptions {
  /** Encoder-style (both directions) or decoder-style (past only) buckets. @default true */
  bidirectional?: boolean;
  /** int [2, 2^20], >= 4 when bidirectional. @default 32 */
  numBuckets?: number;
  /**
   * int [1, 2^31-1], larger than the exact range (numBuckets/4 bidirectional,
   * numBuckets/2 otherwise). @default 128
   */
  maxDistance?: number;
}

/** Options of {@link Posenc.shawIndex}. */
export interface ShawIndexOptions {
  /** int [0, 2^24], <= keyLength. */
  queryLength: number;
  /** int [queryLength, 2^24]. @default queryLength */
  keyLength?: number;
  /** Clipping distance k, int [1, 2^31-1]. */
  maxDistance: number;
}

/** Options of {@link Posenc.learnedLookup}. */
export interface LearnedLookupOptions {
  /** Rows of the table (positions it has), int [1, 2^24]. */
  rows: number;
  /** Width of a row, int [1, 65536]. */
  dim: number;
  /** Positions to look up, ints in [0, 2^31-1]. */
  positions: IntArray;
  /** What a position >= rows does. @default 'error' */
  outOfRange?: OutOfRangePolicy;
}

/** Options of {@link Posenc.attention}. */
export interface AttentionOptions {
  /** int [1, 2^24], <= keyLength. Query i sits at position i + keyLength - queryLength. */
  queryLength: number;
  /** int [queryLength, 2^24]. @default queryLength */
  keyLength?: number;
  /** Head width, int [1, 65536]. */
  dim: number;
  /** Finite. @default 1 / Math.sqrt(dim) */
  scale?: number;
  /** @default true */
  causal?: boolean;
  /** ALiBi slope m: subtracts m·|i - j|. Finite. @default 0 */
  alibiSlope?: number;
  /** Added to the scaled scores: queryLength·keyLength finite values (no -Infinity: use `causal`). */
  bias?: FloatArray;
  /**
   * Write the result into this array (queryLength·keyLength values) and return it, instead of
   * allocating a new one per call. `null`: a new array.
   */
  out?: Float32Array | null;
}

// ---------------------------------------------------------------------------
// The tiny transformer

/** Options of {@link Posenc.createModel}: the model's configuration. */
export interface ModelOptions {
  // generated:model-options (scripts/registry.js writes these lines from the core's tables)
  /** @default 'rope' */
  encoding?: Encoding;
  /** int [1, 64]. @default 2 */
  layers?: number;
  /** Must divide dModel, int [1, 64]. @default 4 */
  heads?: number;
  /** Even for 'sinusoidal'; dModel/heads even for 'rope' without rotaryDim, int [2, 4096]. @default 64 */
  dModel?: number;
  /** MLP hidden width = mlpRatio·dModel, int [1, 16]. @default 4 */
  mlpRatio?: number;
  /** Use the task's `vocabSize` ({@link Posenc.taskInfo}), int [2, 65536]. */
  vocabSize: number;
  /** Training length and rows of the 'learned' table, int [1, 65536]. @default 64 */
  maxLength?: number;
  /** Initialisation seed: the same seed and config give bit-identical weights, int [0, 2^53-1]. @default 1 */
  seed?: number;
  /** 'rope', 'xpos', 'prope', 'rope_random', 'ssmax', 'sinks'. @default 'half' */
  ropeLayout?: RopeLayout;
  /** 'rope', 'xpos', 'prope', 'rope_random', 'ssmax', 'sinks': finite, > 1. @default 10000 */
  ropeBase?: number;
  /** 'rope', 'xpos', 'prope', 'rope_random', 'ssmax', 'sinks': 0 (= head dim) or an even int up to dModel/heads, int [0, 4096]. @default 0 */
  rotaryDim?: number;
  /** 't5' only: unidirectional buckets, int [2, 1024]. @default 32 */
  t5NumBuckets?: number;
  /** 't5' only: at least t5NumBuckets/2 + 1, int [2, 2^20]. @default 128 */
  t5MaxDistance?: number;
  /** 'shaw' only: clipping distance, int [0, 4096]. @default 16 */
  shawK?: number;
  /** 'learned' only: what positions >= maxLength do. @default 'error' */
  learnedPolicy?: OutOfRangePolicy;
  /** 'xpos' only: pair i is scaled by zeta_i^(n / xposScaleBase), int [1, 2^20]. @default 512 */
  xposScaleBase?: number;
  /** 'xpos' only: zeta_i = (2i/d + xposGamma) / (1 + xposGamma), finite, > 0 and <= 1000. @default 0.4 */
  xposGamma?: number;
  /** 'prope' only: fraction of the rotary pairs kept (the highest frequencies), finite, > 0 and <= 1. @default 0.75 */
  ropeFraction?: number;
  /** 'fire' only: hidden width of its MLP, int [1, 256]. @default 32 */
  fireHidden?: number;
  /** 'fire' only: c in psi(x) = log(c x + 1), finite, > 0 and <= 10^6. @default 1 */
  fireC?: number;
  /** 'fire' only: the threshold L in psi(max(L, i)); 0 = maxLength, int [0, 65536]. @default 0 */
  fireThreshold?: number;
  /** 'rope_random', 'learned_random': positions are sampled from [0, randomLength), int [1, 65536]. @default 1024 */
  randomLength?: number;
  // end:model-options
}

type FileBytes = Uint8Array | ArrayBuffer;
/** The files of {@link Posenc.loadLanguageModel}. The format is read from the model's first bytes unless given. */
export interface LanguageModelFiles {
  /** A llama2.c `.bin`, a GGUF (F32, F16, BF16, Q8_0), or a `.safetensors` file (omit with `index`). */
  model?: FileBytes;
  /** llama2.c `tokenizer.bin` for a `.bin`; HF `tokenizer.json` (text, bytes or object) for safetensors; none for GGUF. */
  tokenizer?: FileBytes | string | object;
  /** HF `config.json` (text, bytes or object): required for safetensors. */
  config?: FileBytes | string | object;
  /** HF `tokenizer_config.json` (its bos_token). */
  tokenizerConfig?: FileBytes | string | object;
  /** A sharded model's `model.safetensors.index.json`, with each shard it names in `shards`. */
  index?: FileBytes | string | object;
  shards?: Record<string, FileBytes>;
  format?: ModelFormatId;
}
/** One row of the core's family table ({@link Posenc.languageModelFamilies}). */
export interface LanguageModelFamily {
  /** As the core and llama.cpp name it ('gemma3'). */
  readonly name: string;
  /** As readers know it ('Gemma 3'). */
  readonly label: string;
  readonly hfTypes: ReadonlyArray<string>;
  readonly source: string;
  readonly gguf: boolean;
  readonly qkvBias: boolean;
  /** The family's steps (the core's Family row): q/k norm (0: none, 1: per head, 2: the whole projection), norms before
   * and after attention and MLP, embeddings times sqrt(dim), activation (0: SwiGLU, 1: GeGLU). */
  readonly qkNorm: number;
  readonly preNorms: boolean;
  readonly postNorms: boolean;
  readonly embedScale: boolean;
  readonly activation: number;
}

/** The ids of the model file formats, in the core's order ({@link MODEL_FORMATS}; tests/js/scaling-table.test.js checks it). */
// generated:model-format (scripts/registry.js writes these lines from the core's tables)
export type ModelFormatId = 'llama2c' | 'gguf' | 'safetensors';
// end:model-format
/** A model file format posenc reads (the core's list, {@link MODEL_FORMATS}). */
export interface ModelFormat {
  id: ModelFormatId;
  /** For readers: 'llama2.c checkpoint', 'GGUF', 'Hugging Face safetensors'. */
  label: string;
  shortName: string;
  /** '.bin', '.gguf', '.safetensors'. */
  extension: string;
  /** How its content is recognised, in words. */
  signature: string;
  /** What {@link Posenc.loadLanguageModel} takes beside the model for it, by its keys, comma-separated ('tokenizer'; '': nothing). */
  inputs: string;
  /** Its architecture is config.json and its tensor table JSON, which the library reads (safetensors). */
  configJson: boolean;
  /** A tokenizer given beside it is tokenizer.json, which the library reads (else the core reads the file given). */
  tokenizerJson: boolean;
}
/** The model file formats posenc reads, from the language models' module (built with the library). */
export declare const MODEL_FORMATS: readonly ModelFormat[];
/** What a loaded language model is ({@link LanguageModel.describe}): every number from the loaded model. */
export interface LanguageModelDescription {
  /** The architecture family as the core names it ('llama', 'qwen2', ...). */
  family: string;
  /** The family as readers know it ('Llama', 'Gemma 3', ...): its family table row's label. */
  familyLabel: string;
  format: ModelFormatId;
  formatLabel: string;
  /** The file's tensors by type (F32, F16, BF16, Q8_0, ...), in the core's order. */
  dtypes: { dtype: string; tensors: number }[];
  parameters: number;
  /** The bytes the loaded weights take in memory. */
  weightBytes: number;
  /** The file's context. */
  context: number;
  contextSource: 'trained' | 'file' | 'converter default';
  /** With a converter's default: the context the file's other facts point to (0: none), and what that rests on. */
  suggestedContext: number;
  suggestionReason: string;
}
/** A loaded language model ({@link Posenc.loadLanguageModel}). */
export interface LanguageModel {
  /** What the model is: family, format, tensor types, memory, and a context to suggest when the file's is a converter's default. */
  describe(): LanguageModelDescription;
  readonly config: Readonly<{
    /** The family's name in the core's family table ({@link Posenc.languageModelFamilies}). */
    arch: string; source: ModelFormatId; format: ModelFormatId;
    dim: number; hiddenDim: number; layers: number; heads: number; kvHeads: number; vocabSize: number; headDim: number;
    rotaryDim: number; ropeTheta: number; normEps: number; tiedEmbeddings: boolean; qkvBias: boolean; context: number;
    contextSource: 'trained' | 'file' | 'converter default'; layout: 'interleaved' | 'half'; parameters: number;
    /** Bytes the weights take in memory: each matrix in its file's format (Q4_K, BF16, ...), vectors as float32. */
    weightBytes: number;
  }>;
  /** The original context that scalings extend: the file's unless set (an integer in [1, 131072]). */
  context: number;
  /** Where the file's context came from; 'converter default' means it is probably not the trained context. */
  readonly contextSource: 'trained' | 'file' | 'converter default';
  /**
   * The threads its forwards run on (an integer in [1, threadsMax]; any count gives the same results): the cores, up
   * to a cap, in Node and in a cross-origin isolated page; 1 elsewhere.
   */
  threads: number;
  readonly threadsMax: number;
  /** Why the forwards run on one thread, or null when the module runs on threads. */
  readonly threadsUnavailable: null | 'not-isolated' | 'no-shared-memory' | 'no-simd' | 'given-module';
  readonly hasTokenizer: boolean;
  /** Why there is no tokenizer ('' when there is one). */
  readonly tokenizerNote: string;
  /** A GGUF's byte-level BPE tokenizer in plain words (how it splits text); '' for any other tokenizer. */
  readonly tokenizerLabel: string;
  /** Token ids of `text`, BOS first unless `bos: false`. @throws {RangeError} when the model has no tokenizer. */
  encode(text: string, options?: { bos?: boolean }): Int32Array;
  /** The text of one token. */
  piece(id: number): string;
  /**
   * One forward over 2..131072 token ids. `scaling`: an HF rope_scaling object (unset context keys take
   * {@link LanguageModel.context}), null for none, default the model's own.
   * In parts: `keep: n` returns `cache` (the keys and values of the past's rows and this forward's first n);
   * `past: cache` continues after its rows (same weights and scaling; not with stats, maps or dynamic NTK).
   */
  forward(tokens: ArrayLike<number>, options?: { scaling?: RopeScaling | null; stats?: boolean; statsLengths?: ArrayLike<number>; mapLayer?: number; mapPx?: number; keep?: number; past?: LanguageModelCache; extend?: ContextExtension | null; dynamic?: DynamicForm }): {
    /** [T-1]: nll[i] = -log p(tokens[i+1] | tokens[0..i]). */
    nll: Float32Array;
    /** [layers*heads] mean attention entropy (nats) and mass on the first token, with stats: true. */
    entropy: Float32Array | null;
    sink: Float32Array | null;
    /** With statsLengths: the same means over the first `length` query rows, for each length asked for. */
    statsByLength?: { length: number; entropy: Float32Array; sink: Float32Array }[];
    /** [heads, px, px] pooled maps of mapLayer (-1 above the diagonal) and their peaks. */
    maps: Float32Array | null;
    peaks: Float32Array | null;
    px: number;
    /** With keep: the rows a later forward's `past` continues from. */
    cache?: LanguageModelCache;
  };
  /**
   * What a second executor of the forward (the GPU forward) reads: the family's row, the per-layer rules (empty: every
   * layer alike), and every tensor the forward reads as it lies in the module's memory (float32 matrices transposed,
   * [cols, rows]; others row by row in ggml's blocks; cols 0: a vector). Each `bytes` views the module's memory:
   * copy it before anything else runs there, never write to it.
   */
  forwardInputs(): {
    family: LanguageModelFamily;
    layers: { rope: boolean; window: number; theta: number; scaled: boolean }[];
    tensors: { kind: string; layer: number; dtype: string; rows: number; cols: number; bytes: Uint8Array }[];
  };
  /** The RoPE a forward over `rows` positions with `scaling` (as forward's) rotates by: cos and sin at position p are
   * cos(p f) and sin(p f) times attentionScale, f = invFreq[i]. */
  ropeFrequencies(rows: number, scaling?: RopeScaling | null, layer?: number): { invFreq: Float64Array; attentionScale: number };
  /**
   * The same forward as {@link LanguageModel.forward}, run in chunks of at most `chunk` rows (default 256) over one cache of
   * keys and values, each step's NLL given as soon as it is computed; equal to forward's within float rounding (dynamic
   * NTK included). `kv`: the cache's type; 'auto' (default) is float32 while a float32 cache takes at most 64 MB, float16 above.
   */
  stream(tokens: ArrayLike<number>, options?: { scaling?: RopeScaling | null; stats?: boolean; statsLengths?: ArrayLike<number>; mapLayer?: number; mapPx?: number; chunk?: number; kv?: 'auto' | LanguageModelKvType; extend?: ContextExtension | null; dynamic?: DynamicForm }): LanguageModelStream;
  /** The memory a stream over `length` tokens takes at its peak, in bytes, from the core's own sizes. */
  memory(length: number, options?: { stats?: boolean; mapLayer?: number; mapPx?: number; chunk?: number; kv?: 'auto' | LanguageModelKvType }): {
    weights: number; cache: number; work: number; total: number;
    /** The cache's type the run takes. */
    kv: LanguageModelKvType;
    /** What the model's memory can still give (its maximum less what it holds now). */
    available: number;
  };
  delete(): void;
}

export type LanguageModelKvType = 'float32' | 'float16';

/** A forward in chunks ({@link LanguageModel.stream}). */
export interface LanguageModelStream {
  readonly length: number;
  readonly chunk: number;
  /** Rows run so far. */
  readonly done: number;
  /** Runs the next n rows (1..chunk): the NLL of those that predict a token, nll[i] predicting tokens[from + i + 1]. */
  step(n?: number): { from: number; nll: Float32Array };
  /** After the last row: the statistics and maps, as forward's. */
  result(): { entropy: Float32Array | null; sink: Float32Array | null; statsByLength?: { length: number; entropy: Float32Array; sink: Float32Array }[]; maps: Float32Array | null; peaks: Float32Array | null; px: number };
  delete(): void;
}

/** Keys (after RoPE) and values of a forward's first rows, [layers, kvHeads, rows, headDim] each. */
export interface LanguageModelCache {
  readonly rows: number;
  readonly k: Float32Array;
  readonly v: Float32Array;
  /** The scaling they were computed with (a forward with another refuses them). */
  readonly scaling: string;
}

/** What checkpoint bytes hold ({@link Posenc.readCheckpoint}). */
export interface CheckpointInfo {
  readonly config: ModelConfig;
  /** The longest sequence length trained on. */
  readonly trainedLength: number;
  /** Format version: 3 for float16 weights; with float32 weights 1, or 2 when a field added in version 2 differs from its default. */
  readonly version: number;
  readonly parameters: number;
  /** How the weights are stored. */
  readonly weights: 'float32' | 'float16' | 'int8';
}

/** Options of {@link Model.save}. */
export interface SaveOptions {
  /**
   * 'float16' (format version 3, half the bytes), 'int8' (version 3: each block's four matrices as int8 with a float16
   * scale per output column, the rest float16; what shipped checkpoints use) or 'float32' (the weights bit for bit).
   * @default 'float16'
   */
  weights?: 'float32' | 'float16' | 'int8';
}

/** Options of {@link Posenc.loadModel}. */
export interface LoadModelOptions {
  /** Run a 'learned' model with another out-of-table policy than the saved one. @default as saved */
  learnedPolicy?: OutOfRangePolicy;
}

/** A model's full configuration, with every default filled in ({@link Model.config}). */
export type ModelConfig = { readonly [K in keyof ModelOptions]-?: Exclude<ModelOptions[K], undefined> };

/** Options of {@link Model.trainStep}. */
export interface TrainStepOptions {
  /** Sequences in `tokens`, int [1, 4096]. @default 1 */
  batch?: number;
  /** Sequence length, int [1, 16384]. */
  length: number;
  /** Learning rate, finite in [0, 10]. @default 0.001 */
  lr?: number;
}

/** Statistics of the last {@link Model.trainStep}. */
export interface TrainStepStats {
  /** Mean cross-entropy over scored targets, before the update. */
  loss: number;
  /** Fraction of scored targets where argmax(logits) equals the target. */
  accuracy: number;
  /** Number of scored targets (not -1). */
  scored: number;
  /** Global gradient L2 norm before clipping to 1. */
  gradNorm: number;
}

/** Options of {@link Model.forward} and {@link Model.evaluate}. */
/** A training-free context extension (the core's table): {method: 'rerope', window, leak?, logn?, context?}. */
export interface ContextExtension {
  method: string;
  [parameter: string]: number | string;
}
/** Dynamic NTK as one call over the input ('call') or as generated with a cache ('cached'). */
export type DynamicForm = 'call' | 'cached';
/** A row of the core's table of context extensions. */
export interface ContextExtensionMethod {
  name: string;
  label: string;
  source: string;
  params: readonly { key: string; integer: boolean; min: number; max: number; default: number | null; optional: boolean; about: string }[];
  /** The RoPE scalings (rope_type names) the method's authors run it with. */
  scalings: readonly string[];
  /** Why the other scalings are refused. */
  refused: string;
}
export interface ForwardOptions {
  /** Sequences in `tokens`, int [1, 4096]. @default 1 */
  batch?: number;
  /** Sequence length, int [1, 16384]. */
  length: number;
  /** Return the attention maps of sequence 0 (layers·heads·length² values). @default false */
  attention?: boolean;
  /**
   * With `attention: true` (RangeError otherwise): return only this layer's maps, int
   * [0, layers-1] (heads·length² values, [heads, length, length]; equal to that layer's slice of
   * all the maps). The other layers then run as without maps, which is faster. `null`: every layer.
   */
  attentionLayer?: number | null;
  /**
   * With `attention: true`: write the maps into this array (layers·heads·length² values, or
   * heads·length² with `attentionLayer`) and
   * return it as `attention`, instead of allocating a new one per call. `null`: a new array.
   */
  attentionOut?: Float32Array | null;
  /**
   * With `attention: true` (and without `attentionOut`): pool the maps in the module to px×px
   * pictures, int [1, length], and return them as `attentionPool` instead of the maps
   * (`attention` is then null). The explorer draws these: a 512×512 map is 256 K weights, its
   * 192×192 picture 37 K. `null`: no pooling.
   */
  attentionPool?: number | null;
  /**
   * 'rope' models only (RangeError otherwise): evaluate with scaled frequencies without
   * retraining; `seqLen` is `length`, the rotary dim is rotaryDim or dModel/heads. `null`: none.
   */
  ropeScaling?: RopeScaling | null;
}

/**
 * The attention maps of sequence 0 pooled for display ({@link ForwardOptions.attentionPool}).
 * Pixel (y, x) covers query rows [i0(y), i1(y)) and keys [i0(x), i1(x)), with cell = length/px,
 * i0(y) = floor(y·cell), i1(y) = max(i0(y) + 1, floor((y + 1)·cell)).
 */
export interface AttentionPool {
  /** The pixels per side. */
  px: number;
  /**
   * [maps, px, px] (maps = layers·heads, or heads with attentionLayer): each pixel the largest
   * weight of its cell with key ≤ query, or -1 when every key of the cell lies above the diagonal.
   */
  maps: Float32Array;
  /** [maps]: per map, the mean over query rows of the row's largest weight (how sharp the head is). */
  peaks: Float32Array;
}

/** Result of {@link Model.forward}. */
export interface ForwardResult<A extends Float32Array | null = Float32Array | null> {
  /** batch·length·vocabSize logits, row-major [batch, length, vocab]. */
  logits: Float32Array;
  /** [layers, heads, length, length] attention probabilities of sequence 0 ([heads, length, length] with attentionLayer), or null. */
  attention: A;
  /** With the attentionPool option: the pooled maps (and `attention` is null); null otherwise. */
  attentionPool: AttentionPool | null;
}

/** Result of {@link Model.evaluate}. */
export interface EvaluateResult<A extends Float32Array | null = Float32Array | null> {
  /** Mean cross-entropy over scored targets (0 if none). */
  loss: number;
  /** Fraction of scored targets predicted correctly (0 if none). */
  accuracy: number;
  /** Targets that are not -1. */
  scored: number;
  /** Scored targets where argmax(logits) equals the target. */
  correct: number;
  /** As in {@link ForwardResult.attention}. */
  attention: A;
  /** As in {@link ForwardResult.attentionPool}. */
  attentionPool: AttentionPool | null;
}

/** Per position, what training did for it ({@link Model.positionStatus}). */
export type PositionStatus = 0 | 1 | 2;

/**
 * A decoder-only transformer owning wasm memory. Call {@link Model.delete} when done; a
 * model that is garbage-collected without it is freed with a one-time console warning.
 * Every method except `delete` throws a TypeError after `delete()`.
 */
export interface Model {
  /** The configuration, every default filled in (frozen). */
  readonly config: ModelConfig;
  /** Number of trainable parameters. */
  readonly numParameters: number;
  /** AdamW updates done so far. */
  readonly step: number;
  /** The longest sequence length trained on (0 before training). */
  readonly trainedLength: number;
  /** Loss, accuracy, scored count and gradient norm of the last trainStep, or null before one. */
  lastStep: TrainStepStats | null;
  /**
   * One AdamW step (gradient clipping at norm 1) on a batch. `tokens`: batch·length ints in
   * [0, vocabSize-1]; `targets`: the same count in [-1, vocabSize-1] (-1 = not scored).
   * @returns the loss before the update.
   * @throws {RangeError} wrong lengths, out-of-range ids or options.
   */
  trainStep(tokens: IntArray, targets: IntArray, options: TrainStepOptions): number;
  /**
   * Logits (and optionally attention maps) of batch·length tokens in [0, vocabSize-1].
   * @throws {RangeError} bad options or tokens; a 'learned' model with learnedPolicy
   *   'error' and length > maxLength; ropeScaling on a model that is not 'rope'.
   */
  forward(tokens: IntArray, options: ForwardOptions & { attention: true }): ForwardResult<Float32Array>;
  forward(tokens: IntArray, options: ForwardOptions & { attention?: false }): ForwardResult<null>;
  forward(tokens: IntArray, options: ForwardOptions): ForwardResult;
  /** Loss and accuracy over the scored targets (-1 = not scored). */
  evaluate(tokens: IntArray, targets: IntArray, options: ForwardOptions & { attention: true }): EvaluateResult<Float32Array>;
  evaluate(tokens: IntArray, targets: IntArray, options: ForwardOptions & { attention?: false }): EvaluateResult<null>;
  evaluate(tokens: IntArray, targets: IntArray, options: ForwardOptions): EvaluateResult;
  /**
   * For positions 0..length-1 (length int [0, 16384]): 0 trained, 1 never trained (a
   * learned row that never got a gradient), 2 past the learned table.
   */
  positionStatus(length: number): Uint8Array;
  /** A versioned checkpoint: header, config, weights and checksum. Loads natively and in wasm. */
  save(options?: SaveOptions): Uint8Array;
  /** AdamW settings used by trainStep (defaults: the experiment's, as `npm run train`). */
  readonly optimizer: Readonly<Required<OptimizerOptions>>;
  /**
   * Changes some AdamW settings; the others stay.
   * @throws {TypeError|RangeError} naming the bad setting.
   */
  setOptimizer(options: OptimizerOptions): void;
  /** Frees the model's wasm memory. Safe to call twice. */
  delete(): void;
}

// ---------------------------------------------------------------------------
// Tasks and training

/**
 * Task configuration. Vocabulary (every task): 0 PAD, 1 BOS, 2 SEP, then the `symbols`
 * task symbols from 3 (packed retrieval and kth_retrieval add one token per key-value
 * pair, kth_retrieval then one query token per (key, first|second); use `vocabSize`).
 */
export interface TaskConfig {
  /**
   * `'copy'` [BOS, x, SEP, x]; `'reverse'` [BOS, x, SEP, reversed x]; `'retrieval'`
   * key-value pairs then SEP, a query key and its value; `'markov'` a fixed sparse
   * Markov chain; `'kth_retrieval'` pairs where the query key occurs twice with two values,
   * then SEP, a query token asking for its first or second occurrence, and that value
   * (the answer depends on the order of the pairs; packed only).
   * @default 'copy'
   */
  task?: TaskName;
  /**
   * Number of task symbols, int [1, 65000]; 'retrieval' [4, 500] packed, [4, 65000]
   * unpacked; 'kth_retrieval' [4, 500]; 'markov' symbols^order <= 2^20.
   * @default 8
   */
  symbols?: number;
  /** Random content lengths per sequence (copy, reverse). @default false */
  variableLength?: boolean;
  /** 'retrieval': where the needle pair sits, 0 first to 1 last; null or unset: random. */
  depth?: number | null;
  /** 'retrieval': one token per key-value pair (true) or two. @default true */
  packed?: boolean;
  /** 'retrieval', unpacked: also score repeated keys. @default false */
  scoreRepeats?: boolean;
  /** 'markov': context length, int [1, 4]. @default 2 */
  order?: number;
  /** 'markov': next symbols per context, int [1, min(symbols, 16)]. @default 3 */
  branching?: number;
  /** 'markov': seed of the chain's table (shared by every `seed`), int [0, 2^53-1]. @default 1 */
  tableSeed?: number;
}

/** Options of {@link Posenc.createTask}. */
export interface TaskOptions extends TaskConfig {
  /** Sampling seed, int [0, 2^53-1]: same options and seed give the same batches as natively. @default 1 */
  seed?: number;
}

/** Result of {@link Posenc.taskInfo}, and part of every {@link Task}. */
export interface TaskInfo {
  /** Token ids are in [0, vocabSize-1]: pass it to createModel. */
  vocabSize: number;
  /** The shortest length `sample` accepts. */
  minLength: number;
  /** Token id of the first task symbol (after PAD 0, BOS 1, SEP 2). */
  firstSymbol: number;
}

/** Options of {@link Task.sample}. */
export interface SampleOptions {
  /** int [1, 4096]. @default 1 */
  batch?: number;
  /** int [minLength, 16384]. */
  length: number;
}

/** A batch from {@link Task.sample}. */
export interface Sample {
  /** batch·length token ids. */
  tokens: Int32Array;
  /** batch·length next-token targets, -1 where not scored. */
  targets: Int32Array;
}

/** Options of {@link Task.oracle}: a batch as {@link Task.sample} returns it, and its shape. */
export interface OracleOptions extends SampleOptions {
  /** batch·length token ids in [0, vocabSize-1]. */
  tokens: IntArray;
  /** batch·length targets in [-1, vocabSize-1] (-1 = not scored). */
  targets: IntArray;
}

/** Result of {@link Task.oracle}. */
export interface TaskOracle {
  /** Mean over scored targets of the true next-token distribution's entropy (nats). */
  loss: number;
  /** Mean over scored targets of its largest probability (1 when there are none). */
  accuracy: number;
  /** Scored targets. */
  scored: number;
}

/** A seeded batch generator. Call {@link Task.delete} when done (forgotten ones are freed by GC). */
export interface Task extends TaskInfo {
  /** The task name, with the default filled in. */
  task: TaskName;
  /**
   * A fresh batch.
   * @throws {TypeError} after delete().
   */
  sample(options: SampleOptions): Sample;
  /**
   * The ideal predictor (C++ TaskGenerator::oracle) on a batch, e.g. `task.oracle({...task.sample(o), ...o})`.
   * Copy, reverse and the retrievals: loss 0, accuracy 1. Markov: the mean entropy of the chain's
   * next-symbol distribution and the mean of its largest probability over the scored targets.
   * @throws {TypeError} after delete(); {TypeError|RangeError} naming a bad option or array element
   *   (markov: a scored position whose `order` context is not all task symbols).
   */
  oracle(options: OracleOptions): TaskOracle;
  /** Frees the generator. Safe to call twice. */
  delete(): void;
}

/** Progress reported by {@link Posenc.train}. */
export interface TrainProgress {
  /** Steps done (1-based). */
  step: number;
  /** Steps asked for. */
  steps: number;
  /** Loss of this step. */
  loss: number;
  /** Training accuracy of this step's batch. */
  accuracy: number;
  /** Seconds since train() started. */
  seconds: number;
  /** The latest held-out check of `stop` (null before the first one, or without `stop`). */
  heldOut: HeldOutCheck | null;
}

/**
 * {@link TrainOptions.stop}: an early stop on a held-out batch, as `npm run train` does. `stop.batch`
 * full-length sequences (the training task's options with variableLength: false, seed `stop.seed`) are
 * drawn once and scored with model.evaluate every `every` steps and after the last step; training stops
 * at the first check that meets the rule. Give exactly one of `accuracy` and `lossAboveOracle`.
 */
export interface StopOptions {
  /** Steps between checks, int [1, 10^7]. @default 100 */
  every?: number;
  /** Held-out sequences, int [1, 4096]. @default 64 */
  batch?: number;
  /** Seed of the held-out batch, int [0, 2^53-1], different from the training `seed`. */
  seed: number;
  /** Stop once the held-out accuracy is >= this, finite in [0, 1]. */
  accuracy?: number;
  /** Stop once the held-out loss is <= the task oracle's loss on that batch + this (nats), finite in [0, 1000]. */
  lossAboveOracle?: number;
}

/** One held-out check of {@link TrainOptions.stop}. */
export interface HeldOutCheck {
  /** The step after which it ran (1-based). */
  step: number;
  /** The model's mean loss on the held-out batch. */
  loss: number;
  /** Its accuracy there. */
  accuracy: number;
  /** The task oracle's loss on that batch (with `lossAboveOracle`; else null). */
  oracleLoss: number | null;
  /** Whether it meets the stop rule. */
  met: boolean;
}

/** Options of {@link Posenc.train}: a task configuration plus the loop's settings. */
export interface TrainOptions extends TaskOptions {
  /** int [1, 10^7]. @default 500 */
  steps?: number;
  /** int [1, 4096]. @default 16 */
  batch?: number;
  /** Sequence length, int [1, 16384] (and >= the task's minLength). @default model.config.maxLength */
  length?: number;
  /** Peak learning rate, finite in [0, 10]. @default 0.006 */
  lr?: number;
  /** Final learning rate of the cosine decay, finite in [0, lr]. @default lr / 10 */
  minLr?: number;
  /** Linear warmup steps, int [0, steps]. @default Math.min(250, Math.floor(steps / 10)) */
  warmup?: number;
  /** Called every `progressEvery` steps and after the last one. */
  onProgress?: (progress: TrainProgress) => void;
  /** int [1, 10^7]. @default 10 */
  progressEvery?: number;
  /** Cancels between steps; the result then has `stopped: true`. */
  signal?: AbortSignal;
  /**
   * Stop as soon as one training batch's accuracy reaches this, finite in [0, 1]. Kept for older callers:
   * prefer `stop`, which scores a held-out batch of full-length sequences as the experiment does.
   */
  targetAccuracy?: number;
  /** Early stop on a held-out batch (the experiment's rule). */
  stop?: StopOptions;
}

/** AdamW settings ({@link OPTIMIZER_SCHEMA}); {@link TrainOptions} takes them too. */
export interface OptimizerOptions {
  /** [0, 1). @default 0.9 */
  beta1?: number;
  /** [0, 1). @default 0.95 (float32), the experiment's */
  beta2?: number;
  /** > 0. @default 1e-8 (float32) */
  eps?: number;
  /** Decoupled, matmul weights only; >= 0. @default 0.1 (float32) */
  weightDecay?: number;
  /** Global gradient-norm clip; <= 0 disables. @default 1 */
  gradClip?: number;
}
export interface TrainOptions extends OptimizerOptions {}
/** One AdamW setting's range and default (C++ posenc::optimizer_fields()). */
export interface OptimizerField {
  readonly name: keyof OptimizerOptions;
  readonly min: number;
  readonly max: number;
  readonly minExclusive: boolean;
  readonly maxExclusive: boolean;
  readonly default: number;
}
export declare const OPTIMIZER_SCHEMA: readonly OptimizerField[];
export declare const OPTIMIZER_KEYS: readonly (keyof OptimizerOptions)[];

/** Result of {@link Posenc.train}. */
export interface TrainResult {
  /** Steps done. */
  steps: number;
  /** Loss of the last step (NaN if no step ran). */
  loss: number;
  /** Accuracy of the last step (NaN if no step ran). */
  accuracy: number;
  /** Wall time. */
  seconds: number;
  /** Whether `signal` cancelled it. */
  stopped: boolean;
  /** The step at which a held-out check met `stop` (null if none did, or without `stop`). */
  stepsToTarget: number | null;
  /** The last held-out check (null without `stop`, or before the first check). */
  heldOut: HeldOutCheck | null;
}

// ---------------------------------------------------------------------------
// The API object

/** What {@link loadPosenc} resolves to (frozen). */
export interface Posenc {
  /** Which build is running. */
  readonly build: Build;
  /** The SIMD instruction set the kernels were compiled for (e.g. `'sse4.1'` = wasm SIMD128, or `'scalar'`). */
  readonly simdArch: string;
  /** Bytes currently allocated in the wasm heaps (for leak checks): the page module's, plus the language models' once loaded. */
  heapBytes(): number;
  /** Size of the wasm memories in bytes (the same two). */
  memoryBytes(): number;

  /**
   * The sinusoidal table of Vaswani et al.
   * @returns Float32Array(length·dim), row-major [position, dim].
   * @throws {TypeError|RangeError} naming the bad option.
   */
  sinusoidal(options: SinusoidalOptions): Float32Array;
  /**
   * RoPE inverse frequencies for an HF `rope_scaling` block, as HF computes them
   * (in float64).
   * @throws {TypeError|RangeError} naming the bad option or scaling key.
   */
  ropeFrequencies(options: RopeFrequenciesOptions): RopeFrequencies;
  /**
   * A whole HF `config.json` (object or JSON text; `text_config` is read when present) or
   * llama.cpp GGUF metadata (`llama.rope.freq_base`, ...): the RoPE of each layer type,
   * computed as HF (or llama.cpp) does. Hostile input (huge, deep, `__proto__`, non-finite)
   * is a RangeError/TypeError naming the key.
   */
  ropeFromConfig(config: object | string, options?: RopeFromConfigOptions): RopeFromConfigResult;
  /**
   * Rotates `x` (length·dim values, row-major) by RoPE; the input is not modified.
   * @returns a new Float32Array(length·dim).
   * @throws {TypeError|RangeError} naming the bad option; RangeError when x times the
   *   attention scale overflows float32.
   */
  applyRope(x: FloatArray, options: ApplyRopeOptions): Float32Array;
  /**
   * ALiBi slopes of Press et al. (geometric; interpolated for non-powers of two, as in the reference).
   * @param heads int [1, 4096].
   */
  alibiSlopes(heads: number): Float32Array;
  /**
   * ALiBi biases: causal `-m_h·(i - j)` for keys j <= i and -Infinity after; otherwise `-m_h·|i - j|`.
   * @returns Float32Array(heads·queryLength·keyLength), row-major [head, query, key].
   */
  alibiBias(options: AlibiBiasOptions): Float32Array;
  /**
   * T5 relative position buckets (HF `_relative_position_bucket`).
   * @param relative `key_pos - query_pos`: one integer or many, each in [-(2^31-1), 2^31-1].
   * @returns an Int32Array with one bucket per input (length 1 for a single number).
   */
  t5Bucket(relative: number | IntArray, options?: T5BucketOptions): Int32Array;
  /**
   * Shaw et al. relative indices `clip(j - i, -k, k) + k`.
   * @returns Int32Array(queryLength·keyLength), values in [0, 2k].
   */
  shawIndex(options: ShawIndexOptions): Int32Array;
  /**
   * Rows of a learned position table. Never extrapolates silently: past the table is an
   * error unless `outOfRange` says otherwise.
   * @param table rows·dim finite values.
   * @returns Float32Array(positions.length·dim).
   */
  learnedLookup(table: FloatArray, options: LearnedLookupOptions): Float32Array;
  /**
   * One head's attention probabilities: softmax(scale·QKᵀ - slope·|i - j| + bias), masked
   * above the diagonal when causal.
   * @param q queryLength·dim finite values.
   * @param k keyLength·dim finite values.
   * @returns Float32Array(queryLength·keyLength); each row sums to 1.
   * @throws {TypeError|RangeError} naming the bad option; RangeError when scale·q·k plus the
   *   bias overflows float32 (never a NaN result).
   */
  attention(q: FloatArray, k: FloatArray, options: AttentionOptions): Float32Array;

  /**
   * A new model initialised from `seed`.
   * @throws {TypeError|RangeError} naming the bad option (ranges that depend on other
   *   options, e.g. heads dividing dModel, are checked too).
   */
  createModel(options: ModelOptions): Model;
  /**
   * A model from a checkpoint made by {@link Model.save} (native or wasm).
   * @throws {TypeError} `bytes` is not a Uint8Array or ArrayBuffer.
   * @throws {RangeError} truncated, corrupted or wrong-version checkpoint (the message says which).
   */
  loadModel(bytes: Uint8Array | ArrayBuffer, options?: LoadModelOptions): Model;
  /**
   * What checkpoint bytes hold, with every check {@link Posenc.loadModel} makes, without building the model.
   * @throws {TypeError} `bytes` is not a Uint8Array or ArrayBuffer.
   * @throws {RangeError} truncated, corrupted or wrong-version checkpoint (the message says which).
   */
  readCheckpoint(bytes: Uint8Array | ArrayBuffer): CheckpointInfo;
  /** The module's encoding registry (the same entries as {@link ENCODING_INFO}). */
  readonly encodings: readonly EncodingInfo[];
  /**
   * A real, trained language model (a family of {@link Posenc.languageModelFamilies}) from the bytes of its files, for its loss by
   * position and attention past its context, with any HF RoPE scaling. The language models run in a wasm module
   * of their own, fetched and instantiated by the first call ({@link LoadOptions.lmWasmUrl}); an HF tokenizer's
   * code is imported when a tokenizer.json is given. Call {@link LanguageModel.delete} when done.
   * @throws {TypeError|RangeError} naming the file and the problem (truncated, lying sizes, an unsupported
   *   dtype or architecture by name, NaN weights); nothing is left allocated. A RangeError from `posenc/single`,
   *   which has no language-model module.
   * @throws {Error} the language models' `.wasm` could not be fetched or instantiated (the message has the URL);
   *   the next call tries again.
   */
  loadLanguageModel(files: LanguageModelFiles): Promise<LanguageModel>;
  /**
   * The model families {@link Posenc.loadLanguageModel} runs, one row each of the core's family table: its name,
   * the config.json model_type values it reads, the HF modeling code it follows, whether llama.cpp's GGUF files of
   * it load, and whether its q/k/v projections have biases. Loads the language models' module on the first call.
   */
  languageModelFamilies(): Promise<ReadonlyArray<LanguageModelFamily>>;
  /**
   * A model file's format from its content (GGUF by its magic, safetensors by its header, llama2.c by a header that
   * describes a model); loads the language models' module on the first call.
   * @throws {RangeError} the file is none of them: the message names what it starts with.
   */
  detectModelFormat(bytes: Uint8Array | ArrayBuffer): Promise<ModelFormatId>;
  /** The model file formats (as {@link MODEL_FORMATS}, from the loaded module). */
  modelFormats(): Promise<readonly ModelFormat[]>;
  /** The training-free context extensions a forward's `extend` takes and dynamic NTK's forms, from the core's table. */
  contextExtensions(): Promise<{ methods: readonly ContextExtensionMethod[]; dynamicForms: readonly { name: DynamicForm; label: string }[] }>;
  /** A seeded batch generator. */
  createTask(options?: TaskOptions): Task;
  /**
   * `vocabSize`, `minLength` and `firstSymbol` of a task configuration, without creating a generator
   * (`seed` is accepted, so createTask's options can be passed as they are).
   */
  taskInfo(options?: TaskOptions): TaskInfo;
  /**
   * Trains `model` on a task with warmup + cosine decay, yielding to the event loop about
   * every 50 ms. Options are checked before the first step (the promise rejects).
   */
  train(model: Model, options?: TrainOptions): Promise<TrainResult>;
  /**
   * The learning rate train() uses at `step` (0-based) of `total`: linear warmup over
   * `warmup` steps to `maxLr`, then cosine decay to `minLr` at `total`, `minLr` after.
   * `step` and `warmup` are integers >= 0, `total` an integer >= 1, 0 <= minLr <= maxLr.
   * @throws {TypeError|RangeError} naming the bad argument.
   */
  lrAt(step: number, total: number, warmup: number, maxLr: number, minLr: number): number;
}
