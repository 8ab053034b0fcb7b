// The RoPE scaling that the state's sliders describe, as an HF rope_scaling
// object (or null for none), for the page and <posenc-explorer>.
export function scalingObject(s) {
  const orig = { original_max_position_embeddings: s.trainLength };
  switch (s.ropeScaling) {
    case 'linear': return { rope_type: 'linear', factor: s.factor };
    case 'dynamic': return { rope_type: 'dynamic', factor: s.factor, ...orig, max_position_embeddings: s.trainLength };
    case 'yarn': return { rope_type: 'yarn', factor: s.factor, ...orig, beta_fast: s.betaFast, beta_slow: s.betaSlow };
    case 'llama3': return { rope_type: 'llama3', factor: s.factor, ...orig, low_freq_factor: s.lowFreq, high_freq_factor: s.highFreq };
    default: return null;
  }
}
