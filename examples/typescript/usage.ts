// Every part of the posenc API, used from TypeScript as an application would.
// tsc checks it against types/ (tsconfig.json here maps 'posenc' there), and
// tests/js/types.test.js also compiles it to JavaScript and runs it in Node
// against the library, so the types and the runtime are checked together.
import {
  loadPosenc,
  simdSupported,
  ENCODINGS,
  TASKS,
  ROPE_TYPES,
  type Encoding,
  type LoadOptions,
  type Model,
  type Posenc,
  type RopeScaling,
  type TrainProgress,
} from 'posenc';

// The default finds the .wasm next to the module; explorer.ts shows locateFile / wasmUrl.
const options: LoadOptions = { build: simdSupported() ? 'simd' : 'scalar' };
const pe: Posenc = await loadPosenc(options);
console.log(`posenc ${pe.build} build (${pe.simdArch}), ${pe.memoryBytes()} bytes of wasm memory`);

// --- encodings -------------------------------------------------------------

const table: Float32Array = pe.sinusoidal({ length: 128, dim: 64, layout: 'concat', spacing: 'tensor2tensor' });
console.log(`sinusoid row 1, first value ${table[64]!.toFixed(4)}`);

// rope_scaling blocks as they stand in real config.json files, and the camelCase spelling.
const scalings: Record<string, RopeScaling> = {
  llama31: { rope_type: 'llama3', factor: 8, low_freq_factor: 1, high_freq_factor: 4, original_max_position_embeddings: 8192 },
  qwenYarn: { type: 'yarn', factor: 4, original_max_position_embeddings: 32768 },
  deepseek: { rope_type: 'yarn', factor: 40, beta_fast: 32, beta_slow: 1, mscale: 1, mscale_all_dim: 1,
    original_max_position_embeddings: 4096 },
  camelYarn: { ropeType: 'yarn', factor: 4, originalMaxPositionEmbeddings: 4096, truncate: false },
  dynamic: { rope_type: 'dynamic', factor: 2, max_position_embeddings: 2048 },
  linear: { ropeType: 'linear', factor: 4 },
  phi3: { rope_type: 'longrope', long_factor: new Array(32).fill(1.5), short_factor: new Float64Array(32).fill(1),
    original_max_position_embeddings: 4096, max_position_embeddings: 131072 },
  none: {},
};
for (const [name, scaling] of Object.entries(scalings)) {
  const { invFreq, invFreq64, attentionScale } = pe.ropeFrequencies({ dim: 64, base: 500000, scaling, seqLen: 8192 });
  console.log(`${name}: invFreq[31] = ${invFreq[31]!.toExponential(3)} (${invFreq64.length} values), attentionScale ${attentionScale.toFixed(4)}`);
}

const length = 4, dim = 64;
const x = Float32Array.from({ length: length * dim }, (_, i) => Math.sin(i));
const rotated = pe.applyRope(x, {
  length, dim, layout: 'half', positions: Int32Array.of(0, 1, 1000, 1000000), rotaryDim: 32,
  scaling: scalings.linear, seqLen: 1000001,
});
console.log(`rotated ${rotated.length} values`);

const slopes = pe.alibiSlopes(8);
const bias = pe.alibiBias({ heads: 8, queryLength: 4, keyLength: 16, causal: true });
const buckets: Int32Array = pe.t5Bucket([-3, 0, 3, 200], { bidirectional: false, numBuckets: 32, maxDistance: 128 });
const one = pe.t5Bucket(-7);
const shaw = pe.shawIndex({ queryLength: 4, keyLength: 4, maxDistance: 2 });
const learned = pe.learnedLookup(new Float32Array(8 * 4).fill(0.5), { rows: 8, dim: 4, positions: [0, 7, 9], outOfRange: 'clamp' });
const probs = pe.attention(x.subarray(0, 4 * 16), x.subarray(0, 4 * 16), {
  queryLength: 4, dim: 16, alibiSlope: slopes[0]!, bias: new Float32Array(16), scale: 0.25,
});
console.log(`slopes ${slopes.length}, bias ${bias.length}, buckets ${buckets.join(',')} and ${one[0]}, shaw ${shaw.length}, ` +
  `learned ${learned.length}, attention row 3 sums to ${probs.subarray(12).reduce((a, b) => a + b, 0).toFixed(5)}`);

try {
  pe.applyRope(x, { length, dim: 7 });
} catch (e) {
  if (!(e instanceof RangeError)) throw e;
  console.log(`bad input: ${e.message}`);
}

// --- the tiny transformer --------------------------------------------------

const info = pe.taskInfo({ task: 'copy', symbols: 8 });
const encodings: readonly Encoding[] = ENCODINGS.filter((e) => e !== 'learned');
const models = new Map<Encoding, Model>();
for (const encoding of encodings.slice(0, 2)) {
  models.set(encoding, pe.createModel({ encoding, vocabSize: info.vocabSize, maxLength: 16, dModel: 32, heads: 2, layers: 1, seed: 7 }));
}

const controller = new AbortController();
const progress: TrainProgress[] = [];
for (const [encoding, model] of models) {
  const result = await pe.train(model, {
    task: TASKS[0], symbols: 8, steps: 6, batch: 4, length: 16, lr: 3e-3, warmup: 2, progressEvery: 3, seed: 3,
    signal: controller.signal, onProgress: (p) => progress.push(p),
  });
  console.log(`${encoding}: ${result.steps} steps, loss ${result.loss.toFixed(3)}, stopped ${result.stopped}, ` +
    `lr at step 3 ${pe.lrAt(3, 6, 2, 3e-3, 3e-4).toExponential(2)}`);
}
console.log(`${progress.length} progress reports`);

const task = pe.createTask({ task: 'copy', symbols: 8, seed: 5, variableLength: true });
const { tokens, targets } = task.sample({ batch: 2, length: 32 });
task.delete();

const model = models.get(encodings[0]!)!;
const step = model.trainStep(tokens, targets, { batch: 2, length: 32, lr: 1e-3 });
console.log(`trainStep loss ${step.toFixed(3)}, gradNorm ${model.lastStep?.gradNorm.toFixed(3)}, step ${model.step}, ` +
  `trained to ${model.trainedLength} of ${model.config.maxLength}, ${model.numParameters} parameters`);

const single = tokens.subarray(0, 32);
const { logits, attention } = model.forward(single, { length: 32, attention: true });
// With attention: true the maps are never null: no check needed.
const { layers, heads } = model.config;
console.log(`logits ${logits.length}, attention ${attention.length} = ${layers}x${heads}x32x32`);
const plain = model.forward(single, { length: 32 });
if (plain.attention !== null) throw new Error('attention maps without asking');

const rope = models.get('rope') ?? pe.createModel({ encoding: 'rope', vocabSize: info.vocabSize });
const scaled = rope.evaluate(tokens, targets, { batch: 2, length: 32, ropeScaling: { rope_type: 'linear', factor: 2 } });
console.log(`evaluated with PI: accuracy ${scaled.accuracy.toFixed(3)} over ${scaled.scored} targets, ${scaled.correct} correct`);

const status = model.positionStatus(32);
console.log(`position status at 31: ${status[31]} (1 = never trained)`);

const bytes: Uint8Array = model.save();
const again = pe.loadModel(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer);
console.log(`checkpoint ${bytes.length} bytes, reloaded ${again.config.encoding} at step ${again.step}`);
for (const m of [again, rope, ...models.values()]) m.delete();

console.log(`ROPE_TYPES: ${ROPE_TYPES.join(', ')}; heap in use ${pe.heapBytes()} bytes`);
