// The RoPE scaling that the state's sliders describe, as an HF rope_scaling
// object (or null for none), for the page and <posenc-explorer>: the library's
// scalingBlock over the core's table, with the trained length as the context.
import { scalingBlock, ROPE_TYPE_INFO, SCALING_FIELDS } from '../../lib/index.js';

export const scalingObject = (s) => scalingBlock(s.ropeScaling, s, { context: s.trainLength });

/** Each scaling's name for readers ('none', then the core's labels). */
export const SCALING_LABELS = Object.freeze({ none: 'none', ...Object.fromEntries(ROPE_TYPE_INFO.map((t) => [t.name, t.label])) });

/** The page's sliders (state key -> {min, max}), from the core's table. */
export const SCALING_SLIDERS = Object.freeze(Object.fromEntries(SCALING_FIELDS.filter((f) => f.page).map(({ page: p }) => [p.key, { min: p.min, max: p.max }])));
