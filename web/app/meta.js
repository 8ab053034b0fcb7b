// Names and one-line explanations of each encoding, in plain words, for the
// sweep rows and the training panel: the registry's labels and blurbs (cpp/src/encodings.cpp).
import { ENCODING_INFO } from '../lib/index.js';

export const NAMES = Object.freeze(Object.fromEntries(ENCODING_INFO.map((e) => [e.name, e.label])));
export const BLURBS = Object.freeze(Object.fromEntries(ENCODING_INFO.map((e) => [e.name, e.blurb])));
