// <posenc-explorer>: the explorer's length sweep as one embeddable element.
//
//   <script type="module" src="https://…/posenc/dist/explorer.js"></script>
//   <posenc-explorer encodings="rope,alibi,learned" train-length="32" max-length="256" autoplay></posenc-explorer>
//
// Attributes mirror the explorer's URL state (web/app/shared/state.js) in kebab case
// (train-length, sweep-factor, d-model, rope-scaling, …) and are validated by
// the same schema: a bad value falls back to its default with a console
// warning naming the allowed range. Extra attributes: max-length (sets the
// sweep factor), autoplay, controls="none", view="sweep|maps|curves", compact.
//
// Every element on a page shares one wasm module (engine.js). An element does
// nothing until it is scrolled into view, and its animation pauses while it
// is off screen or the tab is hidden.
import { readState, rejected, fixUp, toSearch, kebab, SCHEMA } from '../app/shared/state.js';
import { createTimeline } from '../app/lab/timeline.js';
import { bindLengthSlider } from '../app/shared/length-axis.js';
import { createSweepView } from '../app/lab/sweep-view.js';
import { createController, experimentChanged, lengthLabel, sourceLabel } from '../app/lab/controller.js';
import { NAMES, taskName } from '../app/shared/meta.js';
import { createArrivals, createWake } from '../app/lab/arrivals.js';
import { sharedApi, sharedLoadOptions, sweepPool, checkpointSource, explorerLink, onNotice } from './engine.js';
import { CSS } from './styles.js';

export { configure } from './engine.js';
/** A checkpoint source fetching `index.json` and the files from a directory URL, for configure({ checkpoints }). */
export { fetchCheckpoints } from '../app/lab/trainer.js';

const STATE_ATTRIBUTES = Object.fromEntries(Object.keys(SCHEMA).map((key) => [kebab(key), key]));

let nextId = 0;
let sheet = null;

/** One constructed stylesheet shared by every element (no inline <style>, which a strict style-src forbids). */
function adoptStyles(root) {
  if ('adoptedStyleSheets' in root && typeof CSSStyleSheet === 'function' && 'replaceSync' in CSSStyleSheet.prototype) {
    if (!sheet) {
      sheet = new CSSStyleSheet();
      sheet.replaceSync(CSS);
    }
    root.adoptedStyleSheets = [sheet];
  } else {
    const style = document.createElement('style');
    style.textContent = CSS;
    root.prepend(style);
  }
}

/** The state an element's attributes describe, plus messages for the attributes that were not accepted. */
export function stateFromAttributes(el) {
  const params = new URLSearchParams();
  for (const [attr, key] of Object.entries(STATE_ATTRIBUTES)) {
    const v = el.getAttribute(attr);
    if (v !== null) params.set(key, v);
  }
  if (!params.has('play')) params.set('play', el.hasAttribute('autoplay') ? '1' : '0');
  const max = el.getAttribute('max-length');
  const problems = [];
  if (max !== null && !params.has('sweepFactor')) {
    const trainLength = readState(`?${params}`).trainLength;
    const factor = Number(max) / trainLength;
    if (SCHEMA.sweepFactor.values.includes(factor)) params.set('sweepFactor', String(factor));
    else problems.push(`max-length: ${JSON.stringify(max.slice(0, 40))} is not train-length times ${SCHEMA.sweepFactor.values.join(', ')}; ` +
      `using ${trainLength * SCHEMA.sweepFactor.def}`);
  }
  problems.push(...rejected(`?${params}`).map((m) => m.replace(/^(\w+):/, (_, key) => `${kebab(key)}:`)));
  return { state: readState(`?${params}`), problems };
}

// Outside a browser (Node, server-side rendering) importing this module defines nothing and throws nothing.
const ElementBase = globalThis.HTMLElement ?? class {};

export class PosencExplorer extends ElementBase {
  static get observedAttributes() {
    return [...Object.keys(STATE_ATTRIBUTES), 'max-length', 'autoplay'];
  }

  constructor() {
    super();
    this.id_ = nextId++;
    const root = this.attachShadow({ mode: 'open' });
    root.innerHTML = `<div class="bar" part="controls">
        <button class="play ctl" type="button" aria-pressed="false">Play</button>
        <input class="length ctl" type="range" aria-label="sequence length">
        <output class="length-out" aria-live="off"></output>
        <progress class="progress" max="1" value="0" hidden aria-label="training progress"></progress>
        <span class="status" role="status"></span>
      </div>
      <div class="title" part="title" aria-hidden="true"></div>
      <div class="notices" part="notices" role="status" hidden></div>
      <div class="rows" part="rows"></div>
      <div class="legend" part="legend"><span class="ramp-box">attention weight <span class="lo">0</span><span class="ramp"></span><span class="hi">1</span></span>
        <span><span class="dash"></span>training length</span><span>keys: <span class="sw ok"></span>seen in training
        <span class="sw untrained"></span>never trained <span class="sw past"></span>past the learned table</span>
        <span><span class="sw key"></span>dotted: the correct key</span>
        <span><span class="line acc"></span>accuracy <span class="line loss"></span>loss</span></div>
      <div class="foot"><span class="about"></span><a class="open" target="_blank" rel="noopener">open in the explorer</a></div>`;
    adoptStyles(root);
    this.$ = (sel) => root.querySelector(sel);
    this.started = false;
    this.visible = false;
    this.dirty = true;
    this.arrivals = createArrivals(); // the sweep's results at other lengths: drawn at most every 100 ms
    this.raf = 0;
    this.wake = createWake(() => this.schedule()); // the loop sleeps until the next length or batch of arrivals
    this.$('.play').addEventListener('click', () => this.setPlay(!this.state.play));
    // the slider moves on the curves' log axis, as the page's do (length-axis.js)
    this.showLength = bindLengthSlider(this.$('.length'), { grid: () => this.timeline.grid(), onLength: (T) => {
      this.setPlay(false);
      this.setLength(T);
    } });
    this.onVisibility = () => this.schedule();
  }

  connectedCallback() {
    this.readAttributes();
    if (this.getAttribute('view') === 'model') return this.startModel();
    this.observer = new IntersectionObserver((entries) => {
      this.visible = entries.some((e) => e.isIntersecting);
      if (this.visible && !this.started) this.start();
      this.schedule();
    });
    this.observer.observe(this);
    document.addEventListener('visibilitychange', this.onVisibility);
  }

  /**
   * view="model": "Your model, past its context" instead of the sweep, with the model at model-url (its files'
   * addresses, space-separated) fetched once the element is on screen, or a drop zone and suggestions without one.
   */
  startModel() {
    if (this.lmView) return;
    const root = this.shadowRoot;
    const host = document.createElement('div');
    host.setAttribute('part', 'model');
    root.replaceChildren(host);
    adoptStyles(root);
    this.lmView = true; // (being loaded: the view's code is fetched only by an element that shows it)
    import('../app/lm/view.js').then(({ createLmView }) => {
      if (!this.lmView) return; // removed meanwhile
      this.lmView = createLmView(host, { state: this.state, api: sharedApi, styleRoot: root, onNotice: (m) => console.warn(`<posenc-explorer> ${m}`) });
    }, (e) => { host.textContent = `The model view could not be loaded: ${e.message}`; });
  }

  disconnectedCallback() {
    this.lmView?.destroy?.();
    this.lmView = null;
    this.observer?.disconnect();
    document.removeEventListener('visibilitychange', this.onVisibility);
    cancelAnimationFrame(this.raf);
    this.raf = 0;
    this.wake.cancel();
    this.controller?.terminate();
    this.offNotice?.();
    this.started = false;
    this.controller = this.client = this.trainer = null;
  }

  attributeChangedCallback(name) {
    if (!this.state) return; // not connected yet
    const before = this.state;
    this.readAttributes();
    if (this.lmView) {
      // The model view keeps one state object, which its own controls change: only the attribute that changed is
      // taken from the attributes, so the reader's other settings stay (and the element's properties show them).
      const next = this.state, key = STATE_ATTRIBUTES[name];
      this.state = before;
      if (!key || JSON.stringify(next[key]) === JSON.stringify(before[key])) return;
      if (this.lmView === true) before[key] = next[key]; // its code is loading: the view starts from this state
      else if (key === 'modelUrl') { if (next.modelUrl.length) this.lmView.loadUrls(next.modelUrl, { keepContext: this.hasAttribute('lm-context') }); }
      else this.lmView.setSettings({ [key]: next[key] });
      return;
    }
    if (!this.started) return;
    if (experimentChanged(before, this.state)) this.experiment();
    else this.requestAll();
    this.syncControls();
  }

  /** The element's state as URL parameters of the full explorer. */
  get search() {
    return toSearch(this.state);
  }

  readAttributes() {
    const { state, problems } = stateFromAttributes(this);
    for (const p of problems) console.warn(`<posenc-explorer> ${p}`);
    this.state = state;
    this.timeline = createTimeline(this.state);
    this.$('.rows')?.style.setProperty('--rows', String(state.encodings.length)); // its height before it starts (styles.js)
    this.updateLink();
  }

  /** The "open in the explorer" link (settings may change until the element starts: see configure()). */
  updateLink() {
    const a = this.$('.open');
    if (!a) return; // view="model" has no link
    const search = toSearch(this.state);
    const link = this.started && explorerLink(search); // decided when the element starts (see configure())
    a.hidden = !link;
    if (link) a.href = link;
  }

  async start() {
    this.started = true;
    this.updateLink();
    this.status('Loading the WebAssembly module…');
    let workers, loadOptions;
    try {
      this.pe = await sharedApi();
    } catch (e) {
      this.status(`Could not load the WebAssembly module: ${e.message}`, true);
      return;
    }
    try {
      [workers, loadOptions] = await Promise.all([sweepPool(), sharedLoadOptions()]);
    } catch (e) {
      this.status(`Could not start the sweep: ${e.message}`, true);
      return;
    }
    if (!this.started) return; // removed meanwhile
    this.status('');
    this.offNotice = onNotice((message) => this.notice(message));
    this.controller = createController({
      pe: this.pe, state: () => this.state, timeline: () => this.timeline,
      workers, prefix: `e${this.id_}/`, checkpoints: checkpointSource(), loadOptions,
      onUpdate: (enc, kind, length) => {
        if (this.arrivals.urgent(kind, length, this.state.length)) {
          this.dirty = true;
          this.schedule();
        } else if (!this.raf) {
          this.wake.in(this.arrivals.msToDue(performance.now())); // a frame in the slot it is due in
        }
      },
      onSource: (enc, label) => this.sweepView.setSource(enc, label),
      onProgress: () => { // (two Workers send about 100 a second: shown once per arrival slot)
        this.progressDirty = true;
        this.arrivals.wait();
        if (!this.raf) this.wake.in(this.arrivals.msToDue(performance.now()));
      },
      onNotice: (message) => this.notice(message),
      onError: (enc, message) => this.status(`${enc ? NAMES[enc] : 'sweep'}: ${message}`, true),
    });
    ({ client: this.client, trainer: this.trainer } = this.controller);
    this.sweepView = createSweepView(this.$('.rows'), this.client, { legend: false }); // one legend under the rows
    this.experiment();
  }

  experiment() {
    fixUp(this.state);
    this.sweepView.build(this.state.encodings);
    this.syncControls();
    this.controller.begin();
    this.dirty = true;
    this.schedule();
  }

  requestAll() {
    if (this.controller) {
      this.controller.requestAll();
      const why = this.controller.scalingError();
      if (why) this.status(`rope-scaling ignored: ${why}`, true);
    }
    this.dirty = true;
    this.schedule();
  }

  progress() {
    const runs = [...this.trainer.runs.values()];
    const training = runs.filter((r) => r.status === 'training' || r.status === 'queued');
    const bar = this.$('.progress');
    bar.hidden = training.length === 0;
    if (training.length) {
      bar.value = runs.reduce((sum, r) => sum + (r.status === 'training' || r.status === 'queued' ? (r.step / (r.steps || 1)) : 1), 0) / runs.length;
      this.status(`training ${training.length} of ${runs.length} models in your browser…`);
    } else {
      const failed = runs.find((r) => r.status === 'error');
      this.status(failed ? `training failed: ${failed.error}` : '', !!failed);
    }
    for (const [enc, r] of this.trainer.runs) if (r.status === 'training') this.sweepView.setSource(enc, sourceLabel('training', r));
  }

  /** A lasting message (why checkpoints or Workers are not used); each said once, kept above the rows. */
  notice(message) {
    const box = this.$('.notices');
    if ([...box.children].some((p) => p.textContent === message)) return;
    const p = document.createElement('p');
    p.textContent = message;
    box.append(p);
    box.hidden = false;
  }

  status(text, error = false) {
    const el = this.$('.status');
    el.textContent = text;
    el.classList.toggle('error', error);
  }

  syncControls() {
    const s = this.state;
    const label = lengthLabel(s);
    this.$('.length-out').value = label;
    this.showLength(s.length, label);
    this.$('.play').textContent = s.play ? 'Pause' : 'Play';
    this.$('.play').setAttribute('aria-pressed', String(s.play));
    // the title, as the GIF export writes it: the length and its multiple of the training length
    const x = s.length / s.trainLength;
    this.$('.title').textContent = `T = ${s.length} · ${Number.isInteger(x) ? x : x.toFixed(2)}× the training length`;
    this.$('.about').textContent = `${taskName(s.task)} task · trained at T=${s.trainLength} · ${s.layers} layers, ${s.heads} heads, d=${s.dModel}` +
      (s.ropeScaling !== 'none' && s.encodings.includes('rope') ? ` · RoPE with ${s.ropeScaling} scaling ×${s.factor}` : '');
  }

  setPlay(on) {
    this.state.play = on;
    if (on) this.timeline.rewindIfAtEnd();
    this.syncControls();
    this.schedule();
  }

  setLength(T) {
    if (this.timeline.set(T)) {
      this.controller?.lengthChanged();
      this.syncControls();
      this.dirty = true;
    }
    this.schedule();
  }

  /** Run the frame loop while there is something to do and the element can be seen. */
  schedule() {
    const active = this.started && this.visible && !document.hidden;
    this.wake.cancel();
    if (active && !this.raf) this.raf = requestAnimationFrame((now) => this.frame(now));
  }

  frame(now) {
    this.raf = 0;
    if (!this.sweepView || !this.visible || document.hidden) return; // paused; IntersectionObserver / visibilitychange restart it
    if (this.timeline.tick(now)) {
      this.controller?.lengthChanged();
      this.syncControls();
      this.dirty = true;
    }
    if (this.dirty || this.arrivals.due(now)) {
      this.dirty = false;
      this.arrivals.drawn(now);
      this.sweepView.draw({ ...this.state }, this.timeline.grid());
      if (this.progressDirty && this.trainer) {
        this.progressDirty = false;
        this.progress();
      }
    }
    // Asleep until the playhead next changes the length or what waits is due (no frame per vsync while playing).
    this.wake.in(Math.min(this.timeline.msToNextChange(now), this.arrivals.msToDue(now)), now);
  }

  /** Computed results so far, per encoding (what the element draws), for tests and export. */
  results() {
    return Object.fromEntries(this.state.encodings.map((enc) => [enc, this.client?.results(enc).map((r) => ({
      length: r.length, loss: r.loss, accuracy: r.accuracy, trainedLength: r.trainedLength })) ?? []]));
  }
}

// Properties reflect attributes (trainLength <-> train-length). Reading gives the validated value (the default
// when the attribute is absent or not allowed); setting writes the attribute.
const VIEWS = ['sweep', 'maps', 'curves', 'model'];
const toAttribute = (v) => (Array.isArray(v) ? v.join(',') : typeof v === 'boolean' ? (v ? '1' : '0') : String(v));
function reflect(name, get, set) {
  Object.defineProperty(PosencExplorer.prototype, name, { configurable: true, enumerable: true, get, set });
}
for (const key of Object.keys(SCHEMA)) {
  reflect(key, function () {
    return (this.state ?? stateFromAttributes(this).state)[key];
  }, function (v) {
    this.setAttribute(kebab(key), toAttribute(v));
  });
}
for (const flag of ['autoplay', 'compact']) {
  reflect(flag, function () {
    return this.hasAttribute(flag);
  }, function (on) {
    this.toggleAttribute(flag, !!on);
  });
}
reflect('maxLength', function () {
  const s = this.state ?? stateFromAttributes(this).state;
  return s.trainLength * s.sweepFactor;
}, function (v) {
  this.setAttribute('max-length', String(v));
});
reflect('view', function () {
  const v = this.getAttribute('view');
  return VIEWS.includes(v) ? v : 'sweep';
}, function (v) {
  this.setAttribute('view', String(v));
});
reflect('controls', function () {
  return this.getAttribute('controls') ?? 'auto';
}, function (v) {
  this.setAttribute('controls', String(v));
});

if (globalThis.customElements && !customElements.get('posenc-explorer')) customElements.define('posenc-explorer', PosencExplorer);
