// The published package's name and version, as package.json states them: the embed snippets load the element from
// the package on a public CDN at this version. Written by `node scripts/readme-lists.js --write`, which also checks it
// (tests/js/readme-registry.test.js); do not edit.
export const PACKAGE = Object.freeze({ name: 'posenc', version: '0.1.0' });
