// One colour per encoding, the same in every figure that draws a line per encoding (the hero, lost in the middle):
// 12 distinguishable colours (Tableau 10 + 2), in registry order.
export const PALETTE = ['#4e79a7', '#f28e2b', '#e15759', '#76b7b2', '#59a14f', '#edc948', '#b07aa1', '#ff9da7', '#9c755f', '#7b4fc9', '#17becf', '#8c564b'];

/** {encoding: colour} for the registry's encodings, in their order. */
export const encodingColours = (encodings) => Object.fromEntries(encodings.map((e, i) => [e, PALETTE[i % PALETTE.length]]));
