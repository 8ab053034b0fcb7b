// The element's styles, scoped to its shadow root. Theme colours are custom
// properties on :host, so a host page can override any of them
// (posenc-explorer { --accent: rebeccapurple }).
export const CSS = `
:host { display: block; font: 14px/1.4 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--fg); background: var(--bg);
  border: 1px solid var(--grid); border-radius: 6px; padding: .6rem .8rem; container-type: inline-size;
  --fg: #1b1b1f; --bg: #fdfdfc; --muted: #5f5f66; --accent: #2b6cb0; --loss: #c2410c; --train: #b7791f; --ok: #2f855a;
  --untrained: #dd8a0b; --past: #c53030; --masked: #e4e4e0; --grid: rgba(90,90,100,.3); }
:host([hidden]) { display: none; }
@media (prefers-color-scheme: dark) {
  :host(:not([theme=light])) { --fg: #e8e8ea; --bg: #141417; --muted: #a0a0aa; --accent: #7fb2ee; --loss: #fb923c; --train: #f6c453;
    --ok: #68d391; --untrained: #f6ad55; --past: #fc8181; --masked: #26262c; --grid: rgba(160,160,170,.3); }
}
:host([theme=dark]) { --fg: #e8e8ea; --bg: #141417; --muted: #a0a0aa; --accent: #7fb2ee; --loss: #fb923c; --train: #f6c453;
  --ok: #68d391; --untrained: #f6ad55; --past: #fc8181; --masked: #26262c; --grid: rgba(160,160,170,.3); }
.bar { display: flex; flex-wrap: wrap; align-items: center; gap: .5rem; margin-bottom: .3rem; }
:host([controls=none]) .bar .ctl, :host([controls="0"]) .bar .ctl, :host([controls=false]) .bar .ctl { display: none; }
button { font: inherit; min-width: 5em; padding: .15rem .6rem; border: 1px solid var(--muted); border-radius: 4px; background: transparent;
  color: var(--fg); cursor: pointer; font-weight: 600; }
input[type=range] { flex: 1 1 10rem; accent-color: var(--accent); }
output { font-variant-numeric: tabular-nums; min-width: 13em; }
.status { color: var(--muted); font-size: .8rem; }
.status.error { color: var(--past); }
.notices { font-size: .78rem; color: var(--muted); border-left: 3px solid var(--past); padding: 2px 8px; margin: 4px 0; }
.notices p { margin: 2px 0; overflow-wrap: anywhere; }
[hidden] { display: none !important; }
progress { width: 8em; accent-color: var(--accent); }
progress[hidden] { display: none; }
.sweep-row { display: grid; grid-template-columns: minmax(120px, 1fr) 2.4fr minmax(150px, 1.2fr); gap: .6rem; align-items: start;
  padding: .35rem 0; border-top: 1px solid var(--grid); }
.row-label strong { font-size: .95rem; } .row-label .source { font-size: .72rem; color: var(--muted); }
.blurb { margin: .1rem 0; font-size: .76rem; color: var(--muted); }
.measured { margin: .1rem 0; font-size: .76rem; }
.notice { margin: .15rem 0; font-size: .8rem; font-style: italic; }
.maps-cell { min-width: 0; } .readout { margin: .1rem 0; font-size: .76rem; min-height: 2.3em; font-variant-numeric: tabular-nums; }
canvas.maps { cursor: crosshair; } canvas.maps:focus-visible { outline: 2px solid var(--accent); outline-offset: 2px; }
canvas.row-bars { height: 110px; }
canvas { display: block; width: 100%; }
canvas.maps { height: 196px; } canvas.curve { height: 150px; }
:host([view=maps]) .sweep-row { grid-template-areas: "label" "maps"; grid-template-columns: 1fr; } :host([view=maps]) canvas.curve { display: none; }
:host([view=curves]) .sweep-row { grid-template-areas: "label" "curve"; grid-template-columns: 1fr; } :host([view=curves]) .maps-cell { display: none; }
/* The GIF export's layout: a title with the length and its multiple, each row's name and accuracy in large type
   over its maps and curve, one legend for every map; nothing that refers outside the element. */
output.length-out { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); } /* (the title says it) */
.title { font-size: 1.15rem; font-weight: 700; font-variant-numeric: tabular-nums; margin: .1rem 0 .2rem; }
.sweep-row { grid-template-columns: minmax(0, 1fr) minmax(0, 1.4fr); grid-template-areas: "label label" "maps curve"; gap: .1rem .6rem; }
.row-label { grid-area: label; display: flex; align-items: baseline; flex-wrap: wrap; gap: 0 .5rem; }
.row-label .big-acc { margin-left: auto; font-size: 1.5rem; font-weight: 700; font-variant-numeric: tabular-nums; line-height: 1.1; }
.row-label .blurb, .row-label .offline, .row-label .measured, .row-label .notice, .row-label .scaling { flex-basis: 100%; }
.blurb, .offline, .measured, .notice:empty, .readout[data-hint] { display: none; }
.maps-cell { grid-area: maps; } canvas.curve { grid-area: curve; align-self: center; }
.readout { min-height: 0; }
.legend { display: flex; flex-wrap: wrap; gap: .2rem .9rem; align-items: center; font-size: .72rem; color: var(--muted);
  border-top: 1px solid var(--grid); padding-top: .3rem; margin-top: .2rem; }
.legend .ramp { display: inline-block; width: 5em; height: .6em; margin: 0 .25em; vertical-align: middle;
  background: linear-gradient(90deg, #440154, #3b528b 25%, #21918c 50%, #5ec962 75%, #fde725); }
.legend .dash { display: inline-block; width: 1.4em; margin-right: .3em; vertical-align: middle; border-top: 2px dashed var(--train); }
.legend .sw { display: inline-block; width: .8em; height: .5em; margin: 0 .2em 0 .4em; vertical-align: middle; }
.legend .sw.key { width: 1.4em; height: .5em; background: #3b1c5a; border-top: 2px dotted rgba(255,255,255,.85); border-bottom: 2px dotted rgba(255,255,255,.85); }
.legend .sw.ok { background: var(--ok); } .legend .sw.untrained { background: var(--untrained); } .legend .sw.past { background: var(--past); }
.legend .line { display: inline-block; width: 1.3em; margin: 0 .25em 0 .4em; vertical-align: middle; border-top: 2px solid var(--accent); }
.legend .line.loss { border-top: 2px dashed var(--loss); }
/* Before the rows are built, the element takes about the height they will need (--rows is set from the encodings),
   so one further down a page is still off screen at load and does not start until it is scrolled to. */
.rows:empty { min-height: calc(var(--rows, 1) * 230px); }
.foot { display: flex; justify-content: space-between; flex-wrap: wrap; gap: .5rem; font-size: .72rem; color: var(--muted); margin-top: .3rem; }
.foot a { color: var(--accent); }
@container (max-width: 560px) {
  .sweep-row { grid-template-columns: minmax(0, 1.15fr) minmax(0, 1fr); }
  canvas.maps { height: 170px; } canvas.curve { height: 130px; }
  output { min-width: 0; font-size: .85em; }
}
`;
