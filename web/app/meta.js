// Names and one-line explanations of each encoding, in plain words, for the
// sweep rows and the training panel.
export const NAMES = {
  none: 'NoPE', sinusoidal: 'Sinusoidal', learned: 'Learned', t5: 'T5 buckets', alibi: 'ALiBi', rope: 'RoPE', shaw: 'Shaw',
};

export const BLURBS = {
  none: 'No position signal at all. The causal mask alone lets a token count how many came before it.',
  sinusoidal: 'Fixed sines and cosines added to the tokens. Defined at every position, but positions past training give vectors the model never saw.',
  learned: 'One trained vector per position. Past the end of the table there is nothing to look up; here the last row is reused (red strip).',
  t5: 'A learned bias per bucket of distance. Far distances share buckets, so long offsets all look alike.',
  alibi: 'A fixed penalty proportional to distance, steeper in some heads. Attention stays local at any length.',
  rope: 'Rotates queries and keys, so scores depend on the offset only, but angles past training were never seen. Try the scaling sliders in the RoPE section.',
  shaw: 'A learned vector per relative distance, clipped at k: beyond k every offset looks the same.',
};
