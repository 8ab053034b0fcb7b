// The .wasm builds as base64 strings inside the JavaScript, for the builds
// that must not fetch anything (dist/posenc.single.js, dist/standalone.html).
// Only meaningful when bundled: scripts/dist.js provides the posenc-inline:
// modules.
import simd from 'posenc-inline:wasm/simd';
import scalar from 'posenc-inline:wasm/scalar';
import { simdSupported } from './loader.js';

export const decodeBase64 = (b64) => Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));

/** The bytes of the build loadPosenc would pick for `build` ('auto' | 'simd' | 'scalar'). */
export function inlineWasm(build = 'auto') {
  const flavour = build === 'scalar' || (build === 'auto' && !simdSupported()) ? 'scalar' : 'simd';
  return decodeBase64(flavour === 'simd' ? simd : scalar);
}
