// The explorer: wires state (state.js, the URL), the sweep Worker (sweep-client.js),
// the training Workers (trainer.js) and the views. The main thread only draws.
import { loadPosenc, ENCODINGS, TASKS } from '../lib/index.js';
import { interpolateViridis } from '../vendor/d3.js';
import { readState, writeState, coerce, fixUp, SCHEMA, ROPE_SCALINGS } from './shared/state.js';
import { lutFor, clearCssCache } from './shared/heatmap.js';
import { createSweepView } from './lab/sweep-view.js';
import { drawMapsCanvas } from './lab/maps.js';
import { createController, EXPERIMENT_KEYS as EXPERIMENT, lengthLabel } from './lab/controller.js';
import { createTimeline } from './lab/timeline.js';
import { createTrainView } from './lab/train-view.js';
import { createPerf } from './shared/perf.js';
import { createArrivals, createWake } from './lab/arrivals.js';
import { attachExports, exportView } from './shared/export.js';
import { createSweepExporter } from './lab/sweep-export.js';
import { sweepExportHandlers, explainMissingFormats } from './lab/sweep-export-ui.js';
import { NAMES, taskName, TASK_PHRASES } from './shared/meta.js';
import { createHero } from './story/hero.js';
import { createEvaluations } from './lab/evaluations.js';
import { bindLengthSlider, nearestOnAxis } from './shared/length-axis.js';
import { shippedSweep, shippedScaledRuns, storySteps, contrastPicks } from './story/story.js';
import { yardstick } from './lab/row-words.js';
import { taskInfo, floorOf, floorNear, tasksOf } from './shared/results-words.js';
import { EXPERIMENT as SETTINGS } from './shared/experiment.js';
import { embedSnippets } from './lab/embed-snippet.js';
import { drawSinusoid } from './encodings/sinusoid.js';
import { drawClocks, drawOffsetCurve } from './encodings/rope.js';
import { drawAlibi } from './encodings/alibi.js';
import { drawT5 } from './encodings/t5.js';
import { drawSpectrum } from './rope/spectrum-plot.js';
import { scalingWords } from './lab/rope-figure.js';
import { SCALING_LABELS, SCALING_SLIDERS } from './rope/rope-scaling.js';
import { createRetrieval } from './story/retrieval.js';
import { renderLiterature } from './story/literature-view.js';
import { loadResults, headerWords, rowWords } from './shared/claims.js';
import { loadCurves, shippedCurve } from './lab/shipped-curves.js';
import { createYourRope } from './rope/your-rope.js';

const $ = (sel) => document.querySelector(sel);
const state = readState();
const reducedMotion = matchMedia('(prefers-reduced-motion: reduce)').matches;
if (reducedMotion && !new URLSearchParams(location.search).has('play')) state.play = false;

// ---------- lengths of the sweep ----------
const timeline = createTimeline(state);
const { maxLength, grid } = timeline;


// ---------- theme ----------
function applyTheme() {
  document.documentElement.dataset.theme = state.theme;
}
applyTheme();

let pe = null;
let dirty = true;
let controller, client, sweepView, trainer, trainView, perf, hero;
// Every figure of a model at a length, for the hero, the steps, the lab and the training panel (evaluations.js)
const evaluations = createEvaluations();
let urlTimer = 0;
const saveUrl = () => {
  clearTimeout(urlTimer);
  urlTimer = setTimeout(() => {
    writeState(state);
    updateEmbed();
  }, 150);
};

// "Embed this sweep": snippets for the current state, kept current whether the panel is open or not (filling them only
// on its toggle event, which fires after the panel opens, left them empty for a moment: read then, they were blank)
function updateEmbed() {
  const panel = $('details.embed-this');
  if (!panel) return;
  const { component, iframe } = embedSnippets(state, new URL('../', location.href), { controls: panel.querySelector('input').checked });
  panel.querySelector('.embed-component').value = component;
  panel.querySelector('.embed-iframe').value = iframe;
}

const requestSweep = (enc) => controller.requestSweep(enc);
const requestAll = () => controller.requestAll();

// ---------- controls ----------
function fillSelect(name, options) {
  const sel = document.querySelector(`select[name=${name}]`);
  sel.replaceChildren(...options.map(([value, label]) => new Option(label, String(value))));
  sel.value = String(state[name]);
}

function syncControls() {
  fillSelect('layer', [[0, 'auto'], ...Array.from({ length: state.layers }, (_, l) => [l + 1, `${l + 1}`])]);
  fillSelect('head', [[0, 'all'], ...Array.from({ length: state.heads }, (_, h) => [h + 1, `${h + 1}`])]);
  document.querySelector('select[name=head]').disabled = state.layer === 0;
  fillSelect('task', TASKS.map((t) => [t, taskName(t)]));
  fillSelect('ropeScaling', ROPE_SCALINGS.map((t) => [t, SCALING_LABELS[t]]));
  for (const [name, { min, max }] of Object.entries(SCALING_SLIDERS)) Object.assign(document.querySelector(`input[name=${name}]`), { min, max });
  for (const el of document.querySelectorAll('input[name], select[name]')) {
    if (!(el.name in SCHEMA) || el.name === 'layer' || el.name === 'head' || el.name === 'task') continue;
    if (el.type === 'checkbox') el.checked = !!state[el.name];
    else el.value = String(state[el.name]);
    const out = el.parentElement.querySelector('output');
    if (out) out.value = el.value;
  }
  updateLengthLabel();
  for (const l of document.querySelectorAll('[data-for]')) l.hidden = l.dataset.for !== state.ropeScaling;
  showPlay();
  $('#perf-readout').hidden = !state.perf;
  perf.visible = state.perf;
}

// ---------- the first screen: the hero figure and the story ----------
function lede() {
  const n = state.encodings.length, words = ['', 'One', 'Two', 'Three', 'Four', 'Five', 'Six', 'Seven', 'Eight', 'Nine', 'Ten', 'Eleven', 'Twelve'];
  const p = $('.lede');
  p.replaceChildren(`${words[n] ?? n} tiny transformer${n > 1 ? 's' : ''}, each telling position a different way, learned to ${TASK_PHRASES[state.task] ?? taskName(state.task)} of `);
  const sw = document.createElement('span');
  sw.className = 'train-swatch';
  sw.textContent = `${state.trainLength} tokens`;
  p.append(sw, '. How well does each do on longer inputs, and where does its attention look? Drag along the chart, or follow the steps.');
}

// Shipped measurements apply only to the shipped models' setting (same training length and shape).
const shippedMatches = (r) => r && r.config.trainLength === state.trainLength && r.config.model.layers === state.layers &&
  r.config.model.heads === state.heads && r.config.model.dModel === state.dModel;

// The encodings whose maps the hero shows: the reader's picks, or none picked, the data's contrast (story.js).
let autoPicks = [];
const picksOf = (s) => (s.picks.length ? s.picks : autoPicks.filter((e) => s.encodings.includes(e)).slice(0, 4).concat(autoPicks.length ? [] : s.encodings.slice(0, 4)));
const heroState = (s = state) => ({ ...s, picks: picksOf(s) });

function heroData() {
  const ok = shippedMatches(shippedResults) && tasksOf(shippedResults).includes(state.task);
  autoPicks = ok ? contrastPicks(shippedSweep(shippedResults, state.task), state.trainLength, state.encodings) : [];
  hero.build(heroState());
  const info = ok ? taskInfo(shippedResults, state.task) : null, fl = info ? floorOf(info) : null;
  // a row's line is the shipped sweep while its model is (or is about to be) the shipped checkpoint
  const shippedModel = (enc) => ['checkpoint', 'untrained', undefined].includes(trainer?.runs.get(enc)?.status);
  // the floor at each measured length (the best of chance and the task's floors there), as the story's words use it
  const points = info ? shippedResults.config.evalLengths.map((L) => [L, floorOf(info, L)]) : [];
  const varies = points.some(([, f]) => f.accuracy !== fl.accuracy);
  evaluations.setShipped({ sweep: ok ? shippedSweep(shippedResults, state.task) : {}, scaledRuns: ok ? shippedScaledRuns(shippedResults, state.task) : [], sequences: shippedResults?.config?.evaluation?.sequences,
    isShipped: shippedModel });
  hero.setFloor(fl ? { accuracy: fl.accuracy, name: varies ? points[0][1].accuracyName : fl.accuracyName, points: varies ? points.map(([L, f]) => [L, f.accuracy]) : null } : null);
}

function pick(enc) {
  const now = picksOf(state), has = now.includes(enc);
  state.picks = has ? now.filter((e) => e !== enc) : [...now, enc].slice(-4);
  if (!state.picks.length) state.picks = [enc];
  saveUrl();
  hero.build(heroState());
  invalidate();
}

const nearestLength = (L) => nearestOnAxis(grid(), L);

let steps = [];
function buildStory() {
  steps = shippedMatches(shippedResults) && tasksOf(shippedResults).includes(state.task)
    ? storySteps(shippedResults, state.task, NAMES, state.encodings) : [];
  const ol = $('#story .story-steps');
  ol.replaceChildren(...steps.map((st, i) => {
    const li = document.createElement('li');
    const b = document.createElement('button');
    b.type = 'button';
    b.textContent = st.title;
    b.setAttribute('aria-pressed', String(state.step === i + 1));
    b.addEventListener('click', () => applyStep(i + 1));
    li.append(b);
    return li;
  }));
  $('#story').hidden = !steps.length;
  showStep();
}
function showStep() {
  const st = steps[state.step - 1];
  $('#story .story-text').textContent = st ? st.text : (steps.length ? 'Pick a step: each one sets the view and says what the shipped models measured there.' : '');
  // on a narrow screen the steps sit far under the chart: the step's words are also shown under the chart's legend, so
  // a step that brings the chart on screen keeps its words in sight (style.css; the story's own text is the one read out)
  const withChart = $('#hero .hero-step');
  withChart.textContent = st ? `${state.step}. ${st.title}: ${st.text}` : '';
  withChart.hidden = !st;
  $('#story').classList.toggle('text-with-chart', !!st);
  [...document.querySelectorAll('#story .story-steps button')].forEach((b, i) => b.setAttribute('aria-pressed', String(state.step === i + 1)));
}
function applyStep(n) {
  const st = steps[n - 1];
  if (!st) return;
  state.step = n;
  setPlay(false);
  state.picks = st.view.picks.filter((e) => state.encodings.includes(e));
  state.ropeScaling = st.view.ropeScaling ?? 'none';
  if (st.view.factor) state.factor = st.view.factor;
  state.layer = 0; // auto: each model's head that best marks the answer
  fixUp(state);
  syncControls();
  hero.build(heroState());
  redrawSpectrum();
  requestAll();
  setLength(st.view.length);
  showStep();
  saveUrl();
  invalidate();
  // the chart the step talks about, on screen: on a phone the steps sit under the chart and its maps, out of its sight
  const b = $('#hero canvas.hero-chart').getBoundingClientRect();
  if (b.top < 0 || b.bottom > innerHeight) $('#hero .hero-controls').scrollIntoView({ block: 'start', behavior: reducedMotion ? 'auto' : 'smooth' });
}

// The length bars (the first screen's, and the lab's, which stays at the top of the screen while its rows are on it):
// a play button and a slider on the charts' log axis each, one state.
let sliders = [];
function updateLengthLabel() {
  const label = lengthLabel(state);
  for (const o of document.querySelectorAll('.length-bar .length-out')) o.value = label;
  for (const show of sliders) show(state.length, label);
}
function showPlay() {
  for (const b of document.querySelectorAll('.length-bar .play')) {
    b.textContent = state.play ? 'Pause' : 'Play';
    b.setAttribute('aria-pressed', String(state.play));
  }
}

function setLength(T) {
  if (timeline.set(T)) lengthChanged();
}
function lengthChanged() {
  controller?.lengthChanged();
  updateLengthLabel();
  saveUrl();
  invalidate();
}

function setPlay(on) {
  state.play = on;
  if (on) timeline.rewindIfAtEnd();
  showPlay();
  saveUrl();
  requestFrame();
}

const encodingViews = () => {
  drawSinusoid(pe, $('#sinusoid'), state);
  drawClocks(pe, $('#rope canvas.clocks'), state.ropePos, $('#rope .clocks-notice'));
  drawAlibi(pe, $('#alibi .grid'), state.alibiHeads, $('#alibi .notice'));
};

function redrawSpectrum() {
  const sc = controller.validScaling();
  const scalingError = controller.scalingError();
  const model = controller.ropeModel();
  const info = drawSpectrum(pe, $('#rope-scaling canvas.spectrum'), { headDim: model.headDim, base: model.base, trainLength: state.trainLength,
    maxLength: maxLength(), scaling: sc }, $('#rope-scaling .spectrum-notice'));
  spectrumData = { ...info, scaling: sc, model };
  sweepView.setScaling('rope', sc ? scalingWords(state) : '');
  $('#scaling-measured').textContent = scalingError ? `This setting is not valid: ${scalingError}` : '';
  requestSweep('rope');
  invalidate();
}
let spectrumData = null;

function onControl(name, el, apply = false) {
  if (EXPERIMENT.includes(name) && !apply) return; // the experiment form is applied by "Retrain all"
  const raw = el.type === 'checkbox' ? el.checked : el.value;
  state[name] = coerce(name, raw);
  const out = el.parentElement.querySelector('output');
  if (out) out.value = String(state[name]);
  if (EXPERIMENT.includes(name)) return;
  fixUp(state);
  saveUrl();
  switch (name) {
    case 'speed': break;
    case 'layer': case 'head':
      document.querySelector('select[name=head]').disabled = state.layer === 0;
      client && requestAll(); invalidate(); break;
    case 'sweepFactor': syncControls(); setLength(state.length); requestAll(); redrawSpectrum(); break;
    case 'ropeScaling': case 'factor': case 'betaFast': case 'betaSlow': case 'lowFreq': case 'highFreq':
      for (const l of document.querySelectorAll('[data-for]')) l.hidden = l.dataset.for !== state.ropeScaling;
      redrawSpectrum();
      break;
    case 'theme': applyTheme(); clearCssCache(); liveKey = null; sweepView.draw({ ...state }, grid(), true); hero.draw(heroState(), grid(), true); redrawStatic(); break;
    case 'perf': $('#perf-readout').hidden = !state.perf; perf.visible = state.perf; break;
    default: encodingViews();
  }
}

function redrawStatic() {
  encodingViews();
  drawOffsetCurve(pe, $('#rope canvas.offset'), $('#rope .offset-notice'));
  drawT5(pe, $('#t5 canvas'), $('#t5 .notice'));
  redrawSpectrum();
  yourRope?.draw();
  lmView?.draw();
  retrieval?.redraw();
  trainer && [...trainer.runs].forEach(([enc, r]) => trainView.update(enc, r));
  invalidate();
}

function bindControls() {
  const experiment = $('#experiment');
  for (const el of document.querySelectorAll('input[name], select[name]')) {
    if (!(el.name in SCHEMA)) continue;
    el.addEventListener(el.tagName === 'SELECT' || el.type === 'checkbox' || el.type === 'number' ? 'change' : 'input', () => onControl(el.name, el));
  }
  experiment.addEventListener('submit', (ev) => {
    ev.preventDefault();
    for (const name of EXPERIMENT) onControl(name, experiment.elements[name], true);
    fixUp(state);
    writeState(state);
    startExperiment({ retrain: true });
  });
  $('#stop-all').addEventListener('click', () => trainer.stopAll());
  // The length goes through the timeline, which snaps it and redraws only if it changed (storing it first
  // left the maps and the label at the old length). Moving a slider pauses, like the arrow keys.
  for (const b of document.querySelectorAll('.length-bar .play')) b.addEventListener('click', () => setPlay(!state.play));
  sliders = [...document.querySelectorAll('.length-bar input.length')].map((input) => bindLengthSlider(input, { grid,
    onLength: (L) => { if (state.play) setPlay(false); setLength(L); } }));
  updateLengthLabel();
  updateEmbed();
  $('details.embed-this input').addEventListener('change', updateEmbed);
  for (const t of document.querySelectorAll('details.embed-this textarea')) t.addEventListener('focus', () => t.select());
  // encodings shown
  const box = document.createElement('fieldset');
  box.className = 'controls encodings';
  box.innerHTML = '<legend>rows</legend>';
  for (const enc of ENCODINGS) {
    const l = document.createElement('label');
    l.innerHTML = `<input type="checkbox" value="${enc}"> ${NAMES[enc]}`;
    const cb = l.querySelector('input');
    cb.checked = state.encodings.includes(enc);
    cb.addEventListener('change', () => {
      const chosen = [...box.querySelectorAll('input:checked')].map((c) => c.value);
      state.encodings = coerce('encodings', chosen.length ? chosen : [enc]);
      if (!chosen.length) cb.checked = true;
      fixUp(state);
      saveUrl();
      sweepView.build(state.encodings);
      hero.build(heroState());
      buildStory();
      requestAll();
      invalidate();
    });
    box.append(l);
  }
  $('#sweep .keys').before(box);
  // keyboard: space plays/pauses, arrows step the length (unless a control has focus)
  document.addEventListener('keydown', (ev) => {
    const tag = ev.target.tagName;
    if (ev.altKey || ev.ctrlKey || ev.metaKey || ['INPUT', 'SELECT', 'TEXTAREA', 'BUTTON'].includes(tag)) return;
    const step = grid()[0];
    if (ev.key === ' ' || ev.key === 'k') setPlay(!state.play);
    else if (ev.key === 'ArrowRight' || ev.key === '.') { setPlay(false); setLength(state.length + step); }
    else if (ev.key === 'ArrowLeft' || ev.key === ',') { setPlay(false); setLength(state.length - step); }
    else if (ev.key === 'Home') { setPlay(false); setLength(0); }
    else if (ev.key === 'End') { setPlay(false); setLength(maxLength()); }
    else return;
    ev.preventDefault();
  });
  window.addEventListener('resize', () => { invalidate(); redrawStatic(); });
}

// ---------- words about the shipped measurements (shared/claims.js) ----------
let shippedResults = null;
function showClaims() {
  $('#measured-claims').textContent = headerWords(shippedResults, state.task);
  // the rows' words compare each score against the task's floor at its length (results.json tasks[task]; at a
  // length the shipped sweep did not measure, the floor at the nearest measured length below it, and they say so)
  sweepView.setYardstick((task) => {
    if (!shippedResults || !tasksOf(shippedResults).includes(task)) return null;
    const info = taskInfo(shippedResults, task);
    return yardstick(info, (L) => floorNear(info, L));
  });
  sweepView.setOfflineWords((enc) => rowWords(shippedResults, state.task, enc));
}

// ---------- experiment ----------
function startExperiment({ retrain = false } = {}) {
  syncControls();
  lede();
  sweepView.build(state.encodings);
  hero.build(heroState());
  if (shippedResults) { heroData(); buildStory(); }
  if (shippedResults) showClaims();
  trainView.build(state.encodings);
  setLength(state.length);
  controller.begin({ retrain });
  redrawSpectrum();
}

// ---------- frame loop ----------
// A frame is requested only when there is something to draw: at once for what the reader waits for (invalidate),
// and otherwise when the playhead next changes the length or a batch of background arrivals is due. An idle page
// (paused, nothing arriving) runs no frames; a playing one sleeps between lengths (each frame costs Chromium's
// lifecycle and commit even when nothing changed, dozens of times a second).
const arrivals = createArrivals(); // the sweep's results at other lengths: drawn at most every 100 ms
let liveKey = null, frameQueued = false;
const wake = createWake(requestFrame);
function requestFrame() {
  if (frameQueued) return;
  frameQueued = true;
  wake.cancel();
  requestAnimationFrame(frame);
}
// A background arrival: a frame in the slot it is due in (none of its own).
function arrived() {
  if (!frameQueued) wake.in(arrivals.msToDue(performance.now()));
}
function invalidate() {
  dirty = true;
  requestFrame();
}
function frame(now) {
  frameQueued = false;
  if (!sweepView) return; // (not set up yet: main() asks for a frame when it is)
  const t0 = performance.now();
  if (timeline.tick(now)) lengthChanged();
  if (dirty || arrivals.due(now)) {
    dirty = false;
    arrivals.drawn(now);
    const s = { ...state };
    const live = $('#rope-scaling canvas.rope-live'), liveWidth = live.clientWidth; // read before the rows' DOM writes (no forced layout)
    hero.draw(heroState(s), grid());
    sweepView.draw(s, grid());
    trainView.refreshVerdicts();
    const r = client.get('rope', s.length), key = `${r?.gen}|${r?.length}|${s.length}|${s.trainLength}|${liveWidth}|${r?.bitmaps.length}|${evaluations.key('rope')}`;
    const ev = r ? evaluations.at('rope', r.length) : null; // (the page's one number for RoPE at that length)
    if (key !== liveKey) drawMapsCanvas(live, r, s, 220, ev ? { accuracy: ev.accuracy } : {}, liveWidth); // (only when what it shows changed)
    liveKey = key;
  }
  perf.frame(now, performance.now() - t0);
  wake.in(dirty ? 0 : Math.min(timeline.msToNextChange(now), arrivals.msToDue(now)), now);
}

// ---------- export data ----------
let shippedCurves = null; // the shipped checkpoints' training curves, once the training panel loaded them
function dataFor(view) {
  const s = { ...state };
  switch (view) {
    case 'sweep':
      // the live sweep's results, each with the sequences it rests on; `shown`: every figure the page draws (evaluations.js)
      return { state: s, lengths: grid(), encodings: Object.fromEntries(state.encodings.map((enc) => [enc,
        client.results(enc).map((r) => ({ length: r.length, loss: r.loss, accuracy: r.accuracy, sequences: r.sequences, trainedLength: r.trainedLength,
          positionStatus: Array.from(r.status) }))])),
        shown: Object.fromEntries(state.encodings.map((enc) => [enc, evaluations.series(enc).map((r) => ({ length: r.length, loss: r.loss,
          accuracy: r.accuracy, sequences: r.sequences, measured: r.measured }))])) };
    case 'train':
      // a row loaded from a shipped checkpoint: the loss its offline training run recorded, as the panel draws it
      return { state: s, runs: Object.fromEntries([...trainer.runs].map(([enc, r]) => {
        const shipped = r.status === 'checkpoint' && !r.losses.length ? shippedCurve(shippedCurves, state.task, enc) : null;
        return [enc, { status: r.status, step: r.step, steps: r.steps, accuracy: r.accuracy, loss: shipped?.points ?? r.losses,
          ...(shipped ? { lossFrom: 'the shipped checkpoint\'s training run', heldOutCurve: shipped.heldOut } : {}),
          learned: r.learned, stepsToTarget: r.stepsToTarget ?? shipped?.stepsToTarget ?? null, heldOut: r.heldOut }];
      })) };
    // RoPE's accuracy as the page shows it (evaluations.js): measured where the shipped run applies, else live, with its count
    case 'rope-scaling': return { state: s, ...spectrumData, rope: evaluations.series('rope').map((r) => ({ length: r.length, accuracy: r.accuracy, loss: r.loss,
      sequences: r.sequences, measured: r.measured })) };
    case 'sinusoid': return { length: s.sinLength, dim: s.sinDim, values: Array.from(pe.sinusoidal({ length: s.sinLength, dim: s.sinDim })) };
    case 'rope': return { position: s.ropePos, invFreq: Array.from(pe.ropeFrequencies({ dim: 32 }).invFreq) };
    case 'alibi': return { heads: s.alibiHeads, slopes: Array.from(pe.alibiSlopes(s.alibiHeads)) };
    case 't5': {
      const rel = Array.from({ length: 321 }, (_, i) => i - 160);
      return { relative: rel, bidirectional: Array.from(pe.t5Bucket(rel)), causal: Array.from(pe.t5Bucket(rel, { bidirectional: false })) };
    }
    case 'retrieval': return retrieval?.data() ?? null;
    case 'your-rope': return yourRope?.data();
    case 'your-model': return lmView?.data();
    default: return {};
  }
}
let retrieval = null;
let yourRope = null;
let lmView = null;

async function main() {
  // The hero figure first: the shipped sweep needs no wasm, so it is drawn while the module loads.
  hero = createHero($('#hero'), { evaluations, encodingsAll: ENCODINGS, onPick: pick,
    onLength: (L) => { if (state.play) setPlay(false); setLength(nearestLength(L)); } });
  lede();
  hero.build(heroState());
  const results = loadResults().then((r) => {
    shippedResults = r;
    renderLiterature($('#literature .literature-list'), r);
    heroData();
    hero.draw(heroState(), grid());
    return r;
  });
  try {
    pe = await loadPosenc();
  } catch (e) {
    $('#status').textContent = `Could not load the WebAssembly module: ${e.message}`;
    $('#status').classList.add('error');
    return;
  }
  $('#status').textContent = '';
  $('#build').textContent = `wasm build: ${pe.build} (${pe.simdArch})`;
  $('#train-batch').textContent = String(SETTINGS.batch);
  perf = createPerf($('#perf-readout'), () => `· cached maps ${client.cachedCount()} · training ${trainer.busy() ? 'busy' : 'idle'}`);
  trainView = createTrainView($('#train-rows'), { onStop: (enc) => trainer.stop(enc), onRetrain: (enc) => trainer.retrainOne(enc) });
  trainView.setVerdict((enc) => evaluations.verdict(enc, state.task, state.trainLength));
  controller = createController({
    pe, state: () => state, timeline: () => timeline,
    onUpdate: (enc, kind, length) => {
      // the RoPE figures follow the loaded model's own base and head dim
      if (enc === 'rope' && kind === 'ready' && spectrumData && JSON.stringify(controller.ropeModel()) !== JSON.stringify(spectrumData.model)) redrawSpectrum();
      return arrivals.urgent(kind, length, state.length) ? invalidate() : arrived();
    },
    onSource: (enc, label) => { sweepView.setSource(enc, label); invalidate(); },
    onProgress: (enc, r) => trainView.update(enc, r),
    onNotice: (message) => { $('#status').textContent = message; },
    onError: (enc, message) => { $('#status').textContent = `${enc ? NAMES[enc] : 'sweep'}: ${message}`; },
  });
  ({ client, trainer } = controller);
  evaluations.setClient(client);
  sweepView = createSweepView($('#sweep-rows'), client, { onVisible: () => invalidate(), evaluations });
  hero.setClient(client);
  yourRope = createYourRope(pe, $('#your-rope'), state, { onChange: saveUrl });
  // "Your model, past its context": its code is fetched when the section comes near the screen (a reader who never
  // scrolls there pays nothing for it)
  new IntersectionObserver((entries, seen) => {
    if (!entries.some((e) => e.isIntersecting)) return;
    seen.disconnect();
    import('./lm/view.js').then(({ createLmView }) => {
      lmView = createLmView($('#your-model .lm-host'), { state, onChange: saveUrl, api: () => Promise.resolve(pe),
        onNotice: (message) => { $('#status').textContent = message; } });
      if (window.posenc) window.posenc.lmView = lmView;
    }, (e) => { $('#your-model .lm-host').textContent = `This part of the page could not be loaded: ${e.message}`; });
  }, { rootMargin: '600px' }).observe($('#your-model'));
  bindControls();
  const sweepExport = createSweepExporter({ client, trainer, state, grid, view: controller.viewOf, lut: lutFor(interpolateViridis),
    style: () => getComputedStyle(document.documentElement), evaluations });
  attachExports(dataFor, { sweep: sweepExportHandlers(sweepExport) });
  explainMissingFormats($('.export[data-view=sweep]'));
  startExperiment();
  redrawStatic();
  shippedResults = await results;
  showClaims();
  heroData();
  buildStory();
  trainView.setShippedInfo((enc) => (shippedMatches(shippedResults) ? shippedResults.runs.find((r) => r.task === state.task && r.encoding === enc &&
    r.seed === 0 && (r.scaling ?? 'none') === 'none' && !r.variant && !r.finetune) ?? null : null));
  trainer && [...trainer.runs].forEach(([enc, r]) => trainView.update(enc, r));
  // The shipped checkpoints' training curves (the panel draws a checkpoint row's recorded curve): fetched when the
  // training panel comes near the screen
  new IntersectionObserver((entries, seen) => {
    if (!entries.some((e) => e.isIntersecting)) return;
    seen.disconnect();
    loadCurves().then((curves) => {
      if (!curves) return;
      shippedCurves = curves;
      trainView.setShippedCurve((enc) => shippedCurve(curves, state.task, enc));
      [...trainer.runs].forEach(([enc, r]) => trainView.update(enc, r));
    });
  }, { rootMargin: '600px' }).observe($('#train'));
  invalidate();
  retrieval = createRetrieval($('#retrieval'), state, { encodingsAll: ENCODINGS, onChange: saveUrl });
  retrieval.setResults(shippedResults);
  window.posenc = { state, client, trainer, controller, evaluations, perf, grid, setLength, setPlay, dataFor, exportSweep: sweepExport.run, lmView,
    /** Draw the hero and every row now, on screen or not (rows off screen otherwise wait until they come into view). */
    drawAll: () => { hero.draw(heroState(), grid()); sweepView.draw({ ...state }, grid(), true); },
    exportView: (id, format) => exportView(document.getElementById(id), format, () => dataFor(id)) };
  document.body.dataset.ready = 'true';
  requestFrame();
}

main();
