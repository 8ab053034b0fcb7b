// The parts of d3 the pages use, bundled into web/vendor/d3.js by
// scripts/build-vendor.js so the pages need no import map (an inline script,
// which a strict Content-Security-Policy forbids).
export { interpolateViridis, interpolateRdBu, interpolateMagma, schemeTableau10 } from 'd3-scale-chromatic';
export { select } from 'd3-selection';
export { scaleLog, scaleLinear, scaleOrdinal, scaleBand, scaleSequential } from 'd3-scale';
export { axisBottom, axisLeft } from 'd3-axis';
export { line, area } from 'd3-shape';
