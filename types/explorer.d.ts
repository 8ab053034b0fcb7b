// Hand-written declarations for 'posenc/explorer': the <posenc-explorer> element.
//
//   import 'posenc/explorer';
//   const el = document.createElement('posenc-explorer'); // typed as PosencExplorer
//   el.encodings = ['rope', 'alibi'];
//
// Importing the module registers the element (once). Attributes mirror the explorer
// page's URL state (web/app/shared/state.js) in kebab-case; each property below reflects the
// attribute of the same name in kebab-case (`trainLength` <-> `train-length`). Reading
// gives the validated value (the default when the attribute is absent or not allowed:
// a bad attribute value falls back to its default with a console warning naming the
// allowed values); setting writes the attribute.
import type { Encoding, LoadOptions, TaskName } from './posenc.js';

/** RoPE scalings the element can apply to the trained RoPE model ('none': as trained). */
// generated:explorer-scaling (scripts/registry.js writes these lines from the core's tables)
export type ExplorerRopeScaling = 'none' | 'linear' | 'dynamic' | 'yarn' | 'llama3';
// end:explorer-scaling
/**
 * `'sweep'`: attention maps and accuracy/loss curves; `'maps'` or `'curves'` alone; `'model'`: a language model
 * (attribute `model-url`) past its context, with five RoPE scalings.
 */
export type ExplorerView = 'sweep' | 'maps' | 'curves' | 'model';

/** One computed point of the length sweep ({@link PosencExplorer.results}). */
export interface SweepPoint {
  /** Sequence length of this point. */
  length: number;
  /** Mean loss over the scored targets at this length. */
  loss: number;
  /** Accuracy over the scored targets at this length. */
  accuracy: number;
  /** The longest length the model was trained on. */
  trainedLength: number;
}

/** Page-wide settings of every <posenc-explorer> ({@link configure}). */
export interface ExplorerSettings {
  /** Passed to loadPosenc (e.g. `wasmUrl` when the .wasm is served from elsewhere). */
  loadOptions?: LoadOptions;
  /** Run the sweep in a Worker: `'auto'` (default) uses one unless the page is a file:// page. */
  workers?: 'auto' | boolean;
  /** Where shipped checkpoints come from (default: `checkpoints/` next to the module). */
  checkpoints?: {
    /** File names of the available checkpoints (`<task>-<encoding>.ckpt`). */
    list: () => Promise<string[]>;
    /** The bytes of one checkpoint, or null when it cannot be had. */
    load: (file: string) => Promise<Uint8Array | null>;
  } | null;
  /**
   * The full explorer's URL (relative to the page) for an "open in the explorer" link carrying the
   * element's state, e.g. where you host dist/app/ of the package. Default null: no link (nothing is probed).
   */
  explorerUrl?: string | URL | null;
}

/**
 * Changes the shared settings. Call it before the first element starts (before one is
 * scrolled into view).
 * @throws {Error} when an element has already started.
 */
export declare function configure(options?: ExplorerSettings): void;

/**
 * A checkpoint source for {@link configure}: lists `index.json` and fetches the files from the
 * directory `base` (default: the `checkpoints/` shipped next to the module).
 */
export declare function fetchCheckpoints(base?: string | URL): {
  list: () => Promise<string[]>;
  load: (file: string) => Promise<Uint8Array | null>;
};

/**
 * `<posenc-explorer>`: the explorer's length sweep as one embeddable element, with its
 * styles in its shadow DOM. Every element on a page shares one wasm module. An element
 * starts work only when scrolled into view, and pauses when off screen or when the tab
 * is hidden.
 *
 * @example
 * <script type="module" src="https://unpkg.com/posenc/dist/explorer.js"></script>
 * <posenc-explorer encodings="rope,alibi,learned" train-length="64" max-length="512" view="sweep" autoplay></posenc-explorer>
 */
export declare class PosencExplorer extends HTMLElement {
  /** The attributes the element watches (kebab-case names of the properties below). */
  static readonly observedAttributes: string[];

  // --- the experiment (changing one retrains or reloads the models) ---
  /** `task`. @default 'copy' */
  task: TaskName;
  /** `seed`, int [0, 999999]. @default 1 */
  seed: number;
  /** `train-length`: the length the models are trained at. @default 32 */
  trainLength: 16 | 32 | 64 | 128;
  /** `layers`, int [1, 4]. @default 2 */
  layers: number;
  /** `heads`. @default 4 */
  heads: 1 | 2 | 4 | 8;
  /** `d-model` (32: the shipped checkpoints' width). @default 32 */
  dModel: 32 | 64 | 128;
  /**
   * `steps`: the training budget when no checkpoint matches, int [20, 5000] (the cosine schedule spans it;
   * training stops early once the experiment's held-out check meets the task's target). @default the experiment's (5000)
   */
  steps: number;
  /** `encodings`: one row per encoding (attribute: a comma-separated list). @default every encoding */
  encodings: Encoding[];

  // --- the sweep ---
  /** `sweep-factor`: the sweep ends at trainLength × sweepFactor. @default 16 */
  sweepFactor: 2 | 4 | 8 | 16;
  /**
   * `max-length`: where the sweep ends (sets `sweepFactor`; must be trainLength times one
   * of its values). Reads as trainLength × sweepFactor.
   */
  maxLength: number;
  /** `length`: the sequence length shown, int [4, 2048], clamped to maxLength. @default trainLength */
  length: number;
  /** `layer` whose attention is drawn, numbered from 1 as the page writes it, int [0, 4] (clamped to layers); 0: auto, each model's own layer and head that best mark the correct key. @default 0 */
  layer: number;
  /** `head` drawn, numbered from 1, int [0, 8]; 0 draws every head as small multiples (ignored when layer is 0). @default 0 */
  head: number;
  /** `speed` of the sweep animation. @default 1 */
  speed: 0.25 | 0.5 | 1 | 2 | 4;
  /** `play`: whether the sweep animates (defaults to the `autoplay` attribute). */
  play: boolean;
  /** `autoplay` (boolean attribute): start playing once in view. */
  autoplay: boolean;

  // --- RoPE scaling applied to the trained RoPE model ---
  /** `rope-scaling`. @default 'none' */
  ropeScaling: ExplorerRopeScaling;
  /** `factor`, [1, 32]. @default 4 */
  factor: number;
  /** `beta-fast` (yarn), [1, 64]. @default 32 */
  betaFast: number;
  /** `beta-slow` (yarn), [0.25, 8]. @default 1 */
  betaSlow: number;
  /** `low-freq` (llama3 low_freq_factor), [0.25, 8]. @default 1 */
  lowFreq: number;
  /** `high-freq` (llama3 high_freq_factor), [0.5, 16]. @default 4 */
  highFreq: number;

  // --- presentation ---
  /** `view`. @default 'sweep' */
  view: ExplorerView;
  /** `controls`: `'none'` (or `'0'`, `'false'`) hides the play button and length slider. */
  controls: string;
  /** `compact` (boolean attribute): hides the explanatory text. */
  compact: boolean;
  /** `theme`: `'auto'` follows prefers-color-scheme. @default 'auto' */
  theme: 'auto' | 'light' | 'dark';

  /** The element's state as a query string for the full explorer page (`?encodings=…`). */
  readonly search: string;
  /** Sweep points computed so far, per shown encoding. */
  results(): Partial<Record<Encoding, SweepPoint[]>>;
}

declare global {
  interface HTMLElementTagNameMap {
    'posenc-explorer': PosencExplorer;
  }
}
