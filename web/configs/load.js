// Fetches a shipped config.json by id (a URL relative to this module, so the page, the dist/ build and a
// user's bundle all find the files).
import { SHIPPED_IDS } from './index.js';

/** The config.json object of a shipped model. */
export async function loadShippedConfig(id) {
  if (!SHIPPED_IDS.includes(id)) throw new RangeError(`model must be one of ${SHIPPED_IDS.join(', ')} (got ${String(id).slice(0, 40)})`);
  const res = await fetch(new URL(`./${id}.json`, import.meta.url));
  if (!res.ok) throw new Error(`could not load the shipped config ${id} (HTTP ${res.status})`);
  return res.json();
}
