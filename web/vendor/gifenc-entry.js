// gifenc, bundled into web/vendor/gifenc.js by scripts/build-dist.js (loaded
// only when a GIF is exported; the pages use no import map).
export { GIFEncoder, quantize, applyPalette } from 'gifenc';
