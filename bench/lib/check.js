// Correctness of a variant against ours: max |a - b| relative to the
// reference's scale. A variant that disagrees beyond the tolerance, or whose
// output holds a NaN, is void: its time is reported but never compared.

/** {maxErr, scale, tol, ok}: ok when max |a - b| <= tol * max(1, max |ref|) and both are finite. */
export function compare(ref, out, tol) {
  if (!out || out.length !== ref.length) return { ok: false, reason: `length ${out?.length} != ${ref.length}`, tol };
  let maxErr = 0, scale = 1;
  for (let i = 0; i < ref.length; i++) {
    const d = Math.abs(ref[i] - out[i]);
    if (!(d <= maxErr)) maxErr = Number.isNaN(d) ? NaN : d; // a NaN sticks
    if (Number.isNaN(maxErr)) break;
    const r = Math.abs(ref[i]);
    if (r > scale) scale = r;
  }
  const ok = Number.isFinite(maxErr) && maxErr <= tol * scale;
  return { ok, maxErr: Number.isFinite(maxErr) ? +maxErr.toPrecision(3) : String(maxErr), scale: +scale.toPrecision(4), tol };
}

/** The same for a few scalars, each relative to its own magnitude (training: loss, gradient norm, loss after). */
export function compareScalars(ref, out, tol) {
  let maxRel = 0;
  for (let i = 0; i < ref.length; i++) {
    const rel = Math.abs(ref[i] - out[i]) / Math.max(1e-12, Math.abs(ref[i]));
    maxRel = Number.isNaN(rel) ? NaN : Math.max(maxRel, rel);
  }
  return { ok: Number.isFinite(maxRel) && maxRel <= tol, maxRelErr: +maxRel.toPrecision(3), tol, values: Array.from(out, (x) => +x.toPrecision(7)) };
}
