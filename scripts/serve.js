// `npm start`: serves the explorer (web/) and the browser packages it
// imports, with the right MIME types for .wasm and .mjs, on localhost.
import http from 'node:http';
import sirv from 'sirv';
import { existsSync, readdirSync } from 'node:fs';

const root = new URL('..', import.meta.url).pathname;
const port = Number(process.env.PORT ?? 8080);
const host = process.env.HOST ?? '127.0.0.1';

// Strict: scripts only from this origin, wasm compiled but never eval'd JS, no
// plugins, no inline script. The page, the component and the module all run
// under it (tests/browser/csp.test.js).
export const CSP = ["default-src 'self'", "script-src 'self' 'wasm-unsafe-eval'", "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:", "object-src 'none'", "base-uri 'none'", "form-action 'self'"].join('; ');

const headers = (res) => {
  res.setHeader('Content-Security-Policy', CSP);
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Cache-Control', 'no-cache');
};
const web = sirv(`${root}web`, { dev: true, setHeaders: headers, extensions: ['html'] });
const modules = sirv(`${root}node_modules`, { dev: true, setHeaders: headers });
// The built package and the examples that use it (examples/blog-post.html).
const mounts = ['dist', 'examples'].map((dir) => [`/${dir}/`, sirv(`${root}${dir}`, { dev: true, setHeaders: headers, extensions: ['html'] })]);

export function createServer() {
  return http.createServer((req, res) => {
    if (req.url.startsWith('/node_modules/')) {
      req.url = req.url.slice('/node_modules'.length);
      return modules(req, res, () => notFound(res));
    }
    for (const [prefix, serve] of mounts) {
      if (!req.url.startsWith(prefix)) continue;
      req.url = req.url.slice(prefix.length - 1);
      return serve(req, res, () => notFound(res));
    }
    if (req.url === '/' || req.url.startsWith('/?')) {
      res.writeHead(302, { Location: `/app/${req.url.slice(1)}` });
      return res.end();
    }
    if (req.url.split('?')[0] === '/checkpoints/index.json' && !existsSync(`${root}web/checkpoints/index.json`)) {
      // The shipped checkpoints the page may load (an empty list when there are none yet).
      const dir = `${root}web/checkpoints`;
      const files = existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith('.ckpt')).sort() : [];
      res.setHeader('Content-Type', 'application/json');
      headers(res);
      return res.end(JSON.stringify(files));
    }
    web(req, res, () => notFound(res));
  });
}

function notFound(res) {
  res.statusCode = 404;
  headers(res);
  res.end('not found');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const server = createServer();
  server.on('error', (e) => {
    console.error(e.code === 'EADDRINUSE' ? `posenc: port ${port} is in use; try PORT=8081 npm start` : e.message);
    process.exit(1);
  });
  server.listen(port, host, () => {
    const base = `http://${host === '0.0.0.0' ? 'localhost' : host}:${port}`;
    console.log(`posenc explorer: ${base}/`);
    console.log(`  embed page:    ${base}/embed.html?encodings=rope,alibi&autoplay=1`);
    console.log(`  sample post:   ${base}/examples/blog-post.html`);
  });
}
