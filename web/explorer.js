// <posenc-explorer>, at the same place as in the package (dist/explorer.js),
// so embed snippets made by a development server work too.
export * from './component/posenc-explorer.js';
