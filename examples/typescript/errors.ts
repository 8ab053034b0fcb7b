// Calls the library rejects at run time must not type-check either. Each
// `@ts-expect-error` fails the tsc run if its line stops being an error, so
// this file fails when the declarations become too loose.
import { loadPosenc, ENCODINGS, type Encoding, type RopeScaling } from 'posenc';
import 'posenc/explorer';

const pe = await loadPosenc();
const x = new Float32Array(8);

// @ts-expect-error build must be 'auto', 'simd' or 'scalar'
await loadPosenc({ build: 'threads' });
// @ts-expect-error wasmBinary is bytes, not a URL
await loadPosenc({ wasmBinary: 'posenc-simd.wasm' });

// @ts-expect-error dim is required
pe.sinusoidal({ length: 4 });
// @ts-expect-error layout 'half' is RoPE's; the sinusoid has 'interleaved' | 'concat'
pe.sinusoidal({ length: 4, dim: 8, layout: 'half' });
// @ts-expect-error an unknown option (a RangeError at run time)
pe.sinusoidal({ length: 4, dim: 8, offset: 3 });

// @ts-expect-error rotaryDim, not rotary_dim
pe.applyRope(x, { length: 1, dim: 8, rotary_dim: 4 });
// @ts-expect-error layout 'concat' is the sinusoid's
pe.applyRope(x, { length: 1, dim: 8, layout: 'concat' });
// @ts-expect-error x must be numbers
pe.applyRope(['1', '2'], { length: 1, dim: 2 });
// @ts-expect-error positions are integers, not strings
pe.applyRope(x, { length: 1, dim: 8, positions: ['0'] });

// @ts-expect-error linear scaling needs a factor
const noFactor: RopeScaling = { rope_type: 'linear' };
// @ts-expect-error llama3 needs high_freq_factor too
const noHigh: RopeScaling = { rope_type: 'llama3', factor: 8, low_freq_factor: 1 };
// @ts-expect-error dynamic needs max_position_embeddings
const noMax: RopeScaling = { rope_type: 'dynamic', factor: 2 };
// @ts-expect-error longrope needs short_factor as well
const noShort: RopeScaling = { rope_type: 'longrope', long_factor: [1, 2] };
// @ts-expect-error not a supported rope_type
const su: RopeScaling = { rope_type: 'su', factor: 2 };
// @ts-expect-error factor is a number, not a string
const stringy: RopeScaling = { ropeType: 'linear', factor: '4' };
// @ts-expect-error a typo of beta_fast
const typo: RopeScaling = { rope_type: 'yarn', factor: 4, beta_fats: 32 };
// @ts-expect-error truncate is a boolean
const truncate: RopeScaling = { rope_type: 'yarn', factor: 4, truncate: 1 };
// @ts-expect-error no factor for the default type (it would be ignored)
const ignored: RopeScaling = { rope_type: 'default', factor: 4 };
// @ts-expect-error camelCase keys go with ropeType
const mixed: RopeScaling = { ropeType: 'yarn', factor: 4, original_max_position_embeddings: 4096 };
console.log(noFactor, noHigh, noMax, noShort, su, stringy, typo, truncate, ignored, mixed);

// @ts-expect-error heads is a number
pe.alibiSlopes('8');
// @ts-expect-error causal is a boolean
pe.alibiBias({ heads: 2, queryLength: 4, causal: 1 });
// @ts-expect-error maxDistance is required
pe.shawIndex({ queryLength: 4 });
// @ts-expect-error relative positions are numbers
pe.t5Bucket('3');
// @ts-expect-error outOfRange 'extrapolate' does not exist
pe.learnedLookup(x, { rows: 2, dim: 4, positions: [0], outOfRange: 'extrapolate' });
// @ts-expect-error dim is required
pe.attention(x, x, { queryLength: 2 });

// @ts-expect-error vocabSize is required
pe.createModel({ encoding: 'rope' });
// @ts-expect-error not an encoding
pe.createModel({ encoding: 'kerple', vocabSize: 11 });
// @ts-expect-error ropeLayout is 'interleaved' | 'half'
pe.createModel({ vocabSize: 11, ropeLayout: 'concat' });
const model = pe.createModel({ vocabSize: 11 });
// @ts-expect-error length is required
model.forward(new Int32Array(4), { batch: 1 });
// @ts-expect-error without attention: true the maps may be null
const maps: Float32Array = model.forward(new Int32Array(4), { length: 4 }).attention;
// @ts-expect-error config is read-only
model.config.layers = 3;
// @ts-expect-error step is read-only
model.step = 0;
// @ts-expect-error loadModel takes bytes
pe.loadModel('model.ckpt');
console.log(maps);

// @ts-expect-error not a task
pe.createTask({ task: 'sort' });
const task = pe.createTask();
// @ts-expect-error sample needs a length
task.sample({ batch: 2 });
// @ts-expect-error onProgress is a function
await pe.train(model, { steps: 10, onProgress: true });
// @ts-expect-error signal is an AbortSignal, not a controller
await pe.train(model, { signal: new AbortController() });

// @ts-expect-error the constants are read-only
ENCODINGS.push('kerple');
// @ts-expect-error 'kerple' is not an Encoding
const notEncoding: Encoding = 'kerple';
console.log(notEncoding);

const el = document.createElement('posenc-explorer');
// @ts-expect-error train-length is one of 16, 32, 64, 128
el.trainLength = 100;
// @ts-expect-error encodings is a list of Encoding
el.encodings = ['rope', 'kerple'];
// @ts-expect-error view is 'sweep' | 'maps' | 'curves'
el.view = 'grid';
// @ts-expect-error search is read-only
el.search = '?x=1';
